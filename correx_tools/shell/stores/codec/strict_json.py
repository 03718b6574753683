"""JSON read strictly and written canonically: what every stored event passes through.

Reading refuses ``NaN``, ``Infinity``, duplicate keys and absurd nesting; writing is
canonical (sorted keys, no spaces, UTF-8 as is), the text checksums are taken over.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


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


def loads_strict(text: str | bytes) -> Any:
    """``json.loads`` that refuses NaN, Infinity, duplicate keys and absurd nesting."""
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
