"""The FlashBlade simulator as a fixture: its own process on 127.0.0.1 and a free port."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SIM_TOKEN = "T-racksmith-role-test"


@dataclass(frozen=True)
class Simulator:
    url: str  # host:port, as flashblade_url takes it
    data_dir: Path  # what the simulator exports over NFS, one folder per file system
    token: str = SIM_TOKEN


@pytest.fixture
def flashblade_sim(tmp_path: Path) -> Iterator[Simulator]:
    """``python -m racksmith.lab.flashblade_sim``, the entry point the lab uses."""
    sim_dir = tmp_path / "sim"
    data_dir = sim_dir / "data"
    data_dir.mkdir(parents=True)
    (sim_dir / "tokens").write_text(f"{SIM_TOKEN} pureuser\n")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "racksmith.lab.flashblade_sim",
            "--listen",
            "127.0.0.1:0",
            "--state",
            str(sim_dir / "state"),
            "--token-file",
            str(sim_dir / "tokens"),
            "--export-root",
            str(data_dir),
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening on https://" in line, line
        yield Simulator(url=line.rsplit("https://", 1)[1].strip(), data_dir=data_dir)
    finally:
        process.terminate()
        process.wait(timeout=10)
