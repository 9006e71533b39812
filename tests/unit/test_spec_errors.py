"""Bad input: one line per problem, ``FILE:LINE: field.path: reason``, exit code 2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from racksmith.cli import main

LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?:(?P<path>[\w.\[\]-]+): )?(?P<reason>.+)$")

# (id, text to replace in the seed spec, replacement, field path, reason fragment,
#  a fragment of the line the error must point at)
CASES = [
    (
        "vip-outside-subnet",
        "10.21.115.9]",
        "10.21.116.9]",
        "flashblade.data_vips[3]",
        "outside the data subnet 10.21.115.0/24",
        "data_vips:",
    ),
    (
        "duplicate-address",
        "em2: 10.21.115.114",
        "em2: 10.21.115.120",
        "gpu_nodes[1].em2",
        "already used by dgx-1-1 em1",
        "em2: 10.21.115.120",
    ),
    (
        "duplicate-hostname",
        "- name: dgx-1-2",
        "- name: dgx-1-1",
        "gpu_nodes[1].name",
        "host name 'dgx-1-1' is already used",
        "- name: dgx-1-1\n    gpus: 8\n    gpu_type: v100\n"
        "    cpus: 80\n    memory_mb: 512000\n    mgmt: 10.21.112.121",
    ),
    (
        "em1-equals-em2",
        "em2: 10.21.115.113",
        "em2: 10.21.115.120",
        "gpu_nodes[0].em2",
        "em1 and em2 must differ",
        "em2: 10.21.115.120",
    ),
    (
        "vlan-range",
        "vlan: 2115",
        "vlan: 4095",
        "networks.data.vlan",
        "VLAN 4095 is outside 1-4094",
        "vlan: 4095",
    ),
    (
        "mtu-range",
        "mtu: 1500",
        "mtu: 9500",
        "networks.data.mtu",
        "MTU 9500 is outside 1280-9216",
        "mtu: 9500",
    ),
    (
        "raid-too-few-disks",
        "count: 12, size: 12TB",
        "count: 4, size: 12TB",
        "head_node.storage.disks.count",
        "RAID50 needs at least 6 disks",
        "count: 4",
    ),
    (
        "raid-uneven-spans",
        "count: 12, size: 12TB",
        "count: 13, size: 12TB",
        "head_node.storage.disks.count",
        "do not divide into 2 equal spans",
        "count: 13",
    ),
    (
        "raid-short-spans",
        "    spans: 2\n",
        "    spans: 6\n",
        "head_node.storage.disks.count",
        "each RAID5 span needs at least 3 disks",
        "count: 12",
    ),
    (
        "port-used-twice",
        "em1_port: Ethernet4",
        "em1_port: Ethernet3",
        "gpu_nodes[1].em1_port",
        "port Ethernet3 on switch1 is used twice",
        "em1_port: Ethernet3\n    em2_port: Ethernet4",
    ),
    (
        "bad-size",
        "size: 1T",
        "size: 1 terabyte",
        "flashblade.filesystems[0].size",
        "cannot read size '1 terabyte'",
        "size: 1 terabyte",
    ),
    (
        "nfs-rule-shape",
        'rules: "*(rw,no_root_squash)"',
        'rules: "* rw,no_root_squash"',
        "flashblade.filesystems[0].rules",
        "is not host(options)",
        "rules:",
    ),
    (
        "secret-in-clear",
        "api_token: {vault: vault_flashblade_api_token}",
        "api_token: T-1234-secret",
        "flashblade.api_token",
        "secret given in clear text",
        "api_token:",
    ),
    ("yaml-syntax", "  lag: uplink\n", "  lag: [uplink\n", None, "YAML syntax error", None),
    (
        "unknown-key",
        "  vip_prefix: nfs\n",
        "  vip_prefx: nfs\n",
        "flashblade.vip_prefx",
        "unknown key 'vip_prefx'; did you mean 'vip_prefix'?",
        "vip_prefx",
    ),
    (
        "gateway-outside",
        "gateway: 10.21.115.1",
        "gateway: 10.21.15.1",
        "networks.data.gateway",
        "outside the data subnet",
        "gateway: 10.21.15.1",
    ),
    (
        "ports-count",
        "em1_port: Ethernet3 ",
        "em1_port: Ethernet[3-4] ",
        "gpu_nodes[0].em1_port",
        "2 ports for 1 nodes",
        "em1_port: Ethernet[3-4]",
    ),
    (
        "unknown-uplink-switch",
        "{fm: FM2, switch: switch2, port: Ethernet2}",
        "{fm: FM2, switch: switch3, port: Ethernet2}",
        "flashblade.uplinks[3].switch",
        "unknown switch 'switch3'",
        "switch3",
    ),
    (
        "time-limit",
        'max_time: "2:00:00"',
        'max_time: "two hours"',
        "slurm.partitions[1].max_time",
        "cannot read time limit",
        "two hours",
    ),
]


def run(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    spec = tmp_path / "spec.yml"
    spec.write_text(text)
    code = main(["validate", str(spec)])
    captured = capsys.readouterr()
    return code, captured.err.splitlines()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_gives_one_line_and_exit_2(
    case: tuple, seed_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _id, old, new, path, reason, anchor = case
    assert old in seed_text, f"test case {_id} no longer matches the seed spec"
    text = seed_text.replace(old, new, 1)
    code, lines = run(tmp_path, text, capsys)
    assert code == 2
    assert len(lines) == 1, lines
    match = LINE.match(lines[0])
    assert match, lines[0]
    assert match["file"].endswith("spec.yml")
    assert match["path"] == path
    assert reason in match["reason"]
    if anchor is not None:
        expected_line = text[: text.index(anchor)].count("\n") + 1
        assert int(match["line"]) == expected_line, lines[0]


def test_valid_spec_exits_0(
    seed_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.yml"
    spec.write_text(seed_text)
    assert main(["validate", str(spec)]) == 0
    assert "valid" in capsys.readouterr().out


def test_every_problem_is_reported(
    seed_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = seed_text.replace("vlan: 2115", "vlan: 0").replace("mtu: 1500", "mtu: 100")
    code, lines = run(tmp_path, text, capsys)
    assert code == 2
    assert [LINE.match(line)["path"] for line in lines] == [  # type: ignore[index]
        "networks.data.vlan",
        "networks.data.mtu",
    ]


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nope.yml")]) == 2
    assert "cannot read spec" in capsys.readouterr().err


def test_duplicate_key(seed_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = run(
        tmp_path, seed_text.replace("  lag: uplink\n", "  lag: a\n  lag: b\n"), capsys
    )
    assert code == 2
    assert lines[0].endswith("flashblade.lag: key given twice")


def test_not_a_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = run(tmp_path, "- just\n- a list\n", capsys)
    assert code == 2
    assert "a spec is a YAML mapping" in lines[0]


def test_missing_required_field(
    seed_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = seed_text.replace("  management: 10.21.112.113", "")
    code, lines = run(tmp_path, text, capsys)
    assert code == 2
    parent_line = text[: text.index("flashblade:\n")].count("\n") + 1
    assert lines == [
        f"{tmp_path / 'spec.yml'}:{parent_line}: flashblade.management: required field is missing"
    ]
