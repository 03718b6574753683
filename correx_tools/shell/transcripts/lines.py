"""JSON Lines as agents write them, live: one value a line, the last one perhaps half-written.

A file being written is cut mid-line at its end: its last line, when it has
no newline and is not JSON, is left out and named (``incomplete_tail``). A
damaged line anywhere else refuses the file, unless the read is lenient, which
leaves each such line out and lists it (``skipped``). Lines are split at
``\\n`` only: a JSON string may hold U+2028 or a form feed, which are no line ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

from ..stores.codec.strict_json import EnvelopeError, loads_strict
from .calls import Unreadable

LENIENT_HINT = "; --lenient imports the other lines and lists the ones it leaves out"


@final
@dataclass(frozen=True, slots=True)
class Lines:
    """The JSON values of a file's lines, with their line numbers, and what was left out."""

    records: list[tuple[int, Any]]
    incomplete_tail: str = ""
    skipped: tuple[tuple[str, str], ...] = ()


def json_lines(text: str, *, lenient: bool = False) -> Lines:
    """Each non-blank line's JSON value (see the module docstring for what is left out)."""
    lines = text.split("\n")
    last = len(lines)
    records: list[tuple[int, Any]] = []
    skipped: list[tuple[str, str]] = []
    tail = ""
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            continue
        try:
            records.append((number, loads_strict(line)))
        except EnvelopeError as error:
            if number == last:  # no newline after it: still being written
                tail = f"line {number}"
            elif lenient:
                skipped.append((f"line {number}", str(error)))
            else:
                raise Unreadable(f"line {number}", f"{error}{LENIENT_HINT}") from None
    return Lines(records, tail, tuple(skipped))


def first_record(records: list[tuple[int, Any]]) -> dict[str, Any] | None:
    """The first record of a JSON Lines file, when it is an object (most formats are
    recognised by it)."""
    first = records[0][1] if records else None
    return first if isinstance(first, dict) else None


def strict_value(text: str, where: str) -> Any:
    """``text`` as JSON, strictly (no NaN, no duplicate keys); an error names ``where``."""
    try:
        return loads_strict(text)
    except EnvelopeError as error:
        raise Unreadable(where, str(error)) from None


def is_json(text: str) -> bool:
    """Whether ``text`` is one strict JSON value."""
    try:
        loads_strict(text)
    except EnvelopeError:
        return False
    return True
