"""What a compliance check found: one result per host and check, and the report around them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum


class Status(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "n/a"
    # The check could not run (unreachable host, broken suite): not drift, but not compliant.
    ERROR = "error"


@dataclass(frozen=True)
class CheckResult:
    host: str
    suite: str
    check: str
    status: Status
    # For a failure, "expected X, found Y"; for n/a, the reason; empty for a pass.
    message: str = ""
    duration_s: float = 0.0


EXIT_COMPLIANT = 0
EXIT_DRIFT = 1
EXIT_ERROR = 2


@dataclass(frozen=True)
class Report:
    target: str
    started: str  # ISO 8601, UTC
    duration_s: float
    results: tuple[CheckResult, ...] = field(default_factory=tuple)

    @property
    def exit_code(self) -> int:
        statuses = {r.status for r in self.results}
        if Status.ERROR in statuses or not self.results:
            return EXIT_ERROR
        return EXIT_DRIFT if Status.FAIL in statuses else EXIT_COMPLIANT

    @property
    def compliant(self) -> bool:
        return self.exit_code == EXIT_COMPLIANT

    def hosts(self) -> list[str]:
        return sorted({r.host for r in self.results})

    def counts(self, host: str | None = None) -> dict[Status, int]:
        """Results per status, for one host or for all; every status is present."""
        found = Counter(r.status for r in self.results if host is None or r.host == host)
        return {status: found.get(status, 0) for status in Status}

    def problems(self) -> list[CheckResult]:
        """Failures and errors, in host then check order: what a reader must act on."""
        bad = (r for r in self.results if r.status in (Status.FAIL, Status.ERROR))
        return sorted(bad, key=lambda r: (r.host, r.suite, r.check))
