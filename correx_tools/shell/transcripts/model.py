"""What every transcript format is read into: the tool calls, when each was asked for,
started and ended, and how it ended (`errors` holds what a reader raises)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, final

from ...core.lifecycle.conversation import ConversationEvent
from ...core.lifecycle.description import About
from ...core.lifecycle.outcome import Outcome

Position = tuple[int, ...]
"""Where a step happened in the transcript (record, block, ...): events are written in this
order, which is the order the agent saw them, whatever their clocks say."""

ORIGIN = datetime(2000, 1, 1, tzinfo=UTC)
"""The time of the first step of a transcript that records no times (one second a step).

Such times only keep the steps in order: no time is recorded, and the session's
description says so (``"times": "none"``, `description`). Where a transcript records
times for some steps and not for others, a step without one takes the nearest recorded
time instead (`staging`), never this one."""


class Ending(enum.Enum):
    """How a call ended."""

    COMPLETED = "completed"
    FAILED = "failed"
    REJECTED = "rejected"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class End:
    """The end of a call: its kind and time, and what the transcript says of it.

    ``exit_code`` is ``None`` when the transcript records none (a file read, a
    shell whose output states none): the receipt then says so. ``recorded`` is
    false when the transcript records no time for the end (``at`` then only
    keeps its place).
    """

    kind: Ending
    at: datetime
    position: Position
    output: Any = None
    exit_code: int | None = None
    reason: str = ""
    recoverable: bool = True
    metadata: dict[str, str] = field(default_factory=dict)
    recorded: bool = True


@dataclass(slots=True, kw_only=True)
class TranscriptCall:
    """One tool call of a transcript, as it is read."""

    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    requested_at: datetime
    position: Position
    where: str
    """Where the call is in the file, for messages: ``line 12`` or ``$.history[3]``."""
    started_at: datetime | None = None
    started_position: Position | None = None
    end: End | None = None
    recorded: bool = True
    """Whether the transcript records when the call was asked for (when not,
    ``requested_at`` is a derived time that only keeps the call's place)."""
    started_recorded: bool = True
    """Whether it records when the call started, when it says it did (``started_at``)."""


@final
@dataclass(frozen=True, slots=True)
class TalkStep:
    """One step of the conversation around the calls (a prompt, the assistant's words, its
    reasoning, a message's tokens), where the transcript tells it and when (``at`` is
    ``None`` when it records no time for it: the nearest recorded one is taken)."""

    position: Position
    at: datetime | None
    message: ConversationEvent


@final
@dataclass(frozen=True, slots=True)
class Transcript:
    """The calls of one transcript, in request order, and the session it describes."""

    format: str
    session: str
    """The session's own name in the transcript (or its file's name, when it has none)."""
    calls: tuple[TranscriptCall, ...]
    about: About = field(default_factory=About, kw_only=True)
    incomplete_tail: str = field(default="", kw_only=True)
    """``line N`` when the file's last line was cut mid-way (a live file) and left out."""
    skipped: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)
    """The damaged lines a lenient read left out: where each is, and what is wrong."""
    first_time: datetime | None = field(default=None, kw_only=True)
    """The first time the transcript records, where its header records no start (an older
    Goose file: its first message's): the session's description is stamped with it."""
    talk: tuple[TalkStep, ...] = field(default=(), kw_only=True)
    """The conversation around the calls, for the formats whose reader reads it."""
    outcome: Outcome | None = field(default=None, kw_only=True)
    """How the run ended, as the harness that ran it wrote (in the file, or beside it:
    `common.evaluations`)."""


def step_time(step: int) -> datetime:
    """The derived time of step ``step`` (0-based) of a transcript without times."""
    return ORIGIN + timedelta(seconds=step)
