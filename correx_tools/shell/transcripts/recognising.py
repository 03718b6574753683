"""Reading a transcript and recognising its format from its content, never its name.

A file's shape is told first: one JSON document, lines of one JSON value each,
Markdown, or (by its first bytes) a SQLite database. The formats written in
that shape (`agents.REGISTRY`, each its `AgentFormat`) are then tried on it in
their `Shape.rank` order, the more particular first; a document is also tried
as a file of one JSON line. What a format needs beside its file (a companion
read with it, a name its folder gives) is its record's too; what an evaluation harness
wrote beside a run is read for every format whose reader says how the run ended
(`common.evaluations`). Everything is
parsed strictly (no ``NaN``, no duplicate keys); a damaged line or document is
named by its line.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from .agent_format import AgentFormat, Shape
from .agents import REGISTRY
from .common.evaluations import evaluated
from .common.lines import LENIENT_HINT, Lines, json_document, json_lines
from .errors import Unreadable, Unrecognised
from .model import Transcript

BY_NAME = {found.name: found for found in REGISTRY}
"""Each format's record, by its name."""
FORMATS = tuple(BY_NAME)
"""Every format this package reads (``auto`` recognises each)."""
EXPECTED = {found.name: found.expected for found in REGISTRY}
"""What each format looks like, for the message that says a file is not one."""


def _tried(shape: str) -> tuple[tuple[str, Shape], ...]:
    """The formats written in ``shape``, each with its shape, in the order they are tried."""
    found = [(f.name, getattr(f, shape)) for f in REGISTRY if getattr(f, shape) is not None]
    return tuple(sorted(found, key=lambda pair: pair[1].rank))


LINE_READERS = _tried("lines")
"""The JSON Lines formats, each tested on the file's records in this order."""
DOCUMENT_READERS = _tried("document")
"""The JSON document formats, each tested on the document in this order."""
MARKDOWN_READERS = _tried("markdown")
"""The Markdown formats, each tested on the text in this order."""
DATABASES = tuple(found for found in REGISTRY if found.database is not None)
"""The formats kept in a SQLite database."""
SESSION_FILES = frozenset(f.session_file for f in REGISTRY if f.session_file is not None)
"""The file names every session of a format is written under (a folder names each)."""
_NOT_MARKDOWN = "Markdown, not " + " or ".join(BY_NAME[name].called for name, _ in MARKDOWN_READERS)

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first bytes of every SQLite file."""
_NEWLINE = b"\n"
_BOM = b"\xef\xbb\xbf"


def is_database(path: Path) -> bool:
    """Whether the file at ``path`` is a SQLite database (by its first bytes)."""
    with path.open("rb") as file:
        return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def database_format(tables: set[str]) -> AgentFormat | None:
    """The format of a SQLite file that holds ``tables``, if it is one this package reads."""
    return next(
        (found for found in DATABASES if found.database and found.database.tables <= tables), None
    )


def load(
    path: Path,
    format: str,
    name: str,
    *,
    lenient: bool = False,
    session: str | None = None,
    data: bytes | None = None,
) -> list[Transcript]:
    """The transcripts in the file at ``path``: one, or a database's every session (only
    ``session``'s when it is given). ``data`` is the file's bytes, when they were read
    already."""
    if data is None and is_database(path):
        return _database(path, format, session)
    for found in REGISTRY:
        beside = found.companion
        if (
            beside is not None
            and path.name == beside.name
            and path.with_name(beside.transcript).is_file()
        ):
            raise Unrecognised(f"read with the {beside.transcript} beside it, {beside.why}")
    transcript = parse(path.read_bytes() if data is None else data, format, name, lenient=lenient)
    read_as = BY_NAME[transcript.format]
    if read_as.placed is not None:
        transcript = read_as.placed(transcript, path)
    beside = read_as.companion
    if beside is not None and path.name == beside.transcript:
        companion = path.with_name(beside.name)
        if companion.is_file():
            transcript = beside.add(transcript, companion.read_bytes())
    return [evaluated(transcript, path)]


def _database(path: Path, format: str, session: str | None) -> list[Transcript]:
    """Every session of a database (or ``session``), read by the first format that takes it."""
    chosen = [found for found in DATABASES if format in ("auto", found.name)]
    if not chosen:
        raise _mismatch(format, "a SQLite database")
    refused: Unrecognised | None = None
    for found in chosen:
        assert found.database is not None
        try:
            return found.database.read(path, session)
        except Unrecognised as error:
            refused = error
    assert refused is not None
    raise refused


def default_name(path: Path, root: Path | None = None) -> str:
    """A session's name where its transcript records no id of its own: where its file lies
    under the folder ``root`` it was found in, its parts joined by ``/`` and without the
    file's suffix (``run-2/fix-auth.traj`` is ``run-2/fix-auth``), or its folder's place
    where every session's file has the same name (`AgentFormat.session_file`:
    ``web/app/.aider.chat.history.md`` is ``web/app``). Relative, so the same folder read
    from elsewhere gives the same names; two files under one root never share one.

    A file named on its own (``root`` is ``None``, or the file), or a session's file right
    in ``root``, has its own name: the file's without its suffix, or its folder's.

    >>> default_name(Path("runs/run-2/fix-auth.traj"), Path("runs"))
    'run-2/fix-auth'
    >>> default_name(Path("runs/run-2/fix-auth.traj"))
    'fix-auth'
    """
    if root is not None:
        try:
            parts = path.relative_to(root).parts
        except ValueError:  # not under it: named as a file on its own
            parts = ()
        if path.name in SESSION_FILES:
            parts = parts[:-1]
        elif parts:
            parts = (*parts[:-1], Path(parts[-1]).stem)
        if parts:
            return "/".join(parts)
    if path.name in SESSION_FILES:
        return path.resolve().parent.name or path.stem
    return path.stem


def parse(data: bytes, format: str, name: str, *, lenient: bool = False) -> Transcript:
    """The transcript in ``data``, in ``format`` (or the one recognised, for ``"auto"``)."""
    if data.startswith(SQLITE_HEADER):
        raise Unreadable("", "a SQLite database: give its path, not its bytes")
    data = data.removeprefix(_BOM)  # some Windows editors and tools begin UTF-8 text so
    text, cut, undecodable = _decoded(data, lenient)
    found = _parsed(text, format, name, lenient)
    if cut and not found.incomplete_tail:
        found = dataclasses.replace(found, incomplete_tail=cut)
    if undecodable:
        found = dataclasses.replace(found, skipped=_by_line(*undecodable, *found.skipped))
    return found


def _by_line(*skipped: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    """Lines left out, each with why, in the order of the file."""
    return tuple(sorted(skipped, key=lambda skip: _line_number(skip[0])))


def _line_number(where: str) -> int:
    """The number in ``line N`` (0 for a place named otherwise)."""
    number = where.removeprefix("line ")
    return int(number) if number.isdigit() else 0


def _decoded(data: bytes, lenient: bool) -> tuple[str, str, list[tuple[str, str]]]:
    """The text of ``data``; ``line N`` when its last line, still being written, was cut
    inside a character (that line is left out); and, with ``lenient``, the other lines
    that are not UTF-8 text, each left out (as an empty line) with why.

    A file whose first line is not UTF-8 text is no transcript; one with a later line
    that is not is a damaged transcript, refused naming the line (or, with
    ``lenient``, read without it).
    """
    try:
        return data.decode("utf-8"), "", []
    except UnicodeDecodeError as error:
        end = data.rfind(_NEWLINE) + 1
        if error.start >= end:
            return data[:end].decode("utf-8"), f"line {data.count(_NEWLINE) + 1}", []
        line = data.count(_NEWLINE, 0, error.start) + 1
        first = data.count(_NEWLINE, 0, len(data) - len(data.lstrip())) + 1
        if line <= first:  # every transcript is UTF-8 text: this is none
            raise Unrecognised(f"not UTF-8 text (line {line}, byte {error.start})") from None
        if not lenient:
            raise Unreadable(
                f"line {line}", f"not UTF-8 text (byte {error.start}){LENIENT_HINT}"
            ) from None
    lines, undecodable, offset = [], [], 0
    for number, raw in enumerate(data[:end].split(_NEWLINE)[:-1], start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as bad:
            lines.append("")
            undecodable.append((f"line {number}", f"not UTF-8 text (byte {offset + bad.start})"))
        offset += len(raw) + 1
    text, cut, _ = _decoded(data[end:], lenient=False) if end < len(data) else ("", "", [])
    if cut:
        cut = f"line {len(lines) + 1}"
    return "\n".join(lines) + "\n" + text, cut, undecodable


def _parsed(text: str, format: str, name: str, lenient: bool) -> Transcript:
    if not text or text.isspace():  # without a copy of a file of 100 MB
        blank = "only blank lines" if text else "an empty file"
        if format == "auto":
            raise Unrecognised(f"not a transcript of a known format ({blank})", ", ".join(FORMATS))
        raise _mismatch(format, blank)
    document, problem = json_document(text)
    markdown = document is None and not text.lstrip().startswith(("{", "["))
    for written, markdown_shape in MARKDOWN_READERS:
        if format == written or (format == "auto" and markdown and markdown_shape.looks_like(text)):
            if not markdown:
                raise _mismatch(format, _shape(document, None, problem))
            return _markdown(markdown_shape, text, name, recognised=format == written)
    if document is not None:
        readers = [(reader, document, document) for reader in DOCUMENT_READERS]
        one = [(1, document)]  # a JSON Lines file of one line
        readers += [(reader, one, one) for reader in LINE_READERS]
        return _read(readers, format, name, _shape(document, None, None))
    left_out: list[tuple[str, str]] = []
    while True:
        lines = _lines(text, lenient)
        if lines is None:  # not even its first line is JSON
            shape = _NOT_MARKDOWN if markdown_like(text) else _shape(None, None, problem)
            if format == "auto":
                raise Unrecognised(
                    f"not a transcript of a known format ({shape})", ", ".join(FORMATS)
                )
            raise _mismatch(format, shape)
        try:
            found = _read([(reader, lines.head, lines) for reader in LINE_READERS], format,
                          name, _shape(None, lines.head, problem))  # fmt: skip
        except Unrecognised:
            raise
        except Unreadable as unusable:
            # With --lenient, a line the reader cannot use (a result whose call was on a
            # damaged line, say) is left out and listed too, and the rest read again.
            number = _line_number(unusable.where.partition(":")[0])
            if not lenient or not number or len(left_out) >= LENIENT_LINES_AT_MOST:
                raise
            detail = unusable.where.partition(": ")[2]
            left_out.append((f"line {number}", f"{detail}: {unusable.message}" if detail
                             else unusable.message))  # fmt: skip
            text = _without_line(text, number)
            continue
        return dataclasses.replace(
            found,
            incomplete_tail=lines.incomplete_tail,
            skipped=_by_line(*lines.skipped, *left_out),
        )


LENIENT_LINES_AT_MOST = 100
"""Lines a lenient read leaves out because a reader cannot use them, before it refuses the
file (each one left out means reading the file again)."""


def _without_line(text: str, number: int) -> str:
    """``text`` with line ``number`` emptied (the other lines keep their numbers)."""
    lines = text.split("\n")
    lines[number - 1] = ""
    return "\n".join(lines)


def _read(
    candidates: list[tuple[tuple[str, Shape], Any, Any]], format: str, name: str, shape: str
) -> Transcript:
    """The transcript the first reader that recognises its ``probe`` reads (a document, or
    a file's first lines) from its ``value`` (the document, or all the lines)."""
    for (written, reader), probe, value in candidates:
        if format in ("auto", written) and reader.looks_like(probe):
            return reader.read(value, name)
    if format == "auto":
        raise Unrecognised(f"not a transcript of a known format ({shape})", ", ".join(FORMATS))
    raise _mismatch(format, shape)


def _mismatch(format: str, found: str) -> Unrecognised:
    return Unrecognised(f"not a {format} transcript: expected {EXPECTED[format]}; found {found}")


def _markdown(shape: Shape, text: str, name: str, *, recognised: bool) -> Transcript:
    """A Markdown transcript's complete lines (a last line still being written is left out).

    Unless the caller named the format (``recognised``), the complete lines alone must say
    it is one: a file whose only line of the format is still being written is not one yet, exactly
    as the same file without that line is not.
    """
    cut = text.rfind("\n") + 1
    tail = "" if cut == len(text) or not text[cut:].strip() else f"line {text.count(chr(10)) + 1}"
    whole = text[:cut] if tail else text
    if not recognised and not shape.looks_like(whole):
        found = (
            "one line, still being written"
            if not whole
            else "only blank lines"
            if not whole.strip()
            else _NOT_MARKDOWN
        )
        raise Unrecognised(f"not a transcript of a known format ({found})", ", ".join(FORMATS))
    return dataclasses.replace(shape.read(whole, name), incomplete_tail=tail)


def markdown_like(text: str) -> bool:
    """Whether text opens as Markdown does (a heading, front matter)."""
    return text.lstrip().startswith(("#", "---"))


def _lines(text: str, lenient: bool) -> Lines | None:
    """The file's JSON lines; ``None`` when its first line is no JSON (no JSON Lines file at
    all: the document's own error says more than a damaged line would)."""
    try:
        return json_lines(text, lenient=lenient)
    except Unreadable as damaged:
        first = next((n for n, line in enumerate(text.split("\n"), 1) if line.strip()), 1)
        if damaged.where == f"line {first}":
            return None
        raise


def _shape(document: Any, records: list[tuple[int, Any]] | None, problem: str | None) -> str:
    """What a file is, in a few words, for a message that says what it is not."""
    if records is not None:
        if not records:
            return "no complete line"
        first = records[0][1]
        keys = ", ".join(list(first)[:6]) if isinstance(first, dict) else type(first).__name__
        return f"JSON Lines whose first record has {keys}"
    if isinstance(document, dict):
        return f"a JSON object with {', '.join(list(document)[:6]) or 'no keys'}"
    if isinstance(document, list):
        return f"a JSON list of {len(document)} items"
    if document is not None:
        return f"a JSON {type(document).__name__}"
    return f"text that is not JSON ({problem})" if problem else "text that is not JSON"
