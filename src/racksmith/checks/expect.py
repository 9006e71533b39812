"""Assertions for the testinfra suites that name what differs, as drift reports need."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def differences(expected: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    """``field: expected X, found Y`` for every field whose values differ, in field order."""
    return [
        f"{key}: expected {expected[key]}, found {found.get(key)}"
        for key in expected
        if found.get(key) != expected[key]
    ]


def assert_matches(what: str, expected: Mapping[str, Any], found: Mapping[str, Any]) -> None:
    """Fail with one line naming every difference, prefixed by what was checked."""
    diffs = differences(expected, found)
    if diffs:
        raise AssertionError(f"{what}: " + "; ".join(diffs))
