"""Switch configs: golden files, and the port-channel layout parsed back from rendered text."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from racksmith.plan import Plan, plan_file
from racksmith.switches import SwitchConfigError, render_switch_configs
from racksmith.switches.golden import EXAMPLES, VENDORS, golden_files
from racksmith.switches.render import intended_config

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
REGENERATE = ".venv/bin/python -m racksmith.switches.golden"


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def example(request: pytest.FixtureRequest) -> tuple[str, Plan]:
    return request.param, plan_file(ROOT / EXAMPLES[request.param])


def test_golden_files_match(tmp_path: Path) -> None:
    fresh = golden_files(ROOT, tmp_path)
    assert fresh, "nothing rendered"
    for path in fresh:
        rel = path.relative_to(tmp_path)
        committed = GOLDEN / rel
        assert committed.exists(), f"{rel} has no golden file; run {REGENERATE}"
        assert path.read_text() == committed.read_text(), (
            f"{rel} differs from tests/golden; if the change is intended run {REGENERATE} "
            "and review git diff tests/golden"
        )
    committed = {p.relative_to(GOLDEN) for p in GOLDEN.rglob("*") if p.is_file()}
    stale = committed - {p.relative_to(tmp_path) for p in fresh} - {Path("README.md")}
    assert not stale, f"golden files nothing renders any more: {sorted(map(str, stale))}"


def test_no_credentials_in_rendered_configs(tmp_path: Path) -> None:
    for _, spec in EXAMPLES.items():
        plan = plan_file(ROOT / spec)
        for vendor in VENDORS:
            for path in render_switch_configs(plan, tmp_path / vendor, vendor=vendor):
                text = path.read_text()
                assert "{{ switches_password_sha512 }}" in text or vendor == "nvue"
                for secret in ("vault_switch_password", "RACKSMITH_SWITCH_PASSWORD"):
                    assert secret not in text
                assert not re.search(r"secret (0|sha512 \$6\$)", text)


# -- parse the rendered configs back ---------------------------------------------------------
def eos_channels(text: str) -> tuple[dict[int, list[str]], dict[int, int], list[str]]:
    """(channel-group id -> member ports, Port-Channel id -> mlag id, every interface line)."""
    members: dict[int, list[str]] = defaultdict(list)
    mlag: dict[int, int] = {}
    interfaces: list[str] = []
    current = ""
    for line in text.splitlines():
        if line.startswith("interface "):
            current = line.split()[1]
            interfaces.append(current)
        elif not line.startswith(" "):
            current = ""
        elif found := re.match(r"\s+channel-group (\d+) mode active$", line):
            members[int(found[1])].append(current)
        elif (found := re.match(r"\s+mlag (\d+)$", line)) and current.startswith("Port-Channel"):
            mlag[int(current.removeprefix("Port-Channel"))] = int(found[1])
    return members, mlag, interfaces


def nvue_channels(text: str) -> tuple[dict[str, list[str]], dict[str, int], list[str]]:
    """(bond -> member ports, bond -> MLAG id, every interface key)."""
    tree = yaml.safe_load(text)[0]["set"]["interface"]
    members = {n: list(i["bond"]["member"]) for n, i in tree.items() if "bond" in i}
    mlag = {n: i["bond"]["mlag"]["id"] for n, i in tree.items() if "mlag" in i.get("bond", {})}
    return members, mlag, list(tree)


def test_every_gpu_channel_has_one_member_per_switch_eos(example: tuple[str, Plan]) -> None:
    _, plan = example
    for pair in plan.switch_pairs:
        parsed = {
            s.name: eos_channels(intended_config(plan, s.name, "eos")[1]) for s in pair.switches
        }
        for channel in pair.port_channels:
            per_switch = {name: p[0].get(channel.id, []) for name, p in parsed.items()}
            if channel.kind == "gpu":
                assert all(len(ports) == 1 for ports in per_switch.values()), per_switch
                assert all(p[1][channel.id] == channel.id for p in parsed.values())
            if channel.kind == "flashblade":
                assert sum(len(ports) for ports in per_switch.values()) == 4, per_switch
                assert all(len(ports) == 2 for ports in per_switch.values())
                assert all(p[1][channel.id] == channel.id for p in parsed.values())
            if channel.kind == "peer":
                assert all(channel.id not in p[1] for p in parsed.values()), "peer link has no mlag"


def test_every_gpu_bond_has_one_member_per_switch_nvue(example: tuple[str, Plan]) -> None:
    _, plan = example
    for pair in plan.switch_pairs:
        parsed = {
            s.name: nvue_channels(intended_config(plan, s.name, "nvue")[1]) for s in pair.switches
        }
        for channel in pair.port_channels:
            bond = "peerlink" if channel.kind == "peer" else f"bond{channel.id}"
            counts = [len(p[0][bond]) for p in parsed.values()]
            expected = {"gpu": [1, 1], "flashblade": [2, 2]}.get(channel.kind)
            if expected:
                assert counts == expected, (bond, counts)
                assert all(p[1][bond] == channel.id for p in parsed.values())


@pytest.mark.parametrize("vendor", VENDORS)
def test_no_port_is_used_twice(example: tuple[str, Plan], vendor: str) -> None:
    _, plan = example
    for pair in plan.switch_pairs:
        for switch in pair.switches:
            text = intended_config(plan, switch.name, vendor)[1]
            if vendor == "eos":
                members, _, interfaces = eos_channels(text)
                ports = [p for ps in members.values() for p in ps]
            else:
                bonds, _, interfaces = nvue_channels(text)
                ports = [p for ps in bonds.values() for p in ps]
            assert len(interfaces) == len(set(interfaces)), Counter(interfaces).most_common(3)
            assert len(ports) == len(set(ports)), Counter(ports).most_common(3)
            planned = sum(1 for _ in pair.members_on(switch.name))
            assert len(ports) == planned


def test_eos_config_carries_the_intent() -> None:
    plan = plan_file(ROOT / "examples/seed-reference.yml")
    text = intended_config(plan, "switch1", "eos")[1]
    for line in (
        "hostname switch1",
        "   ip address 10.21.112.2/24",
        "ip route vrf MGMT 0.0.0.0/0 10.21.112.1",
        "vlan 2115",
        "vlan 2112",
        "   trunk group MLAG",
        "   ip address 10.255.252.0/31",
        "   domain-id MLAG_TOR1",
        "   local-interface Vlan4094",
        "   peer-address 10.255.252.1",
        "   peer-link Port-Channel2000",
        "   switchport trunk group MLAG",
        "   description dgx-1-1 em1",
        "   description flashblade FM1",
        "   mlag 1000",
        "   mtu 1500",
    ):
        assert line in text.splitlines(), line


def test_unknown_switch_names_the_known_ones() -> None:
    plan = plan_file(ROOT / "examples/lab.yml")
    with pytest.raises(SwitchConfigError, match="leaf1, leaf2"):
        intended_config(plan, "leaf9")


def test_unknown_vendor_is_refused(tmp_path: Path) -> None:
    plan = plan_file(ROOT / "examples/lab.yml")
    with pytest.raises(SwitchConfigError, match="unknown switch vendor"):
        render_switch_configs(plan, tmp_path, vendor="junos")
