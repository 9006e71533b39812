"""Run records and the per-inventory lock.

Every run gets a directory under ``<state>/runs/`` named by its start time: ansible-runner's
artifacts (events, stdout) go there, and ``summary.json`` beside them, so a failure can be
read after the fact with ``racksmith runs show ID``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from racksmith.errors import RacksmithError
from racksmith.paths import state_root
from racksmith.runner.summary import RunSummary

SUMMARY = "summary.json"


def runs_root() -> Path:
    return state_root() / "runs"


def new_id() -> str:
    """An id that sorts by start time and is unique even for two starts in one second."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


def new_run_dir() -> tuple[str, Path]:
    """A fresh run id and its directory."""
    run_id = new_id()
    path = runs_root() / run_id
    path.mkdir(parents=True)
    return run_id, path


def save(summary: RunSummary, run_dir: Path) -> Path:
    path = run_dir / SUMMARY
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(summary.to_json(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def history() -> list[RunSummary]:
    """Every recorded run, newest first; a run killed before its first save is left out."""
    root = runs_root()
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.glob(f"*/{SUMMARY}"), reverse=True):
        with contextlib.suppress(ValueError, TypeError, KeyError):
            found.append(load(path.parent))
    return found


def find(run_id: str) -> Path:
    """The directory of the run whose id starts with ``run_id`` (unique prefix)."""
    root = runs_root()
    matches = sorted(p for p in root.glob(f"{run_id}*") if (p / SUMMARY).exists())
    if len(matches) != 1:
        reason = "no run" if not matches else f"{len(matches)} runs"
        raise RacksmithError(f"run {run_id}: {reason} with that id under {root}")
    return matches[0]


def load(run_dir: Path) -> RunSummary:
    return RunSummary.from_json(json.loads((run_dir / SUMMARY).read_text(encoding="utf-8")))


@contextlib.contextmanager
def inventory_lock(inventory: Path, command: str) -> Iterator[None]:
    """Hold the lock of one inventory for a run; refuse if another run holds it.

    flock is released by the kernel when the holder dies, so a killed run leaves no stale lock.
    """
    key = hashlib.sha256(str(inventory.resolve()).encode()).hexdigest()[:16]
    path = state_root() / "locks" / f"{key}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise RacksmithError(
                f"{inventory}: another racksmith run is in progress ({holder}); "
                "wait for it to finish, or stop it"
            ) from None
        handle.seek(0)
        handle.truncate()
        started = f"{datetime.now(UTC):%Y-%m-%d %H:%M:%SZ}"
        handle.write(f"{command}, pid {os.getpid()}, started {started}")
        handle.flush()
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()
            fcntl.flock(handle, fcntl.LOCK_UN)
