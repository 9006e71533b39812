"""Expand name and port patterns such as ``dgx[01-32]`` or ``Ethernet[1-4,9]/1``."""

from __future__ import annotations

import itertools
import re

MAX_EXPANSION = 100_000
_GROUP = re.compile(r"\[([^\[\]]*)\]")
_ITEM = re.compile(r"^(\d+)(?:-(\d+))?$")


def _expand_group(body: str) -> list[str]:
    values: list[str] = []
    for item in body.split(","):
        match = _ITEM.match(item.strip())
        if not match:
            raise ValueError(f"cannot read range [{body}]: write [1-8], [01-32] or [1,3,5-7]")
        start_text, end_text = match.groups()
        start = int(start_text)
        end = int(end_text) if end_text is not None else start
        if end < start:
            raise ValueError(f"range [{body}] runs backwards")
        if end - start + len(values) >= MAX_EXPANSION:
            raise ValueError(f"range [{body}] is larger than {MAX_EXPANSION} items")
        width = len(start_text) if start_text.startswith("0") else 0
        values.extend(str(n).zfill(width) for n in range(start, end + 1))
    return values


def expand(pattern: str) -> list[str]:
    """Every name a pattern stands for, in order; a plain name stands for itself."""
    if "[" not in pattern and "]" not in pattern:
        return [pattern]
    pieces = _GROUP.split(pattern)
    literals, groups = pieces[0::2], pieces[1::2]
    if any("[" in lit or "]" in lit for lit in literals):
        raise ValueError(f"unbalanced brackets in {pattern!r}")
    choices = [_expand_group(g) for g in groups]
    total = 1
    for c in choices:
        total *= len(c)
    if total > MAX_EXPANSION:
        raise ValueError(f"pattern {pattern!r} stands for more than {MAX_EXPANSION} names")
    out = []
    for combo in itertools.product(*choices):
        parts = [literals[0]]
        for value, literal in zip(combo, literals[1:], strict=True):
            parts += [value, literal]
        out.append("".join(parts))
    return out


_HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?", re.IGNORECASE)


def is_hostname(name: str) -> bool:
    return bool(_HOSTNAME.fullmatch(name))
