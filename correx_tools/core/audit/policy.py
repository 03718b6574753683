"""The policy model: what a session's calls may do.

A policy names the workspace root (``None``: the session's own working directory, where
recorded), the capabilities allowed, path globs denied and untrusted, commands denied
(RE2 patterns), whether a secret in a call is a finding, and the shortest value a flow
follows. `compiled` checks it and turns its globs and patterns into RE2 programs, so every
match is linear in the text it is asked of. How a path is judged against its globs is
`paths`; how a command is read for its patterns, `unquoted`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

import re2

from ..report.re2_spans import finds
from ..report.redaction import Redaction
from ..tools.capability import ToolCapability
from .paths import glob_pattern
from .unquoted import unquoted


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
    # Each list as a few programs (one for a list of ordinary size): most values match
    # none, and one search answers that.
    any_denied_path: tuple[Any, ...] = ()
    any_untrusted: tuple[Any, ...] = ()
    any_denied_command: tuple[Any, ...] = ()

    def denied_path(self, path: str) -> str | None:
        """The first denied glob ``path`` (normalised) matches, if any."""
        data = path.encode()
        if not any(finds(program, data) for program in self.any_denied_path):
            return None
        return next((glob for glob, program in self.denied_paths if program.match(path)), None)

    def untrusted(self, path: str) -> bool:
        """Whether ``path`` (normalised) matches an untrusted glob."""
        data = path.encode()
        return any(finds(program, data) for program in self.any_untrusted)

    def denied_command(self, command: str) -> DeniedCommand | None:
        """The first denied pattern ``command`` holds, if any: searched in its words as the
        shell reads them, after quote removal (`unquoted`)."""
        text = unquoted(command)
        data = text.encode()
        if not any(finds(program, data) for program in self.any_denied_command):
            return None
        return next((d for d, program in self.denied_commands if program.search(text)), None)


MAX_PATTERNS = 4_096
"""Globs or patterns of one list of a policy."""
MAX_PATTERN_CHARS = 4_096
"""Characters of one glob or pattern."""
_UNION_CHARS = 65_536
"""The longest program a list's patterns are joined into; a longer list is joined into
several. RE2 refuses (and logs, on the process's standard error, past its own walk
budget) a program of some megabytes."""


def compiled(policy: Policy) -> CompiledPolicy:
    """``policy`` checked and compiled; a `PolicyError` naming the first bad glob or pattern."""
    if policy.flow_min_chars < 4:
        raise PolicyError("flows.min_chars", "must be at least 4")
    _within_bounds(policy)
    _secret_patterns(policy.secret_patterns)
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


def _within_bounds(policy: Policy) -> None:
    lists = (
        ("paths.deny", policy.denied_paths),
        ("paths.untrusted", policy.untrusted_paths),
        ("commands.deny", tuple(d.pattern for d in policy.denied_commands)),
        ("secrets.patterns", policy.secret_patterns),
    )
    for key, patterns in lists:
        if len(patterns) > MAX_PATTERNS:
            raise PolicyError(key, f"{len(patterns):,} entries, over the limit of {MAX_PATTERNS:,}")
        for n, pattern in enumerate(patterns):
            if len(pattern) > MAX_PATTERN_CHARS:
                raise PolicyError(
                    f"{key}[{n}]",
                    f"{len(pattern):,} characters, over the limit of {MAX_PATTERN_CHARS:,}",
                )


def _secret_patterns(patterns: tuple[str, ...]) -> None:
    """Each of the policy's own secret patterns as the masking takes it (RE2, matching no
    empty text), or a `PolicyError` naming it."""
    for pattern in patterns:
        try:
            Redaction.with_patterns((pattern,))
        except ValueError as error:
            reason = str(error).removeprefix(f"--redact {pattern!r}: ")
            raise PolicyError(f"secrets.patterns: {pattern!r}", reason) from None


def _union(patterns: list[str]) -> tuple[Any, ...]:
    """Programs matching, together, where any of ``patterns`` does (none for none): as few
    as hold them within `_UNION_CHARS` each."""
    programs: list[Any] = []
    group: list[str] = []
    size = 0
    for pattern in patterns:
        if group and size + len(pattern) > _UNION_CHARS:
            programs.append(_joined(group))
            group, size = [], 0
        group.append(pattern)
        size += len(pattern) + 5
    if group:
        programs.append(_joined(group))
    return tuple(programs)


def _joined(patterns: list[str]) -> Any:
    return _program("|".join(f"(?:{pattern})" for pattern in patterns), "(all patterns)")


def _program(pattern: str, key: str) -> Any:
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as error:
        raise PolicyError(key, f"not an RE2 pattern ({error})") from None
