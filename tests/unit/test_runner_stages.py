"""The bring-up stages: site.yml and stages.py stay in step, --only keeps bring-up order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from racksmith.errors import RacksmithError
from racksmith.runner.stages import STAGES, UNSTAGED, select, stage_of_play

ROOT = Path(__file__).resolve().parents[2]
PLAYBOOKS = ROOT / "playbooks"


def _plays(playbook: str) -> list[dict[str, Any]]:
    plays = yaml.safe_load((PLAYBOOKS / playbook).read_text(encoding="utf-8"))
    assert isinstance(plays, list), f"{playbook}: not a list of plays"
    return plays


def _import_target(play: dict[str, Any]) -> str | None:
    for key in ("ansible.builtin.import_playbook", "import_playbook"):
        if key in play:
            return str(play[key])
    return None


def test_site_imports_exactly_the_stage_playbooks_in_stage_order() -> None:
    imported = [_import_target(play) for play in _plays("site.yml")]
    assert imported == [stage.playbook for stage in STAGES]


def test_every_stage_playbook_exists() -> None:
    missing = [s.playbook for s in STAGES if not (PLAYBOOKS / s.playbook).is_file()]
    assert missing == []


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.name)
def test_every_play_of_a_stage_is_named_after_it(stage: Any) -> None:
    plays = _plays(stage.playbook)
    assert plays, f"{stage.playbook}: no play"
    for play in plays:
        name = str(play.get("name", ""))
        assert name.startswith(stage.title), f"{stage.playbook}: play {name!r}"
        assert stage_of_play(name) == stage.name


def test_stage_names_titles_and_playbooks_are_unique() -> None:
    for attr in ("name", "title", "playbook"):
        values = [getattr(s, attr) for s in STAGES]
        assert len(set(values)) == len(values), attr


def test_select_nothing_is_every_stage() -> None:
    assert select([]) == STAGES


def test_select_keeps_bring_up_order_whatever_the_order_given() -> None:
    names = [s.name for s in STAGES]
    assert select(list(reversed(names))) == STAGES
    assert select([names[-1]]) == (STAGES[-1],)


def test_select_accepts_comma_separated_values_and_blanks() -> None:
    names = [s.name for s in STAGES]
    assert select([",".join(reversed(names))]) == STAGES
    assert select([f" {names[-1]} , ", ""]) == (STAGES[-1],)
    # A name given twice is still one stage.
    assert select([names[0], f"{names[0]},{names[0]}"]) == (STAGES[0],)


def test_select_unknown_stage_is_named_in_the_error() -> None:
    with pytest.raises(RacksmithError) as caught:
        select([f"{STAGES[0].name},gpu-nodes"])
    message = str(caught.value)
    assert "'gpu-nodes'" in message
    for stage in STAGES:
        assert stage.name in message


def test_stage_of_play() -> None:
    assert stage_of_play("Switches (MLAG top-of-rack pairs)") == "switches"
    assert stage_of_play("FlashBlade (subnet, data VIPs, file systems)") == "flashblade"
    assert stage_of_play("Slurm controller") == UNSTAGED == "other"
    assert stage_of_play("") == "other"
