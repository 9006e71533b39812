"""Parsers for the human units a spec is written in: sizes and Slurm time limits."""

from __future__ import annotations

import re

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGTPE]?)(i?B?)\s*$", re.IGNORECASE)
_POWERS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}


def parse_size(value: str | int) -> int:
    """Bytes in ``value``.

    ``12TB`` is decimal (how disks are sold); ``1TiB`` and the bare ``1T`` are binary (how
    Purity and most storage tools write sizes).
    """
    if isinstance(value, bool):
        raise ValueError("a size is a number with a unit, like 1T, 12TB or 512KiB")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("a size cannot be negative")
        return value
    match = _SIZE.match(str(value))
    if not match:
        raise ValueError(
            f"cannot read size {value!r}: write a number and a unit, like 1T, 12TB, 512KiB"
        )
    number, prefix, suffix = match.groups()
    power = _POWERS[prefix.upper()]
    base = 1000 if suffix.upper() == "B" and prefix else 1024
    result = float(number) * base**power
    if result != int(result):
        raise ValueError(f"size {value!r} is not a whole number of bytes")
    return int(result)


def format_size(n: int) -> str:
    """The shortest exact binary form of ``n`` (``1T``, ``512K``), as Purity writes sizes."""
    for prefix in "EPTGMK":
        unit = 1024 ** _POWERS[prefix]
        if n >= unit and n % unit == 0:
            return f"{n // unit}{prefix}"
    return str(n)


_TIME = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


def parse_slurm_time(value: str | int) -> int:
    """Minutes in a Slurm time limit (``120``, ``2:00:00``, ``2-00:00:00``, ``UNLIMITED``).

    Returns -1 for unlimited.
    """
    if isinstance(value, bool):
        raise ValueError("a time limit looks like 2:00:00, 2-00:00:00, 120 (minutes) or UNLIMITED")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError("a time limit must be positive")
        return value
    text = str(value).strip()
    if text.upper() in {"UNLIMITED", "INFINITE"}:
        return -1
    match = _TIME.match(text)
    if not match:
        raise ValueError(
            f"cannot read time limit {value!r}: "
            "write 2:00:00, 2-00:00:00, 120 (minutes) or UNLIMITED"
        )
    days, a, b, c = match.groups()
    parts = [int(x) for x in (a, b, c) if x is not None]
    if days is not None:
        hours, minutes, seconds = [*parts, 0, 0, 0][:3]
        total = int(days) * 1440 + hours * 60 + minutes + (1 if seconds else 0)
    elif len(parts) == 3:
        total = parts[0] * 60 + parts[1] + (1 if parts[2] else 0)
    elif len(parts) == 2:
        total = parts[0] + (1 if parts[1] else 0)
    else:
        total = parts[0]
    if total <= 0:
        raise ValueError(f"time limit {value!r} must be positive")
    return total


def format_slurm_time(minutes: int) -> str:
    """Canonical Slurm form of a limit in minutes: ``D-HH:MM:00`` or ``HH:MM:00``."""
    if minutes < 0:
        return "UNLIMITED"
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    clock = f"{hours:02d}:{mins:02d}:00"
    return f"{days}-{clock}" if days else clock
