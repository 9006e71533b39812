"""roles/flashblade for real: ansible-playbook against the FlashBlade simulator on loopback.

The simulator runs as its own process (the ``flashblade_sim`` fixture); the role runs through
playbooks/flashblade.yml with an inventory shaped like the one the renderer writes. The
array side of every assertion is read back with py-pure-client, not from the simulator's
files.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from pypureclient import flashblade
from pypureclient.flashblade import FileSystemPatch, FileSystemPost, NetworkInterface, Nfs, NfsPatch

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
INFRA_TEST = REPO / "tests" / "infra" / "test_flashblade.py"
TIB = 1024**4

pytestmark = pytest.mark.filterwarnings("ignore::Warning")

SPEC: dict[str, Any] = {
    "flashblade_subnet": {
        "name": "net3",
        "prefix": "10.21.115.0/24",
        "gateway": "10.21.115.1",
        "vlan": 2115,
        "mtu": 1500,
        "lag": "uplink",
    },
    "flashblade_vips": [{"name": f"nfs{i}", "address": f"10.21.115.{6 + i}"} for i in range(4)],
    "flashblade_filesystems": [
        {
            "name": "nfs0",
            "size": "1T",
            "nfsv3": True,
            "nfsv4_1": False,
            "export_rules": "*(rw,no_root_squash)",
            "fast_remove": False,
            "snapshot_directory": False,
            "hard_limit": False,
        }
    ],
    "flashblade_destroy_filesystems": [],
    "flashblade_allow_shrink": [],
    "flashblade_prune_vips": False,
}


@dataclass
class Run:
    rc: int
    stats: dict[str, int]
    failures: list[str]
    output: str

    @property
    def changed(self) -> int:
        return self.stats.get("changed", -1)


@dataclass
class Array:
    url: str
    token: str
    data_dir: Path
    tmp: Path

    def client(self) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return flashblade.Client(target=self.url, api_token=self.token, verify_ssl=False)

    def fs(self, name: str) -> Any:
        response = self.client().get_file_systems(names=[name])
        assert response.status_code == 200, f"{name}: {response.status_code}"
        return next(iter(response.items))

    def infra_check(self) -> subprocess.CompletedProcess[str]:
        """The reusable day-2 pytest, pointed at the inventory of the last run."""
        env = {
            **os.environ,
            "FB_API_TOKEN": self.token,
            "RACKSMITH_INVENTORY": str(self.tmp / "inventory.yml"),
        }
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(INFRA_TEST)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def run(self, spec: dict[str, Any], *, token: str | None = None, check: bool = False) -> Run:
        host_vars = {
            "ansible_connection": "local",
            "flashblade_url": self.url,
            # Exactly what the renderer writes: the token comes from the environment.
            "flashblade_api_token": "{{ lookup('ansible.builtin.env', 'FB_API_TOKEN') }}",
            **spec,
        }
        inventory = self.tmp / "inventory.yml"
        inventory.write_text(
            yaml.safe_dump({"all": {"children": {"flashblade": {"hosts": {"fb1": host_vars}}}}})
        )
        env = {
            **os.environ,
            "FB_API_TOKEN": token or self.token,
            "ANSIBLE_ROLES_PATH": str(REPO / "roles"),
            "ANSIBLE_STDOUT_CALLBACK": "ansible.builtin.json",
            "ANSIBLE_DEPRECATION_WARNINGS": "false",
            "ANSIBLE_LOCALHOST_WARNING": "false",
            "ANSIBLE_NOCOLOR": "1",
        }
        argv = [
            str(VENV_BIN / "ansible-playbook"),
            "-i",
            str(inventory),
            str(REPO / "playbooks" / "flashblade.yml"),
        ]
        if check:
            argv += ["--check", "--diff"]
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        start = done.stdout.find("{")
        report = json.loads(done.stdout[start:]) if start >= 0 else {}
        failures = [
            str(task["hosts"]["fb1"].get("msg", ""))
            for play in report.get("plays", [])
            for task in play.get("tasks", [])
            if task.get("hosts", {}).get("fb1", {}).get("failed")
        ]
        stats = report.get("stats", {}).get("fb1", {})
        return Run(done.returncode, stats, failures, done.stdout + done.stderr)


@pytest.fixture
def array(flashblade_sim: Any, tmp_path: Path) -> Array:
    sim = flashblade_sim
    return Array(url=sim.url, token=sim.token, data_dir=sim.data_dir, tmp=tmp_path)


def _spec(**changes: Any) -> dict[str, Any]:
    spec = copy.deepcopy(SPEC)
    spec.update(changes)
    return spec


def _with_fs(**changes: Any) -> dict[str, Any]:
    spec = _spec()
    spec["flashblade_filesystems"][0].update(changes)
    return spec


def test_converge_idempotent_update_and_check(array: Array) -> None:
    first = array.run(SPEC)
    assert first.rc == 0, first.output
    assert first.changed >= 1
    client = array.client()
    subnet = next(iter(client.get_subnets(names=["net3"]).items))
    assert (subnet.prefix, subnet.gateway, subnet.vlan, subnet.mtu) == (
        "10.21.115.0/24",
        "10.21.115.1",
        2115,
        1500,
    )
    vips = {i.name: i.address for i in client.get_network_interfaces().items}
    assert vips == {f"nfs{i}": f"10.21.115.{6 + i}" for i in range(4)}
    fs = array.fs("nfs0")
    assert fs.provisioned == TIB
    assert (fs.nfs.v3_enabled, fs.nfs.v4_1_enabled, fs.nfs.rules) == (
        True,
        False,
        "*(rw,no_root_squash)",
    )

    second = array.run(SPEC)
    assert second.rc == 0, second.output
    assert second.changed == 0, "second run must change nothing"

    assert array.infra_check().returncode == 0, "tests/infra/test_flashblade.py agrees"

    updated = _with_fs(size="2T", export_rules="10.99.120.0/24(ro)")
    third = array.run(updated)
    assert third.rc == 0, third.output
    assert third.changed == 1
    fs = array.fs("nfs0")
    assert (fs.provisioned, fs.nfs.rules) == (2 * TIB, "10.99.120.0/24(ro)")
    assert array.run(updated).changed == 0

    # Day 2: someone changes the array by hand; the check names the difference.
    client.patch_file_systems(
        names=["nfs0"], file_system=FileSystemPatch(nfs=NfsPatch(rules="*(rw)"))
    )
    infra = array.infra_check()
    assert infra.returncode != 0
    assert (
        "file system nfs0: export_rules: expected 10.99.120.0/24(ro), found *(rw)" in infra.stdout
    )
    # A dry run reports the repair and makes none.
    dry = array.run(updated, check=True)
    assert (dry.rc, dry.changed) == (0, 1), dry.output
    assert array.fs("nfs0").nfs.rules == "*(rw)"


def test_shrink_refused_unless_allowed_and_never_below_used(array: Array) -> None:
    assert array.run(_with_fs(size="2T")).rc == 0

    refused = array.run(_with_fs(size="1T"))
    assert refused.rc != 0
    message = refused.failures[-1]
    assert "refusing to shrink file system nfs0" in message
    assert "allow_shrink" in message
    assert array.fs("nfs0").provisioned == 2 * TIB, "a refused shrink must leave the size alone"

    # Clients wrote 8 KiB; a shrink to 4 KiB is refused even when shrinking is allowed.
    (array.data_dir / "nfs0").mkdir(exist_ok=True)
    (array.data_dir / "nfs0" / "checkpoint.bin").write_bytes(b"\0" * 8192)
    below_used = array.run(_with_fs(size="4K") | {"flashblade_allow_shrink": ["nfs0"]})
    assert below_used.rc != 0
    assert "8192 bytes are in use" in below_used.failures[-1]
    assert array.fs("nfs0").provisioned == 2 * TIB

    allowed = array.run(_with_fs(size="1T") | {"flashblade_allow_shrink": ["nfs0"]})
    assert allowed.rc == 0, allowed.output
    assert array.fs("nfs0").provisioned == TIB


def test_destroy_only_when_listed_and_never_eradicate(array: Array) -> None:
    assert array.run(SPEC).rc == 0
    client = array.client()
    client.post_file_systems(
        names=["old"],
        file_system=FileSystemPost(provisioned=TIB, nfs=Nfs(v3_enabled=True, rules="*(ro)")),
    )
    # Not in the spec and not listed for destruction: left alone.
    assert array.run(SPEC).rc == 0
    assert array.fs("old").destroyed is False

    conflict = array.run(_spec(flashblade_destroy_filesystems=["nfs0"]))
    assert conflict.rc != 0
    assert "nfs0 is both in filesystems and in destroy_filesystems" in conflict.failures[-1]
    assert array.fs("nfs0").destroyed is False

    destroy = array.run(_spec(flashblade_destroy_filesystems=["old"]))
    assert destroy.rc == 0, destroy.output
    old = array.fs("old")
    assert old.destroyed is True, "destroyed, and still there: never eradicated"
    assert array.run(_spec(flashblade_destroy_filesystems=["old"])).changed == 0


def test_flag_the_module_cannot_change_is_refused(array: Array) -> None:
    assert array.run(SPEC).rc == 0
    refused = array.run(_with_fs(hard_limit=True))
    assert refused.rc != 0
    assert "hard_limit is false on the array but true in the spec" in refused.failures[-1]


def test_vips_pruned_only_when_asked(array: Array) -> None:
    assert array.run(SPEC).rc == 0
    client = array.client()
    client.post_network_interfaces(
        names=["stray"],
        network_interface=NetworkInterface(address="10.21.115.99", services=["data"], type="vip"),
    )
    kept = array.run(SPEC)
    assert kept.rc == 0
    assert "stray" in {i.name for i in array.client().get_network_interfaces().items}
    assert array.run(_spec(flashblade_prune_vips=True), check=True).rc == 0
    infra = array.infra_check()
    assert "expected no VIP outside the spec in subnet net3, found ['stray']" in infra.stdout
    pruned = array.run(_spec(flashblade_prune_vips=True))
    assert pruned.rc == 0, pruned.output
    assert "stray" not in {i.name for i in array.client().get_network_interfaces().items}


def test_wrong_token_is_a_clear_authentication_error(array: Array) -> None:
    run = array.run(SPEC, token="T-not-the-token")
    assert run.rc != 0
    assert "authentication failed" in run.failures[-1]
    assert "rejected the API token" in run.failures[-1]
    assert "T-not-the-token" not in run.output, "the token must never be printed"
    assert array.client().get_file_systems().total_item_count == 0
