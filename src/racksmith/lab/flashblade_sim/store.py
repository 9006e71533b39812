"""On-disk state of the simulated array: one JSON document, replaced atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Write a file so readers see either the old or the new content, never half of it.

    The temporary file lives in the same directory so the rename cannot cross file
    systems; fsync before rename so a crash cannot leave an empty file behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class StateStore:
    """Where the array keeps its configuration across restarts of the simulator."""

    FILE_NAME = "state.json"

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / self.FILE_NAME

    def load(self) -> dict[str, Any] | None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        state = json.loads(text)
        if not isinstance(state, dict):
            raise ValueError(f"{self.path}: state is not a JSON object")
        return state

    def save(self, state: dict[str, Any]) -> None:
        atomic_write_text(self.path, json.dumps(state, indent=2, sort_keys=True) + "\n", 0o600)
