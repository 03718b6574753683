"""The policy model: what a session's calls may do, and how its paths are judged.

A policy names the workspace root (``None``: the session's own working directory, where
recorded), the capabilities allowed, path globs denied and untrusted, commands denied
(RE2 patterns), whether a secret in a call is a finding, and the shortest value a flow
follows. `compiled` checks it and turns its globs and patterns into RE2 programs, so every
match is linear in the text it is asked of.

Globs: ``**`` any run of characters, ``*`` and ``?`` within one path segment. A glob
beginning ``/`` is an absolute path; one beginning ``~/`` is under any home folder
(``~``, ``/home/NAME``, ``/Users/NAME``, ``/root``: the recording machine's home is not
known); any other (``.env``, ``*.pem``, ``secrets/**``) matches at any folder.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import dataclass
from typing import Any, final

import re2

from ..report.re2_spans import finds
from ..tools.capability import ToolCapability

_HOME = r"(?:~|/home/[^/]+|/Users/[^/]+|/root)/"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DeniedCommand:
    """A command pattern (RE2, searched anywhere in the command) and the name a finding
    gives it."""

    name: str
    pattern: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """What the audit holds every call to (see the module docstring)."""

    workspace: str | None = None
    allowed: frozenset[ToolCapability] = frozenset(ToolCapability)
    denied_paths: tuple[str, ...] = ()
    untrusted_paths: tuple[str, ...] = ()
    writes_outside_workspace: bool = True
    reads_outside_workspace_untrusted: bool = True
    denied_commands: tuple[DeniedCommand, ...] = ()
    secrets: bool = True
    secret_patterns: tuple[str, ...] = ()
    flow_min_chars: int = 16


class PolicyError(ValueError):
    """A policy that cannot be used: ``key`` names where."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


@final
@dataclass(frozen=True, slots=True)
class CompiledPolicy:
    """A checked policy, its globs and patterns compiled (RE2)."""

    policy: Policy
    denied_paths: tuple[tuple[str, Any], ...]
    untrusted_paths: tuple[tuple[str, Any], ...]
    denied_commands: tuple[tuple[DeniedCommand, Any], ...]
    # Each list as one program: most values match none, and one search answers that.
    any_denied_path: Any = None
    any_untrusted: Any = None
    any_denied_command: Any = None

    def denied_path(self, path: str) -> str | None:
        """The first denied glob ``path`` (normalised) matches, if any."""
        if self.any_denied_path is None or not finds(self.any_denied_path, path.encode()):
            return None
        return next((glob for glob, program in self.denied_paths if program.match(path)), None)

    def untrusted(self, path: str) -> bool:
        """Whether ``path`` (normalised) matches an untrusted glob."""
        return self.any_untrusted is not None and finds(self.any_untrusted, path.encode())

    def denied_command(self, command: str) -> DeniedCommand | None:
        """The first denied pattern ``command`` holds, if any."""
        programs = self.any_denied_command
        if programs is None or not finds(programs, command.encode()):
            return None
        return next((d for d, program in self.denied_commands if program.search(command)), None)


def compiled(policy: Policy) -> CompiledPolicy:
    """``policy`` checked and compiled; a `PolicyError` naming the first bad glob or pattern."""
    if policy.flow_min_chars < 4:
        raise PolicyError("flows.min_chars", "must be at least 4")
    commands = []
    for n, command in enumerate(policy.denied_commands):
        commands.append((command, _program(command.pattern, f"commands.deny[{n}].pattern")))
    denied = tuple(
        (g, _program(glob_pattern(g), f"paths.deny: {g!r}")) for g in policy.denied_paths
    )
    untrusted = tuple(
        (g, _program(glob_pattern(g), f"paths.untrusted: {g!r}")) for g in policy.untrusted_paths
    )
    return CompiledPolicy(
        policy, denied, untrusted, tuple(commands),
        _union([glob_pattern(g) for g in policy.denied_paths]),
        _union([glob_pattern(g) for g in policy.untrusted_paths]),
        _union([d.pattern for d in policy.denied_commands]),
    )  # fmt: skip


def _union(patterns: list[str]) -> Any:
    """One program matching where any of ``patterns`` does (``None`` for none)."""
    if not patterns:
        return None
    return _program("|".join(f"(?:{pattern})" for pattern in patterns), "(all patterns)")


def _program(pattern: str, key: str) -> Any:
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as error:
        raise PolicyError(key, f"not an RE2 pattern ({error})") from None


def glob_pattern(glob: str) -> str:
    """The RE2 pattern (to ``match`` a whole normalised path) of a path glob.

    >>> glob_pattern("/etc/**")
    '^/etc/.*$'
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
        if body.startswith("**/", i):
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
    """``path`` as the audit judges it: a relative path under ``workspace`` (when known),
    ``.`` and ``..`` resolved; a ``~`` path kept as it is.

    >>> normalised("src/../.env", "/repo")
    '/repo/.env'
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
    if path.startswith("~"):
        return posixpath.normpath(path)
    if not path.startswith("/") and workspace is not None:
        path = posixpath.join(workspace, path)
    return posixpath.normpath(path) if path else path


def inside(path: str, workspace: str) -> bool | None:
    """Whether the normalised ``path`` is in ``workspace`` (``None``: a relative path, not
    known)."""
    if path.startswith("~"):
        return False
    if not path.startswith("/"):
        return None
    root = posixpath.normpath(workspace)
    return path == root or path.startswith(root.rstrip("/") + "/")
