"""Random specs never produce a traceback: either a plan or SpecError with located lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith.errors import SpecError
from racksmith.loader import spec_from_source
from racksmith.plan import build_plan
from racksmith.source import parse_text

SEED = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "examples" / "seed-reference.yml").read_text()
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 70000),
    st.text(max_size=12),
    st.sampled_from(
        [
            "10.21.115.7",
            "10.21.115.0/24",
            "1T",
            "Ethernet[1-4]",
            "*(rw)",
            "2:00:00",
            "eos",
            "v3",
            "dgx[1-3]",
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=8), kids, max_size=3)
    ),
    max_leaves=8,
)


def paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += paths(value, (*prefix, i))
    return out


ALL_PATHS = paths(SEED)[1:]


def mutate(doc: Any, path: tuple, value: Any) -> Any:
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return doc


def check(text: str) -> None:
    try:
        source = parse_text(text, "fuzz.yml")
        build_plan(spec_from_source(source), source)
    except SpecError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert "\n" not in str(problem)
            assert str(problem).startswith("fuzz.yml:")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(ALL_PATHS), values), min_size=1, max_size=4))
def test_mutated_seed_never_tracebacks(mutations: list[tuple[tuple, Any]]) -> None:
    doc = yaml.safe_load(yaml.safe_dump(SEED))
    for path, value in mutations:
        try:
            mutate(doc, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    check(yaml.safe_dump(doc))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_tracebacks(text: str) -> None:
    check(text)


@settings(max_examples=200, deadline=None)
@given(values)
def test_random_documents_never_traceback(doc: Any) -> None:
    check(yaml.safe_dump(doc))
