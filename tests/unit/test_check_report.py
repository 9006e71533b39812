from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path

from rich.console import Console

from racksmith.checks.model import CheckResult, Report, Status
from racksmith.checks.report import print_table, to_html, to_json, to_junit, write_reports

HOSTILE = "expected 8 GPUs\nfound 7 <script>alert(1)</script>"

# Deliberately out of order: every rendering must sort them.
RESULTS = (
    CheckResult("gpu01", "net", "ib_links", Status.NOT_APPLICABLE, "no InfiniBand here", 0.1),
    CheckResult("gpu01", "gpu", "gpu_count", Status.FAIL, HOSTILE, 0.5),
    CheckResult("fb01", "storage", "nfs_export", Status.ERROR, "unreachable: ssh timed out", 2.0),
    CheckResult("gpu01", "gpu", "driver_version", Status.PASS, "", 0.25),
    CheckResult("fb01", "storage", "filesystem", Status.PASS, "", 0.75),
)


def _report(results: tuple[CheckResult, ...] = RESULTS) -> Report:
    return Report("lab-a", "2024-05-01T12:00:00Z", 3.5, results)


def _terminal(report: Report) -> list[str]:
    console = Console(record=True, width=120, file=io.StringIO())
    print_table(report, console)
    return console.export_text().rstrip().splitlines()


def test_json_round_trips_with_counts_and_sorted_results() -> None:
    doc = json.loads(to_json(_report()))
    assert doc["target"] == "lab-a"
    assert doc["started"] == "2024-05-01T12:00:00Z"
    assert doc["duration_s"] == 3.5
    assert doc["exit_code"] == 2
    assert doc["compliant"] is False
    assert doc["hosts"] == {
        "fb01": {"pass": 1, "fail": 0, "n/a": 0, "error": 1},
        "gpu01": {"pass": 1, "fail": 1, "n/a": 1, "error": 0},
    }
    keys = [(r["host"], r["suite"], r["check"]) for r in doc["results"]]
    assert keys == sorted(keys)
    rebuilt = {CheckResult(**{**r, "status": Status(r["status"])}) for r in doc["results"]}
    assert rebuilt == set(RESULTS)


def test_json_does_not_depend_on_result_order() -> None:
    assert to_json(_report()) == to_json(_report(tuple(reversed(RESULTS))))


def test_junit_counts_and_outcomes() -> None:
    root = ET.fromstring(to_junit(_report()))
    assert root.tag == "testsuites"
    assert root.get("name") == "racksmith check"
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "5",
        "1",
        "1",
        "1",
    )
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["fb01", "gpu01"]
    gpu = suites["gpu01"]
    assert (gpu.get("tests"), gpu.get("failures"), gpu.get("errors"), gpu.get("skipped")) == (
        "3",
        "1",
        "0",
        "1",
    )
    assert float(gpu.get("time", "")) == 0.85

    cases = {c.get("name"): c for c in root.iter("testcase")}
    failure = cases["gpu_count"].find("failure")
    assert cases["gpu_count"].get("classname") == "gpu01.gpu"
    assert failure is not None
    assert failure.get("message") == "expected 8 GPUs"
    assert failure.text == HOSTILE
    error = cases["nfs_export"].find("error")
    assert error is not None
    assert error.get("message") == "unreachable: ssh timed out"
    skipped = cases["ib_links"].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "no InfiniBand here"
    assert list(cases["driver_version"]) == []


def test_junit_survives_characters_xml_cannot_hold() -> None:
    colored = "\x1b[31mdrift\x1b[0m\x00"
    report = _report((CheckResult("gpu01", "gpu", "ecc", Status.FAIL, colored),))
    failure = ET.fromstring(to_junit(report)).find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.text == "\ufffd[31mdrift\ufffd[0m\ufffd"


def test_html_is_escaped_self_contained_and_complete() -> None:
    page = to_html(_report())
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>racksmith check: lab-a</title>" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script" not in page.lower()
    assert "http://" not in page
    assert "https://" not in page
    assert escape(HOSTILE) in page
    assert "unreachable: ssh timed out" in page
    for host in ("gpu01", "fb01"):
        assert f"<h3>{host}</h3>" in page
    problems = page.split("<h2>Problems</h2>")[1].split("<h2>")[0]
    assert "gpu_count" in problems
    assert "nfs_export" in problems
    assert "driver_version" not in problems
    assert "error: 1 errored on fb01; 1 failed on gpu01" in page


def test_html_escapes_the_target() -> None:
    page = to_html(Report("<b>lab</b>", "2024-05-01T12:00:00Z", 1.0, RESULTS))
    assert "<b>lab" not in page
    assert "racksmith check: &lt;b&gt;lab&lt;/b&gt;" in page


def test_terminal_table_lists_hosts_problems_and_verdict() -> None:
    lines = _terminal(_report())
    text = "\n".join(lines)
    for expected in ("gpu01", "fb01", "gpu/gpu_count", "storage/nfs_export", "expected 8 GPUs"):
        assert expected in text
    assert "<script>alert(1)</script>" in text
    assert "driver_version" not in text
    assert lines[-1] == "error: 1 errored on fb01; 1 failed on gpu01 (2 passed, 1 not applicable)"


def test_terminal_does_not_read_messages_as_markup() -> None:
    results = (CheckResult("gpu01", "fs", "mount", Status.FAIL, "[/mnt] not [bold]mounted"),)
    lines = _terminal(_report(results))
    assert any("[/mnt] not [bold]mounted" in line for line in lines)
    assert lines[-1] == "drift: 1 failed on gpu01 (0 passed, 0 not applicable)"


def test_all_pass_is_compliant() -> None:
    results = tuple(r for r in RESULTS if r.status is Status.PASS)
    report = _report(results)
    assert report.exit_code == 0
    doc = json.loads(to_json(report))
    assert doc["compliant"] is True
    assert doc["exit_code"] == 0
    assert ET.fromstring(to_junit(report)).get("failures") == "0"
    assert '<p class="headline compliant">compliant: 2 passed' in to_html(report)
    assert "<p>None.</p>" in to_html(report)
    assert _terminal(report)[-1] == "compliant: 2 passed, 0 failed, 0 not applicable"


def test_empty_report_is_an_error() -> None:
    assert _terminal(_report(()))[-1] == "error: no results"


def test_write_reports_writes_three_files(tmp_path: Path) -> None:
    report = _report()
    directory = tmp_path / "out" / "lab-a"
    written = write_reports(report, directory)
    assert set(written) == {"json", "junit", "html"}
    assert written["json"] == directory / "report.json"
    assert written["junit"] == directory / "report.xml"
    assert written["html"] == directory / "report.html"
    assert written["json"].read_text(encoding="utf-8") == to_json(report)
    assert ET.parse(written["junit"]).getroot().get("tests") == "5"
    assert written["html"].read_text(encoding="utf-8") == to_html(report)
