"""Render a check Report: JSON and JUnit XML for machines, an HTML page for people who were
not at the terminal, and a rich table for those who were."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from html import escape
from itertools import groupby
from operator import attrgetter
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from racksmith.checks.model import (
    EXIT_COMPLIANT,
    EXIT_DRIFT,
    EXIT_ERROR,
    CheckResult,
    Report,
    Status,
)

_VERDICTS = {EXIT_COMPLIANT: "compliant", EXIT_DRIFT: "drift", EXIT_ERROR: "error"}
_STYLES = {"compliant": "green", "drift": "red", "error": "magenta"}

# Check output can carry ANSI escapes or NULs, which XML 1.0 cannot hold even escaped:
# one such byte would make the whole JUnit file unreadable to CI.
_NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

_JUNIT_TAGS = {Status.FAIL: "failure", Status.ERROR: "error", Status.NOT_APPLICABLE: "skipped"}


def _ordered(report: Report) -> list[CheckResult]:
    # Results arrive in completion order; sorting makes two runs of the same fleet diffable.
    return sorted(report.results, key=lambda r: (r.host, r.suite, r.check))


def _verdict(report: Report) -> str:
    return _VERDICTS[report.exit_code]


def _host_verdict(counts: dict[Status, int]) -> str:
    if counts[Status.ERROR]:
        return "error"
    return "drift" if counts[Status.FAIL] else "compliant"


def _summary(report: Report) -> str:
    """One line for the terminal's last line and the page's headline."""
    if not report.results:
        return "error: no results"
    counts = report.counts()
    if report.compliant:
        return (
            f"compliant: {counts[Status.PASS]} passed, {counts[Status.FAIL]} failed, "
            f"{counts[Status.NOT_APPLICABLE]} not applicable"
        )
    where = []
    for status, word in ((Status.ERROR, "errored"), (Status.FAIL, "failed")):
        hosts = sorted({r.host for r in report.problems() if r.status is status})
        if hosts:
            where.append(f"{counts[status]} {word} on {', '.join(hosts)}")
    return (
        f"{_verdict(report)}: {'; '.join(where)} "
        f"({counts[Status.PASS]} passed, {counts[Status.NOT_APPLICABLE]} not applicable)"
    )


def to_json(report: Report) -> str:
    doc = {
        "target": report.target,
        "started": report.started,
        "duration_s": report.duration_s,
        "compliant": report.compliant,
        "exit_code": report.exit_code,
        "hosts": {
            host: {status.value: n for status, n in report.counts(host).items()}
            for host in report.hosts()
        },
        "results": [{**asdict(r), "status": r.status.value} for r in _ordered(report)],
    }
    return json.dumps(doc, indent=2) + "\n"


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _junit_counts(counts: dict[Status, int]) -> dict[str, str]:
    return {
        "tests": str(sum(counts.values())),
        "failures": str(counts[Status.FAIL]),
        "errors": str(counts[Status.ERROR]),
        "skipped": str(counts[Status.NOT_APPLICABLE]),
    }


def to_junit(report: Report) -> str:
    root = ET.Element(
        "testsuites",
        {
            "name": "racksmith check",
            **_junit_counts(report.counts()),
            "time": f"{report.duration_s:.3f}",
        },
    )
    for host, group in groupby(_ordered(report), key=attrgetter("host")):
        results = list(group)
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": _xml(host),
                **_junit_counts(report.counts(host)),
                "time": f"{sum(r.duration_s for r in results):.3f}",
            },
        )
        for r in results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_xml(f"{r.host}.{r.suite}"),
                name=_xml(r.check),
                time=f"{r.duration_s:.3f}",
            )
            if tag := _JUNIT_TAGS.get(r.status):
                # CI lists show the attribute as a one-line summary; the body keeps it all.
                outcome = ET.SubElement(case, tag, message=_xml(r.message.partition("\n")[0]))
                outcome.text = _xml(r.message)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


# Offline-readable on purpose: the page is mailed around and opened on air-gapped hosts,
# so no fonts, scripts or images from anywhere.
_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem; color: #1f2328; }
table { border-collapse: collapse; margin-bottom: 1.5rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.num { text-align: right; }
.msg { white-space: pre-wrap; font-family: ui-monospace, monospace; }
.headline { font-size: 1.2rem; font-weight: bold; }
.pass, .compliant { color: #1a7f37; }
.fail, .drift { color: #cf222e; }
.error { color: #8250df; }
.na { color: #6e7781; }
"""


def _css_class(status: Status) -> str:
    return status.value.replace("/", "")


def _td(text: str, cls: str) -> str:
    attr = f' class="{escape(cls)}"' if cls else ""
    return f"<td{attr}>{escape(text)}</td>"


def _table(head: Sequence[str], rows: Iterable[Sequence[tuple[str, str]]]) -> str:
    """An HTML table whose cells are (text, css class): every text is escaped here, in one place."""
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "\n".join("<tr>" + "".join(_td(*cell) for cell in row) + "</tr>" for row in rows)
    return f"<table>\n<thead><tr>{header}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _host_rows(report: Report) -> Iterable[list[tuple[str, str]]]:
    for host in report.hosts():
        counts = report.counts(host)
        verdict = _host_verdict(counts)
        yield [(host, ""), *((str(counts[s]), "num") for s in Status), (verdict, verdict)]


def _result_row(r: CheckResult, *, with_host: bool) -> list[tuple[str, str]]:
    cells = [(r.suite, ""), (r.check, ""), (r.status.value, _css_class(r.status))]
    if with_host:
        cells.insert(0, (r.host, ""))
    else:
        cells.append((f"{r.duration_s:.2f} s", "num"))
    cells.append((r.message, "msg"))
    return cells


def to_html(report: Report) -> str:
    title = escape(f"racksmith check: {report.target}")
    verdict = _verdict(report)
    problems = report.problems()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{title}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        f"<h1>{title}</h1>",
        f'<p class="headline {verdict}">{escape(_summary(report))}</p>',
        f"<p>started {escape(report.started)}, took {report.duration_s:.1f} s</p>",
        "<h2>Hosts</h2>",
        _table(["host", *(s.value for s in Status), "status"], _host_rows(report)),
        "<h2>Problems</h2>",
        _table(
            ["host", "suite", "check", "status", "message"],
            (_result_row(r, with_host=True) for r in problems),
        )
        if problems
        else "<p>None.</p>",
        "<h2>All results</h2>",
    ]
    for host, group in groupby(_ordered(report), key=attrgetter("host")):
        parts.append(f"<h3>{escape(host)}</h3>")
        parts.append(
            _table(
                ["suite", "check", "status", "time", "message"],
                (_result_row(r, with_host=False) for r in group),
            )
        )
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def print_table(report: Report, console: Console) -> None:
    # Every value goes in as Text: a message such as "[/etc]" must not be read as rich markup.
    hosts = Table(title=Text(f"racksmith check: {report.target}"))
    hosts.add_column("host")
    for status in Status:
        hosts.add_column(status.value, justify="right")
    for host in report.hosts():
        counts = report.counts(host)
        hosts.add_row(
            Text(host, style=_STYLES[_host_verdict(counts)]), *(str(counts[s]) for s in Status)
        )
    console.print(hosts)

    if problems := report.problems():
        table = Table(title="problems")
        table.add_column("host")
        table.add_column("check")
        table.add_column("status")
        table.add_column("message", overflow="fold")
        for r in problems:
            style = _STYLES["error" if r.status is Status.ERROR else "drift"]
            table.add_row(
                Text(r.host),
                Text(f"{r.suite}/{r.check}"),
                Text(r.status.value, style=style),
                Text(r.message),
            )
        console.print(table)

    console.print(Text(_summary(report), style=_STYLES[_verdict(report)]))


_OUTPUTS: dict[str, tuple[str, Callable[[Report], str]]] = {
    "json": ("report.json", to_json),
    "junit": ("report.xml", to_junit),
    "html": ("report.html", to_html),
}


def write_reports(report: Report, directory: Path) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = {}
    for kind, (name, render) in _OUTPUTS.items():
        path = directory / name
        path.write_text(render(report), encoding="utf-8")
        written[kind] = path
    return written
