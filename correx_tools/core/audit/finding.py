"""A finding: one rule a session broke, pinned to the events that show it.

Each finding names its session, its rule and level, the tool, and its evidence: the
sequences of the events it is about (the call's request, and for a value that flowed,
the call it came out of), each with the event's evidence value as the store held it when
audited (`shell.audit.evidence` computes it; a re-check reads it again). Its message is
masked (`Redaction`) and cut after masking, so a secret is never shown, whole or in part.

A call is judged when it is requested, and it may then be rejected (the user turned it
down, a hook refused it): it did not run. Its finding is then an **attempt**
(`attempted`): said as what the call asked to do (``asked to run``, never ``ran``), that
it was rejected and why, one level below its rule's (an error is a warning, a warning a
note). What a call *holds* is in the session whether it ran or not: a secret in its
arguments, or arguments too large to judge whole, keep their level, and say it was
rejected.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import final

MESSAGE_CHARS = 240
"""The longest quoted value in a message, cut after masking."""


@final
class Level(enum.Enum):
    """How serious a finding is (SARIF's levels)."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """One event a finding is about: its sequence, its part (``call``: the request;
    ``output``: how it ended; ``source``: where a flowed value came from) and its value."""

    sequence: int
    role: str
    value: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One rule broken by one call (or by a value flowing between two)."""

    rule: str
    level: Level
    session: str
    tool: str
    message: str
    evidence: tuple[Evidence, ...]
    tried: str = ""
    """The message had the call been rejected: what it asked to do (empty: the message
    says what the call holds, run or not)."""
    attempt: bool = False
    """Whether the call was rejected before it ran (`attempted`)."""

    @property
    def sequence(self) -> int:
        """The sequence of the event the finding is about (its first evidence)."""
        return self.evidence[0].sequence


RULES: dict[str, tuple[Level, str]] = {
    "capability-not-allowed": (Level.WARNING, "a call used a capability the policy does not allow"),
    "path-denied": (Level.ERROR, "a call read or wrote a path the policy denies"),
    "write-outside-workspace": (Level.ERROR, "a call wrote outside the workspace"),
    "command-denied": (Level.ERROR, "a shell command matched a denied pattern"),
    "secret-in-arguments": (Level.ERROR, "a secret appeared in a call's arguments"),
    "not-audited-whole": (
        Level.WARNING,
        "a call's arguments were cut or past a bound, so it was not judged whole",
    ),
    "secret-in-output": (Level.WARNING, "a secret appeared in a call's output"),
    "flow-into-shell": (Level.ERROR, "an untrusted value reached a shell command"),
    "flow-into-write": (Level.WARNING, "an untrusted value reached a file write"),
    "flow-into-network": (Level.WARNING, "an untrusted value reached a network call"),
}
"""Every rule: its level and what it means (SARIF's rule descriptions)."""


LOWER = {Level.ERROR: Level.WARNING, Level.WARNING: Level.NOTE, Level.NOTE: Level.NOTE}
"""An attempt's level: one below its rule's."""


def attempted(finding: Finding, reason: str) -> Finding:
    """``finding`` of a call that was rejected (``reason``: why, masked and cut): an attempt
    (see the module's docstring).

    >>> f = Finding(rule="command-denied", level=Level.ERROR, session="s", tool="Bash",
    ...             message="Bash ran 'rm -rf /' (rm -rf)", evidence=(),
    ...             tried="Bash asked to run 'rm -rf /' (rm -rf)")
    >>> said = attempted(f, "the user said no")
    >>> said.level.value, said.message
    ('warning', "Bash asked to run 'rm -rf /' (rm -rf); rejected before it ran: the user said no")
    """
    if finding.attempt:
        return finding
    why = f"; rejected before it ran: {reason}" if reason else "; rejected before it ran"
    if not finding.tried:  # what the call holds: as serious whether it ran or not
        return replace(finding, message=finding.message + why, attempt=True)
    return replace(finding, level=LOWER[finding.level], message=finding.tried + why,
                   tried="", attempt=True)  # fmt: skip


def cut(text: str, chars: int = MESSAGE_CHARS) -> str:
    """``text`` (already masked) on one line, cut to ``chars``."""
    flat = " ".join(text[: chars * 4].split())
    return flat if len(flat) <= chars else flat[: chars - 1] + "…"
