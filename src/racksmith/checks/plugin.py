"""pytest plugin loaded into each suite run (``-p racksmith.checks.plugin``).

It writes one JSON line per check to ``$RACKSMITH_CHECK_OUT``: an AssertionError is drift
(fail), any other exception means the check could not run (error), a skip is "not
applicable" with its reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from racksmith.checks.model import Status

_OUT = os.environ.get("RACKSMITH_CHECK_OUT")


def _record(check: str, status: Status, message: str, duration: float) -> None:
    if not _OUT:
        return
    line = {"check": check, "status": str(status), "message": message, "duration_s": duration}
    with Path(_OUT).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def _message(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(excinfo.value).strip()
    # pytest's rewritten assertions append "assert <expr>" after the message; the message is
    # what a reader needs, the expression is for the suite's author.
    head = text.split("\nassert ", 1)[0].strip()
    return head or excinfo.exconly()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    name = item.name.removeprefix("test_")
    if report.skipped:
        if call.when in ("setup", "call"):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            _record(name, Status.NOT_APPLICABLE, str(reason).removeprefix("Skipped: "), 0.0)
        return
    if report.failed:
        assert call.excinfo is not None
        drift = call.when == "call" and isinstance(call.excinfo.value, AssertionError)
        status = Status.FAIL if drift else Status.ERROR
        _record(name, status, _message(call.excinfo), round(report.duration, 3))
    elif call.when == "call":
        _record(name, Status.PASS, "", round(report.duration, 3))


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _record("collect", Status.ERROR, str(report.longrepr).strip().splitlines()[-1], 0.0)
    elif report.skipped and isinstance(report.longrepr, tuple):
        _record("suite", Status.NOT_APPLICABLE, report.longrepr[2].removeprefix("Skipped: "), 0.0)
