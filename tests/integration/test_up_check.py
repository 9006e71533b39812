"""``racksmith up`` and ``racksmith check`` end to end, through the real CLI, on the simulator.

The inventory is the one the renderer writes for examples/lab.yml, with the FlashBlade's
address pointed at the simulator (what the lab's connection overlay does); runs use
``--only flashblade``, the stage that needs no lab container.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml
from pypureclient import flashblade
from pypureclient.flashblade import FileSystemPatch, NfsPatch, Subnet

from racksmith.plan import plan_file
from racksmith.render import render_all

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.filterwarnings("ignore::Warning")


class Cli:
    def __init__(self, tmp: Path, token: str) -> None:
        self.env = {**os.environ, "RACKSMITH_STATE": str(tmp / "state"), "FB_API_TOKEN": token}

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "racksmith", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def json(self, *args: str) -> tuple[int, Any]:
        done = self(*args, "--json")
        assert done.stdout.strip(), done.stderr
        return done.returncode, json.loads(done.stdout)


def _inventory(tmp: Path, fb_urls: dict[str, str]) -> Path:
    out = tmp / "inventory"
    render_all(plan_file(REPO / "examples" / "lab.yml"), out)
    template = yaml.safe_load((out / "host_vars" / "fb01.yml").read_text())
    hosts = yaml.safe_load((out / "hosts.yml").read_text())
    hosts["all"]["children"]["flashblade"]["hosts"] = dict.fromkeys(fb_urls)
    (out / "hosts.yml").write_text(yaml.safe_dump(hosts))
    for name, url in fb_urls.items():
        (out / "host_vars" / f"{name}.yml").write_text(
            yaml.safe_dump({**template, "flashblade_url": url})
        )
    return out


def _client(sim: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return flashblade.Client(target=sim.url, api_token=sim.token, verify_ssl=False)


def test_up_converges_then_changes_nothing_and_repairs_drift(
    flashblade_sim: Any, tmp_path: Path
) -> None:
    inventory = _inventory(tmp_path, {"fb01": flashblade_sim.url})
    cli = Cli(tmp_path, flashblade_sim.token)

    rc, first = cli.json("up", str(inventory), "--only", "flashblade")
    assert rc == 0, first
    assert first["hosts"]["fb01"]["changed"] > 0
    assert [s["name"] for s in first["stages"]] == ["flashblade"]
    assert first["verify_exit"] == 0

    rc, second = cli.json("up", str(inventory), "--only", "flashblade")
    assert rc == 0
    assert {h: s["changed"] for h, s in second["hosts"].items()} == {"fb01": 0}
    assert second["stages"][0]["hosts"]["fb01"]["changed"] == 0

    # Three changes by hand on the array.
    client = _client(flashblade_sim)
    widened = client.patch_file_systems(
        names=["nfs0"],
        file_system=FileSystemPatch(nfs=NfsPatch(rules="*(rw,no_root_squash,insecure)")),
    )
    assert widened.status_code == 200
    assert client.delete_network_interfaces(names=["data2"]).status_code == 200
    mtu = client.patch_subnets(names=["data"], subnet=Subnet(mtu=9000))
    assert mtu.status_code == 200

    rc, drift = cli.json("check", str(inventory))
    assert rc == 1, drift
    failed = {r["check"]: r["message"] for r in drift["results"] if r["status"] == "fail"}
    assert failed == {
        "filesystem[nfs0]": "file system nfs0: export_rules: expected *(rw,no_root_squash),"
        " found *(rw,no_root_squash,insecure)",
        "vip[data2]": "expected VIP data2, found ['data0', 'data1', 'data3']",
        "subnet": "subnet data: mtu: expected 1500, found 9000",
    }
    report_dir = tmp_path / "report"
    assert cli("check", str(inventory), "--report-dir", str(report_dir)).returncode == 1
    junit = (report_dir / "report.xml").read_text()
    assert 'failures="3"' in junit
    assert "data2" in (report_dir / "report.html").read_text()

    rc, repair = cli.json("up", str(inventory), "--only", "flashblade")
    assert rc == 0, repair
    assert repair["hosts"]["fb01"]["changed"] >= 2
    rc, clean = cli.json("check", str(inventory))
    assert rc == 0, [r for r in clean["results"] if r["status"] != "pass"]

    rc, history = cli.json("runs")
    assert rc == 0
    assert [run["hosts"]["fb01"]["changed"] > 0 for run in history] == [True, False, True]
    shown = cli("runs", "--show", history[-1]["id"])
    assert shown.returncode == 0
    assert "fb01" in shown.stdout


def test_a_failing_host_does_not_stop_the_others(flashblade_sim: Any, tmp_path: Path) -> None:
    # Nothing listens on loopback port 9: fb02's API calls fail, fb01 goes on.
    inventory = _inventory(tmp_path, {"fb01": flashblade_sim.url, "fb02": "127.0.0.1:9"})
    cli = Cli(tmp_path, flashblade_sim.token)

    rc, summary = cli.json("up", str(inventory), "--only", "flashblade")
    assert rc == 1
    assert summary["hosts"]["fb01"]["failed"] == 0
    assert summary["hosts"]["fb01"]["changed"] > 0
    assert summary["hosts"]["fb02"]["failed"] > 0
    assert {f["host"] for f in summary["failures"]} == {"fb02"}
    assert summary["verify_exit"] == 2, "fb02 cannot be checked: an error, not drift"

    rc, again = cli.json("up", str(inventory), "--only", "flashblade", "--limit", "fb01")
    assert rc == 0
    assert again["hosts"] == {"fb01": again["hosts"]["fb01"]}
    assert again["hosts"]["fb01"]["changed"] == 0


def test_bad_input_is_one_line_and_applies_nothing(flashblade_sim: Any, tmp_path: Path) -> None:
    inventory = _inventory(tmp_path, {"fb01": flashblade_sim.url})
    cli = Cli(tmp_path, flashblade_sim.token)

    unknown = cli("up", str(inventory), "--only", "flashblades")
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == [
        "racksmith: error: --only: unknown stage 'flashblades'; stages are switches, flashblade"
    ]
    missing = cli("check", str(tmp_path / "nowhere.yml"))
    assert missing.returncode == 2
    assert "no such spec or inventory" in missing.stderr
    assert _client(flashblade_sim).get_file_systems().total_item_count == 0
