"""Paths as the audit judges them: a path glob as an RE2 program, a path normalised.

Globs: ``**`` any run of characters, ``*`` and ``?`` within one path segment; a glob
ending ``/**`` matches its folder itself too (a search of ``~/.ssh`` reads what is in
it). A glob beginning ``/`` is an absolute path; one beginning ``~/`` is under any home
folder (``~``, ``/home/NAME``, ``/Users/NAME``, ``/root``: the recording machine's home
is not known); any other (``.env``, ``*.pem``, ``secrets/**``) matches at any folder.

A path is normalised the way the system would find the file, so that another spelling of
a denied path is the denied path (the agent chooses its spelling): ``.`` and ``..``
resolved, a relative path taken from the workspace, ``//etc`` as ``/etc``, the root and
working folder a process sees through ``/proc/self/root`` and ``/proc/self/cwd`` taken
away, ``~NAME`` as that person's home folder, ``$HOME`` and ``${HOME}`` as ``~``.
"""

from __future__ import annotations

import functools
import posixpath

import re2

_HOME = r"(?:~|/home/[^/]+|/Users/[^/]+|/root)/"
_HOME_PLACE = "/home/\x00"
"""Where ``~`` stands while a path is resolved: ``~/../x`` is then ``/home/x``, as it is
for a home folder of ``/home/NAME`` (the usual depth; ``/root`` is one shallower)."""
_PROCESS = frozenset({"self", "thread-self"})


def glob_pattern(glob: str) -> str:
    """The RE2 pattern (to ``match`` a whole normalised path) of a path glob.

    >>> glob_pattern("/etc/**")
    '^/etc(?:/.*)?$'
    """
    if glob.startswith("~/"):
        prefix, body = "^" + _HOME, glob[2:]
    elif glob.startswith("/"):
        prefix, body = "^/", glob[1:]
    else:
        prefix, body = "^(?:.*/)?", glob
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("/**", i) and i + 3 == len(body):
            out.append("(?:/.*)?")  # the folder itself, or anything in it
            i += 3
        elif body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append("/" if body[i] == "/" else re2.escape(body[i]))
            i += 1
    return prefix + "".join(out) + "$"


def normalised(path: str, workspace: str | None) -> str:
    """``path`` as the audit judges it (see the module docstring); a path in a home
    folder not known is kept as ``~/…``.

    >>> normalised("src/../.env", "/repo")
    '/repo/.env'
    >>> [normalised(p, "/repo") for p in ("//etc/passwd", "/proc/self/root/etc/shadow")]
    ['/etc/passwd', '/etc/shadow']
    >>> [normalised(p, "/repo") for p in ("~root/.ssh/id_rsa", "${HOME}/.aws/../.netrc")]
    ['/root/.ssh/id_rsa', '~/.netrc']
    """
    if len(path) <= _KEPT_PATH:
        return _normalised_kept(path, workspace)
    return _normalised(path, workspace)


_KEPT_PATH = 1_024
"""Paths of at most so many characters are normalised once and kept (a session names the
same paths again and again)."""


@functools.lru_cache(maxsize=4_096)
def _normalised_kept(path: str, workspace: str | None) -> str:
    return _normalised(path, workspace)


def _normalised(path: str, workspace: str | None) -> str:
    path = path.strip()
    if path.startswith("file://"):
        path = path[len("file://") :]
    for variable in ("$HOME", "${HOME}"):
        if path == variable or path.startswith(variable + "/"):
            path = "~" + path[len(variable) :]
    if path.startswith("~"):
        path = _home(path, workspace)
    elif not path.startswith("/") and workspace is not None:
        path = posixpath.join(workspace, path)
    if not path:
        return path
    path = _resolved(path, workspace)
    if path == _HOME_PLACE or path.startswith(_HOME_PLACE + "/"):
        return "~" + path[len(_HOME_PLACE) :]
    return path


def _home(path: str, workspace: str | None) -> str:
    """A path beginning ``~``, its home folder (or working folder, ``~+``) put in."""
    name, slash, rest = path[1:].partition("/")
    if not name:
        return _HOME_PLACE + slash + rest
    if name == "+" and workspace is not None:
        return posixpath.join(workspace, rest)
    if name == "root":
        return "/root" + slash + rest
    if name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        return f"/home/{name}{slash}{rest}"
    return path  # ~- and other spellings the audit does not resolve


def _resolved(path: str, workspace: str | None) -> str:
    """``path`` with ``.``, ``..`` and repeated slashes resolved, and a process's own view
    of the root or its working folder (``/proc/self/root/…``) taken away."""
    while True:
        path = posixpath.normpath(path)
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        parts = path.split("/", 4)
        if len(parts) < 4 or parts[1] != "proc":
            return path
        who, what = parts[2], parts[3]
        if not (who in _PROCESS or who.isdigit()):
            return path
        rest = parts[4] if len(parts) > 4 else ""
        if what == "root":
            path = "/" + rest
        elif what == "cwd" and workspace is not None:
            path = posixpath.join(workspace, rest)
        else:
            return path


def inside(path: str, workspace: str) -> bool | None:
    """Whether the normalised ``path`` is in ``workspace`` (``None``: a relative path, not
    known)."""
    if path.startswith("~"):
        return False
    if not path.startswith("/"):
        return None
    root = posixpath.normpath(workspace)
    return path == root or path.startswith(root.rstrip("/") + "/")
