"""What a call did, in a few words, for a table's one short column: the command it ran, the
pattern it searched for and where, the path it read or wrote, the URL it fetched; for a
tool that names none of these, its arguments' own words.

A path inside the session's working directory is said relative to it (the end of a path,
its file's name, is what tells two calls apart, and a table cuts text at its end). The
words are masked (`Redaction`) whole, before the table cuts them: a secret in a command
is never shown, whole or in part.

>>> gist("Grep", {"pattern": "def main", "path": "/repo/src"}, cwd="/repo")
"'def main' in src"
>>> gist("Bash", {"command": "git push --force origin main", "description": "push"})
'git push --force origin main'
>>> gist("run_tests", {"target": "tests/test_app.py"})
'tests/test_app.py'
>>> gist("str_replace_editor", {"command": "view", "path": "/repo/app.py"}, cwd="/repo")
'view app.py'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .redaction import Redaction
from .tool_views import command_of

PATHS = ("file_path", "filePath", "absolute_path", "notebook_path", "path", "file", "dir_path",
         "dir", "directory", "target_file", "paths")  # fmt: skip
"""The arguments that name the file or folder a call is about, the most telling first."""
PATTERNS = ("pattern", "query", "regex", "search", "glob", "q")
URLS = ("url", "uri")
LONGEST = 400
"""Characters of arguments looked at for the words of a tool that names none of these."""


def gist(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    cwd: str | None = None,
    redaction: Redaction | None = None,
) -> str:
    """What a call of ``tool`` with ``arguments`` did, in a few words (see the module)."""
    said = _said(arguments, cwd)
    said = " ".join(said.split())  # one line, however the agent spaced it
    return said if redaction is None else redaction.text(said)


def _said(arguments: Mapping[str, Any], cwd: str | None) -> str:
    command = command_of(arguments)
    path = _first(arguments, PATHS)
    where = None if path is None else _relative(path, cwd)
    if command is not None:
        # An editor's ``command`` is one word (view, write, str_replace) said of a path.
        editor = where is not None and command.isidentifier()
        return f"{command} {where}" if editor else command
    pattern = _first(arguments, PATTERNS)
    if pattern is not None:
        return f"'{pattern}'" + ("" if where is None else f" in {where}")
    if where is not None:
        return where
    url = _first(arguments, URLS)
    if url is not None:
        return url
    words = [value if isinstance(value, str) else _compact(value)
             for value in arguments.values() if value is not None]  # fmt: skip
    return " ".join(words)[:LONGEST]


def _first(arguments: Mapping[str, Any], names: tuple[str, ...]) -> str | None:
    """The first of ``names`` that holds text (a list of texts: joined by spaces)."""
    for name in names:
        value = arguments.get(name)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
            return " ".join(value)
    return None


def _relative(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it is inside it (``.`` for ``cwd`` itself)."""
    if not cwd:
        return path
    root = cwd.rstrip("/")
    if path == root:
        return "."
    return path[len(root) + 1 :] if path.startswith(root + "/") else path


def _compact(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text[:LONGEST]
