"""Load a YAML spec keeping where each value came from, so errors can point at a line."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from racksmith.errors import SpecError, SpecProblem

Loc = tuple[str | int, ...]


@dataclass
class SpecSource:
    """The parsed document plus a map from each field path to its 1-based line."""

    file: str
    data: Any
    lines: dict[Loc, int] = field(default_factory=dict)

    def line_of(self, loc: Loc) -> int:
        """Line of ``loc``, or of its nearest ancestor that exists in the file."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return 1

    def problem(self, loc: Loc, reason: str) -> SpecProblem:
        return SpecProblem(self.file, self.line_of(loc), format_loc(loc), reason)


_PLAIN_KEY = re.compile(r"^[\w-]+$")


def format_loc(loc: Loc) -> str:
    """``a.b[0].c``; a key that is not a plain word is quoted so the line stays one line."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_INT_TAG = "tag:yaml.org,2002:int"


class _Builder:
    """Builds plain data from composed nodes and records each path's line.

    Built here rather than by yaml.load because YAML 1.1 reads ``2:00:00`` as the integer
    7200; a Slurm time limit must stay the string the user wrote.
    """

    def __init__(self) -> None:
        self.constructor = yaml.constructor.SafeConstructor()
        self.lines: dict[Loc, int] = {}
        self.dups: list[tuple[Loc, int]] = []

    def build(self, node: yaml.Node, loc: Loc, depth: int = 0) -> Any:
        if depth > 64:
            raise yaml.YAMLError("document nested deeper than 64 levels (a recursive alias?)")
        if isinstance(node, yaml.MappingNode):
            self.constructor.flatten_mapping(node)
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value)
                child = (*loc, key)
                if key in out:
                    self.dups.append((child, key_node.start_mark.line + 1))
                self.lines[child] = key_node.start_mark.line + 1
                out[key] = self.build(value_node, child, depth + 1)
            return out
        if isinstance(node, yaml.SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                child = (*loc, index)
                self.lines[child] = item.start_mark.line + 1
                items.append(self.build(item, child, depth + 1))
            return items
        if node.tag == _INT_TAG and ":" in node.value:
            return node.value
        return self.constructor.construct_object(node, deep=True)


def parse_text(text: str, file: str) -> SpecSource:
    """Parse YAML text; a syntax error or a duplicate key raises SpecError."""
    builder = _Builder()
    try:
        node = yaml.compose(text, Loader=_Loader)
        data = None if node is None else builder.build(node, ())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        reason = f"YAML syntax error: {exc.problem or exc.context}"
        raise SpecError([SpecProblem(file, line, "", reason)]) from None
    except yaml.YAMLError as exc:
        reason = " ".join(f"YAML error: {exc}".split())
        raise SpecError([SpecProblem(file, 1, "", reason)]) from None
    if node is not None:
        builder.lines[()] = node.start_mark.line + 1
    if builder.dups:
        raise SpecError(
            [
                SpecProblem(file, line, format_loc(loc), "key given twice")
                for loc, line in builder.dups
            ]
        )
    return SpecSource(file, data, builder.lines)


def read_spec_file(path: str | Path) -> SpecSource:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError([SpecProblem(str(p), 0, "", f"cannot read spec: {exc.strerror}")]) from None
    except UnicodeDecodeError:
        raise SpecError([SpecProblem(str(p), 0, "", "spec is not UTF-8 text")]) from None
    return parse_text(text, str(p))
