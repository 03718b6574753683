"""JSON read strictly and written canonically: what every stored event passes through.

Reading refuses ``NaN``, ``Infinity``, duplicate keys and absurd nesting; writing is
canonical (sorted keys, no spaces, UTF-8 as is), the text checksums are taken over.

The rules are those of the standard library's ``json`` with the hooks below
(`canonical_json`, and `loads_strict`'s slow path): they say what is accepted and
what bytes are written. A compiled codec (msgspec) does the work where it can
prove it gives exactly that answer, and hands everything else to the rules:

* a text is read by msgspec, then written again by it in the order read; when
  that gives back the very bytes read, the text is one value in msgspec's own
  spelling, which holds no duplicate key (a dict cannot write one twice), no
  ``NaN`` (msgspec reads none), no lone surrogate (it reads none), no integer
  over the digit limit (it reads none) and nothing around it, and ``json``
  reads it as the same value. Any other text (spaces, escapes spelled another
  way, ``1E5``, a duplicate key, ``-0``) takes the rules' path, which words
  the error when there is one;
* a value is written by msgspec with sorted keys and read back, each number
  with a fraction or exponent checked to be spelled as Python's ``repr``
  spells it (what ``json.dumps`` writes); when the value read back equals the
  value, those bytes are the ones ``json.dumps`` writes. Anything else (a
  tuple, a key that is not a string, a subclass, ``1e-05``, ``NaN``) is
  written by ``json.dumps`` itself.

Both parsers refuse a value nested deeper than the interpreter's stack allows,
but not at the same depth (msgspec goes a few levels further). So a text or
value with `SHALLOW` opening brackets or more, which could nest that deep, is
always read and written by the rules, and that limit is theirs as before.

`tests/test_codec.py` holds both to the rules on arbitrary values and texts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, Final

import msgspec


class EnvelopeError(ValueError):
    """A stored envelope that cannot be decoded; the message says what is wrong."""


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, UTF-8 as is: the text the checksum is taken over."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def refuse_constant(name: str) -> object:
    """A decoder hook that refuses ``NaN``, ``Infinity`` and ``-Infinity``."""
    raise EnvelopeError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise EnvelopeError(f"duplicate key {key[:60]!r}")
            seen.add(key)
    return result


# One decoder for every read: json.loads with hooks would build a new one per call.
_DECODER = json.JSONDecoder(parse_constant=refuse_constant, object_pairs_hook=_no_duplicates)


# The decoder's own scanner (C when available), which typeshed does not declare.
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


_JSON_WHITESPACE = " \t\n\r"
"""What JSON takes for white space (``str.strip`` would take more)."""


class _NotAsPythonWrites(Exception):
    """A float spelled otherwise than ``repr`` spells it (``1e16``, ``0.00001``)."""


def _float_as_python_writes(literal: str) -> float:
    value = float(literal)
    if float.__repr__(value) != literal:
        raise _NotAsPythonWrites(literal)
    return value


_COMPILED_READ = msgspec.json.Decoder().decode
_COMPILED_WRITE = msgspec.json.Encoder().encode
_COMPILED_CANONICAL = msgspec.json.Encoder(order="sorted").encode
_READ_BACK = msgspec.json.Decoder(float_hook=_float_as_python_writes).decode
_COMPILED_REFUSALS = (
    msgspec.MsgspecError,  # malformed, a number out of range, a lone surrogate
    _NotAsPythonWrites,
    TypeError,  # a type it does not write, a key that is not a string
    ValueError,  # an integer past the digit limit
    RecursionError,
    UnicodeError,  # a str holding a lone surrogate
)
"""What the compiled codec raises where it declines: the rules' path decides instead."""

SHALLOW: Final = 500
"""A text with fewer opening brackets than this nests less deep, and no parser runs out
of stack on it unless its caller is already about 500 frames deep (half the
interpreter's default limit); at this many or more, the compiled parser and the
standard library's could give up at different depths, and the rules decide. Real
payloads stay far below it: the largest line of the real transcripts (33 KB) holds 232."""

_LONG: Final = 2 * SHALLOW
"""Only a text this long can hold `SHALLOW` brackets and close them: a shorter one is not
counted (one comparison, where nearly every text is short)."""


_HUGE: Final = 8 << 20
"""A text longer than this is read by the rules alone: the compiled path's check writes the
value back and compares (two more copies of a 100 MB line)."""


def _may_nest_deep(text: str | bytes) -> bool:
    """Whether JSON ``text`` (at least `_LONG` long) may nest `SHALLOW` levels deep: two
    counts at C speed."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") >= SHALLOW
    return text.count(b"[") + text.count(b"{") >= SHALLOW


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` that refuses NaN, Infinity, duplicate keys and absurd nesting.

    >>> loads_strict('{"a":[1,2.5]}')
    {'a': [1, 2.5]}
    >>> loads_strict('{"a":1,"a":2}')
    Traceback (most recent call last):
    ...
    correx_tools.shell.stores.codec.strict_json.EnvelopeError: duplicate key 'a'
    """
    if len(text) >= _LONG and (len(text) > _HUGE or _may_nest_deep(text)):
        return _loads_by_the_rules(text)
    try:
        value = _COMPILED_READ(text)
        written = _COMPILED_WRITE(value)
    except _COMPILED_REFUSALS:
        return _loads_by_the_rules(text)
    read: bytes = text.encode("utf-8") if isinstance(text, str) else text
    if read == written:
        return value
    # A line read from a log ends with its newline.
    if len(read) == len(written) + 1 and read.endswith(b"\n") and read.startswith(written):
        return value
    return _loads_by_the_rules(text)


def loads_strict_span(text: str, start: int, stop: int) -> Any:
    """``loads_strict(text[start:stop])``, without copying a span longer than `_HUGE` (a
    line of 100 MB read in place): the standard library's scanner reads it where it lies,
    and anything it does not read whole and alone is read from the copy, which words the
    error."""
    if stop - start <= _HUGE:
        return loads_strict(text[start:stop])
    at = start
    while at < stop and text[at] in _JSON_WHITESPACE:
        at += 1
    try:
        value, end = _SCAN(text, at)
    except (StopIteration, ValueError, RecursionError):
        return loads_strict(text[start:stop])
    if end <= stop and _blank(text, end, stop):
        return value
    if end <= stop:  # a value, then more: said as the parser says it, without a copy
        error = json.JSONDecodeError("Extra data", text, end)
        raise EnvelopeError(f"invalid JSON: {str(error)[:200]}")
    return loads_strict(text[start:stop])


def _blank(text: str, start: int, stop: int) -> bool:
    """Whether ``text[start:stop]`` is JSON white space alone, looked at a piece at a time
    (most such tails are a newline; the rest of a file of 100 MB is not copied)."""
    for at in range(start, stop, _PIECE):
        if text[at : min(at + _PIECE, stop)].strip(_JSON_WHITESPACE):
            return False
    return True


_PIECE: Final = 1 << 16


def loads_vouched(text: str) -> Any:
    """``json.loads(text)``, for JSON text something vouches for (a chain over the row it
    was read from): parsed, none of the strict rules checked; it raises what ``json.loads``
    raises (the caller then reads the row by the rules, which word what is wrong).

    The compiled parser reads it where it gives ``json.loads``'s value; what it declines
    (``NaN``, ``1e400``, a lone surrogate, a text that may nest deep) ``json.loads`` reads.
    """
    if len(text) >= _LONG and _may_nest_deep(text):
        return json.loads(text)
    try:
        return _COMPILED_READ(text)
    except _COMPILED_REFUSALS:
        return json.loads(text)


def canonical_and_read_back(value: object) -> tuple[bytes, Any] | None:
    """``(canonical JSON bytes of value, what they read back as)``, when the compiled codec
    can show both are what `canonical_json` and ``json.loads`` give and the value reads
    back equal to itself; ``None`` for any other value (`canonical_json` decides)."""
    try:
        written = _COMPILED_CANONICAL(value)
        if len(written) >= _LONG and _may_nest_deep(written):
            return None
        read = _READ_BACK(written)
    except _COMPILED_REFUSALS:
        return None
    return (written, read) if read == value else None


def canonical_bytes(value: object) -> bytes:
    """`canonical_json` as UTF-8 bytes; a ``ValueError`` or ``TypeError`` as it raises it (a
    lone surrogate, which no UTF-8 holds, a ``UnicodeEncodeError``)."""
    proven = canonical_and_read_back(value)
    return canonical_json(value).encode("utf-8") if proven is None else proven[0]


def is_canonical(text: str) -> bool:
    """Whether ``text`` is the canonical JSON of what it reads as: it reads (plainly, as
    ``json.loads`` does) and `canonical_json` writes it back as itself."""
    try:
        if not (len(text) >= _LONG and _may_nest_deep(text)) and _COMPILED_CANONICAL(
            _READ_BACK(text)
        ) == text.encode("utf-8"):
            return True
    except _COMPILED_REFUSALS:
        pass
    try:
        return canonical_json(json.loads(text)) == text
    except (ValueError, RecursionError):  # a number too large (inf), nesting too deep
        return False


def _loads_by_the_rules(text: str | bytes) -> Any:
    """`loads_strict` by the standard library's parser and the hooks: the reference."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        # What every store writes: one value at the start, at most a newline after it.
        # The scanner alone skips decode()'s two whitespace matches; anything else
        # takes decode(), which also words the error.
        try:
            value, end = _SCAN(text, 0)
        except StopIteration:
            return _DECODER.decode(text)
        if end == len(text) or text[end:].isspace():
            return value
        return _DECODER.decode(text)
    except EnvelopeError:
        raise
    except RecursionError:
        raise EnvelopeError("JSON nested too deeply") from None
    except UnicodeDecodeError as error:
        raise EnvelopeError(f"not UTF-8: {error.reason} at byte {error.start}") from None
    except json.JSONDecodeError as error:
        if isinstance(text, str) and not text.strip(_JSON_WHITESPACE):
            raise EnvelopeError("invalid JSON: no value (empty, or white space only)") from None
        raise EnvelopeError(f"invalid JSON: {str(error)[:200]}") from None
    except ValueError:  # int() refuses integers over Python's digit limit
        raise EnvelopeError(
            f"invalid JSON: an integer longer than {sys.get_int_max_str_digits()} digits"
        ) from None


def encode_utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate (not Unicode text at all) is a clear ``ValueError``."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"a lone surrogate U+{ord(text[error.start]):04X} at character {error.start} "
            "is not Unicode text, and no store can keep it"
        ) from None
