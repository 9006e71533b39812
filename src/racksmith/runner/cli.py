"""``racksmith up`` and ``racksmith runs``; the main CLI calls register()."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from racksmith.checks.cli import check_command, verify
from racksmith.runner import runs
from racksmith.runner.progress import Progress, print_summary
from racksmith.runner.stages import STAGES
from racksmith.runner.target import resolve
from racksmith.runner.up import UpOptions, up

EXIT_OK = 0
EXIT_FAILED = 1


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        type=Path,
        nargs="?",
        metavar="SPEC|INVENTORY",
        help="a cluster spec (rendered first) or an inventory; default: the local lab",
    )
    parser.add_argument(
        "--inventory-dir",
        type=Path,
        metavar="DIR",
        help="where a spec's inventory is rendered (default: racksmith's state directory)",
    )
    parser.add_argument("--limit", metavar="PATTERN", help="only these hosts (Ansible pattern)")


def _up(args: argparse.Namespace) -> int:
    target = resolve(args.target, args.inventory_dir)
    options = UpOptions(
        only=tuple(args.only),
        tags=tuple(args.tags),
        limit=args.limit,
        check=args.check,
        diff=args.diff,
        forks=args.forks,
        extra_vars=tuple(args.extra_vars),
    )
    quiet = args.json
    console = Console(stderr=quiet, quiet=quiet, highlight=False)
    argv = ["racksmith", *sys.argv[1:]]
    with runs.inventory_lock(target.inventory, "racksmith up"):
        summary, run_dir = up(target, options, argv, lambda c: Progress(c, console))
        if args.verify and not args.check:
            report = verify(target, args.limit, run_dir / "check", console)
            summary.verify_exit = report.exit_code
            runs.save(summary, run_dir)
    if quiet:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        print_summary(summary, console)
    return EXIT_OK if summary.ok else EXIT_FAILED


def _runs(args: argparse.Namespace) -> int:
    if args.show:
        summary = runs.load(runs.find(args.show))
        print_summary(summary, Console(highlight=False))
        return EXIT_OK
    found = runs.history()[: args.last]
    if args.json:
        print(json.dumps([s.to_json() for s in found], indent=2))
        return EXIT_OK
    table = Table(title=f"runs under {runs.runs_root()}", title_justify="left")
    for column in ("id", "target", "command", "status", "failed hosts", "verify", "seconds"):
        table.add_column(column)
    for s in found:
        failed = sorted({f.host for f in s.failures})
        table.add_row(
            s.id,
            s.target,
            " ".join(s.argv[1:]),
            s.status,
            ", ".join(failed) or "-",
            "-" if s.verify_exit is None else str(s.verify_exit),
            f"{s.duration_s:.1f}",
        )
    Console(highlight=False).print(table)
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("up", help="bring the cluster up or back in shape, then verify it")
    add_target_arguments(p)
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="STAGE",
        help=f"run only these stages (comma-separated; {', '.join(s.name for s in STAGES)})",
    )
    p.add_argument("--tags", action="append", default=[], metavar="TAG", help="Ansible tags")
    p.add_argument("--check", action="store_true", help="change nothing; report what would")
    p.add_argument("--diff", action="store_true", help="show the changes to files and configs")
    p.add_argument("--forks", type=int, metavar="N", help="hosts in parallel (Ansible forks)")
    p.add_argument(
        "-e", "--extra-vars", action="append", default=[], metavar="VAR=VALUE", dest="extra_vars"
    )
    p.add_argument(
        "--no-verify", dest="verify", action="store_false", help="skip the check at the end"
    )
    p.add_argument("--json", action="store_true", help="print the run summary as JSON only")
    p.set_defaults(handler=_up)

    p = sub.add_parser("check", help="day-2 compliance: is the cluster still what the spec says?")
    add_target_arguments(p)
    p.add_argument(
        "--report-dir",
        type=Path,
        metavar="DIR",
        help="where report.json, report.xml (JUnit) and report.html go "
        "(default: a new folder under racksmith's state directory)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON only")
    p.set_defaults(handler=check_command)

    p = sub.add_parser("runs", help="the history of runs, or one run's summary")
    p.add_argument("--show", metavar="ID", help="the summary of one run (an id prefix is enough)")
    p.add_argument("--last", type=int, default=20, metavar="N", help="how many runs to list")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=_runs)
