"""What a run acts on: a spec (rendered first), an inventory, or by default the local lab."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from racksmith.errors import RacksmithError
from racksmith.paths import lab_inventory, state_root
from racksmith.plan import plan_file
from racksmith.render import render_all


@dataclass(frozen=True)
class Target:
    inventory: Path
    label: str


def _is_spec(path: Path) -> bool:
    try:
        head = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError:
        # A spec with a syntax error is reported by the spec loader, with its line.
        return path.suffix in (".yml", ".yaml")
    return isinstance(head, dict) and "cluster" in head and "all" not in head


def _hosts_file(directory: Path) -> Path | None:
    # The file, not the directory, is the inventory source: the renderer keeps switch configs
    # in configs/ beside it, which Ansible would otherwise try to parse as inventory.
    # group_vars/ and host_vars/ beside the file are loaded all the same.
    return next(
        (p for p in (directory / "hosts.yml", directory / "hosts.yaml") if p.is_file()), None
    )


def resolve(argument: Path | None, render_dir: Path | None = None) -> Target:
    """Turn the command's argument into an inventory; a spec is validated and rendered first.

    ``render_dir`` is where a spec's inventory goes (default: the state directory, one
    folder per cluster name).
    """
    if argument is None:
        hosts = _hosts_file(lab_inventory())
        if hosts is None:
            raise RacksmithError(
                f"no target given and no lab inventory at {lab_inventory()}: start the lab "
                "with `racksmith lab up`, or name a spec or an inventory"
            )
        return Target(hosts, "lab")
    if argument.is_dir():
        hosts = _hosts_file(argument)
        if hosts is None:
            raise RacksmithError(f"{argument}: not an inventory directory (no hosts.yml)")
        return Target(hosts, argument.resolve().name)
    if not argument.is_file():
        raise RacksmithError(f"{argument}: no such spec or inventory")
    if not _is_spec(argument):
        return Target(argument, argument.stem)
    plan = plan_file(argument)
    out = render_dir or state_root() / "clusters" / plan.cluster_name / "inventory"
    render_all(plan, out)
    return Target(out / "hosts.yml", plan.cluster_name)
