"""The words a comparison uses for what a call did, whatever agent made it: its kind, its
target, and each file it changed.

A call's *kind* is one of seven: it read a file, edited or wrote one, ran a command,
searched, listed a folder, submitted (or finished) its work, or did something else. Its
*target* is a path, or a command's words (`SEPARATOR` between them), as the call wrote
them: `rooted` makes them relative to the run's workspace once it is known. A `Change`
is one file a call changed: how (edited, written whole, deleted) and the lines it put
there, where the call says them. `core.report.meaning` reads each agent's calls into
these.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import Literal, NamedTuple, TypeAlias, final

Kind: TypeAlias = Literal["read", "edit", "run", "search", "list", "submit", "other"]
KINDS: tuple[Kind, ...] = ("read", "edit", "run", "search", "list", "submit", "other")
"""Every kind, in the order a table of them is shown."""

How: TypeAlias = Literal["edit", "write", "delete"]
Line: TypeAlias = tuple[str, str]
"""``(op, text)``: op ``" "`` (kept), ``"-"`` (removed) or ``"+"`` (added)."""


@final
class Change(NamedTuple):
    """One file a call changed: its ``path`` as the call names it (``""``: a file the call
    does not name and the run's calls do not say), ``how``, and the ``lines`` it put there
    (an edit's kept, removed and added lines; a file written whole: each line added;
    ``None``: the call does not say what changed, as for ``sed -i``). ``at`` is the line a
    windowed edit starts at, where the call says it."""

    path: str
    how: How
    lines: tuple[Line, ...] | None
    at: int | None = None


CD = "\x01cd="
"""The first word of a target whose command ran after ``cd DIR``: ``CD + DIR``."""
SEPARATOR = "\x1f"
"""Between the words of a command's target (no word holds it: it is a control character)."""


def rooted(target: str, root: str | None) -> str:
    """A target with ``root``'s paths made relative (``root`` itself: ``.``), a ``./`` taken
    off each word, and a leading ``cd`` into ``root`` left out; its words shown with spaces.

    >>> rooted("\\x01cd=/repo\\x1fpytest\\x1f/repo/tests", "/repo")
    'pytest tests'
    """
    words = target.split(SEPARATOR)
    if words and words[0].startswith(CD):
        folder = _relative(words[0][len(CD) :], root)
        words = words[1:] if folder == "." else ["cd", folder, "&&", *words[1:]]
    return " ".join(_relative(word, root) for word in words)


def _relative(word: str, root: str | None) -> str:
    if root and root.strip("/"):
        bare = root.rstrip("/")
        inside = bare + "/"
        if word in (bare, inside):
            return "."
        if inside in word:
            word = word.replace(inside, "")
        if word.endswith("=" + bare):  # PYTHONPATH=/repo
            word = word[: -len(bare)] + "."
    while word.startswith("./") and len(word) > 2:
        word = word[2:]
    return word


def common_root(paths: Iterable[str]) -> str | None:
    """The deepest folder that holds every absolute path of ``paths`` (a run's workspace,
    where its transcript names none); ``None`` when there is none but ``/``, or no absolute
    path.

    >>> common_root(["/w/repo/src/a.py", "/w/repo/tests/b.py", "notes.txt"])
    '/w/repo'
    """
    found: list[str] | None = None
    for path in paths:
        if not path.startswith("/"):
            continue
        parts = posixpath.normpath(path).split("/")[1:-1]  # its folders
        if found is None:
            found = parts
        else:
            same = 0
            while same < len(found) and same < len(parts) and found[same] == parts[same]:
                same += 1
            del found[same:]
        if not found:
            return None
    return "/" + "/".join(found) if found else None
