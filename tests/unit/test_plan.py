"""The plan reproduces the reference architectures' figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from racksmith.cli import main
from racksmith.errors import SpecError
from racksmith.loader import spec_from_source
from racksmith.plan import Plan, build_plan, plan_file
from racksmith.source import parse_text

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples" / "seed-reference.yml"
LAB = ROOT / "examples" / "lab.yml"

# The white paper's `ip route` on DGX-1-1, less the kernel's own subnet and default routes.
WHITE_PAPER_ROUTES = [
    "10.21.115.6 dev em1 proto static scope link src 10.21.115.120",
    "10.21.115.7 dev em2 proto static scope link src 10.21.115.113",
    "10.21.115.8 dev em1 proto static scope link src 10.21.115.120",
    "10.21.115.9 dev em2 proto static scope link src 10.21.115.113",
]


def plan_text(text: str) -> Plan:
    source = parse_text(text, "test.yml")
    return build_plan(spec_from_source(source), source)


def test_seed_routes_match_the_white_paper(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(SEED), "dgx-1-1", "--what", "routes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == WHITE_PAPER_ROUTES
    # The per-NIC tables follow: replies from each address leave by its own NIC.
    assert "10.21.115.0/24 dev em2 table 102 proto static scope link src 10.21.115.113" in lines


def test_seed_mounts_one_per_vip(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(SEED), "dgx-1-1", "--what", "mounts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    vips = ["10.21.115.6", "10.21.115.7", "10.21.115.8", "10.21.115.9"]
    for i, vip in enumerate(vips):
        source, path, fstype, options, *_ = lines[i].split()
        assert (source, path, fstype) == (f"{vip}:/nfs0", f"/mnt/nfs{i}", "nfs")
        opts = options.split(",")
        assert {"vers=3", "rsize=524288", "wsize=524288", "hard", "_netdev"} <= set(opts)
        assert "fsc" not in opts
    # and the head node's export over IPoIB
    assert lines[4].startswith("10.21.120.10:/shared /shared nfs ")


def test_seed_rules_and_sysctls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(SEED), "dgx-1-1", "--what", "rules"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "1001:\tfrom 10.21.115.120 lookup 101",
        "1002:\tfrom 10.21.115.113 lookup 102",
    ]
    assert main(["show", str(SEED), "dgx-1-1", "--what", "sysctls"]) == 0
    sysctls = capsys.readouterr().out.splitlines()
    for key in ("arp_ignore = 1", "arp_announce = 2", "arp_filter = 1", "rp_filter = 2"):
        assert f"net.ipv4.conf.all.{key}" in sysctls
        assert f"net.ipv4.conf.em1.{key}" in sysctls


def test_show_unknown_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(SEED), "dgx-9", "--what", "routes"]) == 2
    assert "unknown host 'dgx-9'" in capsys.readouterr().err


def test_vips_alternate_nics() -> None:
    plan = plan_file(SEED)
    assert [v.dev for v in plan.flashblade.vips] == ["em1", "em2", "em1", "em2"]  # type: ignore[union-attr]


def test_head_node_raid50() -> None:
    head = plan_file(SEED).head
    assert head is not None
    g = head.geometry
    assert round(g.usable_tb) == 120
    assert int(g.usable_tib) == 109
    assert (g.xfs_su, g.xfs_sw) == (64 * 1024, 10)
    assert head.exports[0].clients == "10.21.120.0/24"


def test_port_channels_one_member_per_switch() -> None:
    pair = plan_file(SEED).switch_pairs[0]
    switches = {s.name for s in pair.switches}
    gpu = [c for c in pair.port_channels if c.kind == "gpu"]
    assert [c.peer for c in gpu] == ["dgx-1-1", "dgx-1-2"]
    for channel in gpu:
        assert sorted(m.switch for m in channel.members) == sorted(switches)
    fb = next(c for c in pair.port_channels if c.kind == "flashblade")
    assert len(fb.members) == 4
    assert {(m.switch, m.far_end) for m in fb.members} == {
        ("switch1", "flashblade FM1"),
        ("switch2", "flashblade FM1"),
        ("switch1", "flashblade FM2"),
        ("switch2", "flashblade FM2"),
    }


def test_lab_plan() -> None:
    plan = plan_file(LAB)
    gpus = plan.by_role("gpu")
    assert [h.name for h in gpus] == ["gpu01", "gpu02"]
    assert [h.mgmt_address for h in gpus] == ["10.99.112.21", "10.99.112.22"]
    assert [h.interfaces["em2"].address for h in gpus] == ["10.99.115.121", "10.99.115.122"]
    assert [v.address for v in plan.flashblade.vips] == [  # type: ignore[union-attr]
        "10.99.115.6",
        "10.99.115.7",
        "10.99.115.8",
        "10.99.115.9",
    ]


LARGE = """
cluster: {name: big}
networks:
  management: {subnet: 10.1.0.0/22, gateway: 10.1.0.1}
  data: {subnet: 10.2.0.0/21, gateway: 10.2.0.1, vlan: 100, pool: 10.2.1.0-10.2.7.254}
  ipoib: {subnet: 10.3.0.0/22}
flashblade:
  management: 10.1.0.5
  api_token: {env: FB}
  data_vips: {count: 6}
  filesystems: [{name: data, size: 500T}]
gpu_nodes:
  - name: dgx[001-300]
    mgmt: 10.1.1.1
"""


def test_pattern_group_allocates_from_pools() -> None:
    plan = plan_text(LARGE)
    gpus = plan.by_role("gpu")
    assert len(gpus) == 300
    assert gpus[0].name == "dgx001" and gpus[-1].name == "dgx300"
    # The VIPs are drawn from the start of the pool, before the nodes...
    vips = [v.address for v in plan.flashblade.vips]  # type: ignore[union-attr]
    assert vips == [f"10.2.1.{i}" for i in range(6)]
    # ...then em1 and em2 in node order, and ib0 from the IPoIB subnet.
    assert (gpus[0].interfaces["em1"].address, gpus[0].interfaces["em2"].address) == (
        "10.2.1.6",
        "10.2.1.7",
    )
    assert gpus[1].interfaces["em1"].address == "10.2.1.8"
    assert gpus[0].interfaces["ib0"].address == "10.3.0.1"
    addresses = [i.address for h in gpus for i in h.interfaces.values()] + vips
    assert len(addresses) == len(set(addresses))
    assert len(gpus[0].storage.mounts) == 6  # type: ignore[union-attr]


def test_pool_exhaustion_is_an_error() -> None:
    text = LARGE.replace("pool: 10.2.1.0-10.2.7.254", "pool: 10.2.1.0-10.2.1.99")
    with pytest.raises(SpecError) as info:
        plan_text(text)
    assert "no free address left" in str(info.value)


def test_explicit_address_is_not_handed_out_by_the_pool() -> None:
    text = LARGE.replace(
        "  - name: dgx[001-300]\n", "  - name: first\n    em1: 10.2.1.10\n  - name: dgx[001-300]\n"
    )
    plan = plan_text(text)
    owners = [
        h.name
        for h in plan.by_role("gpu")
        for i in h.interfaces.values()
        if i.address == "10.2.1.10"
    ]
    assert owners == ["first"]
