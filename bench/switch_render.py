"""Render time of the switch configs for a large cluster: 32 MLAG pairs, 1,000 GPU nodes.

The spec is built in code (32 nodes per pair on 31 pairs, 8 on the last), planned, then every
switch is rendered for EOS (pyavd) and NVUE, plus the cabling files and the ANTA catalog.
Prints a table and writes bench/results/switch_render.json.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from racksmith.plan import Plan, plan_file
from racksmith.switches import anta_catalog, render_switch_configs, write_cabling

PAIRS = 32
NODES = 1000
PER_PAIR = 32
RESULTS = Path(__file__).resolve().parent / "results" / "switch_render.json"


def spec(pairs: int = PAIRS, nodes: int = NODES) -> dict[str, Any]:
    """A valid spec with ``nodes`` GPU nodes spread over ``pairs`` MLAG pairs."""
    switches, groups = [], []
    left = nodes
    for p in range(pairs):
        switches.append(
            {
                "name": f"tor{p + 1}",
                "switches": [
                    {"name": f"tor{p + 1}a", "mgmt": f"10.0.{p // 100}.{(p % 100) * 2 + 10}"},
                    {"name": f"tor{p + 1}b", "mgmt": f"10.0.{p // 100}.{(p % 100) * 2 + 11}"},
                ],
                "peer_link_ports": ["Ethernet[47-48]"],
                "peer_subnet": f"10.255.{p}.0/31",
            }
        )
        count = min(PER_PAIR, left)
        left -= count
        if count:
            groups.append(
                {
                    "name": f"gpu-{p + 1:02d}-[{1:02d}-{count:02d}]",
                    "gpus": 8,
                    "switch_pair": f"tor{p + 1}",
                    "em1_port": f"Ethernet[3-{count + 2}]",
                    "em2_port": f"Ethernet[3-{count + 2}]",
                }
            )
    return {
        "cluster": {"name": "bench"},
        "networks": {
            "management": {"subnet": "10.0.0.0/16", "gateway": "10.0.255.254", "vlan": 2112},
            "data": {"subnet": "10.16.0.0/16", "gateway": "10.16.255.254", "vlan": 2115},
        },
        "switches": {
            "vendor": "eos",
            "credentials": {"password": {"env": "RACKSMITH_SWITCH_PASSWORD"}},
            "pairs": switches,
        },
        "flashblade": {
            "name": "fb01",
            "management": "10.0.200.1",
            "api_token": {"env": "FB_API_TOKEN"},
            "data_vips": {"count": 4, "start": "10.16.200.1"},
            "uplinks": [
                {"fm": fm, "switch": sw, "port": port}
                for fm, port in (("FM1", "Ethernet1"), ("FM2", "Ethernet2"))
                for sw in ("tor1a", "tor1b")
            ],
            "filesystems": [{"name": "nfs0", "size": "1T", "nfs": ["v3"]}],
        },
        "gpu_nodes": groups,
    }


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> int:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.yml"
        path.write_text(yaml.safe_dump(spec(), sort_keys=False))
        plan_s, plan = timed(lambda: plan_file(path), repeat)
        assert isinstance(plan, Plan)
        gpu = len(plan.by_role("gpu"))
        switches = sum(len(p.switches) for p in plan.switch_pairs)
        rows = [("plan the spec", plan_s, "")]
        for vendor in ("eos", "nvue"):
            out = Path(tmp) / vendor
            secs, files = timed(
                lambda v=vendor, o=out: render_switch_configs(plan, o, vendor=v), repeat
            )
            size = sum(f.stat().st_size for f in files)  # type: ignore[union-attr]
            rows.append((f"render {vendor} ({switches} switches)", secs, f"{size / 1e6:.1f} MB"))
        secs, files = timed(lambda: write_cabling(plan, Path(tmp) / "cabling"), repeat)
        rows.append(("cabling csv+md+svg", secs, ""))
        secs, _ = timed(lambda: anta_catalog(plan), repeat)
        rows.append(("ANTA catalog", secs, ""))
    print(
        f"{len(plan.switch_pairs)} pairs, {switches} switches, {gpu} GPU nodes, median of {repeat}"
    )
    print(f"{'step':<32} {'seconds':>9} {'per switch ms':>14}  output")
    for name, secs, note in rows:
        per = f"{secs / switches * 1000:.1f}" if name.startswith("render") else ""
        print(f"{name:<32} {secs:>9.3f} {per:>14}  {note}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "pairs": len(plan.switch_pairs),
                "switches": switches,
                "gpu_nodes": gpu,
                "repeat": repeat,
                "python": platform.python_version(),
                "machine": platform.machine(),
                "steps": [{"step": n, "seconds": round(s, 4), "output": o} for n, s, o in rows],
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
