"""Cabling plan: CSV/Markdown rows and an SVG with one drawn line per cable."""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from racksmith.plan import Plan, plan_file
from racksmith.switches import write_cabling
from racksmith.switches.cabling import links

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module", params=["seed-reference.yml", "lab.yml"])
def plan(request: pytest.FixtureRequest) -> Plan:
    return plan_file(ROOT / "examples" / request.param)


def test_links_are_every_cable_once(plan: Plan) -> None:
    cables = links(plan)
    members = [m for p in plan.switch_pairs for c in p.port_channels for m in c.members]
    peer = [
        m for p in plan.switch_pairs for c in p.port_channels if c.kind == "peer" for m in c.members
    ]
    # A peer-link cable has a member at each end; every other cable has one.
    assert len(cables) == len(members) - len(peer) // 2
    assert len({(k.switch, k.switch_port) for k in cables}) == len(cables)


def test_write_cabling_files(plan: Plan, tmp_path: Path) -> None:
    paths = write_cabling(plan, tmp_path)
    assert [p.name for p in paths] == ["cabling.csv", "cabling.md", "cabling.svg"]
    rows = list(csv.DictReader((tmp_path / "cabling.csv").open()))
    assert len(rows) == len(links(plan))
    md = (tmp_path / "cabling.md").read_text()
    for row in rows:
        assert f"| {row['device']} | {row['device_port']} | {row['switch']} |" in md


def test_svg_draws_one_labelled_line_per_cable(plan: Plan, tmp_path: Path) -> None:
    write_cabling(plan, tmp_path)
    root = ET.parse(tmp_path / "cabling.svg").getroot()
    assert root.tag == f"{SVG}svg"
    lines = [e for e in root.iter(f"{SVG}line") if e.get("class") == "link"]
    cables = links(plan)
    assert len(lines) == len(cables)
    drawn = {(e.get("data-switch"), e.get("data-switch-port")) for e in lines}
    assert drawn == {(k.switch, k.switch_port) for k in cables}
    labels = [t.text for t in root.iter(f"{SVG}text")]
    for k in cables:
        assert k.switch_port in labels and k.device_port in labels
    boxes = {t.text for t in root.iter(f"{SVG}text")}
    for k in cables:
        assert k.device in boxes and k.switch in boxes


def test_seed_reference_cabling_matches_the_white_paper() -> None:
    rows = {
        (k.device, k.device_port, k.switch)
        for k in links(plan_file(ROOT / "examples/seed-reference.yml"))
    }
    for row in [
        ("dgx-1-1", "em1", "switch1"),
        ("dgx-1-1", "em2", "switch2"),
        ("dgx-1-2", "em1", "switch1"),
        ("dgx-1-2", "em2", "switch2"),
        ("flashblade", "FM1", "switch1"),
        ("flashblade", "FM1", "switch2"),
        ("flashblade", "FM2", "switch1"),
        ("flashblade", "FM2", "switch2"),
    ]:
        assert row in rows
