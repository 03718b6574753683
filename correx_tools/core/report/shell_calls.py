"""What a shell command an agent ran did, as a comparison reads it: its kind, its target,
and the files it wrote.

The command is split into words once (`shell_words`, bounded, no regex) into simple
commands. A leading ``cd DIR`` only moves where the rest runs: paths after it are read
from ``DIR``. The rules, in order:

* a word ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` (mini-swe-agent's way to submit) makes
  the command a **submit**;
* a redirection to a file (``> f``, ``>> f``), ``tee f``, ``sed -i``/``perl -i`` on files,
  ``rm``, ``mv``, ``cp``, ``touch`` make it an **edit** of the first file so changed; what
  each file became is known only for a here-document written whole with ``cat <<EOF > f``
  (else the change is there, its text unknown; ``rm`` deletes);
* otherwise its first program says: ``cat``, ``head``, ``tail``, ``less``, ``nl``, ``sed -n``
  and the like **read** a file (their first word that is not an option or a number);
  ``grep``, ``rg``, ``find``, ``git grep`` and the like **search**; ``ls`` and ``tree``
  **list**; anything else **runs**.

The *target* of a read or an edit is the path (as written: made relative to the run's
workspace later, `kinds.rooted`); of a search, a list or a run, the command's words
(quoting and whitespace do not count), without the leading ``cd`` (kept as its
directory, `CD`, so that a ``cd`` into the workspace itself can be left out later).

>>> found = shell_call("cd /repo && sed -i 's/a/b/' src/x.py")
>>> found.kind, found.target, found.changes[0].path, found.changes[0].lines is None
('edit', '/repo/src/x.py', '/repo/src/x.py', True)
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple, final

from ..replay.kinds import CD, SEPARATOR, Change, How, Kind
from ..tools.shell_words import Token, program_at, shell_tokens

SUBMIT_WORDS = frozenset({"COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT"})
"""A word a harness reads as the agent's submission (mini-swe-agent's two)."""

_READERS = frozenset({"cat", "head", "tail", "less", "more", "nl", "bat", "view", "wc", "file"})
_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "locate"})
_LISTERS = frozenset({"ls", "tree", "dir", "exa", "eza"})
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
MAX_CHANGES = 64
"""Files one command is read as changing, at most."""


@final
class ShellCall(NamedTuple):
    """What one shell command did: its kind, its target (a path, or its words joined by
    `SEPARATOR`), and the files it changed."""

    kind: Kind
    target: str
    changes: tuple[Change, ...]


class _Simple:
    """One simple command: its words, where it writes, the here-document it reads, and the
    separator after it (``|``, ``&&``, ``;``)."""

    __slots__ = ("after", "heredoc", "words", "writes")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.writes: list[tuple[str, str]] = []  # (operator, file)
        self.heredoc: str | None = None
        self.after = ""


def shell_call(command: str, cwd: str | None = None) -> ShellCall:
    """What ``command`` did (see the module's docstring), run in ``cwd`` when known (the
    directory a relative path is read from; paths stay as written without it)."""
    tokens, _ = shell_tokens(command, heredocs=True)
    simple = _simple_commands(tokens)
    here = cwd
    start = 0
    while start < len(simple) and _is_cd(simple[start]):
        words = simple[start].words
        here = _joined(here, words[1] if len(words) == 2 else "~")
        start += 1
    rest = simple[start:]
    words = [word for part in rest for word in part.words]
    spelled = [w for part in rest for w in (*part.words, part.after) if w]
    if spelled and rest and spelled[-1] == rest[-1].after:
        spelled.pop()  # a separator that ends the command joins nothing
    target_words = ([CD + here] if start and here else []) + spelled
    target = SEPARATOR.join(target_words)
    if SUBMIT_WORDS.intersection(words):
        return ShellCall("submit", "", ())
    changes: list[Change] = []
    for part in rest:
        changes += _changed(part, here)
        if len(changes) >= MAX_CHANGES:
            break
    if changes:
        return ShellCall("edit", changes[0].path, tuple(changes[:MAX_CHANGES]))
    first = next((part.words for part in rest if part.words), [])
    at = program_at(first)
    if at >= len(first):
        return ShellCall("run", target, ())
    program = first[at].rpartition("/")[2]
    arguments = first[at + 1 :]
    if program in _READERS or (program == "sed" and "-n" in arguments):
        path = _sed_files(arguments)[:1] if program == "sed" else [_operand(arguments)]
        if path and path[0]:
            return ShellCall("read", _joined(here, path[0]), ())
    if program in _SEARCHERS or (program == "git" and arguments[:1] == ["grep"]):
        return ShellCall("search", target, ())
    if program in _LISTERS:
        return ShellCall("list", target, ())
    return ShellCall("run", target, ())


def _simple_commands(tokens: list[Token]) -> list[_Simple]:
    """The simple commands of a command's tokens, each with its redirections, the
    here-document its line announced, and the separator after it."""
    found: list[_Simple] = []
    current = _Simple()
    pending = ""
    for kind, value in tokens:
        if kind == "word" and pending:
            current.writes.append((pending, value))
            pending = ""
        elif kind == "word":
            current.words.append(value)
        elif kind == "redirect":
            pending = value
        elif kind == "heredoc":
            # The document belongs to the last command of the line that announced it.
            owner = next((c for c in reversed(found) if c.words), None)
            if owner is not None and owner.heredoc is None:
                owner.heredoc = value
        else:
            pending = ""
            if current.words or current.writes:
                found.append(current)
                current = _Simple()
            if found and len(found[-1].after) < 3:  # && and || come as two tokens
                found[-1].after += ";" if value == "\n" else value
    if current.words or current.writes:
        found.append(current)
    return found


def _changed(part: _Simple, here: str | None) -> list[Change]:
    """The files one simple command changes."""
    changes: list[Change] = []
    at = program_at(part.words)
    program = part.words[at].rpartition("/")[2] if at < len(part.words) else ""
    arguments = part.words[at + 1 :]
    for operator, file in part.writes:
        if file in _NOT_FILES or file.startswith("&") or not file:
            continue
        path = _joined(here, file)
        if program == "cat" and part.heredoc is not None and not arguments:
            lines = tuple(("+", line) for line in part.heredoc.split("\n")[:-1])
            changes.append(Change(path, _how(operator), lines))
        else:
            changes.append(Change(path, _how(operator), None))
    operands = [word for word in arguments if not word.startswith("-")]
    if program in ("sed", "perl") and any(_in_place(word) for word in arguments):
        files = _sed_files(arguments)
        changes += [Change(_joined(here, file), "edit", None) for file in files]
    elif program == "rm":
        changes += [Change(_joined(here, file), "delete", ()) for file in operands]
    elif program in ("mv", "cp") and len(operands) >= 2:
        if program == "mv":
            changes += [Change(_joined(here, file), "delete", ()) for file in operands[:-1]]
        changes.append(Change(_joined(here, operands[-1]), "write", None))
    elif program in ("touch", "tee"):
        changes += [Change(_joined(here, file), "write", None) for file in operands]
    return changes


def _how(operator: str) -> How:
    """A redirection's change: ``>`` writes the file whole, ``>>`` adds to it."""
    return "write" if operator in (">", ">|", "&>") else "edit"


def _is_cd(part: _Simple) -> bool:
    return part.words[:1] == ["cd"] and len(part.words) <= 2 and not part.writes


def _in_place(word: str) -> bool:
    """Whether an option of ``sed`` or ``perl`` edits its files in place (``-i``, ``-pi``)."""
    if word.startswith("--"):
        return word.startswith("--in-place")
    return word.startswith("-") and "i" in word


def _sed_files(arguments: list[str]) -> list[str]:
    """The files ``sed`` (or ``perl``) is given: its words that are not options, nor the
    script (the first such word, unless ``-e`` gave one), nor an option's value."""
    files: list[str] = []
    script_given = False
    takes_value = False
    for word in arguments:
        if takes_value:
            takes_value = False
        elif word in ("-e", "--expression", "-f", "--file"):
            script_given = takes_value = True
        elif word.startswith("-"):
            script_given = script_given or word.startswith(("-e", "-f"))
        else:
            files.append(word)
    return files if script_given else files[1:]


def _operand(arguments: list[str]) -> str | None:
    """The file a reading program reads: its first word that is not an option, nor a count
    an option takes (``head -n 20 f``)."""
    for word in arguments:
        if not word or word.startswith("-") or word.lstrip("+").isdigit():
            continue
        return word
    return None


def _joined(here: str | None, path: str) -> str:
    """``path`` as read from ``here`` (an absolute one as it is), normalised."""
    if path.startswith("/") or not here:
        return normal_path(path)
    return normal_path(posixpath.join(here, path))


def normal_path(path: str) -> str:
    """A path without ``./``, doubled or trailing slashes (``..`` kept where it leads out of a
    relative path's start)."""
    if not path or path == "~":
        return path
    normal = posixpath.normpath(path)
    return "." if normal == "" else normal
