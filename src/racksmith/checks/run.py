"""Run the testinfra suites against an inventory, one pytest per (suite, host), in parallel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader

from racksmith.checks.model import CheckResult, Report, Status
from racksmith.errors import RacksmithError
from racksmith.paths import ANSIBLE_CFG, INFRA_TESTS
from racksmith.runner.target import Target

# One pytest process per host is mostly waiting on the network; this many run at once.
PARALLEL = 8
SUITE_TIMEOUT_S = 600


@dataclass(frozen=True)
class Suite:
    name: str
    group: str  # the suite runs once per host of this inventory group
    path: Path


SUITES: tuple[Suite, ...] = (Suite("flashblade", "flashblade", INFRA_TESTS / "test_flashblade.py"),)


def hosts_of(inventory: Path, group: str, limit: str | None) -> list[str]:
    """The hosts of ``group`` after ``--limit``, read with Ansible's own inventory code."""
    manager = InventoryManager(loader=DataLoader(), sources=[str(inventory)])
    if limit:
        manager.subset(limit)
    return sorted(h.name for h in manager.get_hosts(pattern=group))


def _run_one(suite: Suite, host: str, inventory: Path) -> list[CheckResult]:
    with tempfile.TemporaryDirectory(prefix="racksmith-check-") as tmp:
        out = Path(tmp) / "results.jsonl"
        env = {
            **os.environ,
            "RACKSMITH_CHECK_OUT": str(out),
            "RACKSMITH_INVENTORY": str(inventory),
            "RACKSMITH_HOST": host,
            "ANSIBLE_CONFIG": str(ANSIBLE_CFG),
        }
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "racksmith.checks.plugin",
            "-W",
            "ignore",
            f"--hosts=ansible://{host}",
            f"--ansible-inventory={inventory}",
            "--rootdir",
            tmp,
            str(suite.path),
        ]
        try:
            done = subprocess.run(
                argv,
                env=env,
                capture_output=True,
                text=True,
                timeout=SUITE_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return [
                CheckResult(
                    host,
                    suite.name,
                    "suite",
                    Status.ERROR,
                    f"did not finish in {SUITE_TIMEOUT_S} s",
                )
            ]
        lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    results = [CheckResult(host=host, suite=suite.name, **_fields(line)) for line in lines]
    if not results:
        tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        results.append(
            CheckResult(host, suite.name, "suite", Status.ERROR, f"pytest ran no check: {tail[0]}")
        )
    return results


def _fields(line: str) -> dict[str, object]:
    raw = json.loads(line)
    return {**raw, "status": Status(raw["status"])}


def run_checks(
    target: Target, limit: str | None = None, suites: tuple[Suite, ...] = SUITES
) -> Report:
    """Every suite on every host of its group; a host the suites cannot reach is an error."""
    if not INFRA_TESTS.is_dir():
        raise RacksmithError(f"{INFRA_TESTS}: the testinfra suites are missing")
    started = datetime.now(UTC)
    clock = time.monotonic()
    jobs = [
        (suite, host) for suite in suites for host in hosts_of(target.inventory, suite.group, limit)
    ]
    if not jobs:
        raise RacksmithError(
            f"{target.inventory}: no host to check" + (f" within --limit {limit}" if limit else "")
        )
    with ThreadPoolExecutor(max_workers=min(PARALLEL, len(jobs))) as pool:
        batches = pool.map(lambda job: _run_one(job[0], job[1], target.inventory), jobs)
        results = [result for batch in batches for result in batch]
    return Report(
        target=target.label,
        started=started.isoformat(timespec="seconds"),
        duration_s=round(time.monotonic() - clock, 3),
        results=tuple(sorted(results, key=lambda r: (r.host, r.suite, r.check))),
    )
