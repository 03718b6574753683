"""JSON Lines as agents write them, live: one value a line, the last one perhaps half-written.

A file being written is cut mid-line at its end: its last line, when it has
no newline and is not JSON, is left out and named (``incomplete_tail``). A
damaged line anywhere else refuses the file, unless the read is lenient, which
leaves each such line out and lists it (``skipped``). Lines are split at
``\\n`` only: a JSON string may hold U+2028 or a form feed, which are no line ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any, final

# The readers' one way to the stores' strict JSON (no NaN, no duplicate key): what every
# stored event is read with, so an imported value always reads back as itself.
from ...stores.codec.strict_json import EnvelopeError, loads_strict, loads_strict_span
from ..errors import Unreadable
from .long_text import LongText, Untrimmable

if TYPE_CHECKING:
    from .trimming import Trimmed

LENIENT_HINT = "; --lenient imports the other lines and lists the ones it leaves out"


Record = tuple[int, Any]
"""A line's number and its JSON value."""


@final
class Lines:
    """The JSON values of a file's lines, with their line numbers, and what was left out.

    The first `LOOK_AHEAD` are read at once (``head``: what tells the formats apart);
    the others as the reader iterates, so a file of a million lines is never held
    parsed all at once. ``incomplete_tail`` and ``skipped`` are known once it has.
    ``cut``: the long strings cut out of ``text`` (`trimming`), put back in each value.
    """

    LOOK_AHEAD = 200

    def __init__(self, text: str, *, lenient: bool = False, cut: Trimmed | None = None) -> None:
        self.incomplete_tail = ""
        self.skipped: list[tuple[str, str]] = []
        self._lenient = lenient
        self._cut = cut
        self._rest = self._records(text)
        self.head: list[Record] = list(islice(self._rest, self.LOOK_AHEAD))

    def __iter__(self) -> Iterator[Record]:
        yield from self.head
        yield from self._rest

    def _records(self, text: str) -> Iterator[Record]:
        number, start, size = 0, 0, len(text)
        while start < size:
            end = text.find("\n", start)
            last = end < 0
            stop = size if last else end
            number += 1
            begin, start = start, size if last else end + 1
            if begin == stop or (text[begin].isspace() and text[begin:stop].isspace()):
                continue
            try:
                # A line of many megabytes is read where it lies, not copied first.
                yield number, loads_cut(text, begin, stop, self._cut)
            except EnvelopeError as error:
                if last:  # no newline after it: still being written
                    self.incomplete_tail = f"line {number}"
                elif self._cut is not None and self._cut.holds_cut(text, begin, stop):
                    raise Untrimmable("a damaged line holding a long string") from None
                elif self._lenient:
                    self.skipped.append((f"line {number}", str(error)))
                else:
                    raise Unreadable(f"line {number}", f"{error}{LENIENT_HINT}") from None


def json_lines(text: str, *, lenient: bool = False, cut: Trimmed | None = None) -> Lines:
    """Each non-blank line's JSON value (see the module docstring for what is left out;
    ``cut``: the long strings cut out of ``text``)."""
    return Lines(text, lenient=lenient, cut=cut)


def first_record(records: list[Record]) -> dict[str, Any] | None:
    """The first record of a JSON Lines file, when it is an object (most formats are
    recognised by it)."""
    first = records[0][1] if records else None
    return first if isinstance(first, dict) else None


def first_record_has(records: list[Record], *keys: str, lacking: str) -> bool:
    """Whether the first record is an object with each of ``keys`` and without ``lacking``
    (the test of a format whose first record names itself by its members)."""
    first = first_record(records)
    return first is not None and all(key in first for key in keys) and lacking not in first


def loads_cut(text: str, start: int, stop: int, cut: Trimmed | None) -> Any:
    """`loads_shallow` of ``text[start:stop]``, some of a text ``cut`` was cut out of: each
    long string put back, as its `LongText`. Where a part nests too deeply around one, its
    mark could not be the original's: `Untrimmable`."""
    if cut is None or not cut.holds_cut(text, start, stop):
        return loads_shallow(text, start, stop)
    try:
        return cut.restored(loads_strict_span(text, start, stop))
    except EnvelopeError as error:
        if "nested too deeply" in str(error):
            raise Untrimmable("a long string in a part nested too deeply") from None
        raise


def loads_long(text: LongText) -> Any:
    """`loads_shallow` of a long text (JSON written as a string: a call's arguments), read
    a piece at a time, its own long strings cut out (`trimming`). What cannot be read so
    (a text that is not JSON, whose error would name its place) is `Untrimmable`."""
    from .trimming import TextSource, trimmed  # noqa: PLC0415 - only a long text's JSON

    cut = trimmed(TextSource(text))
    if cut is None:
        raise Untrimmable("JSON in a long text that cannot be cut")
    try:
        inner = cut.data.decode("utf-8")
        return loads_cut(inner, 0, len(inner), cut)
    except (UnicodeDecodeError, EnvelopeError):
        raise Untrimmable("JSON in a long text that does not read") from None


def loads_shallow(text: str, start: int = 0, stop: int | None = None) -> Any:
    """``text`` (``text[start:stop]``) as JSON, strictly (no NaN, no duplicate keys), each
    part nested too deeply for the parser replaced by a mark saying what it was
    (`shallow`): an agent's input nested 3,000 deep costs that input's depth, not the
    session. A `LongText` is read a piece at a time (`loads_long`)."""
    if isinstance(text, LongText):
        return loads_long(text)
    stop = len(text) if stop is None else stop
    try:
        return loads_strict_span(text, start, stop)
    except EnvelopeError as error:
        if "nested too deeply" not in str(error):
            raise
    from .shallow import shallow_text  # noqa: PLC0415 - only for a hostile text

    return loads_strict(shallow_text(text[start:stop]))


def strict_value(text: str, where: str) -> Any:
    """``text`` as JSON, strictly (no NaN, no duplicate keys); an error names ``where``."""
    try:
        return loads_shallow(text)
    except EnvelopeError as error:
        raise Unreadable(where, str(error)) from None


def json_document(text: str, cut: Trimmed | None = None) -> tuple[Any, str | None]:
    """``text`` as one strict JSON document, or ``None`` and why it is not one (``cut``:
    the long strings cut out of ``text``)."""
    try:
        return loads_cut(text, 0, len(text), cut), None
    except EnvelopeError as error:
        return None, str(error)


def is_json(text: str) -> bool:
    """Whether ``text`` is one strict JSON value."""
    try:
        loads_shallow(text)
    except EnvelopeError:
        return False
    return True
