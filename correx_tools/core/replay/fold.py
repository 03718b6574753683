"""The fold: a projection run over a session's stored events.

A plain loop. It checks the numbering (start right after ``after``, no gaps,
one session), skips an exact re-delivery of the event it just took, and in
strict mode stops at the first refused event. Lenient mode quarantines
refused events and goes on; it never re-orders or guesses past a numbering
error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, final

from returns.result import Failure, Result, Success

from ..lifecycle.events import StoredEvent
from .batching import Cursor, unapplied
from .errors import ReplayError, SequenceError, SequenceErrorKind
from .projection import Projection, runner
from .retention import Retention, RetentionKind
from .timeline import Timeline, TimelineRecorder

S = TypeVar("S")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Replay(Generic[S]):
    """What a fold produced.

    ``quarantined`` holds, in lenient mode, each refused event with its error;
    ``timeline`` is set when the fold was given a retention policy.
    """

    state: S
    last_sequence: int
    quarantined: tuple[tuple[StoredEvent, Any], ...] = ()
    timeline: Timeline[S] | None = None


def fold_events(
    projection: Projection[S, Any],
    events: Iterable[StoredEvent],
    *,
    strict: bool = True,
    retention: Retention | None = None,
    initial: S | None = None,
    after: int = 0,
) -> Result[Replay[S], ReplayError]:
    """Fold ``events`` (one session, in sequence order) through ``projection``.

    ``initial`` and ``after`` resume from a state already at sequence
    ``after``. The result is the final state, the last sequence, the
    quarantined events (lenient mode) and, with ``retention``, a timeline.

    >>> from correx_tools.core.replay.projection import ToolProjector
    >>> fold_events(ToolProjector(), []).unwrap().last_sequence
    0
    """
    if type(after) is not int or after < 0:
        raise ValueError(f"after must be an int >= 0, got {after!r}")
    start: S = projection.initial() if initial is None else initial
    recorder = None if retention is None else TimelineRecorder(retention, start, after)
    engine = runner(
        projection,
        start,
        every_state=retention is not None and retention.kind is RetentionKind.LAST,
    )
    cursor = Cursor(after)
    quarantined: list[tuple[StoredEvent, Any]] = []
    # A batch runner takes the stretches of events that simply continue the session
    # itself (see .batching); this loop decides every other event, one at a time.
    for stored in unapplied(engine, events, cursor, recorder):
        sequence = stored.sequence
        last, previous, session = cursor.last, cursor.previous, cursor.session
        # One identity test on the common path: a store hands out one session id object.
        if sequence != last + 1 or stored.session_id is not session:
            if sequence == last + 1 and (session is None or stored.session_id == session):
                cursor.session = stored.session_id
            elif previous is not None and sequence == last and stored == previous:
                continue  # an exact re-delivery of the event just taken
            else:
                return Failure(_sequence_error(stored, last, previous))
        cause = engine.apply(stored)
        if cause is not None:
            if strict:
                return Failure(
                    ReplayError(sequence=sequence, cause=cause, message=_describe(sequence, cause))
                )
            quarantined.append((stored, cause))
        cursor.last = sequence
        cursor.previous = stored
        if recorder is not None:
            recorder.record(stored, engine.state, applied=cause is None)
    return Success(
        Replay(
            state=engine.state(),
            last_sequence=cursor.last,
            quarantined=tuple(quarantined),
            timeline=None if recorder is None else recorder.build(projection),
        )
    )


def _describe(sequence: int, cause: object) -> str:
    text = str(cause)
    return text if text.startswith("sequence ") else f"sequence {sequence}: {text}"


def _sequence_error(stored: StoredEvent, last: int, previous: StoredEvent | None) -> ReplayError:
    expected = last + 1
    got = stored.sequence
    if previous is not None and stored.session_id != previous.session_id:
        kind = SequenceErrorKind.SESSION_MISMATCH
        detail = (
            f"sequence {got} belongs to session {stored.session_id!r}, not {previous.session_id!r}"
        )
    elif got > expected:
        kind = SequenceErrorKind.GAP
        detail = f"gap: expected sequence {expected}, got {got}"
    elif got == last and previous is not None:
        kind = SequenceErrorKind.STALE
        detail = f"sequence {got} was delivered again with a different body"
    else:
        kind = SequenceErrorKind.STALE
        detail = f"expected sequence {expected}, got {got}, which is already behind"
    cause = SequenceError(kind=kind, expected=expected, got=got, message=detail)
    return ReplayError(sequence=got, cause=cause, message=f"sequence {got}: {detail}")
