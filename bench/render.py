"""Plan + render time for 100, 1,000 and 10,000 GPU nodes.

Target on the 2-core machine: 1,000 nodes in under 2 s, time growing linearly.
Prints a table and writes bench/results/render.json.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import netaddr

from racksmith.loader import spec_from_source
from racksmith.plan import build_plan
from racksmith.render import render_inventory
from racksmith.source import parse_text

SIZES = (100, 1_000, 10_000)
RESULTS = Path(__file__).parent / "results" / "render.json"
SWITCH_MGMT = netaddr.IPAddress("10.0.1.2")


def spec_text(nodes: int) -> str:
    """A cluster of ``nodes`` GPU nodes over 48-port switch pairs (23 nodes a pair)."""
    per_pair = 23
    pairs = (nodes + per_pair - 1) // per_pair
    lines = [
        "cluster: {name: bench}",
        "networks:",
        "  management: {subnet: 10.0.0.0/16, gateway: 10.0.0.1}",
        "  data: {subnet: 10.64.0.0/16, gateway: 10.64.0.1, vlan: 2115}",
        "  ipoib: {subnet: 10.128.0.0/16}",
        "switches:",
        "  credentials: {password: {vault: vault_switch_password}}",
        "  pairs:",
    ]
    for p in range(pairs):
        lines += [
            f"    - name: pair{p}",
            "      switches:",
            f"        - {{name: leaf{p}a, mgmt: {SWITCH_MGMT + 2 * p}}}",
            f"        - {{name: leaf{p}b, mgmt: {SWITCH_MGMT + 2 * p + 1}}}",
            '      peer_link_ports: ["Ethernet[47-48]"]',
        ]
    lines += [
        "flashblade:",
        "  management: 10.0.0.5",
        "  api_token: {env: FB_API_TOKEN}",
        "  data_vips: {count: 8, start: 10.64.0.6}",
        "  filesystems: [{name: nfs0, size: 1P}]",
        "gpu_nodes:",
    ]
    for p in range(pairs):
        count = min(per_pair, nodes - p * per_pair)
        first = p * per_pair + 1
        lines += [
            f"  - name: dgx[{first:05d}-{first + count - 1:05d}]",
            f"    switch_pair: pair{p}",
            f"    em1_port: Ethernet[1-{count}]",
            f"    em2_port: Ethernet[1-{count}]",
        ]
    return "\n".join(lines) + "\n"


def measure(nodes: int) -> dict[str, float]:
    text = spec_text(nodes)
    start = time.perf_counter()
    source = parse_text(text, f"bench-{nodes}.yml")
    plan = build_plan(spec_from_source(source), source)
    planned = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        render_inventory(plan, out)
    done = time.perf_counter()
    return {
        "nodes": nodes,
        "plan_s": planned - start,
        "render_s": done - planned,
        "total_s": done - start,
    }


def main() -> None:
    rows = [measure(n) for n in SIZES]
    print(f"{'GPU nodes':>10} {'plan s':>8} {'render s':>9} {'total s':>8} {'us/node':>8}")
    for r in rows:
        per_node = r["total_s"] / r["nodes"] * 1e6
        print(
            f"{r['nodes']:>10} {r['plan_s']:>8.3f} {r['render_s']:>9.3f} {r['total_s']:>8.3f}"
            f" {per_node:>8.0f}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"benchmark": "plan+render", "results": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
