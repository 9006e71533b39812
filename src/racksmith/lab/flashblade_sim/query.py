"""Collection queries of the FlashBlade REST 2.x API: filter, sort, limit/offset, tokens.

Implements the subset of the array's filter language that clients actually send:
comparisons (``=``, ``!=``, ``<``, ``>``, ``<=``, ``>=``) on dotted field paths against
quoted strings (``*`` wildcards for ``=``/``!=``), numbers and booleans, combined with
``and``, ``or``, ``not(...)`` and parentheses. Examples sent by the purestorage modules:
``name='nfs0'`` and ``name="account/*"``.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import json
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import unquote

from .errors import ApiError

Item = dict[str, Any]
Predicate = Callable[[Item], bool]

_TOKEN_RE = re.compile(
    r"""\s*(?:
        (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<op><=|>=|!=|=|<|>)
      | (?P<lp>\()
      | (?P<rp>\))
      | (?P<word>[A-Za-z0-9_.+\-:/*@]+)
    )""",
    re.VERBOSE,
)
_MISSING = object()


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if not match or match.end() == pos:
            raise ApiError(400, f"Invalid filter near '{text[pos : pos + 20]}'.", "filter")
        pos = match.end()
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tokens


def lookup(item: Item, path: str) -> Any:
    """Value of a dotted field path in an API object, _MISSING when absent."""
    value: Any = item
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def _literal(kind: str, text: str) -> Any:
    if kind == "str":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "null":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _compare(actual: Any, op: str, expected: Any) -> bool:
    if isinstance(actual, list):
        # A list field matches when any element does, e.g. services='data'.
        hits = [_compare(element, "=", expected) for element in actual]
        return any(hits) if op == "=" else (not any(hits) if op == "!=" else False)
    if actual is _MISSING:
        return op == "!=" and expected is not None
    if isinstance(actual, bool) or isinstance(expected, bool):
        equal = str(actual).lower() == str(expected).lower()
        return equal if op == "=" else (not equal if op == "!=" else False)
    if op in ("=", "!="):
        if isinstance(expected, str) and isinstance(actual, str):
            equal = fnmatch.fnmatchcase(actual, expected)
        else:
            equal = actual == expected
            if not equal and isinstance(expected, str) and actual is not None:
                equal = str(actual) == expected
        return equal if op == "=" else not equal
    try:
        if isinstance(actual, int | float) and isinstance(expected, str):
            expected = float(expected)
        if op == "<":
            return bool(actual < expected)
        if op == ">":
            return bool(actual > expected)
        if op == "<=":
            return bool(actual <= expected)
        return bool(actual >= expected)
    except TypeError:
        return False


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> tuple[str, str]:
        token = self._peek()
        if token is None:
            raise ApiError(400, "Invalid filter: unexpected end.", "filter")
        self.pos += 1
        return token

    def _is_word(self, word: str) -> bool:
        token = self._peek()
        return token is not None and token[0] == "word" and token[1].lower() == word

    def parse(self) -> Predicate:
        predicate = self._or()
        if self._peek() is not None:
            raise ApiError(400, f"Invalid filter near '{self._peek()[1]}'.", "filter")  # type: ignore[index]
        return predicate

    def _or(self) -> Predicate:
        parts = [self._and()]
        while self._is_word("or"):
            self.pos += 1
            parts.append(self._and())
        if len(parts) == 1:
            return parts[0]
        return lambda item: any(p(item) for p in parts)

    def _and(self) -> Predicate:
        parts = [self._unary()]
        while self._is_word("and"):
            self.pos += 1
            parts.append(self._unary())
        if len(parts) == 1:
            return parts[0]
        return lambda item: all(p(item) for p in parts)

    def _unary(self) -> Predicate:
        if self._is_word("not"):
            self.pos += 1
            inner = self._group()
            return lambda item: not inner(item)
        token = self._peek()
        if token is not None and token[0] == "lp":
            return self._group()
        return self._comparison()

    def _group(self) -> Predicate:
        if self._take()[0] != "lp":
            raise ApiError(400, "Invalid filter: '(' expected.", "filter")
        inner = self._or()
        if self._take()[0] != "rp":
            raise ApiError(400, "Invalid filter: ')' expected.", "filter")
        return inner

    def _comparison(self) -> Predicate:
        kind, field_path = self._take()
        if kind != "word":
            raise ApiError(
                400, f"Invalid filter: field name expected, got '{field_path}'.", "filter"
            )
        kind, op = self._take()
        if kind != "op":
            raise ApiError(
                400, f"Invalid filter: operator expected after '{field_path}'.", "filter"
            )
        kind, text = self._take()
        if kind not in ("str", "word"):
            raise ApiError(400, f"Invalid filter: value expected after '{op}'.", "filter")
        expected = _literal(kind, text)
        return lambda item: _compare(lookup(item, field_path), op, expected)


def parse_filter(text: str) -> Predicate:
    """Compile a filter expression; raises ApiError(400) when the array would."""
    return _Parser(text).parse()


def encode_token(offset: int) -> str:
    raw = json.dumps({"offset": offset}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token(token: str) -> int:
    try:
        padded = token + "=" * (-len(token) % 4)
        offset = json.loads(base64.urlsafe_b64decode(padded))["offset"]
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise ApiError(400, "Invalid continuation_token.", "continuation_token") from None
    if not isinstance(offset, int) or offset < 0:
        raise ApiError(400, "Invalid continuation_token.", "continuation_token")
    return offset


def sort_items(items: list[Item], sort: Sequence[str]) -> list[Item]:
    result = list(items)
    for key in reversed(sort):
        descending = key.endswith("-")
        path = key.rstrip("-")

        def sort_key(item: Item, path: str = path) -> tuple[int, Any]:
            value = lookup(item, path)
            if value is _MISSING or value is None:
                return (0, "")
            return (1, value if isinstance(value, int | float) else str(value))

        result.sort(key=sort_key, reverse=descending)
    return result


def paginate(
    items: list[Item],
    *,
    limit: int | None,
    offset: int | None,
    continuation_token: str | None,
    sorted_explicitly: bool,
) -> tuple[list[Item], str | None, bool]:
    """Slice a filtered collection; returns (page, continuation_token, more_remaining).

    The array hands out a continuation token only when a limit cut the listing short
    and no explicit sort was asked for.
    """
    start = decode_token(continuation_token) if continuation_token else (offset or 0)
    end = len(items) if limit is None else start + limit
    page = items[start:end]
    more = end < len(items)
    token = encode_token(end) if more and limit and not sorted_explicitly else None
    return page, token, more


class Query:
    """Query parameters as the client sends them: csv lists with each element %-quoted."""

    def __init__(self, raw: str = "") -> None:
        self._unquote = unquote
        self._raw: dict[str, str] = {}
        for pair in raw.split("&") if raw else []:
            key, _, value = pair.partition("=")
            self._raw[unquote(key)] = value

    def __contains__(self, key: str) -> bool:
        return key in self._raw

    def get_str(self, key: str) -> str | None:
        value = self._raw.get(key)
        return None if value is None else self._unquote(value)

    def get_list(self, key: str) -> list[str] | None:
        value = self._raw.get(key)
        if value is None:
            return None
        return [self._unquote(part) for part in value.split(",")]

    def get_bool(self, key: str) -> bool | None:
        value = self.get_str(key)
        if value is None:
            return None
        if value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ApiError(400, f"Invalid value '{value}' for query parameter '{key}'.", key)

    def get_int(self, key: str, *, minimum: int = 0) -> int | None:
        value = self.get_str(key)
        if value is None:
            return None
        try:
            number = int(value)
        except ValueError:
            number = minimum - 1
        if number < minimum:
            raise ApiError(400, f"Invalid value '{value}' for query parameter '{key}'.", key)
        return number
