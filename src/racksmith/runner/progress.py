"""How a run looks to the person who started it: a live view, then a summary per host and stage.

On a terminal the live view shows the stage, the task and each host's state as events
arrive; elsewhere (CI logs) one line per stage and per failure is printed instead, so the
log stays readable.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from racksmith.runner.summary import Event, EventCollector, HostStats, RunSummary

_STYLE = {"ok": "green", "changed": "yellow", "failed": "bold red", "unreachable": "bold red"}


def _counts_row(stats: HostStats) -> list[str]:
    return [str(stats.ok), str(stats.changed), str(stats.failed), str(stats.unreachable)]


class Progress:
    """An event observer; use as a context manager around the run."""

    def __init__(self, collector: EventCollector, console: Console) -> None:
        self.collector = collector
        self.console = console
        self._live = Live(console=console, refresh_per_second=4, transient=True)
        self._stage_shown = ""
        self._failures_shown = 0

    def __enter__(self) -> Progress:
        if self.console.is_terminal:
            self._live.update(self._render())
            self._live.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._live.is_started:
            self._live.stop()

    def __call__(self, event: Event) -> bool:
        keep = self.collector(event)
        if self._live.is_started:
            self._live.update(self._render())
        else:
            self._log_lines()
        return keep

    def _log_lines(self) -> None:
        stage = self.collector.stage
        if stage is not None and stage.name != self._stage_shown:
            self._stage_shown = stage.name
            self.console.print(f"stage {stage.name}", highlight=False)
        for failure in self.collector.summary.failures[self._failures_shown :]:
            what = "UNREACHABLE" if failure.unreachable else "FAILED"
            line = Text(f"  {what} {failure.host}: {failure.task}: {failure.message}")
            self.console.print(line, style="red")
        self._failures_shown = len(self.collector.summary.failures)

    def _render(self) -> Group:
        collector = self.collector
        stage = collector.stage.name if collector.stage else "starting"
        head = Text.assemble(("racksmith up ", "bold"), f"stage {stage}: ", collector.task)
        table = Table(box=None, pad_edge=False)
        for column in ("host", "state", "ok", "changed", "failed", "unreachable", "running"):
            table.add_column(column)
        hosts = collector.stage.hosts if collector.stage else {}
        for host in sorted(set(hosts) | set(collector.running)):
            stats = hosts.get(host, HostStats())
            state = "running" if host in collector.running else stats.state
            table.add_row(
                host,
                Text(state, style=_STYLE.get(state, "cyan")),
                *_counts_row(stats),
                Text(collector.running.get(host, "")),
            )
        return Group(head, table)


def print_summary(summary: RunSummary, console: Console) -> None:
    """The end-of-run tables: per host (Ansible's totals) and per stage with durations."""
    hosts = Table(title=f"run {summary.id} on {summary.target}", title_justify="left")
    for column in ("host", "state", "ok", "changed", "failed", "unreachable"):
        hosts.add_column(column)
    for host, stats in summary.hosts.items():
        hosts.add_row(host, Text(stats.state, style=_STYLE[stats.state]), *_counts_row(stats))
    console.print(hosts)

    stages = Table(title="stages", title_justify="left")
    for column in ("stage", "hosts", "changed", "failed", "unreachable", "seconds"):
        stages.add_column(column)
    for stage in summary.stages:
        stats = stage.hosts.values()
        stages.add_row(
            stage.name,
            str(len(stage.hosts)),
            str(sum(s.changed for s in stats)),
            str(sum(s.failed for s in stats)),
            str(sum(s.unreachable for s in stats)),
            f"{stage.duration_s:.1f}",
        )
    console.print(stages)
    for failure in summary.failures:
        what = "unreachable" if failure.unreachable else "failed"
        line = Text(f"{failure.host} {what} in {failure.stage}: {failure.task}: {failure.message}")
        console.print(line, style="red")
    verdict = "ok" if summary.ok else "FAILED"
    console.print(
        f"{verdict}: {summary.status}, ansible exit {summary.rc}, {summary.duration_s:.1f} s;"
        f" artifacts in {summary.id}",
        highlight=False,
    )
