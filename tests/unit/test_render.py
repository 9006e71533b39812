"""The rendered inventory: deterministic, complete, and free of secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from racksmith.cli import main
from racksmith.plan import plan_file
from racksmith.render import HEADER, render_inventory

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples" / "seed-reference.yml"


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_render_is_byte_identical(tmp_path: Path) -> None:
    assert main(["render", str(SEED), "-o", str(tmp_path / "a")]) == 0
    assert main(["render", str(SEED), "-o", str(tmp_path / "b")]) == 0
    a, b = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert a == b
    assert set(a) == {
        "hosts.yml",
        "group_vars/all.yml",
        "host_vars/dgx-1-1.yml",
        "host_vars/dgx-1-2.yml",
        "host_vars/flashblade.yml",
        "host_vars/head.yml",
        "host_vars/switch1.yml",
        "host_vars/switch2.yml",
        "configs/switch1.cfg",
        "configs/switch2.cfg",
    }


def test_rerender_writes_nothing(tmp_path: Path) -> None:
    plan = plan_file(SEED)
    assert render_inventory(plan, tmp_path)
    assert render_inventory(plan, tmp_path) == []


def test_stale_hosts_are_removed_but_foreign_files_kept(tmp_path: Path) -> None:
    render_inventory(plan_file(SEED), tmp_path)
    stale = tmp_path / "host_vars" / "dgx-old.yml"
    stale.write_text(HEADER + "racksmith_role: gpu\n")
    mine = tmp_path / "host_vars" / "hand-written.yml"
    mine.write_text("foo: bar\n")
    changed = render_inventory(plan_file(SEED), tmp_path)
    assert changed == [stale]
    assert not stale.exists()
    assert mine.exists()


def test_no_secret_in_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NGC_API_KEY", "ngc-very-secret")
    render_inventory(plan_file(SEED), tmp_path)
    text = "".join(p.read_text() for p in tmp_path.rglob("*.yml"))
    assert "ngc-very-secret" not in text
    fb = yaml.safe_load((tmp_path / "host_vars" / "flashblade.yml").read_text())
    assert fb["flashblade_api_token"] == "{{ vault_flashblade_api_token }}"
    switch = yaml.safe_load((tmp_path / "host_vars" / "switch1.yml").read_text())
    assert switch["switches_password"] == "{{ vault_switch_password }}"
    assert switch["ansible_password"] == "{{ switches_password }}"
    head = yaml.safe_load((tmp_path / "host_vars" / "head.yml").read_text())
    assert head["head_storage_idrac"]["password"] == "{{ vault_idrac_password }}"
    common = yaml.safe_load((tmp_path / "group_vars" / "all.yml").read_text())
    assert common["containers_registry_password"] == (
        "{{ lookup('ansible.builtin.env', 'NGC_API_KEY') }}"
    )


def test_inventory_groups_and_vars(tmp_path: Path) -> None:
    render_inventory(plan_file(SEED), tmp_path)
    hosts = yaml.safe_load((tmp_path / "hosts.yml").read_text())
    children = hosts["all"]["children"]
    assert set(children["gpu"]["hosts"]) == {"dgx-1-1", "dgx-1-2"}
    assert set(children["switches"]["hosts"]) == {"switch1", "switch2"}
    assert set(children["slurm_controller"]["hosts"]) == {"head"}
    node = yaml.safe_load((tmp_path / "host_vars" / "dgx-1-1.yml").read_text())
    assert node["ansible_host"] == "10.21.112.120"
    assert [r["dest"] for r in node["nfs_client_routes"]] == [
        "10.21.115.6",
        "10.21.115.7",
        "10.21.115.8",
        "10.21.115.9",
    ]
    fb = yaml.safe_load((tmp_path / "host_vars" / "flashblade.yml").read_text())
    assert fb["flashblade_filesystems"][0]["size"] == "1T"
    assert fb["flashblade_subnet"] == {
        "name": "net3",
        "prefix": "10.21.115.0/24",
        "gateway": "10.21.115.1",
        "vlan": 2115,
        "mtu": 1500,
        "lag": "uplink",
    }
    head = yaml.safe_load((tmp_path / "host_vars" / "head.yml").read_text())
    assert head["head_storage_xfs"] == {
        "su_kib": 64,
        "sw": 10,
        "sunit_blocks": 16,
        "swidth_blocks": 160,
    }
    common = yaml.safe_load((tmp_path / "group_vars" / "all.yml").read_text())
    assert common["slurm_node_lines"][0] == (
        "NodeName=dgx-1-1 NodeAddr=10.21.112.120 CPUs=80 RealMemory=512000 "
        "Gres=gpu:v100:8 State=UNKNOWN"
    )
    assert common["slurm_partition_lines"][1].startswith(
        "PartitionName=debug Nodes=ALL MaxTime=02:00:00"
    )
