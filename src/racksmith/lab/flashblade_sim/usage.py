"""Used space of a file system, measured on the directory that holds its data."""

from __future__ import annotations

import os
from pathlib import Path


def directory_usage(path: Path) -> int:
    """Logical bytes under ``path`` (sum of file sizes, links not followed).

    The array reports ``space.virtual`` as logical data written by clients, so apparent
    size, not allocated blocks, is the closer match. A missing directory is empty.
    """
    total = 0
    stack = [path]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue  # removed while walking: a client is busy there
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
    return total
