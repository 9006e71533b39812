"""The ANTA catalog loads with ANTA's own loader; the subcommands run end to end."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest
import yaml

from racksmith.plan import plan_file
from racksmith.switches import SwitchConfigError, anta_catalog
from racksmith.switches.cli import register

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples/seed-reference.yml"


def test_catalog_loads_with_anta(tmp_path: Path) -> None:
    catalog_mod = pytest.importorskip("anta.catalog")
    catalog = anta_catalog(plan_file(SEED))
    path = tmp_path / "catalog.yml"
    path.write_text(yaml.safe_dump(catalog, sort_keys=False))
    loaded = catalog_mod.AntaCatalog.parse(path)
    names = {t.test.__name__ for t in loaded.tests}
    assert {
        "VerifyMlagStatus",
        "VerifyMlagInterfaces",
        "VerifyMlagConfigSanity",
        "VerifyPortChannels",
        "VerifyInterfacesStatus",
    } <= names
    status = [t for t in loaded.tests if t.test.__name__ == "VerifyInterfacesStatus"]
    by_switch = {t.inputs.filters.tags.pop(): {i.name for i in t.inputs.interfaces} for t in status}
    assert by_switch["switch1"] >= {"Ethernet1", "Ethernet3", "Ethernet47", "Port-Channel1000"}
    assert set(by_switch) == {"switch1", "switch2"}


def test_catalog_refuses_a_spec_without_eos() -> None:
    plan = plan_file(SEED)
    nvue_only = dataclasses.replace(
        plan, switch_pairs=tuple(dataclasses.replace(p, vendor="nvue") for p in plan.switch_pairs)
    )
    with pytest.raises(SwitchConfigError, match="Arista EOS switches only"):
        anta_catalog(nvue_only)


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


def test_subcommands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("cabling", str(SEED), "-o", str(tmp_path / "cab")) == 0
    assert (tmp_path / "cab" / "cabling.svg").exists()
    assert run("switch-configs", str(SEED), "-o", str(tmp_path / "cfg")) == 0
    assert run("switch-configs", str(SEED), "-o", str(tmp_path / "nv"), "--vendor", "nvue") == 0
    assert (tmp_path / "nv" / "switch2.yaml").exists()
    intended = tmp_path / "cfg" / "switch1.cfg"
    assert run("switch-diff", str(SEED), "switch1", "--running", str(intended)) == 0
    drifted = tmp_path / "drift.cfg"
    drifted.write_text(intended.read_text().replace("   mlag 1000\n", ""))
    capsys.readouterr()
    assert run("switch-diff", str(SEED), "switch1", "--running", str(drifted)) == 1
    assert "  mlag 1000" in capsys.readouterr().out
    assert run("anta-catalog", str(SEED), "-o", str(tmp_path / "anta" / "catalog.yml")) == 0
    with pytest.raises(SwitchConfigError, match="cannot read the running config"):
        run("switch-diff", str(SEED), "switch1", "--running", str(tmp_path / "missing.cfg"))
