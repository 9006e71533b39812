"""The bring-up stages, in the order the design needs them.

Each stage is one playbook, imported in this order by playbooks/site.yml; ``--only NAME``
runs the named stages' playbooks alone. A stage's play names start with its title, which
is how a task's events are attributed to a stage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from racksmith.errors import RacksmithError


@dataclass(frozen=True)
class Stage:
    name: str
    title: str
    playbook: str


# Switches first (every later stage needs the fabric), storage before the nodes that mount it.
STAGES: tuple[Stage, ...] = (
    Stage("switches", "Switches", "switches.yml"),
    Stage("flashblade", "FlashBlade", "flashblade.yml"),
)

UNSTAGED = "other"


def select(names: Iterable[str]) -> tuple[Stage, ...]:
    """The stages named by ``--only``, in bring-up order; all of them when none is named."""
    wanted = [n.strip() for name in names for n in name.split(",") if n.strip()]
    known = {stage.name for stage in STAGES}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise RacksmithError(
            f"--only: unknown stage {unknown[0]!r}; stages are {', '.join(s.name for s in STAGES)}"
        )
    return tuple(s for s in STAGES if not wanted or s.name in wanted)


def stage_of_play(play: str) -> str:
    for stage in STAGES:
        if play.startswith(stage.title):
            return stage.name
    return UNSTAGED
