"""Reading a transcript and recognising its format from its content, never its name.

A file of one JSON value a line is a Codex rollout, a Gemini CLI chat, MCP
traffic, an older Goose session or a Claude Code session, told apart by their
first records; a file that is one JSON document is an OpenCode export, a Goose
export, an older Gemini CLI chat, a Cline task, a SWE-agent trajectory, an
OpenHands history, or an OpenAI or Anthropic message list, told apart by their
shapes (in that order: the more particular first); Markdown is an Aider
history; a SQLite file is Goose's database. Everything is parsed strictly (no
``NaN``, no duplicate keys); a damaged line or document is named by its line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, final

from . import (
    aider,
    claude_code,
    cline,
    cline_usage,
    codex,
    gemini,
    goose,
    goose_db,
    mcp,
    messages,
    opencode,
    openhands,
    swe_agent,
)
from .common.lines import LENIENT_HINT, Lines, json_document, json_lines
from .errors import Unreadable, Unrecognised
from .model import Transcript


@final
@dataclass(frozen=True, slots=True)
class Reader:
    """One format's test of a file's content and its reader."""

    format: str
    looks_like: Callable[[Any], bool]
    read: Callable[[Any, str], Transcript]


LINE_READERS = (
    Reader(codex.FORMAT, codex.looks_like, codex.read),
    Reader(gemini.FORMAT, gemini.looks_like_lines, gemini.read_lines),
    Reader(mcp.FORMAT, mcp.looks_like, mcp.read),
    Reader(goose.FORMAT, goose.looks_like_legacy, goose.read_legacy),
    Reader(claude_code.FORMAT, claude_code.looks_like, claude_code.read),
)
"""The JSON Lines formats, each tested on the file's records in this order."""


def _messages(kind: str) -> Reader:
    def looks_like(document: Any) -> bool:
        found = messages.messages_of(document)
        return found is not None and messages.kind_of(found[0]) == kind

    return Reader(kind, looks_like, lambda document, name: messages.read(document, name, kind))


DOCUMENT_READERS = (
    Reader(opencode.FORMAT, opencode.looks_like, opencode.read),
    Reader(goose.FORMAT, goose.looks_like_export, goose.read_export),
    Reader(gemini.FORMAT, gemini.looks_like_document, gemini.read_document),
    Reader(cline.FORMAT, cline.looks_like, cline.read),
    Reader(swe_agent.FORMAT, swe_agent.looks_like, swe_agent.read),
    Reader(openhands.FORMAT, lambda d: openhands.events_of(d) is not None, openhands.read),
    _messages(messages.OPENAI),
    _messages(messages.ANTHROPIC),
)
"""The JSON document formats, each tested on the document in this order."""

EXPECTED = {
    claude_code.FORMAT: "a Claude Code session: JSON Lines of user/assistant records "
    "with a sessionId",
    codex.FORMAT: codex.EXPECTED,
    gemini.FORMAT: gemini.EXPECTED,
    mcp.FORMAT: mcp.EXPECTED,
    goose.FORMAT: goose.EXPECTED,
    opencode.FORMAT: opencode.EXPECTED,
    cline.FORMAT: cline.EXPECTED,
    aider.FORMAT: aider.EXPECTED,
    swe_agent.FORMAT: "a SWE-agent trajectory: an object with a trajectory list",
    openhands.FORMAT: "an OpenHands history: a list of events, or an object with history",
    messages.OPENAI: "an OpenAI chat message list holding tool_calls",
    messages.ANTHROPIC: "an Anthropic Messages list holding tool_use blocks",
}
"""What each format looks like, for the message that says a file is not one."""

FORMATS = tuple(EXPECTED)
"""Every format this package reads (``auto`` recognises each)."""


_NEWLINE = b"\n"
_BOM = b"\xef\xbb\xbf"


def load(
    path: Path,
    format: str,
    name: str,
    *,
    lenient: bool = False,
    session: str | None = None,
    data: bytes | None = None,
) -> list[Transcript]:
    """The transcripts in the file at ``path``: one, or a Goose database's every session
    (only ``session``'s when it is given). ``data`` is the file's bytes, when they were
    read already."""
    if data is None and goose_db.is_database(path):
        if format not in ("auto", goose.FORMAT):
            raise _mismatch(format, "a SQLite database")
        return goose_db.read_database(path, session)
    if path.name == cline_usage.UI_MESSAGES and path.with_name(cline.HISTORY).is_file():
        raise Unrecognised(f"read with the {cline.HISTORY} beside it, for the task's tokens")
    transcript = parse(path.read_bytes() if data is None else data, format, name, lenient=lenient)
    if transcript.format == cline.FORMAT and path.name == cline.HISTORY:
        # A task's folder is named by the task's id.
        about = dataclasses.replace(transcript.about, agent_session_id=path.parent.name)
        transcript = dataclasses.replace(transcript, about=about)
        tokens = path.with_name(cline_usage.UI_MESSAGES)
        if tokens.is_file():  # the task's tokens are kept there
            transcript = cline_usage.with_usage(transcript, tokens.read_bytes())
    if transcript.format == gemini.FORMAT and transcript.about.parent_session == gemini.SUBAGENT:
        # A subagent's chat is kept in a folder named by the session that started it.
        about = dataclasses.replace(transcript.about, parent_session=path.parent.name or None)
        transcript = dataclasses.replace(transcript, about=about)
    return [transcript]


def default_name(path: Path) -> str:
    """A session's name of last resort: the file's, or its folder's where the file's name
    is the same for every session (a Cline task's, an Aider history's)."""
    if path.name in (cline.HISTORY, ".aider.chat.history.md"):
        return path.resolve().parent.name or path.stem
    return path.stem


def parse(data: bytes, format: str, name: str, *, lenient: bool = False) -> Transcript:
    """The transcript in ``data``, in ``format`` (or the one recognised, for ``"auto"``)."""
    if data.startswith(goose_db.HEADER):
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
    if not text.strip():
        blank = "only blank lines" if text else "an empty file"
        if format == "auto":
            raise Unrecognised(f"not a transcript of a known format ({blank})", ", ".join(FORMATS))
        raise _mismatch(format, blank)
    document, problem = json_document(text)
    markdown = document is None and not text.lstrip().startswith(("{", "["))
    if format == aider.FORMAT or (format == "auto" and markdown and aider.looks_like(text)):
        if not markdown:
            raise _mismatch(format, _shape(document, None, problem))
        return _markdown(text, name, recognised=format == aider.FORMAT)
    if document is not None:
        readers = [(reader, document, document) for reader in DOCUMENT_READERS]
        one = [(1, document)]  # a JSON Lines file of one line
        readers += [(reader, one, one) for reader in LINE_READERS]
        return _read(readers, format, name, _shape(document, None, None))
    left_out: list[tuple[str, str]] = []
    while True:
        lines = _lines(text, lenient)
        if lines is None:  # not even its first line is JSON
            shape = (
                "Markdown, not an Aider history"
                if markdown_like(text)
                else _shape(None, None, problem)
            )
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
    candidates: list[tuple[Reader, Any, Any]], format: str, name: str, shape: str
) -> Transcript:
    """The transcript the first reader that recognises its ``probe`` reads (a document, or
    a file's first lines) from its ``value`` (the document, or all the lines)."""
    for reader, probe, value in candidates:
        if format in ("auto", reader.format) and reader.looks_like(probe):
            return reader.read(value, name)
    if format == "auto":
        raise Unrecognised(f"not a transcript of a known format ({shape})", ", ".join(FORMATS))
    raise _mismatch(format, shape)


def _mismatch(format: str, found: str) -> Unrecognised:
    return Unrecognised(f"not a {format} transcript: expected {EXPECTED[format]}; found {found}")


def _markdown(text: str, name: str, *, recognised: bool) -> Transcript:
    """An Aider history's complete lines (a last line still being written is left out).

    Unless the caller named the format (``recognised``), the complete lines alone must say
    it is one: a file whose only Aider line is still being written is not one yet, exactly
    as the same file without that line is not.
    """
    cut = text.rfind("\n") + 1
    tail = "" if cut == len(text) or not text[cut:].strip() else f"line {text.count(chr(10)) + 1}"
    whole = text[:cut] if tail else text
    if not recognised and not aider.looks_like(whole):
        found = (
            "one line, still being written"
            if not whole
            else "only blank lines"
            if not whole.strip()
            else "Markdown that is no Aider chat history"
        )
        raise Unrecognised(f"not a transcript of a known format ({found})", ", ".join(FORMATS))
    return dataclasses.replace(aider.read(whole, name), incomplete_tail=tail)


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
