"""A value nested too deeply to store, cut to fit: each part deeper than `MAX_DEPTH` levels
replaced by a mark saying what it was.

An agent writes its own tool inputs, so one call's input can nest 3,000 levels deep: too
deep for the JSON parser (its line would refuse the whole session) and for every store
(an event nests at most 100 levels). Rather than lose the session, the import keeps the
call and puts, in place of each part past `MAX_DEPTH` levels (the depth tool arguments
are held to), the string ``[cut: a part nested deeper than 64 levels, 21,034 bytes,
sha256:<hex>]``: its size and digest, as for a string cut to fit (`cutting`). The audit
reads such a mark as a call it could not judge whole.

Two ways in: `shallow_text` for a JSON text the parser cannot take (a line, an argument
held as a string), cut in its text, so the digest is the original's; `shallow_value` for a
value that parsed but nests past the bound.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from hashlib import sha256
from typing import Any, Final

from ...stores.codec.strict_json import canonical_json

MAX_DEPTH: Final = 64
"""The deepest a value the import keeps may nest (objects and arrays)."""


def mark(text: str, place: str = "") -> str:
    """The mark put in place of a part too deep (its JSON ``text``)."""
    data = text.encode("utf-8", "surrogatepass")
    where = f"{place}: " if place else ""
    return (
        f"[cut: {where}a part nested deeper than {MAX_DEPTH} levels, {len(data):,} bytes, "
        f"sha256:{sha256(data).hexdigest()}]"
    )


def shallow_text(text: str) -> str:
    """The JSON ``text`` with each object or array opened past `MAX_DEPTH` levels replaced
    by its mark (a JSON string), or ``text`` itself when none is (or it is not JSON). One
    pass, each character looked at once, no recursion."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return text
    out: list[str] = []
    kept = depth = 0
    deep = -1  # where the part being cut opened (-1: none is)
    for at, char in _structure(text):
        opens = char in "[{"
        depth += 1 if opens else -1
        if opens and depth == MAX_DEPTH + 1:
            deep = at
        elif not opens and depth == MAX_DEPTH and deep >= 0:
            out += (text[kept:deep], json.dumps(mark(text[deep : at + 1])))
            kept, deep = at + 1, -1
    if deep >= 0 or not out:
        return text  # a part left open is not JSON: the parser says why
    out.append(text[kept:])
    return "".join(out)


def _structure(text: str) -> Iterator[tuple[int, str]]:
    """Each bracket of ``text`` outside strings, with where it is."""
    at, size = 0, len(text)
    while at < size:
        char = text[at]
        if char == '"':
            at = _string_end(text, at)
            continue
        if char in "[]{}":
            yield at, char
        at += 1


def _string_end(text: str, at: int) -> int:
    """Where the string opened at ``at`` ends (past its closing quote)."""
    while True:
        close = text.find('"', at + 1)
        if close < 0:
            return len(text)
        slashes = 0
        while text[close - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return close + 1
        at = close


def too_deep(value: Any) -> bool:
    """Whether ``value`` nests past `MAX_DEPTH` levels (a walk with a stack of its own)."""
    if isinstance(value, str):
        return False
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            items: Any = item.values()
        elif isinstance(item, list):
            items = item
        else:
            continue
        if depth > MAX_DEPTH:
            return True
        pending.extend((inner, depth + 1) for inner in items if isinstance(inner, dict | list))
    return False


def shallow_value(value: Any, label: str) -> tuple[Any, tuple[str, ...]]:
    """``value`` with each part opened past `MAX_DEPTH` levels replaced by its mark, and a
    note of each cut (``label``: what the value is, ``arguments`` or ``output``); a new
    value, ``value`` untouched."""
    notes: list[str] = []

    def cut(item: Any, depth: int, place: str) -> Any:
        # Depth is bounded by MAX_DEPTH here: past it the part is replaced, not walked.
        if not isinstance(item, dict | list):
            return item
        if depth > MAX_DEPTH:
            try:
                text = canonical_json(item)
            except (TypeError, ValueError, RecursionError):
                text = repr(type(item))
            found = mark(text, label + place[:120])
            notes.append(found[len("[cut: ") : -1])
            return found
        if isinstance(item, dict):
            return {key: cut(inner, depth + 1, f"{place}.{key}") for key, inner in item.items()}
        return [cut(inner, depth + 1, f"{place}[{n}]") for n, inner in enumerate(item)]

    return cut(value, 1, ""), tuple(notes)
