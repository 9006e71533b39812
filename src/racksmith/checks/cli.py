"""``racksmith check`` (registered by runner.cli beside ``up``, which verifies the same way)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from racksmith.checks.model import Report
from racksmith.checks.report import print_table, to_json, write_reports
from racksmith.checks.run import run_checks
from racksmith.paths import state_root
from racksmith.runner.runs import inventory_lock, new_id
from racksmith.runner.target import Target, resolve


def verify(target: Target, limit: str | None, report_dir: Path, console: Console) -> Report:
    """Run the suites, write the three reports and show the table; the caller holds the lock."""
    report = run_checks(target, limit)
    written = write_reports(report, report_dir)
    print_table(report, console)
    console.print(f"reports: {written['html']} (also report.json, report.xml)", highlight=False)
    return report


def check_command(args: argparse.Namespace) -> int:
    """Exit 0 when compliant, 1 on drift, 2 when a check could not run."""
    target = resolve(args.target, args.inventory_dir)
    report_dir = args.report_dir or state_root() / "checks" / new_id()
    console = Console(quiet=args.json, highlight=False)
    with inventory_lock(target.inventory, "racksmith check"):
        report = verify(target, args.limit, report_dir, console)
    if args.json:
        print(to_json(report), end="")
    return report.exit_code
