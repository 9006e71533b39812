"""What a run did, built from ansible-runner's event stream: per host, per stage, failures."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from racksmith.runner.stages import stage_of_play

Event = dict[str, Any]

# Ansible's stats keys, named as people read them in the summary.
_STATS_KEYS = {
    "ok": "ok",
    "changed": "changed",
    "failures": "failed",
    "dark": "unreachable",
    "skipped": "skipped",
    "rescued": "rescued",
}


@dataclass
class HostStats:
    ok: int = 0
    changed: int = 0
    failed: int = 0
    unreachable: int = 0
    skipped: int = 0
    rescued: int = 0

    @property
    def state(self) -> str:
        if self.unreachable:
            return "unreachable"
        if self.failed:
            return "failed"
        return "changed" if self.changed else "ok"


@dataclass
class StageSummary:
    name: str
    duration_s: float = 0.0
    hosts: dict[str, HostStats] = field(default_factory=dict)


@dataclass(frozen=True)
class Failure:
    host: str
    stage: str
    task: str
    message: str
    unreachable: bool = False


@dataclass
class RunSummary:
    """The record of one run; ``summary.json`` in the run directory holds it."""

    id: str
    target: str
    inventory: str
    argv: list[str]
    started: str
    check_mode: bool = False
    status: str = "running"
    rc: int = -1
    duration_s: float = 0.0
    stages: list[StageSummary] = field(default_factory=list)
    hosts: dict[str, HostStats] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    verify_exit: int | None = None

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.failures and self.verify_exit in (None, 0)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSummary:
        def host_stats(raw: dict[str, Any]) -> dict[str, HostStats]:
            return {host: HostStats(**counts) for host, counts in raw.items()}

        return cls(
            **{
                **data,
                "stages": [
                    StageSummary(s["name"], s["duration_s"], host_stats(s["hosts"]))
                    for s in data.get("stages", [])
                ],
                "hosts": host_stats(data.get("hosts", {})),
                "failures": [Failure(**f) for f in data.get("failures", [])],
            }
        )


class EventCollector:
    """Folds ansible-runner events into a RunSummary, and keeps the live view's state."""

    def __init__(self, summary: RunSummary) -> None:
        self.summary = summary
        self.stage: StageSummary | None = None
        self._stage_started = 0.0
        self._changed = False
        self.task = ""
        self.running: dict[str, str] = {}  # host -> task it is on

    def __call__(self, event: Event) -> bool:
        kind = event.get("event", "")
        # no_log censors the whole result, "changed" included; the callback's own line
        # ("changed: [host]") is the one place that still says it.
        self._changed = "changed: [" in str(event.get("stdout", ""))
        data = event.get("event_data", {})
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(data)
        if self.stage is not None:
            self.stage.duration_s = round(time.monotonic() - self._stage_started, 3)
        return True  # ansible-runner keeps the event in the run's artifacts

    def _on_playbook_on_play_start(self, data: Event) -> None:
        name = stage_of_play(str(data.get("play", "")))
        if self.stage is None or self.stage.name != name:
            self._stage_started = time.monotonic()
            self.stage = StageSummary(name)
            self.summary.stages.append(self.stage)
        self.task = ""

    def _on_playbook_on_task_start(self, data: Event) -> None:
        self.task = str(data.get("task", ""))

    def _on_runner_on_start(self, data: Event) -> None:
        self.running[str(data.get("host"))] = str(data.get("task", ""))

    def _host(self, data: Event) -> HostStats:
        host = str(data.get("host"))
        self.running.pop(host, None)
        if self.stage is None:
            self._on_playbook_on_play_start({})
        assert self.stage is not None
        return self.stage.hosts.setdefault(host, HostStats())

    def _on_runner_on_ok(self, data: Event) -> None:
        stats = self._host(data)
        stats.ok += 1
        if self._changed:
            stats.changed += 1

    def _on_runner_on_skipped(self, data: Event) -> None:
        self._host(data).skipped += 1

    def _on_runner_on_failed(self, data: Event) -> None:
        stats = self._host(data)
        if data.get("ignore_errors"):
            stats.ok += 1
            return
        failure = self._failure(data, unreachable=False)
        failures = self.summary.failures
        # A rescue that re-raises is the same failure, explained: no_log hides the first
        # message, so keep the first task and the explaining message.
        last = failures[-1] if failures else None
        if last and last.host == failure.host and last.message in ("", failure.message):
            failures[-1] = replace(last, message=failure.message)
            return
        stats.failed += 1
        failures.append(failure)

    def _on_runner_on_unreachable(self, data: Event) -> None:
        self._host(data).unreachable += 1
        self.summary.failures.append(self._failure(data, unreachable=True))

    def _failure(self, data: Event, *, unreachable: bool) -> Failure:
        res = data.get("res") or {}
        message = str(res.get("msg") or res.get("stderr") or res.get("reason") or "").strip()
        assert self.stage is not None
        return Failure(
            host=str(data.get("host")),
            stage=self.stage.name,
            task=str(data.get("task", "")),
            message=message,
            unreachable=unreachable,
        )

    def _on_playbook_on_stats(self, data: Event) -> None:
        # Ansible's own totals are authoritative per host (a rescued failure is not a failure).
        hosts: dict[str, HostStats] = {}
        for key, attr in _STATS_KEYS.items():
            for host, count in (data.get(key) or {}).items():
                setattr(hosts.setdefault(host, HostStats()), attr, count)
        self.summary.hosts = dict(sorted(hosts.items()))
        # A host whose failures were all rescued ended well: its failures are not the run's.
        self.summary.failures = [
            f
            for f in self.summary.failures
            if hosts.get(f.host, HostStats()).failed or hosts.get(f.host, HostStats()).unreachable
        ]
