"""Regenerate the committed golden files: ``python -m racksmith.switches.golden [DIR]``.

Run it only when a change to the switch output is intended, then review ``git diff tests/golden``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from racksmith.plan import plan_file
from racksmith.switches.cabling import cabling_csv
from racksmith.switches.render import render_switch_configs

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = {"seed-reference": "examples/seed-reference.yml", "lab": "examples/lab.yml"}
VENDORS = ("eos", "nvue")


def golden_files(root: Path, outdir: Path) -> list[Path]:
    """Render every example for every vendor into outdir/<example>/<vendor>/."""
    written = []
    for name, spec in EXAMPLES.items():
        plan = plan_file(root / spec)
        for vendor in VENDORS:
            written += render_switch_configs(plan, outdir / name / vendor, vendor=vendor)
        csv_path = outdir / name / "cabling.csv"
        csv_path.write_text(cabling_csv(plan), encoding="utf-8")
        written.append(csv_path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    outdir = Path(args[0]) if args else ROOT / "tests" / "golden"
    for path in golden_files(ROOT, outdir):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
