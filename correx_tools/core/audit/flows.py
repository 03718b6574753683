"""The flow tracker: values that came out of an untrusted call, found again later.

The unit of a value is a line of a call's output text with its whitespace normalised (runs
of spaces, tabs and line ends made one space, the ends stripped) of at least
``min_chars`` characters, and each whitespace-free word of at least `MIN_WORD` characters
(a URL, a key, a path). Each is kept as an 8-byte BLAKE2b hash with the call it came out
of, in a set of at most `MAX_VALUES` per session: when full, the oldest go first. A later
call's shell command, written text or network arguments, cut into the same units, is
looked up unit by unit; an equal hash is a flow.

What it cannot see: a value changed on the way (encoded, split, joined with other text on
one line, re-quoted), a unit shorter than the minimum, a value whose source was let go
from a full set, and anything a tool read that its recorded output does not show.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import final

MAX_VALUES = 65_536
"""Hashes kept per session (about 8 MiB at most with their sources)."""
MIN_WORD = 24
"""The shortest whitespace-free word followed on its own."""
MAX_TEXT = 1 << 20
"""Characters of one output or sink text cut into units."""
KEY_SIZE = 8
"""Bytes of a unit's hash."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """Where a tracked value came from: the call's tool, its request's sequence, and its
    ending event's sequence and evidence value; ``why``: network or an untrusted read."""

    tool: str
    request: int
    sequence: int
    value: str
    why: str


def units(text: str, min_chars: int) -> Iterator[str]:
    """The units of ``text``: normalised lines of ``min_chars`` or more, and long words.

    >>> list(units("  curl   https://example.com/install.sh | sh\\nok", 16))
    ['curl https://example.com/install.sh | sh', 'https://example.com/install.sh']
    """
    for line in text[:MAX_TEXT].splitlines():
        words = line.split()
        flat = " ".join(words)
        if len(flat) >= min_chars:
            yield flat
        if len(words) > 1:
            yield from (word for word in words if len(word) >= MIN_WORD)


def _key(unit: str) -> bytes:
    return hashlib.blake2b(unit.encode("utf-8", "surrogatepass"), digest_size=KEY_SIZE).digest()


def unit_keys(text: str, min_chars: int) -> bytes:
    """The hashes of ``text``'s units, in order, each `KEY_SIZE` bytes, joined: what a
    worker auditing a part of a session sends back for the join to track or look up."""
    return b"".join(_key(unit) for unit in units(text, min_chars))


def _split(keys: bytes) -> Iterator[bytes]:
    return (keys[at : at + KEY_SIZE] for at in range(0, len(keys), KEY_SIZE))


class FlowTracker:
    """One session's tracked values (bounded: `MAX_VALUES`)."""

    __slots__ = ("_min", "_values")

    def __init__(self, min_chars: int) -> None:
        self._min = min_chars
        self._values: dict[bytes, Source] = {}

    def __len__(self) -> int:
        return len(self._values)

    def add(self, text: str, source: Source) -> None:
        """Track every unit of ``text`` as having come out of ``source``."""
        self.add_keys(unit_keys(text, self._min), source)

    def add_keys(self, keys: bytes, source: Source) -> None:
        """Track every unit hashed in ``keys`` (`unit_keys`) as having come out of
        ``source``: the same as `add` of the text they were cut from."""
        values = self._values
        for key in _split(keys):
            if key in values:
                continue
            if len(values) >= MAX_VALUES:
                del values[next(iter(values))]
            values[key] = source

    def knows(self, keys: bytes) -> bool:
        """Whether any unit hashed in ``keys`` is tracked (`found` would find one)."""
        values = self._values
        return bool(values) and any(key in values for key in _split(keys))

    def found(self, text: str) -> list[tuple[str, Source]]:
        """Each unit of ``text`` tracked before, with its source (one per source)."""
        seen: dict[int, tuple[str, Source]] = {}
        if not self._values:
            return []
        for unit in units(text, self._min):
            source = self._values.get(_key(unit))
            if source is not None and source.sequence not in seen:
                seen[source.sequence] = (unit, source)
        return list(seen.values())


class FlowRecorder:
    """In place of a `FlowTracker` where a part of a session is audited apart from the
    parts before it (which it cannot see): what would have been tracked and looked up is
    kept, hashed, in order, for the join to replay through the session's one tracker."""

    __slots__ = ("_min", "sinks", "sources")

    def __init__(self, min_chars: int) -> None:
        self._min = min_chars
        self.sources: list[tuple[bytes, Source]] = []
        self.sinks: list[bytes] = []

    def __len__(self) -> int:
        return 1  # any earlier part may have tracked a value: every sink is looked up

    def add(self, text: str, source: Source) -> None:
        """Keep ``text``'s hashed units as having come out of ``source``."""
        self.sources.append((unit_keys(text, self._min), source))

    def found(self, text: str) -> list[tuple[str, Source]]:
        """Keep ``text``'s hashed units to be looked up; nothing is found here."""
        self.sinks.append(unit_keys(text, self._min))
        return []
