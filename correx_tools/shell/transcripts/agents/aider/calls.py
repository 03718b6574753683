"""Aider chat histories (``<repo>/.aider.chat.history.md``): Markdown, no ids, no exit codes.

A run begins ``# aider chat started at <local time>``; the user's lines begin
``#### ``; Aider's own output lines begin ``> ``; everything else is the
model's reply. The calls are derived:

* ``edit``: one call per reply and file, from the reply's fenced
  SEARCH/REPLACE blocks (or the older ORIGINAL/UPDATED ones; the file is named
  on the line before the block or its fence). Aider's output after the reply
  says how each went: ``Applied edit to <file>`` completed, ``Did not apply
  edit to <file> (--dry-run)`` completed but marked as an edit that did not
  take effect, ``Skipping edits to <file>`` (the user declined the edits)
  rejected, a block that failed to match or a reply that broke the edit format
  failed. A call with none of these stays in flight. Aider retries a failed
  reply on its own: the retry is a new reply.
* ``shell``: a command Aider offered to run (``Run shell command? … : y``)
  completed, or rejected when declined; ``#### /run <command>`` and
  ``#### !<command>`` completed. No exit code is recorded.

The website's copies of histories (front matter, ``<div>`` wrappers) read
the same. Times: Aider records none for a step, only when a run started (its
header, taken as UTC: the file has no zone). A call is placed one second a line
after its run's header (a file without a header starts at the fixed origin):
those times only keep the order, and the session's description says no time is
recorded. No exit code is recorded either.

The conversation around the calls (`talk`): a user's message (its ``#### `` lines,
one after another) is a prompt, but for Aider's commands (a line opening with ``/`` or
``!``; the rest of ``/ask``, ``/code``, ``/architect`` and ``/context`` is a prompt); a
reply is the model's words, SEARCH/REPLACE blocks and all, with the model of the run's
``> Main model:`` line. Each ``> Tokens:`` line is its reply's usage, as Aider rounds it
(``2.9k sent`` is 2,900; one decimal under 10k, whole thousands above; an older
release's ``6,445``): ``sent`` is input, ``received`` output, ``cache hit`` cache read
and ``cache write`` cache write. (Aider's ``sent`` is the API's prompt tokens: for some
providers they hold the cache hits too, which Aider does not tell apart.) A history with
no ``Tokens:`` line (Aider writes one only when the model reports usage) records none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import re2

from .....core.lifecycle.description import About
from ...common.outcomes import completed, failed, not_applied, rejected
from ...errors import Unreadable
from ...model import ORIGIN, Transcript, TranscriptCall
from .signs import FORMAT, HEADER
from .talk import AiderTalk

if TYPE_CHECKING:
    from re2 import _Match, _Regexp

_BLOCK_START = re2.compile(r"\A<{5,9} (SEARCH|ORIGINAL)\s*\z")
_DIVIDER = re2.compile(r"\A={5,9}\s*\z")
_BLOCK_END = re2.compile(r"\A>{5,9} (REPLACE|UPDATED)\s*\z")
_FAILURES = ("failed to match", "The LLM did not conform to the edit format")
_PROMPT = re2.compile(r"\ARun shell commands?\?.*: *(\S*)\s*\z")
_DRY_RUN = "Did not apply edit to "
_STATUS = ("Tokens:", "Applied edit", "Commit ", "Add ", "Running ", "Skipping edits", "Create new",
           "Allow edits", "Did not apply", "Cost:", "Added ", "Run shell")  # fmt: skip
_YES = ("y", "a")
_OPENINGS = {
    HEADER: "# aider chat started at ",
    _BLOCK_START: "<<<<<",
    _DIVIDER: "=====",
    _BLOCK_END: ">>>>>",
    _PROMPT: "Run shell command",
}
"""How the text each line pattern matches begins. Every line is tested with these first: a
string's test costs a small part of a pattern's call, and most lines begin otherwise."""


def _first(pattern: _Regexp[str], line: str) -> _Match[str] | None:
    """``pattern`` matched at the start of ``line``, once ``line`` begins as it must."""
    return pattern.match(line) if line.startswith(_OPENINGS[pattern]) else None


@dataclass(slots=True)
class _Reply:
    """One reply of the model: its edit calls by file, still open to outcomes."""

    edits: dict[str, TranscriptCall] = field(default_factory=dict)
    open: bool = True


@dataclass(slots=True)
class _Reader:
    calls: list[TranscriptCall] = field(default_factory=list)
    run_at: datetime = ORIGIN
    run_line: int = 0
    reply: _Reply | None = None
    text: list[tuple[int, str]] = field(default_factory=list)
    output: list[tuple[int, str]] = field(default_factory=list)
    talk: AiderTalk = field(default_factory=AiderTalk)

    def at(self, line: int) -> datetime:
        """The derived time of ``line``: a second a line after its run's header."""
        return self.run_at + timedelta(seconds=line - self.run_line)


def read(text: str, name: str) -> Transcript:
    """The calls of a chat history (its complete lines)."""
    reader = _Reader()
    started: datetime | None = None
    lines = text.split("\n")
    front = lines[0].strip() == "---"
    fenced = False  # inside a reply's code fence, every line is the reply's
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        if front:
            front = not (number > 1 and line == "---")
            continue
        if not line.startswith("####"):
            reader.talk.settle(None)
        if not line and not fenced:
            if reader.text:
                reader.text.append((number, raw))
            continue
        if fenced or not line.startswith(("#", ">", "<div", "</div")):
            if line.startswith("```"):
                fenced = not fenced
            if reader.output:
                _outcomes(reader)
            reader.text.append((number, raw))
            continue
        header = _first(HEADER, line)
        if header is not None:
            _flush(reader)
            reader.run_at = _local(header.group(1), number)
            reader.run_line = number
            started = started or reader.run_at
        elif line.startswith("####"):
            _flush(reader)
            reader.reply = None
            _user(reader, line[4:].strip(), number)
            reader.talk.user(line[4:].strip(), number)
        elif line.startswith(">"):
            if reader.text:
                _reply(reader)
            reader.output.append((number, line[1:].strip()))
            reader.talk.output(line[1:].strip(), number, None)
        elif line.startswith("#"):  # a heading of the reply's own
            if reader.output:
                _outcomes(reader)
            reader.text.append((number, raw))
    _flush(reader)
    reader.talk.settle(None)
    return Transcript(FORMAT, name, tuple(reader.calls), about=About(started_at=started),
                      talk=tuple(reader.talk.talk.steps))  # fmt: skip


def _local(stamp: str, line: int) -> datetime:
    try:
        return datetime.fromisoformat(stamp).replace(tzinfo=ORIGIN.tzinfo)
    except ValueError:
        raise Unreadable(f"line {line}", f"{stamp!r} is not a time") from None


def _flush(reader: _Reader) -> None:
    if reader.text:
        _reply(reader)
    if reader.output:
        _outcomes(reader)


def _user(reader: _Reader, words: str, number: int) -> None:
    command = (
        words[5:] if words.startswith("/run ") else words[1:] if words.startswith("!") else None
    )
    if command:
        at = reader.at(number)
        call = TranscriptCall(call_id=f"shell-{number}", tool_name="shell",
                              arguments={"command": command},
                              requested_at=at, position=(number,), where=f"line {number}",
                              recorded=False)  # fmt: skip
        call.end = completed(at, (number,), None, {"line": str(number)}, recorded=False)
        reader.calls.append(call)


def _reply(reader: _Reader) -> None:
    """The reply just read: an edit call for each file its fenced blocks change."""
    reply = _Reply()
    for number, path, search, replace in _blocks(reader.text):
        call = reply.edits.get(path)
        if call is None:
            at = reader.at(number)
            call = TranscriptCall(call_id=f"edit-{number}", tool_name="edit",
                                  arguments={"path": path, "edits": []}, requested_at=at,
                                  position=(number,), where=f"line {number}",
                                  recorded=False)  # fmt: skip
            reply.edits[path] = call
            reader.calls.append(call)
        call.arguments["edits"].append({"search": search, "replace": replace})
    reader.talk.reply(reader.text, None)
    reader.text = []
    reader.reply = reply if reply.edits else reader.reply


def _blocks(text: list[tuple[int, str]]) -> list[tuple[int, str, str, str]]:
    """``(line, file, search, replace)`` of each SEARCH/REPLACE block inside a fence."""
    found: list[tuple[int, str, str, str]] = []
    fence_at = -1  # the index of the open fence's line, or -1
    file = ""
    index = 0
    while index < len(text):
        number, line = text[index]
        if line.startswith("```"):
            fence_at = -1 if fence_at >= 0 else index
        elif fence_at >= 0 and _first(_BLOCK_START, line.strip()):
            named = (
                text[index - 1][1]
                if index - 1 > fence_at
                else text[fence_at - 1][1]
                if fence_at
                else ""
            )
            file = _file_name(named) or file
            parts: list[list[str]] = [[], []]
            side = 0
            index += 1
            while index < len(text) and not _first(_BLOCK_END, text[index][1].strip()):
                if side == 0 and _first(_DIVIDER, text[index][1].strip()):
                    side = 1
                else:
                    parts[side].append(text[index][1])
                index += 1
            if file and index < len(text):  # a block still being written is no edit yet
                found.append((number, file, "\n".join(parts[0]), "\n".join(parts[1])))
        index += 1
    return found


def _file_name(line: str) -> str:
    name = line.strip().strip("*`#:").strip()
    return "" if not name or name.startswith("```") or name.endswith((".", ":")) else name


def _outcomes(reader: _Reader) -> None:
    """What Aider's output lines say about the reply before them, and the commands they ran."""
    output, reader.output = reader.output, []
    reply = reader.reply
    for position, (number, line) in enumerate(output):
        if reply is not None and reply.open:
            _edit_outcome(reader, reply, number, line)
        prompt = _first(_PROMPT, line)
        if prompt is not None:
            _shell(reader, output[:position], number, line, prompt.group(1))
    if reply is not None:
        reply.open = False


def _edit_outcome(reader: _Reader, reply: _Reply, number: int, line: str) -> None:
    at, metadata = reader.at(number), {"line": str(number)}
    if line.startswith(_DRY_RUN):  # Aider's --dry-run: the edit was shown, never written
        call = reply.edits.get(line[len(_DRY_RUN) :].removesuffix("(--dry-run)").strip())
        if call is not None and call.end is None:
            call.end = completed(at, (number,), line, not_applied(metadata, line), recorded=False)
        return
    for verb, kind in (("Applied edit to ", "completed"), ("Skipping edits to ", "rejected")):
        if line.startswith(verb):
            call = reply.edits.get(line[len(verb) :].strip())
            if call is not None and call.end is None:
                call.end = (
                    completed(at, (number,), line, metadata, recorded=False)
                    if kind == "completed"
                    else rejected(at, (number,), line, metadata, recorded=False)
                )
            return
    if any(marker in line for marker in _FAILURES):
        for offset, call in enumerate(c for c in reply.edits.values() if c.end is None):
            call.end = failed(at, (number, offset), line, metadata, recorded=False)


def _shell(
    reader: _Reader, before: list[tuple[int, str]], number: int, line: str, answer: str
) -> None:
    command: list[str] = []
    first = number
    for earlier, previous in reversed(before):
        if not previous or previous.startswith(_STATUS) or _first(_PROMPT, previous):
            break
        command.insert(0, previous)
        first = earlier
    if not command:
        return
    default = "y" if "[Yes]" in line else "n"
    yes = (answer or default).lower().startswith(_YES)
    at = reader.at(number)
    call = TranscriptCall(call_id=f"shell-{number}", tool_name="shell",
                          arguments={"command": "\n".join(command)}, requested_at=reader.at(first),
                          position=(first,), where=f"line {first}", recorded=False)  # fmt: skip
    metadata = {"line": str(number)}
    call.end = (
        completed(at, (number,), None, metadata, recorded=False)
        if yes
        else rejected(at, (number,), f"declined: {line}", metadata, recorded=False)
    )
    reader.calls.append(call)
