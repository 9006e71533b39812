"""Errors a user can act on: each names where the problem is and why."""

from __future__ import annotations

from dataclasses import dataclass


class RacksmithError(Exception):
    """Base of every error racksmith reports to a user (exit code 2 at the CLI)."""


@dataclass(frozen=True)
class SpecProblem:
    """One problem in a spec, printed as ``FILE:LINE: field.path: reason``."""

    file: str
    line: int
    path: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{self.file}:{self.line}: {where}{self.reason}"


class SpecError(RacksmithError):
    """A spec that cannot be planned; carries every problem found, not just the first."""

    def __init__(self, problems: list[SpecProblem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line, p.path, p.reason))
        super().__init__("\n".join(str(p) for p in self.problems))
