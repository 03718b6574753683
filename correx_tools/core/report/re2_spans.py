"""RE2 on UTF-8 bytes, as the masking needs it: where each match is, quickly.

The binding's ``finditer`` builds a match object for every match and its
``search`` maps offsets back to characters; masking needs only byte offsets, and
RE2's own ``Match`` gives them in about a microsecond. Where the binding has no
inner object to call, its public methods are used instead;
``tests/test_secret_rules.py`` holds the results to the binding's own search.

A regex with groups costs more to match than one without: RE2 finds where a
match is with its DFA (a few nanoseconds a byte), but the groups with an NFA
over the whole match (a hundred times that). `without_groups` gives the same
regex with every group made non-capturing, to find matches; their groups are
then read from each match alone (`groups_of`), and only where it is short.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from typing import Any

import re2

Spans = Sequence[tuple[int, int]]
"""The span of a match, then of each group (``(-1, -1)``: the group took no part)."""


def compiled(pattern: str, name: str, memory: int = 4 << 20) -> Any:
    """``pattern`` compiled by RE2 for UTF-8 bytes, its automata kept within ``memory``
    bytes; one RE2 refuses is a ``ValueError`` that says which (``name``) and why."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = memory
    try:
        return re2.compile(pattern.encode("utf-8"), options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ValueError(f"{name}: {reason}") from None


def matches(regex: Any, data: bytes) -> Iterator[Spans]:
    """The spans of each match of ``regex`` in ``data``, left to right, each search after a
    match starting where `after` says."""
    pos = 0
    while (spans := search(regex, data, pos)) is not None:
        yield spans
        pos = after(spans[0])


def after(span: tuple[int, int]) -> int:
    """Where the search after a match of ``span`` starts: at its last byte, not after it.

    RE2 has no lookaround, so a rule says "not after a letter" by reading the character
    before a name, and "at the value's end" by reading the one after it; the newline that
    ends one ``NAME=value`` line is then the one that begins the next. A match of two
    bytes or more moves the search on, so there are at most as many searches as bytes."""
    start, stop = span
    return stop - 1 if stop - 1 > start else stop if stop > start else stop + 1


def search(regex: Any, data: bytes, pos: int) -> Spans | None:
    """The spans of the first match of ``regex`` in ``data`` at or after ``pos``."""
    if pos > len(data):
        return None
    if _ANCHORS is None or not hasattr(regex, "_regexp"):
        found = regex.search(data, pos)
        return None if found is None else [found.span(g) for g in range(regex.groups + 1)]
    spans: Spans = regex._regexp.Match(_ANCHORS[0], data, pos, len(data))
    return spans if spans[0][0] >= 0 else None


def match_at(regex: Any, data: bytes, pos: int) -> Spans | None:
    """The spans of ``regex``'s match that starts at ``pos``, if there is one."""
    if _ANCHORS is None or not hasattr(regex, "_regexp"):
        found = regex.match(data, pos)
        return None if found is None else [found.span(g) for g in range(regex.groups + 1)]
    spans: Spans = regex._regexp.Match(_ANCHORS[2], data, pos, len(data))
    return spans if spans[0][0] >= 0 else None


def groups_of(regex: Any, data: bytes, start: int, end: int) -> Spans:
    """The spans of ``regex``'s match that is exactly ``data[start:end]`` (one its form
    `without_groups` found there: the same match, so the same groups)."""
    inner = getattr(regex, "_regexp", None)
    if inner is None or _ANCHORS is None:
        found = regex.fullmatch(data, start, end)
        assert found is not None, "a match found without groups is one with them"
        return [found.span(group) for group in range(regex.groups + 1)]
    spans: Spans = inner.Match(_ANCHORS[1], data, start, end)
    assert spans[0][0] >= 0, "a match found without groups is one with them"
    return spans


def finds(regex: Any, data: bytes) -> bool:
    """Whether ``regex`` matches somewhere in ``data``."""
    inner = getattr(regex, "_regexp", None)
    if inner is None or _ANCHORS is None:
        return regex.search(data) is not None
    return bool(inner.Match(_ANCHORS[0], data, 0, len(data))[0][0] >= 0)


def without_groups(pattern: str) -> str:
    """``pattern`` with every capturing group made non-capturing (``(x)``, ``(?P<n>x)`` and
    ``(?<n>x)`` become ``(?:x)``): it matches the same text at the same places.

    >>> without_groups(r"a(b|[(]c)(?P<d>\\()(?:e)")
    'a(?:b|[(]c)(?:\\\\()(?:e)'
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if pattern.startswith("\\Q", i):  # quoted to \E: no groups inside
                close = pattern.find("\\E", i + 2)
                close = n if close < 0 else close + 2
                out.append(pattern[i:close])
                i = close
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i):  # [:alpha:] inside a class
                close = pattern.find(":]", i + 2)
                if close >= 0:
                    out.append(pattern[i : close + 2])
                    i = close + 2
                    continue
            in_class = c != "]"
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a ] first in a class is itself
                out.append("]")
                i += 1
            continue
        if c == "(":
            named = pattern.startswith("(?P<", i) or pattern.startswith("(?<", i)
            if named:
                i = pattern.index(">", i) + 1
                out.append("(?:")
                continue
            if not pattern.startswith("(?", i):
                out.append("(?:")
                i += 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _anchors() -> tuple[Any, Any, Any] | None:
    try:  # the binding's compiled module, if this version has one
        anchor = importlib.import_module("re2._re2").RE2.Anchor
    except (ImportError, AttributeError):
        return None
    return anchor.UNANCHORED, anchor.ANCHOR_BOTH, anchor.ANCHOR_START


_ANCHORS = _anchors()
