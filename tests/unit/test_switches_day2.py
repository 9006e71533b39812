"""Day-2 remediation: hier_config for EOS, structural YAML diff for NVUE."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from hier_config import HConfig, Platform, get_hconfig

from racksmith.plan import Plan, plan_file
from racksmith.switches import remediation
from racksmith.switches.day2 import eos_hconfig, eos_remediation, nvue_tree
from racksmith.switches.render import intended_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module", params=["seed-reference.yml", "lab.yml"])
def plan(request: pytest.FixtureRequest) -> Plan:
    return plan_file(ROOT / "examples" / request.param)


def paths(config: HConfig) -> set[tuple[str, ...]]:
    """Every line with its parents: the config's content, independent of line order."""
    return {tuple(child.path()) for child in config.all_children()}


def switches(plan: Plan) -> list[str]:
    return [s.name for p in plan.switch_pairs for s in p.switches]


def test_eos_from_empty_remediation_yields_the_intended_config(plan: Plan) -> None:
    for name in switches(plan):
        intended = intended_config(plan, name, "eos")[1]
        empty = get_hconfig(Platform.ARISTA_EOS, "")
        fix = eos_remediation(intended, "")
        assert len(fix.dump_simple()) > 50
        # hier_config's own prediction of the config after the remediation is applied.
        assert empty.future(fix) == eos_hconfig(intended)
        assert paths(empty.future(fix)) == paths(eos_hconfig(intended))


def test_eos_intended_against_itself_needs_nothing(plan: Plan) -> None:
    for name in switches(plan):
        intended = intended_config(plan, name, "eos")[1]
        assert remediation(plan, name, intended, vendor="eos") == ""


def test_eos_drift_gives_the_commands_that_undo_it() -> None:
    plan = plan_file(ROOT / "examples/seed-reference.yml")
    intended = intended_config(plan, "switch1", "eos")[1]
    running = (
        intended.replace("   mlag 2\n", "   mlag 22\n")
        .replace("   description dgx-1-2 em1\n", "")
        .replace("vlan 2112\n   name MGMT\n!\n", "")
        + "interface Ethernet30\n   description rogue\n   switchport access vlan 99\n"
    )
    fix = remediation(plan, "switch1", running, vendor="eos")
    lines = fix.splitlines()
    assert "vlan 2112" in lines
    assert "interface Port-Channel2" in lines and "  mlag 2" in lines
    assert "interface Ethernet4" in lines and "  description dgx-1-2 em1" in lines
    assert "no interface Ethernet30" in lines or "interface Ethernet30" in lines
    future = eos_hconfig(running).future(eos_remediation(intended, running))
    # Lines a remediation adds land after the others; EOS sorts them itself, so compare content.
    assert paths(future) == paths(eos_hconfig(intended))


def test_eos_credentials_are_not_diffed() -> None:
    plan = plan_file(ROOT / "examples/seed-reference.yml")
    intended = intended_config(plan, "switch1", "eos")[1]
    running = intended.replace("{{ switches_password_sha512 }}", "$6$abcdefgh$" + "x" * 86).replace(
        "{{ switches_username }}", "admin"
    )
    assert remediation(plan, "switch1", running, vendor="eos") == ""


# -- NVUE ------------------------------------------------------------------------------------
def apply_nv(tree: dict[str, Any], commands: str) -> dict[str, Any]:
    """A small model of `nv set`/`nv unset` on the YAML tree, to check what the commands do."""
    for line in commands.splitlines():
        if line.startswith("#") or line == "nv config apply -y":
            continue
        words = shlex.split(line)
        verb, path = words[1], words[2:]
        if verb == "unset":
            node = tree
            for key in path[:-1]:
                node = node[key]
            del node[path[-1]]
            continue
        node = tree
        for key in path[:-2]:
            node = node.setdefault(key, {})
        last, word = path[-2], path[-1]
        # `nv set ... member swp48` adds a presence entry to a collection; `nv set ... id 2`
        # sets a leaf. This model tells them apart by what is already there (enough for drift).
        if isinstance(node.get(last), dict):
            node[last][word] = {}
        else:
            node[last] = int(word) if word.isdigit() else word
    return tree


def test_nvue_intended_against_itself_needs_nothing(plan: Plan) -> None:
    for name in switches(plan):
        intended = intended_config(plan, name, "nvue")[1]
        assert remediation(plan, name, intended, vendor="nvue") == ""


def test_nvue_drift_commands_restore_the_intended_tree() -> None:
    plan = plan_file(ROOT / "examples/seed-reference.yml")
    intended = intended_config(plan, "switch1", "nvue")[1]
    running = (
        intended.replace("            id: 2\n", "            id: 22\n")
        .replace("            swp48: {}\n", "")
        .replace("              access: 2115\n", "              access: 99\n", 1)
        .replace("      mac-address:", "      init-delay: 10\n      mac-address:")
    )
    fix = remediation(plan, "switch1", running, vendor="nvue")
    assert "nv set interface bond2 bond mlag id 2" in fix
    assert "nv set interface peerlink bond member swp48" in fix
    assert "nv set interface bond1 bridge domain br_default access 2115" in fix
    assert "nv unset mlag init-delay" in fix
    assert fix.rstrip().endswith("nv config apply -y")
    assert apply_nv(nvue_tree(running), fix) == nvue_tree(intended)


def test_nvue_reads_nv_config_show_output_with_a_header() -> None:
    plan = plan_file(ROOT / "examples/lab.yml")
    intended = intended_config(plan, "leaf1", "nvue")[1]
    shown = "- header:\n    model: VX\n    version: cumulus-linux 5.9\n" + intended
    assert remediation(plan, "leaf1", shown, vendor="nvue") == ""
