"""What a call did, whatever agent made it: its kind (`kinds`), its target, what else it
said, and the files it changed. Two runs of one task by different agents are compared by
these, not by their tools' names.

A run's calls are read in order by one `Meanings` (a run has a state: the file SWE-agent
has open, which its windowed ``edit 4:4`` changes without naming it). For each call:

* a tool that runs a shell command (its capability row's ``command`` argument, an argv
  list's script) is what the command did (`shell_calls`): a ``cat`` is a read, a ``sed -i``
  an edit, a ``grep`` a search;
* a SWE-agent command written whole (``{"command": "open tests/x.py"}``, its tool being
  its first word) is read as SWE-agent reads it: ``open``, ``goto`` and ``scroll_*`` read
  (the open file), ``create``, ``edit``, ``insert`` edit, ``find_file`` and ``search_*``
  search, ``submit`` submits; a first word that is no such command is a shell command;
* an editor with a ``command`` (``str_replace_editor``, Goose's ``text_editor``): ``view``
  reads, the others edit;
* otherwise the capability table (`capability_table`) says: a tool that may write a file
  edits it (the path its row names, else the open file), one that reads a file reads,
  searches or lists it (by its name), one that runs a shell runs; ``submit``, ``finish``,
  ``attempt_completion`` submit; anything else is ``other``.

The *target* is a path (read, edit) or a command's words (run, search, list; a tool's
argument values when it is no shell); ``""`` for a submit. The *content* is what two calls
of one kind and target may still differ in: an edit's lines (`edits.edit_of`, without
its path); where an edit does not say its lines, or a tool is of no kind read here, the
call's exact key stands for it; nothing for a read (its lines or range do not count), a
run or a submit. Paths and words stay as written until the run's workspace root is known
(`kinds.rooted`): a comparison finds it once every call is read.

>>> run = Meanings()
>>> run.of("open", {"command": 'open "tests/x.py" 10'}).target
'tests/x.py'
>>> found = run.of("edit", {"command": "edit 4:4\\ndef f():\\nend_of_edit"})
>>> found.kind, found.target, found.changes[0].lines, found.changes[0].at
('edit', 'tests/x.py', (('+', 'def f():'),), 4)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple, final

from ..replay.kinds import SEPARATOR, Change, How, Kind
from ..tools.capability import ToolCapability
from ..tools.capability_table import CapabilityTable, ToolEntry, builtin_table
from ..tools.shell_words import command_text, shell_tokens
from .edits import edit_of
from .shell_calls import shell_call

SUBMITS = frozenset({"submit", "finish", "attempt_completion", "task_complete", "complete_task"})
"""Tools whose call ends the run by handing in its work."""
_SEARCHES = frozenset({"grep", "glob", "search", "search_files", "search_file_content",
                       "search_file", "search_dir", "find_file", "codebase_search",
                       "search_code", "find", "find_files"})  # fmt: skip
_LISTS = frozenset({"ls", "list", "list_files", "list_directory", "list_dir"})
_MOVES = frozenset({"goto", "scroll_up", "scroll_down", "set_cursors"})
"""SWE-agent's commands that move through the open file (they read it)."""
_AGENT_COMMANDS = frozenset({"open", "create", "edit", "insert", "find_file", "search_dir",
                             "search_file", "submit", *_MOVES})  # fmt: skip
_POSITIONAL = {
    "find_file": ("file_name", "dir"),
    "search_dir": ("search_term", "dir"),
    "search_file": ("search_term", "file"),
}
"""The names a SWE-agent command's words have when the model calls it as a function."""
_STATEFUL = frozenset({"open", "create", "edit", "insert", *_MOVES})
"""Tools whose call may hang on, or change, the file SWE-agent has open."""
_EDITORS = frozenset(
    {"str_replace_editor", "text_editor", "file_editor", "str_replace_based_edit_tool"}
)
MAX_TEXT = 1 << 20
"""Characters of an argument looked at for a call's content."""
KNOWN = 4_096
"""Calls whose meaning a run keeps by their exact key (runs repeat their calls)."""
MAX_SAID = 200
"""Characters of a command kept to say what changed a file without saying its lines."""


@final
class Meaning(NamedTuple):
    """What one call did: its kind, its target, its content (see the module's docstring),
    the files it changed, and how to say it where a change does not say its lines (the
    command, the editor's command)."""

    kind: Kind
    target: str
    content: str
    changes: tuple[Change, ...] = ()
    said: str = ""


@final
class Meanings:
    """One run's calls, read in order: what each did (``format``: the transcript's, for the
    capability table's rows of its own)."""

    __slots__ = ("_entries", "_known", "format", "open_file", "table")

    def __init__(self, format: str | None = None, table: CapabilityTable | None = None) -> None:
        self.format = format
        self.table = table or builtin_table()
        self.open_file: str | None = None
        """The file SWE-agent has open, as the run named it last."""
        self._entries: dict[str, ToolEntry | None] = {}  # each tool's row, looked up once
        self._known: dict[int, Meaning] = {}

    def of(self, tool_name: str, arguments: Mapping[str, Any], key: int | None = None) -> Meaning:
        """What the call did (the next call of the run). ``key``: the call's exact key
        (`comparison.call_key`), where known: a call of a run that has the key of an
        earlier one did what it did, unless what it did hangs on the file open then."""
        if key is None:
            return self._of(tool_name, arguments)
        found = self._known.get(key)
        if found is None:
            found = self._of(tool_name, arguments)
            if tool_name.lower() not in _STATEFUL:
                if len(self._known) >= KNOWN:
                    self._known.clear()  # bounded: a run of many distinct calls keeps few
                self._known[key] = found
        return found

    def _of(self, tool_name: str, arguments: Mapping[str, Any]) -> Meaning:
        name = tool_name.lower().rpartition("__")[2]
        command = arguments.get("command")
        if isinstance(command, str):
            if len(arguments) == 1 and command.split(None, 1)[:1] == [tool_name]:
                if name in _AGENT_COMMANDS:
                    return self._agent_command(name, command)
                return _from_shell(command, None)
            if name in _EDITORS:
                return self._editor(command, arguments)
        if name in SUBMITS:
            return _SUBMIT
        entry = self._entries.get(tool_name, _UNSEEN)
        if entry is _UNSEEN:
            entry = self._entries[tool_name] = self.table.entry(self.format, tool_name)
        if entry is None:
            return _OTHER  # a tool no rule reads: its exact key says what it did
        for key in entry.names("command"):
            text = command_text(arguments.get(key))
            if text:
                where = arguments.get("workdir") or arguments.get("cwd")
                return _from_shell(text, where if isinstance(where, str) else None)
        paths = [v for key in entry.names("path") if isinstance(v := arguments.get(key), str)]
        capabilities = entry.capabilities_for(arguments)
        if ToolCapability.FILE_WRITE in capabilities:
            return self._edit(tool_name, arguments, paths[0] if paths else None)
        if ToolCapability.FILE_READ in capabilities:
            return self._read(name, arguments, paths)
        if capabilities & _RUNS:
            return Meaning("run", _words(tool_name, arguments, ()), "")
        return _OTHER

    def _read(self, name: str, arguments: Mapping[str, Any], paths: list[str]) -> Meaning:
        if name in _SEARCHES or name in _LISTS:
            kind: Kind = "search" if name in _SEARCHES else "list"
            return Meaning(kind, _words(name, arguments, ()), "")
        if name in _MOVES:
            return Meaning("read", self.open_file or "", "")
        path = paths[0] if paths else ""
        if name == "open" and path:
            self.open_file = path
        return Meaning("read", path, "")

    def _edit(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        path: str | None,
    ) -> Meaning:
        """An edit by a tool the table says writes: of its path, else of the open file."""
        name = tool_name.lower()
        if path is None and name == "create":
            found = arguments.get("filename")
            path = found if isinstance(found, str) else None
        if name == "create" and path is not None:
            self.open_file = path
        target = path if path is not None else self.open_file or ""
        edited = edit_of(tool_name, {**arguments, "path": target}) if target else None
        if edited:
            changes = tuple(_change(found, name) for found in edited)
        else:
            text = arguments.get("replacement_text", arguments.get("text"))
            start = arguments.get("start_line", arguments.get("line"))
            lines = _added(text) if isinstance(text, str) else None
            if name == "create" and not arguments.keys() - {"filename", "path"}:
                lines = ()
            how: How = "write" if name == "create" else "edit"
            at = start if type(start) is int else None
            changes = (Change(target, how, lines, at),)
        content = _content(changes)
        return Meaning("edit", target, content, changes, tool_name)

    def _editor(self, command: str, arguments: Mapping[str, Any]) -> Meaning:
        """``str_replace_editor`` and its kin: ``view`` reads, every other command edits."""
        path = arguments.get("path")
        target = path if isinstance(path, str) else ""
        if command == "view":
            return Meaning("read", target, "")
        edited = edit_of("str_replace_editor", arguments) if target else None
        if edited:
            changes = tuple(_change(found, "") for found in edited)
        else:
            changes = (Change(target, "edit", None),)  # an undo: the text it put back is not said
        content = _content(changes)
        return Meaning("edit", target, content, changes, f"{command} {target}")

    def _agent_command(self, name: str, command: str) -> Meaning:
        """A SWE-agent command written whole: its first line's words, its text after."""
        first, _, body = command.partition("\n")
        words = [word for kind, word in shell_tokens(first)[0] if kind == "word"][1:]
        if name == "open" and words:
            self.open_file = words[0]
            return Meaning("read", words[0], "")
        if name in _MOVES:
            return Meaning("read", self.open_file or "", "")
        if name == "create" and words:
            self.open_file = words[0]
            changes = (Change(words[0], "write", ()),)
            return Meaning("edit", words[0], "", changes)
        if name in ("edit", "insert"):
            target = self.open_file or ""
            at, lines = _windowed(words, body)
            changes = (Change(target, "edit", lines, at),)
            return Meaning("edit", target, _content(changes), changes)
        if name == "submit":
            return Meaning("submit", "", "")
        named = dict(zip(_POSITIONAL.get(name, ()), words, strict=False))
        return Meaning("search", _words(name, named or {"words": " ".join(words)}, ()), "")


_SUBMIT = Meaning("submit", "", "")
_OTHER = Meaning("other", "", "")
_UNSEEN = ToolEntry(capabilities=frozenset())
_RUNS = frozenset({ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN})


def _from_shell(command: str, cwd: str | None) -> Meaning:
    found = shell_call(command, cwd)
    content = _content(found.changes)
    said = " ".join(command[:MAX_SAID].split()) if found.changes else ""
    return Meaning(found.kind, found.target, content, found.changes, said)


def _windowed(words: list[str], body: str) -> tuple[int | None, tuple[tuple[str, str], ...] | None]:
    """Where a windowed edit starts (``edit 4:6``; ``None`` for one at the cursors) and the
    lines it puts there (its text before ``end_of_edit``; a search-and-replace's
    replacement; ``None``: not said)."""
    at = None
    if words and ":" in words[0]:
        start = words[0].partition(":")[0]
        at = int(start) if start.isdigit() and len(start) < 10 else None
    if body:
        text = body.rpartition("end_of_edit")[0] if "end_of_edit" in body else body
        return at, _added(text)
    if len(words) >= 2 and at is None:  # edit 'search' 'replace' [replace-all]
        removed = tuple(("-", line) for _, line in _added(words[0]))
        return at, removed + _added(words[1])
    return at, None


def _added(text: str) -> tuple[tuple[str, str], ...]:
    lines = text[:MAX_TEXT].split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return tuple(("+", line) for line in lines)


def _change(found: Mapping[str, Any], name: str) -> Change:
    """One file `edit_of` read, as a `Change`."""
    lines = tuple((op, text) for hunk in found["hunks"] for op, text in hunk["lines"])
    how: How = "delete" if found.get("deleted") else "write" if found["whole"] else "edit"
    return Change(str(found["path"]), how, lines)


def _content(changes: tuple[Change, ...]) -> str:
    """What an edit says beside its target: its changes' lines, read alike from every
    agent's spelling (``""`` where a change does not say its lines: then the call's exact
    key says what it did, `comparison.Calls.append`)."""
    if changes and all(change.lines is not None for change in changes):
        said = [[change.how, change.at, change.lines] for change in changes]
        return json.dumps(said, ensure_ascii=True)
    return ""


def _words(name: str, arguments: Mapping[str, Any], skip: tuple[str, ...]) -> str:
    """A tool call as words: its name, then its arguments' values (in their keys' order)."""
    words = [name]
    for key in sorted(arguments):
        value = arguments[key]
        if key in skip or value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        words += text[:MAX_TEXT].split()
    return SEPARATOR.join(words)
