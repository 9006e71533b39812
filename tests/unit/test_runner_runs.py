"""Run directories, run history and the per-inventory lock."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from racksmith.errors import RacksmithError
from racksmith.runner import runs
from racksmith.runner.summary import Failure, HostStats, RunSummary, StageSummary

WAIT_S = 20.0

HOLDER = """
import sys, time
from pathlib import Path
from racksmith.runner.runs import inventory_lock
with inventory_lock(Path(sys.argv[1]), "racksmith up from-another-process"):
    print("held", flush=True)
    time.sleep(120)
"""


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RACKSMITH_STATE", str(tmp_path))
    return tmp_path


class _Clock:
    """Stands in for runs.datetime: now() returns the times given, in turn."""

    def __init__(self, *times: datetime) -> None:
        self.times = list(times)

    def now(self, tz: object = None) -> datetime:
        return self.times.pop(0)


def _at(*times: datetime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runs, "datetime", _Clock(*times))


def _summary(run_id: str, **overrides: object) -> RunSummary:
    fields: dict[str, object] = {
        "id": run_id,
        "target": "lab",
        "inventory": "/state/lab/inventory/hosts.yml",
        "argv": ["racksmith", "up"],
        "started": "2024-05-01T12:00:00+00:00",
    }
    return RunSummary(**{**fields, **overrides})


def _recorded_run(when: datetime, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    _at(when, monkeypatch=monkeypatch)
    run_id, path = runs.new_run_dir()
    runs.save(_summary(run_id, rc=0), path)
    return run_id, path


def test_new_run_dir_ids_sort_by_time(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    times = [
        datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC),
        datetime(2023, 12, 31, 23, 59, 59, tzinfo=UTC),
        datetime(2024, 5, 1, 9, 30, 0, tzinfo=UTC),
        datetime(2024, 5, 1, 12, 0, 1, tzinfo=UTC),
    ]
    _at(*times, monkeypatch=monkeypatch)
    made = [runs.new_run_dir() for _ in times]
    ids = [run_id for run_id, _ in made]
    by_time = [run_id for _, run_id in sorted(zip(times, ids, strict=True))]
    assert sorted(ids) == by_time
    for run_id, path in made:
        assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{6}", run_id)
        assert path == state / "runs" / run_id
        assert path.is_dir()


def test_new_run_dir_with_the_real_clock() -> None:
    first, first_path = runs.new_run_dir()
    second, second_path = runs.new_run_dir()
    assert first != second
    assert first_path.is_dir() and second_path.is_dir()
    assert first[:16] <= second[:16]  # the time part, to the second


def test_save_and_load_round_trip() -> None:
    run_id, path = runs.new_run_dir()
    summary = _summary(
        run_id,
        rc=2,
        status="failed",
        stages=[StageSummary("flashblade", 1.5, {"fb01": HostStats(ok=1, failed=1)})],
        hosts={"fb01": HostStats(ok=1, failed=1)},
        failures=[Failure("fb01", "flashblade", "Apply", "bad subnet")],
    )
    written = runs.save(summary, path)
    assert written == path / runs.SUMMARY
    assert not (path / "summary.tmp").exists()
    assert runs.load(path) == summary
    # Saving again replaces the record.
    summary.verify_exit = 1
    runs.save(summary, path)
    assert runs.load(path).verify_exit == 1


def test_history_without_runs() -> None:
    assert runs.history() == []


def test_history_newest_first_and_skips_unreadable_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, _ = _recorded_run(datetime(2024, 1, 1, 8, 0, tzinfo=UTC), monkeypatch)
    new, _ = _recorded_run(datetime(2024, 3, 1, 8, 0, tzinfo=UTC), monkeypatch)
    middle, _ = _recorded_run(datetime(2024, 2, 1, 8, 0, tzinfo=UTC), monkeypatch)
    corrupt = {
        datetime(2024, 4, 1, tzinfo=UTC): '{"id": "truncated',
        datetime(2024, 4, 2, tzinfo=UTC): "[]",
        datetime(2024, 4, 3, tzinfo=UTC): '{"id": "only an id"}',
    }
    for when, text in corrupt.items():
        _at(when, monkeypatch=monkeypatch)
        _, path = runs.new_run_dir()
        (path / runs.SUMMARY).write_text(text, encoding="utf-8")
    # A run killed before its first save has a directory and no summary.
    _at(datetime(2024, 5, 1, tzinfo=UTC), monkeypatch=monkeypatch)
    runs.new_run_dir()

    assert [s.id for s in runs.history()] == [new, middle, old]


def test_find_by_unique_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    first, first_path = _recorded_run(datetime(2024, 1, 1, 8, 0, tzinfo=UTC), monkeypatch)
    second, second_path = _recorded_run(datetime(2024, 1, 2, 8, 0, tzinfo=UTC), monkeypatch)
    assert runs.find(first) == first_path
    assert runs.find("20240102") == second_path
    assert runs.find(second[:-2]) == second_path


def test_find_without_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RacksmithError, match="no run with that id"):
        runs.find("2024")  # no runs directory at all
    _recorded_run(datetime(2024, 1, 1, 8, 0, tzinfo=UTC), monkeypatch)
    with pytest.raises(RacksmithError, match=r"run 2023: no run with that id"):
        runs.find("2023")
    # A directory without summary.json is not a run to show.
    _at(datetime(2022, 1, 1, tzinfo=UTC), monkeypatch=monkeypatch)
    unsaved, _ = runs.new_run_dir()
    with pytest.raises(RacksmithError, match="no run with that id"):
        runs.find(unsaved)


def test_find_with_an_ambiguous_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    _recorded_run(datetime(2024, 1, 1, 8, 0, tzinfo=UTC), monkeypatch)
    _recorded_run(datetime(2024, 1, 2, 8, 0, tzinfo=UTC), monkeypatch)
    with pytest.raises(RacksmithError, match=r"run 202401: 2 runs with that id"):
        runs.find("202401")


def _inventory(state: Path, name: str) -> Path:
    path = state / name / "hosts.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("all: {}\n", encoding="utf-8")
    return path


def _refusal(inventory: Path, command: str) -> str:
    """The error a run gets when it cannot take the lock; fails the test if it can."""
    try:
        with runs.inventory_lock(inventory, command):
            pass
    except RacksmithError as error:
        return str(error)
    pytest.fail(f"{command}: the lock of {inventory} was granted")


def _take(inventory: Path, command: str) -> None:
    with runs.inventory_lock(inventory, command):
        pass


def test_lock_refuses_a_second_run_on_the_same_inventory(state: Path) -> None:
    inventory = _inventory(state, "a")
    with runs.inventory_lock(inventory, "racksmith up lab"):
        message = _refusal(inventory, "racksmith check lab")
        assert "another racksmith run is in progress" in message
        assert "racksmith up lab" in message
        assert f"pid {os.getpid()}" in message
        assert str(inventory) in message
        # The same file named by another path is the same inventory.
        other_spelling = inventory.parent / ".." / "a" / "hosts.yml"
        assert "another racksmith run is in progress" in _refusal(other_spelling, "racksmith up")


def test_lock_of_another_inventory_is_independent(state: Path) -> None:
    first, second = _inventory(state, "a"), _inventory(state, "b")
    with (
        runs.inventory_lock(first, "racksmith up a"),
        runs.inventory_lock(second, "racksmith up b"),
    ):
        assert "racksmith up b" in _refusal(second, "racksmith check b")
        assert "racksmith up a" in _refusal(first, "racksmith check a")


def test_lock_is_free_again_after_release(state: Path) -> None:
    inventory = _inventory(state, "a")
    _take(inventory, "first")
    _take(inventory, "second")
    # Also when the run raised.
    with pytest.raises(ValueError, match="stage failed"), runs.inventory_lock(inventory, "third"):
        raise ValueError("stage failed")
    _take(inventory, "fourth")
    # A released lock names no holder.
    assert [p.read_text(encoding="utf-8") for p in (state / "locks").iterdir()] == [""]


def _wait_for_line(proc: subprocess.Popen[str], expected: str, timeout: float) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"the lock holder did not print {expected!r} within {timeout} s")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            continue
        line = proc.stdout.readline()
        if not line:  # EOF: the holder died
            stderr = proc.stderr.read() if proc.stderr else ""
            pytest.fail(f"the lock holder exited ({proc.wait(timeout=5)}): {stderr}")
        if line.strip() == expected:
            return


def test_lock_held_by_another_process_until_it_dies(state: Path) -> None:
    inventory = _inventory(state, "a")
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(inventory)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RACKSMITH_STATE": str(state)},
    )
    try:
        _wait_for_line(proc, "held", WAIT_S)
        message = _refusal(inventory, "racksmith up lab")
        assert "another racksmith run is in progress" in message
        assert "racksmith up from-another-process" in message
        assert f"pid {proc.pid}" in message
    finally:
        proc.kill()
        proc.wait(timeout=WAIT_S)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    # Killed, not released: the kernel drops the flock with the process.
    assert proc.returncode == -signal.SIGKILL
    _take(inventory, "racksmith up lab")
