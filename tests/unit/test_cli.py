from __future__ import annotations

import subprocess
import sys

import pytest

from racksmith import __version__
from racksmith.cli import build_parser, main


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert commands
    for name in commands:
        assert name in out


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "racksmith", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"racksmith {__version__}"


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["frobnicate"])
    assert exit_info.value.code == 2
