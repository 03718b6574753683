"""A long JSON string's body decoded a piece at a time, from its raw bytes: each piece ends
where no escape, UTF-8 character or surrogate pair is split, so that a string of 100 MB is
counted, hashed and read again without ever being whole (`trimming`)."""

from __future__ import annotations

import json.decoder
from collections.abc import Callable
from hashlib import sha256
from typing import Final

from .long_text import KEPT, Untrimmable

# The standard library's string scanner (C when available), which typeshed does not declare:
# what the strict parser decodes every string with.
_SCANSTRING: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

_PIECE: Final = 1 << 20
"""Bytes of a long string decoded at a time."""
_ESCAPE: Final = 12
"""The most bytes a piece is shortened by to end between escapes: two of ``\\uXXXX``."""


class Building:
    """A long string as it is decoded: its length, UTF-8 size and digest so far, its first
    characters, and its raw bytes while it may yet be short enough to keep."""

    def __init__(self) -> None:
        self.length = self.size = 0
        self.digest = sha256()
        self.cut = False
        self.raw: list[bytes] = []
        self.heads: list[str] = []
        self.head = ""

    def add(self, buf: bytes, start: int, end: int, *, last: bool) -> int:
        """Decode ``buf[start:end]`` (all of it when ``last``: the string ends there; else
        up to where a piece can end), and give where it stopped."""
        while start < end:
            text, stop = next_piece(buf, start, end, last=last)
            if stop == start:
                break
            self._add(buf[start:stop], text)
            start = stop
        return start

    def _add(self, raw: bytes, text: str) -> None:
        self.length += len(text)
        data = text.encode("utf-8", "surrogatepass")
        self.size += len(data)
        self.digest.update(data)
        if self.cut:
            return
        self.raw.append(raw)
        self.heads.append(text)
        if self.length > KEPT:
            self.cut = True
            self.head = "".join(self.heads)[:KEPT]
            self.raw, self.heads = [], []


def decoded(buf: bytes, start: int, stop: int, *, final: bool) -> tuple[str, int]:
    """A string body's bytes ``buf[start:stop]`` decoded, and where they end: all of them
    when ``final`` (they end the string), else shortened so that no character, escape or
    surrogate pair is split."""
    if not final:
        stop = _character_end(buf, start, stop)
    for _ in range(2 * _ESCAPE):
        if stop <= start:
            return "", start
        try:
            text, _ = _SCANSTRING('"' + buf[start:stop].decode("utf-8") + '"', 1, True)
        except (UnicodeDecodeError, ValueError):
            if final:
                raise Untrimmable("a long string that cannot be decoded") from None
            stop -= 1  # inside an escape
            continue
        if not final and "\ud800" <= text[-1:] <= "\udbff":
            stop -= 6  # a high surrogate's escape: its low one may follow
            continue
        return text, stop
    raise Untrimmable("a long string that cannot be decoded")


def next_piece(buf: bytes, start: int, end: int, *, last: bool) -> tuple[str, int]:
    """The next piece of a string body's bytes ``buf[start:end]``, decoded, and where it
    ends (``start``: none can end before ``end``, which is not the string's end)."""
    size = _PIECE
    while True:
        stop = min(start + size, end)
        text, got = decoded(buf, start, stop, final=last and stop == end)
        if got > start or stop == end:
            return text, got
        size *= 2  # no piece ends in so few bytes (escapes of surrogates, at most)


def _character_end(buf: bytes, start: int, stop: int) -> int:
    """``stop``, or where the UTF-8 character it splits begins."""
    lead = stop - 1
    while lead > start and stop - lead < 4 and 0x80 <= buf[lead] < 0xC0:
        lead -= 1
    first = buf[lead] if lead >= start else 0
    needed = 4 if first >= 0xF0 else 3 if first >= 0xE0 else 2 if first >= 0xC0 else 1
    return stop if stop - lead >= needed else lead
