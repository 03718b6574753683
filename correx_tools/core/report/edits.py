"""What an edit call changed, read from its arguments: each file, the text it replaced and the
text it put there, as the line diff the pages show.

Every agent spells an edit its own way, and each spelling is read here:

* a pair of strings, the old and the new: Claude Code's ``Edit`` (``old_string``,
  ``new_string``), Gemini CLI's ``replace``, OpenHands' and Goose's
  ``str_replace`` (``old_str``, ``new_str``), OpenCode's ``edit`` (``oldString``,
  ``newString``), an MCP server's ``edit_file`` (``old_text``/``oldText``);
* a list of such pairs (``edits``): Claude Code's ``MultiEdit``, Aider's edit
  blocks (``search``, ``replace``), an MCP server's ``edit_file``;
* SEARCH/REPLACE blocks in one string: Cline's ``replace_in_file`` (``diff``);
* a patch: Codex's ``apply_patch`` (``*** Begin Patch`` … ``*** End Patch``);
* a whole file written: ``Write``, ``write_to_file``, ``write_file``,
  ``write``, a ``create`` command (every line added: the transcript does not
  hold what the file held before).

The result is plain data: each file's path and its hunks, each hunk the line
numbers it starts at on either side (where the call says them: not in a
patch) and its lines, each ``[" ", text]``, ``["-", text]`` or ``["+", text]``.
It is pure: no file is read.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from typing import Any

import re2

Line = list[str]
"""``[op, text]``: op is ``" "`` (kept), ``"-"`` (removed), ``"+"`` (added), or ``"\\"``
after a last line that no newline ends where the other side's does end with one."""
Hunk = dict[str, Any]
"""``{"old": n, "new": n, "lines": [line, ...]}``: where it starts on each side (from 1;
``None`` where unknown), and its lines."""

MAX_LINES = 2_000
"""Lines of either side read for a diff: past that a side is cut (and the view says so)."""
CONTEXT = 3

_PATHS = ("file_path", "path", "filePath", "filepath", "target_file", "file", "absolute_path")
_PAIRS = (
    ("old_string", "new_string"),
    ("old_str", "new_str"),
    ("oldString", "newString"),
    ("old_text", "new_text"),
    ("oldText", "newText"),
    ("search", "replace"),
)
_CONTENT = ("content", "file_text", "fileText", "text")
_WRITES = frozenset({"Write", "write_to_file", "write_file", "write", "create_file", "create"})
_WRITE_COMMANDS = frozenset({"create", "write"})


_PATCH_KEYS = ("input", "patch", "command")
# Every key an edit is read from but its path: a call with none of them is no edit, and
# is told so without a look at any value (most calls of a session are no edit).
_EDIT_KEYS = frozenset(
    {key for pair in _PAIRS for key in pair} | {"edits", "diff", "new_str"}
    | set(_CONTENT) | set(_PATCH_KEYS)
)  # fmt: skip


def edit_of(tool_name: str, arguments: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The files an edit call changed, each ``{"path", "hunks": [hunk, ...], "whole", "cut"}``
    (``whole``: the file written whole; ``cut``: a side was longer than `MAX_LINES`);
    ``None`` when the call is no edit this module reads."""
    if _EDIT_KEYS.isdisjoint(arguments.keys()):
        return None
    path = _first_text(arguments, _PATHS)
    patch = _patch_text(arguments)
    if patch is not None:
        return list(_patched(patch)) or None
    pairs = list(_pairs(arguments))
    if pairs and path is not None:
        hunks: list[Hunk] = []
        cut = False
        for old, new in pairs:
            more, shortened = diff_lines(old, new)
            hunks += more
            cut = cut or shortened
        return [{"path": path, "hunks": hunks, "whole": False, "cut": cut}]
    blocks = arguments.get("diff")
    pairs = search_replace_blocks(blocks) if isinstance(blocks, str) and path is not None else []
    if pairs:
        hunks, cut = [], False
        for search, replace in pairs:
            more, shortened = diff_lines(search, replace)
            hunks += more
            cut = cut or shortened
        return [{"path": path, "hunks": hunks, "whole": False, "cut": cut}]
    content = _first_text(arguments, _CONTENT)
    command = arguments.get("command")
    writes = tool_name in _WRITES or (isinstance(command, str) and command in _WRITE_COMMANDS)
    if writes and content is not None and path is not None:
        added, cut = _cut_lines(content)
        return [{"path": path, "hunks": [_added(added)], "whole": True, "cut": cut}]
    if command == "insert" and path is not None and isinstance(arguments.get("new_str"), str):
        added, cut = _cut_lines(arguments["new_str"])
        return [{"path": path, "hunks": [_added(added)], "whole": False, "cut": cut}]
    return None


def diff_lines(old: str, new: str) -> tuple[list[Hunk], bool]:
    """The line diff from ``old`` to ``new`` as hunks of ``CONTEXT`` kept lines around each
    change, and whether a side was cut at `MAX_LINES`.

    Where one side ends with a newline and the other does not, their last lines differ,
    as in ``git diff``: an edit that only adds or drops the final newline is a change,
    shown with a ``["\\", " No newline at end"]`` line after the side that lacks it.
    """
    before, cut_before = _cut_lines(old)
    after, cut_after = _cut_lines(new)
    # What the matcher compares: each line, the last one marked when no newline ends it
    # and the other side's text does end with one.
    differ = before and after and not (cut_before or cut_after)
    differ = bool(differ) and old.endswith("\n") != new.endswith("\n")
    keys_before = _keyed(before, differ and not old.endswith("\n"))
    keys_after = _keyed(after, differ and not new.endswith("\n"))
    matcher = difflib.SequenceMatcher(None, keys_before, keys_after, autojunk=False)
    hunks: list[Hunk] = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        lines: list[Line] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += _told(" ", keys_before[i1:i2])
                continue
            lines += _told("-", keys_before[i1:i2])
            lines += _told("+", keys_after[j1:j2])
        hunks.append({"old": group[0][1] + 1, "new": group[0][3] + 1, "lines": lines})
    return hunks, cut_before or cut_after


_NO_NEWLINE = " No newline at end"


def _keyed(lines: list[str], unended: bool) -> list[tuple[str, bool]]:
    """Each line, and whether it is the last one and no newline ends it (``unended``)."""
    keys = [(line, False) for line in lines]
    if keys and unended:
        keys[-1] = (lines[-1], True)
    return keys


def _told(op: str, keys: list[tuple[str, bool]]) -> list[Line]:
    lines: list[Line] = []
    for line, unended in keys:
        lines.append([op, line])
        if unended:
            lines.append(["\\", _NO_NEWLINE])
    return lines


def search_replace_blocks(text: str) -> list[tuple[str, str]]:
    """The (search, replace) texts of SEARCH/REPLACE blocks (Cline's ``replace_in_file``), in
    one pass over the lines: the model wrote them, so no pattern may backtrack over them.

    A block is a line ``<<<<<<< SEARCH`` (or ``------- SEARCH``; three or more marks), the
    text to find, a line of ``=`` (three or more) that a newline ends, the text put in its
    place, and a line that begins with ``>>>>>>> REPLACE`` (or ``+++++++ REPLACE``). A block
    never closed ends the reading: no later block can be closed either.
    """
    blocks: list[tuple[str, str]] = []
    lines = text.split("\n")
    last = len(lines) - 1  # the last piece has no newline after it
    at = 0
    while at <= last:
        if not _is_marker(lines[at], "<-", "SEARCH", whole=True) or at == last:
            at += 1
            continue
        divider = next(
            (i for i in range(at + 1, last) if _is_marker(lines[i], "=", "", whole=True)), None
        )
        if divider is None:
            break
        end = next(
            (i for i in range(divider + 1, last + 1) if _is_marker(lines[i], ">+", "REPLACE")),
            None,
        )
        if end is None:
            break
        blocks.append(("\n".join(lines[at + 1 : divider]), "\n".join(lines[divider + 1 : end])))
        at = end + 1
    return blocks


def _is_marker(line: str, marks: str, word: str, *, whole: bool = False) -> bool:
    """Whether ``line`` is three or more of one of ``marks``, then `` word`` (and nothing
    more, if ``whole``; ``word`` empty: the marks alone)."""
    if len(line) < 3 or line[0] not in marks:
        return False
    count = len(line) - len(line.lstrip(line[0]))
    if count < 3:
        return False
    rest = line[count:]
    if not word:
        return rest == ""
    tail = " " + word
    return rest == tail if whole else rest.startswith(tail)


def _added(lines: list[str]) -> Hunk:
    return {"old": None, "new": 1, "lines": [["+", line] for line in lines]}


def _cut_lines(text: str) -> tuple[list[str], bool]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a last newline ends the last line; it is no line of its own
    return lines[:MAX_LINES], len(lines) > MAX_LINES


def _first_text(arguments: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


def _pairs(arguments: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The (old, new) texts of an edit: one pair, or a list of them under ``edits``."""
    for old, new in _PAIRS:
        if isinstance(arguments.get(old), str) and isinstance(arguments.get(new), str):
            yield arguments[old], arguments[new]
            return
    edits = arguments.get("edits")
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, Mapping):
                yield from _pairs(edit)


def _patch_text(arguments: Mapping[str, Any]) -> str | None:
    """A Codex patch, wherever the call holds it (``input``, ``patch``, or a shell command's
    heredoc)."""
    for key in _PATCH_KEYS:
        value = arguments.get(key)
        if isinstance(value, list):
            value = "\n".join(part for part in value if isinstance(part, str))
        if isinstance(value, str) and "*** Begin Patch" in value:
            return value
    return None


_PATCH_FILE = re2.compile(r"\*\*\* (Add|Delete|Update) File: (.+)")


def _patched(patch: str) -> Iterator[dict[str, Any]]:
    """Each file a Codex patch adds, deletes or updates, with its lines as the patch gives
    them (it holds its own context)."""
    current: dict[str, Any] | None = None
    count = 0
    for line in patch.split("\n"):
        header = _PATCH_FILE.match(line)
        if header:
            if current is not None:
                yield current
            current = {"path": header.group(2).strip(), "hunks": [_hunk()], "whole": False,
                       "cut": False, "deleted": header.group(1) == "Delete"}  # fmt: skip
            count = 0
            continue
        if current is None or line.startswith("*** "):
            continue  # Begin Patch, End Patch, End of File, Move to
        if line.startswith("@@"):
            if current["hunks"][-1]["lines"]:
                current["hunks"].append(_hunk())
            continue
        if line[:1] in (" ", "-", "+"):
            count += 1
            if count > MAX_LINES:
                current["cut"] = True
                continue
            current["hunks"][-1]["lines"].append([line[0], line[1:]])
    if current is not None:
        yield current


def _hunk() -> Hunk:
    """A hunk of a patch: the patch says no line numbers (its context finds the place)."""
    return {"old": None, "new": None, "lines": []}
