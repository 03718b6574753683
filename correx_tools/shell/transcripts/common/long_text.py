"""A string too long for any event, held as its first `KEPT` characters: what a reader is
given in place of an output of 100 MB, so that reading it costs a few megabytes.

A string of more than `KEPT` characters never fits in an event (each character takes a
byte at least, and an event holds `MAX_EVENT_BYTES`), so the import always cuts it to a
prefix of fewer characters, noting its size and SHA-256 (`importing.cutting`). A
`LongText` is that string as far as the readers and the cut can tell: a ``str`` whose
own characters are the first `KEPT` of the whole, which knows the whole's length (its
``len``), its size in UTF-8 and its SHA-256, and can give the whole again a piece at a
time (`LongText.pieces`, read again from where it was found).

It answers exactly what the whole string answers to what the readers ask of a text: its
length and truth, equality, ``in``, ``startswith``, a slice or a character within its
first `KEPT`, and ``str()`` (itself). `joined` joins texts where one may be long. Anything
else (``strip``, ``split``, ``+``, a format, ``repr``, a hash, a slice past its first
characters) raises `Untrimmable`: the file is then read whole, as it was before texts were
held so, and gives exactly what it gave then (`recognising`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from operator import index
from typing import TYPE_CHECKING, Any, Final, NoReturn, SupportsIndex

from ...stores.codec.envelope import MAX_EVENT_BYTES

if TYPE_CHECKING:
    from re2 import _Match as Match
    from re2 import _Regexp

KEPT: Final = MAX_EVENT_BYTES
"""A string of more characters than this is held as a `LongText` of this many: more than
any cut keeps (a cut keeps fewer bytes than an event holds)."""


class Untrimmable(Exception):
    """A long text was asked what only its whole can answer, or the text it lies in cannot
    be cut safely: the file is read whole instead."""


Pieces = Callable[[], Iterator[str]]
"""Gives a long text's whole, a piece at a time, each time it is called."""


class LongText(str):
    """A string of more than `KEPT` characters, held as its first `KEPT` (see the module
    docstring). ``size`` is the whole's size in UTF-8 (a lone surrogate as three bytes,
    as the cut counts it); ``digest`` its SHA-256 (hex), found when first asked when it
    was not known (a text joined from others)."""

    length: int
    size: int
    _digest: str | None
    _pieces: Pieces

    def __new__(
        cls,
        head: str | None = None,
        *,
        length: int = 0,
        size: int = 0,
        digest: str | None = None,
        pieces: Pieces | None = None,
    ) -> LongText:
        if head is None or pieces is None:  # a text of its kind made anew (``type(t)()``)
            raise _refusal("a new text of its kind")
        made = super().__new__(cls, head[:KEPT])
        made.length, made.size, made._digest, made._pieces = length, size, digest, pieces
        return made

    def pieces(self) -> Iterator[str]:
        """The whole string, a piece at a time (read again each time)."""
        return self._pieces()

    @property
    def digest(self) -> str:
        """The whole's SHA-256, in hex."""
        if self._digest is None:
            from hashlib import sha256  # noqa: PLC0415 - OpenSSL's is slow to load; seldom asked

            hashed = sha256()
            for piece in self.pieces():
                hashed.update(piece.encode("utf-8", "surrogatepass"))
            self._digest = hashed.hexdigest()
        return self._digest

    def described(self) -> str:
        """``104,857,600 bytes, sha256:<hex>``: the whole's size and digest, as a cut
        names them."""
        return f"{self.size:,} bytes, sha256:{self.digest}"

    def __len__(self) -> int:
        return self.length

    def __bool__(self) -> bool:
        return True

    def __str__(self) -> str:
        return self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LongText):
            mine = (self.length, self.size, self.digest)
            return (other.length, other.size, other.digest) == mine
        if not isinstance(other, str) or len(other) != self.length:
            return False
        at = 0
        for piece in self.pieces():
            if other[at : at + len(piece)] != piece:
                return False
            at += len(piece)
        return True

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        raise _refusal("hash")

    def __contains__(self, part: object) -> bool:
        if not isinstance(part, str) or isinstance(part, LongText):
            raise _refusal("in")
        if str.__contains__(self, part):
            return True
        keep, tail = len(part) - 1, ""
        for piece in self.pieces():
            window = tail + piece
            if part in window:
                return True
            tail = window[len(window) - keep :] if keep else ""
        return False

    def startswith(
        self, prefix: str | tuple[str, ...], start: SupportsIndex | None = None,
        end: SupportsIndex | None = None,
    ) -> bool:  # fmt: skip
        """What the whole answers: told by its first characters."""
        told = (prefix,) if isinstance(prefix, str) else prefix
        if start is not None or end is not None or any(len(p) > KEPT for p in told):
            raise _refusal("startswith")
        return str.startswith(self, prefix)

    def __getitem__(self, key: SupportsIndex | slice) -> str:
        if isinstance(key, slice):
            start, stop, step = key.indices(self.length)
            if step == 1 and (stop <= KEPT or start >= stop):
                return str.__getitem__(self, slice(start, stop))
        elif 0 <= index(key) < KEPT:
            return str.__getitem__(self, key)
        raise _refusal("a slice past its first characters")

    def __reduce__(self) -> NoReturn:
        raise _refusal("pickle")


def _refusal(what: str) -> Untrimmable:
    return Untrimmable(f"{what} of a text held as its first {KEPT:,} characters")


def _refusing(name: str) -> Callable[..., Any]:
    def refused(self: LongText, *args: object, **kwargs: object) -> NoReturn:
        raise _refusal(name)

    refused.__name__ = name
    return refused


_REFUSED = (
    "__add__",
    "__radd__",
    "__mul__",
    "__rmul__",
    "__mod__",
    "__rmod__",
    "__format__",
    "__repr__",
    "__iter__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__reduce_ex__",
    "__getnewargs__",
    "__copy__",
    "__deepcopy__",
    "capitalize",
    "casefold",
    "center",
    "count",
    "encode",
    "endswith",
    "expandtabs",
    "find",
    "format",
    "format_map",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
)
for _name in _REFUSED:
    setattr(LongText, _name, _refusing(_name))


def utf8_size(text: str) -> int:
    """``text``'s size in UTF-8, a lone surrogate as three bytes (as a cut counts it)."""
    return text.size if isinstance(text, LongText) else len(text.encode("utf-8", "surrogatepass"))


def joined(separator: str, parts: Iterable[str]) -> str:
    """``separator.join(parts)``; a `LongText` when one of them is (its digest found by
    reading them again)."""
    texts = list(parts)
    if not any(isinstance(text, LongText) for text in texts):
        return separator.join(texts)
    if len(texts) == 1:
        return texts[0]
    glued = [text for part in texts for text in (separator, part)][1:]
    head, room = [], KEPT
    for text in glued:
        if room > 0:
            head.append(text[:room])
            room -= len(head[-1])

    def pieces() -> Iterator[str]:
        return chain.from_iterable(
            text.pieces() if isinstance(text, LongText) else (text,) for text in glued
        )

    made = LongText(
        "".join(head),
        length=sum(map(len, glued)),
        size=sum(map(utf8_size, glued)),
        digest=None,
        pieces=pieces,
    )
    # Found now, while the file is read: a file changed since sends the reader back to the
    # whole text, which it cannot once the import has begun.
    _ = made.digest
    return made


_LOOKED_AT: Final = 4096
"""The characters of a long text a pattern of its start is tried on (`head_match`)."""


def head_match(pattern: _Regexp[str], text: str) -> Match[str] | None:
    """``pattern.match(text)``, for a pattern of a text's first few characters (``Exit code
    1``) that still matches a text cut short within what it matches; a long text's told
    by its first `_LOOKED_AT` characters, refused when the match reaches their end (what
    follows could change it)."""
    if not isinstance(text, LongText):
        return pattern.match(text)
    head = text[:_LOOKED_AT]
    found = pattern.match(head)
    if found is not None and found.end() >= len(head):
        raise _refusal("a pattern matching all")
    return found


def tail(text: str, count: int) -> str:
    """The last ``count`` characters of ``text`` (all of a shorter one); a long text's read
    a piece at a time."""
    if not isinstance(text, LongText):
        return text[len(text) - count :] if len(text) > count else text
    kept = ""
    for piece in text.pieces():
        kept = (kept + piece)[-count:]
    return kept


def windows(text: LongText, overlap: int) -> Iterator[tuple[str, bool, bool]]:
    """A long text's whole as windows, each beginning with the last ``overlap`` characters
    of the one before (a match of fewer characters, cut by one's end, is whole in the
    next): ``(window, whether it begins the text, whether it ends it)``."""
    held: str | None = None
    begins = True
    for piece in text.pieces():
        if held is not None:
            yield held, begins, False
            begins = begins and len(held) <= overlap
            held = held[-overlap:] + piece
        else:
            held = piece
    if held is not None:
        yield held, begins, True


def blank(text: str) -> bool:
    """Whether ``text`` is white space only (``not text.strip()``), a long one read a piece
    at a time when its first characters do not tell."""
    if not isinstance(text, LongText):
        return not text.strip()
    return not str.strip(text) and not any(piece.strip() for piece in text.pieces())


def holds_long(value: object) -> bool:
    """Whether ``value`` (JSON: objects, arrays, strings) holds a `LongText` (a walk with
    a stack of its own)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, LongText):
            return True
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return False
