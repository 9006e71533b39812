"""EventCollector folds ansible-runner's events into a RunSummary that survives JSON."""

from __future__ import annotations

import json
from typing import Any

from racksmith.runner.summary import (
    EventCollector,
    Failure,
    HostStats,
    RunSummary,
    StageSummary,
)

PLAY = "FlashBlade (subnet, data VIPs, file systems)"
TASK = "Apply or check the FlashBlade configuration"


def _event(kind: str, stdout: str = "", **data: Any) -> dict[str, Any]:
    return {"event": kind, "event_data": data, "stdout": stdout}


def _summary(**overrides: Any) -> RunSummary:
    fields: dict[str, Any] = {
        "id": "20240501T120000Z-abc123",
        "target": "lab",
        "inventory": "/state/lab/inventory/hosts.yml",
        "argv": ["racksmith", "up"],
        "started": "2024-05-01T12:00:00+00:00",
    }
    return RunSummary(**{**fields, **overrides})


STATS = {
    "ok": {"fb01": 2, "fb02": 1, "fb03": 4},
    "changed": {"fb01": 1},
    "failures": {"fb02": 1},
    "dark": {"x": 1},
    "skipped": {"fb03": 2},
    "rescued": {"fb03": 1},
}

EVENTS = [
    _event("playbook_on_start"),
    _event("playbook_on_play_start", play=PLAY, name=PLAY),
    _event("playbook_on_task_start", task=TASK),
    _event("runner_on_start", host="fb01", task=TASK),
    _event(
        "runner_on_ok",
        "changed: [fb01]",
        host="fb01",
        task=TASK,
        res={"censored": "the output has been hidden due to the fact that 'no_log: true'"},
    ),
    _event("runner_on_ok", "ok: [fb01]", host="fb01", task=TASK, res={"changed": False}),
    _event(
        "runner_on_failed",
        "fatal: [fb02]: FAILED! => ...",
        host="fb02",
        task=TASK,
        res={"msg": "  subnet 10.0.0.0/24 overlaps  ", "failed": True},
    ),
    _event(
        "runner_on_failed",
        "fatal: [fb02]: FAILED! => ...\n...ignoring",
        host="fb02",
        task=TASK,
        ignore_errors=True,
        res={"msg": "not fatal", "failed": True},
    ),
    _event(
        "runner_on_unreachable",
        "fatal: [x]: UNREACHABLE! => ...",
        host="x",
        task=TASK,
        res={"msg": "ssh: connect to host x port 22: timed out", "unreachable": True},
    ),
    _event("playbook_on_stats", **STATS),
]


def _collect(events: list[dict[str, Any]], summary: RunSummary | None = None) -> EventCollector:
    collector = EventCollector(summary or _summary())
    for event in events:
        assert collector(event) is True
    return collector


def test_events_fold_into_one_stage_with_per_host_counts() -> None:
    summary = _collect(EVENTS).summary
    assert [s.name for s in summary.stages] == ["flashblade"]
    assert summary.stages[0].hosts == {
        "fb01": HostStats(ok=2, changed=1),
        "fb02": HostStats(ok=1, failed=1),
        "x": HostStats(unreachable=1),
    }
    assert summary.stages[0].duration_s >= 0


def test_censored_result_still_counts_as_changed_from_the_stdout_line() -> None:
    summary = _collect(EVENTS[:5]).summary
    assert summary.stages[0].hosts["fb01"] == HostStats(ok=1, changed=1)


def test_failures_name_host_stage_task_and_message() -> None:
    summary = _collect(EVENTS).summary
    assert summary.failures == [
        Failure("fb02", "flashblade", TASK, "subnet 10.0.0.0/24 overlaps", unreachable=False),
        Failure(
            "x",
            "flashblade",
            TASK,
            "ssh: connect to host x port 22: timed out",
            unreachable=True,
        ),
    ]


def test_ignored_failure_is_ok_and_no_failure() -> None:
    ignored = EVENTS[7]
    assert ignored["event_data"]["ignore_errors"] is True
    summary = _collect([*EVENTS[:2], ignored]).summary
    assert summary.failures == []
    assert summary.stages[0].hosts == {"fb02": HostStats(ok=1)}


def test_failure_message_falls_back_to_stderr_then_reason() -> None:
    events = [
        _event("playbook_on_play_start", play=PLAY),
        _event("runner_on_failed", host="a", task="t", res={"stderr": "boom\n"}),
        _event("runner_on_unreachable", host="b", task="t", res={"reason": "no route"}),
        _event("runner_on_failed", host="c", task="t"),
    ]
    messages = [f.message for f in _collect(events).summary.failures]
    assert messages == ["boom", "no route", ""]


def test_running_tracks_the_task_each_host_is_on() -> None:
    collector = _collect(EVENTS[:4])
    assert collector.task == TASK
    assert collector.running == {"fb01": TASK}
    collector(EVENTS[4])
    assert collector.running == {}


def test_stats_are_the_per_host_totals() -> None:
    summary = _collect(EVENTS).summary
    assert summary.hosts == {
        "fb01": HostStats(ok=2, changed=1),
        "fb02": HostStats(ok=1, failed=1),
        "fb03": HostStats(ok=4, skipped=2, rescued=1),
        "x": HostStats(unreachable=1),
    }
    assert list(summary.hosts) == sorted(summary.hosts)


def test_host_state() -> None:
    hosts = _collect(EVENTS).summary.hosts
    assert {host: stats.state for host, stats in hosts.items()} == {
        "fb01": "changed",
        "fb02": "failed",
        "fb03": "ok",  # a rescued failure is not a failure
        "x": "unreachable",
    }
    assert HostStats(failed=1, unreachable=1, changed=1).state == "unreachable"
    assert HostStats(failed=1, changed=3).state == "failed"
    assert HostStats().state == "ok"


def test_stages_follow_the_plays() -> None:
    events = [
        _event("runner_on_ok", "ok: [early]", host="early", task="t"),
        _event("playbook_on_play_start", play="Switches (MLAG top-of-rack pairs)"),
        _event("runner_on_ok", "ok: [leaf1]", host="leaf1", task="t"),
        _event("playbook_on_play_start", play="Switches, second play"),
        _event("runner_on_skipped", "skipping: [leaf2]", host="leaf2", task="t"),
        _event("playbook_on_play_start", play=PLAY),
        _event("runner_on_ok", "ok: [fb01]", host="fb01", task="t"),
        _event("playbook_on_play_start", play="Slurm"),
        _event("runner_on_ok", "changed: [head]", host="head", task="t"),
    ]
    stages = _collect(events).summary.stages
    assert [(s.name, sorted(s.hosts)) for s in stages] == [
        ("other", ["early"]),
        ("switches", ["leaf1", "leaf2"]),
        ("flashblade", ["fb01"]),
        ("other", ["head"]),
    ]
    assert stages[1].hosts["leaf2"] == HostStats(skipped=1)
    assert stages[3].hosts["head"] == HostStats(ok=1, changed=1)


def test_run_summary_ok() -> None:
    assert _summary(rc=0).ok
    assert _summary(rc=0, verify_exit=0).ok
    assert not _summary().ok  # still running: rc -1
    assert not _summary(rc=2).ok
    assert not _summary(rc=0, verify_exit=1).ok
    assert not _summary(rc=0, failures=[Failure("h", "s", "t", "m")]).ok
    # The collected run had failures even if ansible-runner's rc were 0.
    summary = _collect(EVENTS).summary
    summary.rc = 0
    assert not summary.ok


def test_json_round_trip() -> None:
    summary = _collect(EVENTS, _summary(check_mode=True)).summary
    summary.status, summary.rc, summary.duration_s, summary.verify_exit = "failed", 2, 12.5, 1
    text = json.dumps(summary.to_json())
    again = RunSummary.from_json(json.loads(text))
    assert again == summary
    assert isinstance(again.stages[0], StageSummary)
    assert isinstance(again.stages[0].hosts["fb01"], HostStats)
    assert isinstance(again.hosts["x"], HostStats)
    assert isinstance(again.failures[1], Failure)
    assert again.failures[1].unreachable is True
    assert json.dumps(again.to_json()) == text


def test_json_round_trip_of_an_empty_run() -> None:
    summary = _summary()
    assert RunSummary.from_json(json.loads(json.dumps(summary.to_json()))) == summary


def _play_with(*events: dict[str, Any], stats: dict[str, Any]) -> EventCollector:
    return _collect(
        [
            _event("playbook_on_play_start", play=PLAY, name=PLAY),
            *events,
            _event("playbook_on_stats", **stats),
        ]
    )


def test_a_rescue_that_reraises_is_one_failure_with_the_explaining_message() -> None:
    hidden = _event("runner_on_failed", host="fb01", task="Read", res={"censored": "hidden"})
    explained = _event("runner_on_failed", host="fb01", task="Explain", res={"msg": "why"})
    collector = _play_with(hidden, explained, stats={"failures": {"fb01": 1}})
    assert collector.summary.failures == [Failure("fb01", "flashblade", "Read", "why")]
    assert collector.summary.stages[0].hosts["fb01"].failed == 1


def test_failures_a_rescue_recovered_from_are_not_the_runs() -> None:
    failed = _event("runner_on_failed", host="fb01", task="Try", res={"msg": "first try"})
    collector = _play_with(failed, stats={"ok": {"fb01": 2}, "rescued": {"fb01": 1}})
    assert collector.summary.failures == []
    assert collector.summary.hosts["fb01"].state == "ok"
