"""``racksmith up``: run the bring-up playbooks through ansible-runner's Python API."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import ansible_runner
import yaml

from racksmith.paths import ANSIBLE_CFG, PLAYBOOKS, ROLES, require_content
from racksmith.runner import runs
from racksmith.runner.stages import STAGES, Stage, select
from racksmith.runner.summary import Event, EventCollector, RunSummary
from racksmith.runner.target import Target

Observer = Callable[[Event], bool]
# Wraps the collector for the length of the run (the live view does).
View = Callable[[EventCollector], AbstractContextManager[Observer]]


@dataclass(frozen=True)
class UpOptions:
    only: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    limit: str | None = None
    check: bool = False
    diff: bool = False
    forks: int | None = None
    extra_vars: tuple[str, ...] = ()


def _playbook(stages: tuple[Stage, ...], run_dir: Path) -> tuple[Path, str]:
    """site.yml for a full run; for ``--only``, a play list of the chosen stages in the run dir."""
    if stages == STAGES:
        return PLAYBOOKS, "site.yml"
    project = run_dir / "project"
    project.mkdir()
    plays = [
        {"name": f"Stage {s.name}", "ansible.builtin.import_playbook": str(PLAYBOOKS / s.playbook)}
        for s in stages
    ]
    (project / "stages.yml").write_text(yaml.safe_dump(plays, sort_keys=False), encoding="utf-8")
    return project, "stages.yml"


def _environment() -> dict[str, str]:
    # The interpreter's own bin comes first so ansible-runner finds this environment's
    # ansible-playbook, whatever the caller's PATH.
    return {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "ANSIBLE_CONFIG": str(ANSIBLE_CFG),
        "ANSIBLE_ROLES_PATH": str(ROLES),
        "ANSIBLE_DEPRECATION_WARNINGS": "false",
        "ANSIBLE_LOCALHOST_WARNING": "false",
    }


def _cmdline(options: UpOptions) -> str | None:
    words = []
    if options.check:
        words.append("--check")
    if options.diff:
        words.append("--diff")
    for assignment in options.extra_vars:
        words += ["-e", assignment]
    return " ".join(words) or None


def up(
    target: Target,
    options: UpOptions,
    argv: list[str],
    view: View | None = None,
) -> tuple[RunSummary, Path]:
    """Run the selected stages on ``target``; the caller holds the inventory lock.

    Events go to ``view`` as they arrive, and are kept in the run directory. An unreachable
    or failing host does not stop the others: Ansible goes on with them, and the summary
    names it.
    """
    require_content()
    stages = select(options.only)
    run_id, run_dir = runs.new_run_dir()
    summary = RunSummary(
        id=run_id,
        target=target.label,
        inventory=str(target.inventory),
        argv=argv,
        started=datetime.now(UTC).isoformat(timespec="seconds"),
        check_mode=options.check,
    )
    runs.save(summary, run_dir)
    project_dir, playbook = _playbook(stages, run_dir)
    collector = EventCollector(summary)
    clock = time.monotonic()
    watching = view(collector) if view else contextlib.nullcontext(collector)
    with watching as observer:
        result = ansible_runner.run(
            private_data_dir=str(run_dir),
            project_dir=str(project_dir),
            playbook=playbook,
            inventory=str(target.inventory.resolve()),
            envvars=_environment(),
            limit=options.limit,
            tags=",".join(options.tags) or None,
            cmdline=_cmdline(options),
            forks=options.forks,
            ident="ansible",
            quiet=True,
            # Extra vars and environment would otherwise be written to env/ in clear.
            suppress_env_files=True,
            event_handler=observer,
        )
    summary.status = str(result.status)
    summary.rc = int(result.rc)
    summary.duration_s = round(time.monotonic() - clock, 3)
    runs.save(summary, run_dir)
    return summary, run_dir
