"""Switch subcommands; the main CLI calls register() and prints RacksmithError (exit 2)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from racksmith.plan import plan_file
from racksmith.switches.anta import anta_catalog
from racksmith.switches.cabling import write_cabling
from racksmith.switches.day2 import remediation
from racksmith.switches.intent import SwitchConfigError
from racksmith.switches.render import SUFFIX, render_switch_configs


def _cabling(args: argparse.Namespace) -> int:
    for path in write_cabling(plan_file(args.spec), args.output):
        print(path)
    return 0


def _configs(args: argparse.Namespace) -> int:
    for path in render_switch_configs(plan_file(args.spec), args.output, vendor=args.vendor):
        print(path)
    return 0


def _diff(args: argparse.Namespace) -> int:
    try:
        running = Path(args.running).read_text(encoding="utf-8")
    except OSError as exc:
        raise SwitchConfigError(f"cannot read the running config {args.running}: {exc}") from exc
    commands = remediation(plan_file(args.spec), args.switch, running, vendor=args.vendor)
    if commands:
        print(commands)
    else:
        print(f"{args.switch}: running config matches the intended config", file=sys.stderr)
    # Like diff(1): 1 when there is something to apply, so scripts can gate on it.
    return 1 if commands else 0


def _anta(args: argparse.Namespace) -> int:
    catalog = anta_catalog(plan_file(args.spec))
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(catalog, sort_keys=False), encoding="utf-8")
    print(out)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("cabling", help="write the cabling plan (CSV, Markdown, SVG)")
    p.add_argument("spec")
    p.add_argument("-o", "--output", required=True, help="directory for cabling.{csv,md,svg}")
    p.set_defaults(handler=_cabling)

    p = subparsers.add_parser("switch-configs", help="render every switch's intended config")
    p.add_argument("spec")
    p.add_argument("-o", "--output", required=True, help="directory for <switch>.cfg/.yaml")
    p.add_argument("--vendor", choices=sorted(SUFFIX), help="override the spec's vendor")
    p.set_defaults(handler=_configs)

    p = subparsers.add_parser(
        "switch-diff", help="print the commands that bring a running config to the intended one"
    )
    p.add_argument("spec")
    p.add_argument("switch")
    p.add_argument("--running", required=True, help="the switch's running config, as a file")
    p.add_argument("--vendor", choices=sorted(SUFFIX), help="override the spec's vendor")
    p.set_defaults(handler=_diff)

    p = subparsers.add_parser("anta-catalog", help="write an ANTA catalog for the EOS pairs")
    p.add_argument("spec")
    p.add_argument("-o", "--output", required=True, help="catalog YAML file")
    p.set_defaults(handler=_anta)
