"""Long strings cut out of a JSON text before it is parsed: a line of 100 MB read in a few.

An output of 100 MB, parsed, is a string of 100 to 400 MB, on top of the file's bytes and
text: reading such a transcript took half a gigabyte. Every string of more than `KEPT`
characters is cut by the import anyway (no event holds one), so `trimmed` reads the text a
block at a time and gives it back with each such string replaced by a short token, each
token standing for a `LongText` (the string's first `KEPT` characters, its length, its
UTF-8 size and SHA-256, made as it is read, and where it lies, to read it again);
`Trimmed.restored` puts the long texts in place of the tokens in the parsed value. Parsing
the trimmed text and restoring gives what parsing the text and holding each long string
as its `LongText` gives (`tests/test_long_lines.py` holds the two to each other).

How the text is read:

* a line of at most `KEPT` bytes holds no such string: it is copied as it is (nearly
  every line, a block at a time);
* a longer line is read string by string: a string shorter than `KEPT` bytes is copied;
  a longer one is decoded a piece at a time (each piece cut where no escape, UTF-8
  character or surrogate pair is split), each piece counted and hashed, and only its
  first `KEPT` characters kept; one that turns out to hold no more than `KEPT`
  characters is copied as it was;
* a string is looked for only in a long line, and a line ends at a newline: no JSON
  string holds one, so a broken line never makes the next one read as a string.

Only what is plainly one string of a well-formed text is cut. A long string that cannot be
decoded (a bad escape, a control character, bytes that are not UTF-8), that is not ended
before the text is, or that is a key, makes `trimmed` give ``None``: the text is then read
whole, as before, and says what is wrong as it did.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from hashlib import sha256
from pathlib import Path
from typing import Any, Final, Protocol, final

from .long_text import KEPT, LongText, Untrimmable
from .string_pieces import Building, decoded, next_piece

_BLOCK: Final = 1 << 19
"""Bytes read at a time (at most `KEPT`: a block then holds no line longer than that)."""
_QUOTE, _BACKSLASH, _NEWLINE, _COLON = 34, 92, b"\n", 58
_WHITE: Final = b" \t\r\n"


class Source(Protocol):
    """Where a JSON text is read from: its bytes from ``start`` to ``stop`` (to its end when
    ``stop`` is ``None``), a block at a time."""

    def blocks(self, start: int, stop: int | None) -> Iterator[bytes]:
        """The bytes from ``start`` to ``stop``."""
        ...


@final
@dataclass(frozen=True, slots=True)
class FileSource:
    """A file, opened again for each read (a file being written only grows)."""

    path: Path

    def blocks(self, start: int, stop: int | None) -> Iterator[bytes]:
        """The file's bytes from ``start`` to ``stop``."""
        with self.path.open("rb") as file:
            file.seek(start)
            at = start
            while stop is None or at < stop:
                block = file.read(_BLOCK if stop is None else min(_BLOCK, stop - at))
                if not block:
                    return
                at += len(block)
                yield block


@final
@dataclass(frozen=True, slots=True)
class BytesSource:
    """Bytes already read."""

    data: bytes

    def blocks(self, start: int, stop: int | None) -> Iterator[bytes]:
        """``data[start:stop]``, a block at a time."""
        end = len(self.data) if stop is None else stop
        for at in range(start, end, _BLOCK):
            yield self.data[at : min(at + _BLOCK, end)]


@final
@dataclass(frozen=True, slots=True)
class TextSource:
    """A long text holding JSON (a call's arguments, written as a JSON string), as UTF-8."""

    text: LongText

    def blocks(self, start: int, stop: int | None) -> Iterator[bytes]:
        """The UTF-8 of the whole text, from ``start`` to ``stop``."""
        at = 0
        for piece in self.text.pieces():
            data = piece.encode("utf-8", "surrogatepass")
            end = at + len(data)
            if end > start:
                yield data[max(start - at, 0) : len(data) if stop is None else stop - at]
            at = end
            if stop is not None and at >= stop:
                return


@final
@dataclass(frozen=True, slots=True)
class Trimmed:
    """A JSON text with each string of more than `KEPT` characters replaced by a token:
    ``data``, its bytes; ``cuts``, the long text each token stands for (none: ``data`` is
    the text as it was)."""

    data: bytes | bytearray
    marker: str
    cuts: dict[str, LongText] = field(default_factory=dict)

    def holds_cut(self, text: str, start: int = 0, stop: int | None = None) -> bool:
        """Whether ``text[start:stop]`` (some of the trimmed text) holds a token."""
        return bool(self.cuts) and text.find(self.marker, start, stop) >= 0

    def restored(self, value: Any) -> Any:
        """``value`` (parsed from some of the trimmed text) with each token replaced by its
        long text, in place (a walk with a stack of its own)."""
        if isinstance(value, str):
            return self._text(value)
        pending = [value]
        while pending:
            item = pending.pop()
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, inner in pairs:
                if isinstance(inner, str):
                    if inner.startswith(self.marker):
                        item[key] = self._text(inner)
                elif isinstance(inner, dict | list):
                    pending.append(inner)
        return value

    def _text(self, text: str) -> str:
        if not text.startswith(self.marker):
            return text
        found = self.cuts.get(text)
        if found is None:  # a token no cut made: never, as none can be guessed
            raise Untrimmable("a token that stands for no long text")
        return found


def trimmed(source: Source) -> Trimmed | None:
    """The JSON text ``source`` holds with each string of more than `KEPT` characters cut
    out (see the module docstring); ``None`` where one cannot be cut safely."""
    scan = _Scan(source)
    try:
        scan.run()
    except Untrimmable:
        return None
    return Trimmed(scan.out, scan.marker, scan.cuts)


_DONE, _LINE_ENDED, _TEXT_ENDED = range(3)
"""How a string was read: copied or cut; a newline came first (a broken line); the text
ended first."""


class _Scan:
    """One read of a text: ``buf`` holds what is read and not yet given out, from ``at``;
    ``base`` is where ``buf`` begins in the text (where the next block does, between long
    lines)."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.blocks = source.blocks(0, None)
        self.buf = b""
        self.at = self.base = 0
        self.out = bytearray()
        self.marker = f"long-text:{secrets.token_hex(16)}:"
        self.cuts: dict[str, LongText] = {}

    def run(self) -> None:
        """Copy the text, cutting its long strings."""
        line = 0  # bytes of the current line given out so far
        for block in self.blocks:
            first = block.find(_NEWLINE)
            if line + (len(block) if first < 0 else first) <= KEPT and (
                len(block) <= KEPT or _short(block.split(_NEWLINE)[1:-1])
            ):
                self.out += block
                self.base += len(block)
                line = line + len(block) if first < 0 else len(block) - block.rfind(_NEWLINE) - 1
                continue
            # A long line: taken back, and read from its start string by string.
            start = len(self.out) - line
            self.buf, self.at = bytes(self.out[start:]) + block, 0
            self.base -= line
            del self.out[start:]
            line = self._long_lines()
            if line < 0:
                return

    def _long_lines(self) -> int:
        """Read long lines from ``at`` until what is left of ``buf`` holds none; copy that,
        and give the bytes of its last line (-1: the text ended)."""
        while self._long_line():
            rest = self.buf[self.at :]
            parts = rest.split(_NEWLINE)
            if _short(parts):
                self.out += rest
                self.base += len(self.buf)
                self.buf, self.at = b"", 0
                return len(parts[-1])
            for part in parts:  # the short lines before the next long one
                if len(part) > KEPT:
                    break
                self._copy(self.at + len(part) + 1)
        return -1

    def _fill(self) -> bool:
        """Read one more block into ``buf`` (what was given out is dropped); ``False`` at
        the end of the text."""
        block = next(self.blocks, b"")
        if not block:
            return False
        self.base += self.at
        self.buf = self.buf[self.at :] + block
        self.at = 0
        return True

    def _copy(self, end: int) -> None:
        self.out += memoryview(self.buf)[self.at : end]
        self.at = end

    def _long_line(self) -> bool:
        """Copy one long line, cutting its long strings; ``False`` when the text ends in it
        (``True``: ``buf`` from ``at`` begins the next line)."""
        while True:
            buf = self.buf
            quote = buf.find(b'"', self.at)
            newline = buf.find(_NEWLINE, self.at, quote if quote >= 0 else len(buf))
            if newline >= 0:
                self._copy(newline + 1)
                return True
            if quote < 0:
                self._copy(len(buf))
                if not self._fill():
                    return False
                continue
            self._copy(quote + 1)
            read = self._string()
            if read != _DONE:
                return read == _LINE_ENDED

    def _closing(self, start: int) -> int:
        """Where the first unescaped quote at or after ``start`` is in ``buf`` (-1: none),
        of a string whose body is read from ``at``, where no escape is begun before."""
        buf = self.buf
        while True:
            quote = buf.find(b'"', start)
            if quote < 0:
                return -1
            back = quote - 1
            while back >= self.at and buf[back] == _BACKSLASH:
                back -= 1
            if (quote - 1 - back) % 2 == 0:
                return quote
            start = quote + 1

    def _string(self) -> int:
        """Copy, or cut, the string whose body begins at ``at``, with its closing quote
        (`_DONE`); or copy up to the newline that ends the line, or the text, first."""
        searched = self.at
        while True:
            quote = self._closing(searched)
            end = quote if quote >= 0 else len(self.buf)
            newline = self.buf.find(_NEWLINE, searched, end)
            if newline >= 0:
                self._copy(newline + 1)
                return _LINE_ENDED
            if quote >= 0 and quote - self.at <= KEPT:
                self._copy(quote + 1)
                return _DONE
            if quote >= 0 or len(self.buf) - self.at > KEPT:
                self._long_string()
                return _DONE
            searched = len(self.buf) - self.at
            if not self._fill():
                self._copy(len(self.buf))
                return _TEXT_ENDED

    def _long_string(self) -> None:
        """Decode the long string whose body begins at ``at``, a piece at a time, and give
        out its token (or, holding no more than `KEPT` characters, the string itself)."""
        start = self.base + self.at
        building = Building()
        while True:
            quote = self._closing(self.at)
            end = quote if quote >= 0 else len(self.buf)
            if self.buf.find(_NEWLINE, self.at, end) >= 0:
                raise Untrimmable("a line that ends inside a long string")
            self.at = building.add(self.buf, self.at, end, last=quote >= 0)
            if quote >= 0:
                break
            if not self._fill():
                raise Untrimmable("a long string the text does not end")
        stop = self.base + self.at
        self.at += 1  # its closing quote
        if not building.cut:
            self.out += b"".join(building.raw) + b'"'
            return
        if self._next() == _COLON:
            raise Untrimmable("a key of more characters than are kept")
        token = f"{self.marker}{len(self.cuts)}"
        digest = building.digest.hexdigest()
        self.cuts[token] = LongText(
            building.head,
            length=building.length,
            size=building.size,
            digest=digest,
            pieces=partial(_pieces, self.source, start, stop, digest),
        )
        self.out += token.encode() + b'"'

    def _next(self) -> int | None:
        """The first byte from ``at`` that is not white space (``None``: the end)."""
        at = self.at
        while True:
            while at < len(self.buf) and self.buf[at] in _WHITE:
                at += 1
            if at < len(self.buf):
                return self.buf[at]
            at -= self.at
            if not self._fill():
                return None


def _short(lines: list[bytes]) -> bool:
    return all(len(line) <= KEPT for line in lines)


def _pieces(source: Source, start: int, stop: int, digest: str) -> Iterator[str]:
    """The string whose body lies from ``start`` to ``stop`` in ``source``, decoded again a
    piece at a time; checked against its digest as it ends."""
    hashed = sha256()
    buf = b""
    for block in source.blocks(start, stop):
        buf += block
        at = 0
        while at < len(buf):
            text, end = next_piece(buf, at, len(buf), last=False)
            if end == at:
                break
            hashed.update(text.encode("utf-8", "surrogatepass"))
            yield text
            at = end
        buf = buf[at:]
    if buf:
        text, _ = decoded(buf, 0, len(buf), final=True)
        hashed.update(text.encode("utf-8", "surrogatepass"))
        yield text
    if hashed.hexdigest() != digest:
        raise Untrimmable("a file that changed while it was read")
