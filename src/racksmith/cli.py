"""The ``racksmith`` command: a thin layer over the library API."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from racksmith import __version__
from racksmith.errors import RacksmithError, SpecError
from racksmith.loader import load_spec
from racksmith.plan import build_plan, plan_file
from racksmith.render import render_all
from racksmith.runner.cli import register as register_run_commands
from racksmith.show import WHATS, show
from racksmith.switches.cli import register as register_switch_commands

Handler = Callable[[argparse.Namespace], int]


def _validate(args: argparse.Namespace) -> int:
    spec, source = load_spec(args.spec)
    plan = build_plan(spec, source)
    counts: dict[str, int] = {}
    for host in plan.hosts.values():
        counts[host.role] = counts.get(host.role, 0) + 1
    switches = sum(len(p.switches) for p in plan.switch_pairs)
    summary = ", ".join(f"{n} {role}" for role, n in sorted(counts.items()))
    print(f"{args.spec}: valid ({summary}, {switches} switches)")
    return 0


def _render(args: argparse.Namespace) -> int:
    changed = render_all(plan_file(args.spec), args.output)
    print(f"{args.output}: {len(changed)} file(s) written")
    return 0


def _show(args: argparse.Namespace) -> int:
    for line in show(plan_file(args.spec), args.host, args.what):
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="racksmith",
        description="Bring up and keep in shape a GPU deep-learning cluster from one spec.",
    )
    parser.add_argument("--version", action="version", version=f"racksmith {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("validate", help="check a cluster spec; one line per problem")
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.set_defaults(handler=_validate)

    p = sub.add_parser("render", help="write the Ansible inventory and switch configs for a spec")
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="DIR")
    p.set_defaults(handler=_render)

    p = sub.add_parser("show", help="what will be applied on one host, in native syntax")
    p.add_argument("spec", type=Path, metavar="SPEC")
    p.add_argument("host", metavar="HOST")
    p.add_argument("--what", choices=WHATS, required=True)
    p.set_defaults(handler=_show)

    register_switch_commands(sub)
    register_run_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except SpecError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 2
    except RacksmithError as exc:
        print(f"racksmith: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
