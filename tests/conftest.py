from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def seed_text() -> str:
    return (EXAMPLES / "seed-reference.yml").read_text()
