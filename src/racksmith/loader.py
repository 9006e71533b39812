"""Turn a spec file into a validated :class:`ClusterSpec`, or every problem with its line."""

from __future__ import annotations

import difflib
import types
import typing
from pathlib import Path
from typing import Any

import pydantic

from racksmith.errors import SpecError, SpecProblem
from racksmith.source import Loc, SpecSource, read_spec_file
from racksmith.spec import ClusterSpec

_MESSAGES = {
    "missing": "required field is missing",
    "bool_type": "must be true or false",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "dict_type": "must be a mapping of keys to values",
    "model_type": "must be a mapping of keys to values",
    "model_attributes_type": "must be a mapping of keys to values",
}


def _data_loc(data: Any, loc: tuple[Any, ...], error_type: str) -> Loc:
    """The part of pydantic's ``loc`` that names places in the document.

    pydantic inserts union branch tags and validator names into ``loc``; those are dropped.
    """
    out: list[str | int] = []
    node = data
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        if (isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node)) or (
            isinstance(part, str) and isinstance(node, dict) and part in node
        ):
            out.append(part)
            node = node[part]
        elif last and error_type == "missing" and isinstance(part, str):
            out.append(part)
    return tuple(out)


def _models_in(annotation: Any) -> list[type[pydantic.BaseModel]]:
    """Every model class an annotation can hold, through Optional, unions, lists, Annotated."""
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _models_in(args[0])
    if origin in (typing.Union, types.UnionType, list, tuple, dict):
        return [m for arg in args for m in _models_in(arg)]
    return []


def _fields_at(loc: Loc) -> set[str]:
    models: list[type[pydantic.BaseModel]] = [ClusterSpec]
    for part in loc:
        if isinstance(part, int):
            continue
        nxt: list[type[pydantic.BaseModel]] = []
        for model in models:
            field = model.model_fields.get(part)
            if field is not None:
                nxt += _models_in(field.annotation)
        models = nxt
    return {name for model in models for name in model.model_fields}


def _reason(error: Any, loc: Loc) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1])
        known = sorted(_fields_at(loc[:-1]))
        guess = difflib.get_close_matches(key, known, n=1)
        hint = f"; did you mean {guess[0]!r}?" if guess else f"; known keys: {', '.join(known)}"
        return f"unknown key {key!r}{hint}"
    if kind in _MESSAGES:
        return _MESSAGES[kind]
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    return message


def spec_from_source(source: SpecSource) -> ClusterSpec:
    """Validate parsed data; raise SpecError naming every field that is wrong."""
    if not isinstance(source.data, dict):
        raise SpecError([source.problem((), "a spec is a YAML mapping with a 'cluster' key")])
    try:
        return ClusterSpec.model_validate(source.data)
    except pydantic.ValidationError as exc:
        problems: dict[tuple[Loc, str], SpecProblem] = {}
        for error in exc.errors():
            loc = _data_loc(source.data, tuple(error["loc"]), error["type"])
            reason = _reason(error, loc)
            problems.setdefault((loc, reason), source.problem(loc, reason))
        raise SpecError(list(problems.values())) from None


def load_spec(path: str | Path) -> tuple[ClusterSpec, SpecSource]:
    source = read_spec_file(path)
    return spec_from_source(source), source
