"""Writing events to a database store: one transaction for an append or an import.

For each session in turn, inside the transaction: hold the session against
other writers and check that the events continue it (`check_continues`),
write the events with their index (`index_and_write`: their typed columns,
effects and chain, the rows of the invocations they request — claiming those
ids, unique across sessions — or move on, the checkpoints and the head), and
move the session on. Anything refused rolls the whole transaction back: all or
nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from returns.result import Failure, Result, Success

from ....core.lifecycle.events import (
    TOOL_EVENT_TYPES,
    StoredEvent,
    ToolInvocationRequestedEvent,
)
from ..codec.encoding import EncodedEvent
from ..port import AppendError, AppendErrorKind, StaleIndex
from ..writing import Refused, check_continues, conflict, duplicate
from .dialect import Cursor, Database, Dialect, ReadFault, WriteFault
from .index import (
    last_sequence,
    load_head,
    load_images,
    move_images,
    save_head,
    states,
    write_checkpoints,
    write_images,
)
from .indexing import IndexedGroup, index_group
from .rebuilding import DamagedEvents, rebuild


def write_groups(
    database: Database,
    groups: list[tuple[str, list[StoredEvent]]],
    encoded: Sequence[EncodedEvent],
    *,
    expected: int | None,
    interval: int,
) -> Result[int, AppendError]:
    """Write each session's events (``encoded`` holds their envelopes, in order) in one
    transaction; the number written, or why none were."""
    if not encoded:
        return _nothing_to_write(database, groups, expected)
    d = database.dialect
    try:
        with database.writing() as cursor:
            start = 0
            for session_id, events in groups:
                envelopes = list(encoded[start : start + len(events)])
                start += len(events)
                last = d.lock_session(cursor, session_id)
                problem = check_continues(session_id, last, events, expected)
                if problem is not None:
                    raise Refused(problem)
                if events:
                    index_and_write(d, cursor, session_id, events, envelopes, interval=interval)
                    d.advance_session(cursor, session_id, events[-1].sequence)
            d.after_write(cursor, [session_id for session_id, _ in groups])
    except Refused as refused:
        return Failure(refused.error)
    except DamagedEvents as damage:
        return Failure(
            AppendError(
                kind=AppendErrorKind.DAMAGED,
                session_id=damage.session_id,
                message=f"{damage}; nothing was written (correx-tools verify names every fault)",
            )
        )
    except WriteFault as fault:
        session_id = groups[0][0] if groups else ""
        if fault.kind is AppendErrorKind.CONFLICT:
            # Another writer committed the same sequence between our check and our write.
            return Failure(conflict(session_id, -1 if expected is None else expected, -1))
        return Failure(AppendError(kind=fault.kind, session_id=session_id, message=fault.message))
    return Success(len(encoded))


def _nothing_to_write(
    database: Database, groups: list[tuple[str, list[StoredEvent]]], expected: int | None
) -> Result[int, AppendError]:
    """An append of no events: still a conflict when the session has moved on."""
    if expected is None:
        return Success(0)
    for session_id, _ in groups:
        try:
            with database.query() as cursor:
                last = last_sequence(database.dialect, cursor, session_id)
        except ReadFault as fault:
            return Failure(
                AppendError(
                    kind=AppendErrorKind.UNAVAILABLE,
                    session_id=session_id,
                    message=f"the database is unavailable: {fault.reason}",
                )
            )
        if last != expected:
            return Failure(conflict(session_id, expected, last))
    return Success(0)


def index_and_write(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    events: list[StoredEvent],
    encoded: list[EncodedEvent],
    *,
    interval: int,
) -> None:
    """Write one session's events with their index, in the caller's transaction.

    A session whose index does not reach its last event, or does not match it
    (written by an older release, or changed outside this store), has it
    rebuilt first (`rebuild`).
    """
    head = load_head(d, cursor, session_id)
    if head is None:
        head = rebuild(d, cursor, session_id, interval)
    requested_here: set[str] = set()
    for stored in events:
        if isinstance(stored.event, ToolInvocationRequestedEvent):
            invocation = stored.event.invocation_id
            if invocation in requested_here:
                raise Refused(duplicate(session_id, invocation, session_id))
            requested_here.add(invocation)
    touched = {
        s.event.invocation_id
        for s in events
        if isinstance(s.event, TOOL_EVENT_TYPES) and s.event.invocation_id not in requested_here
    }
    try:
        known = load_images(d, cursor, session_id, touched)
    except StaleIndex:
        head = rebuild(d, cursor, session_id, interval)
        known = load_images(d, cursor, session_id, touched)
    group = index_group(
        session_id, events, encoded, head=head, lookup=states(known, session_id),
        interval=interval,
    )  # fmt: skip
    write_events(d, cursor, session_id, events, group)
    new, changed = move_images(group.changes, group.events, known)
    write_images(d, cursor, session_id, new.values(), changed.values())
    write_checkpoints(d, cursor, session_id, group.checkpoints)
    save_head(d, cursor, session_id, group.head)


def write_events(
    d: Dialect, cursor: Cursor, session_id: str, events: list[StoredEvent], group: IndexedGroup
) -> None:
    """Insert a group's events with their typed columns, effects and chains."""
    key, text, time = d.session_key(session_id), d.text_value, d.time_value
    cursor.executemany(
        d.sql(
            "INSERT INTO {events} ({session}, sequence, recorded_at, type, version, data, kind, "
            "invocation_id, label, code, effect, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ),
        [
            (key, row.sequence, time(stored.recorded_at, row.encoded.recorded_at),
             row.encoded.type, row.encoded.version, row.encoded.data, row.columns.kind,
             text(row.columns.invocation_id), text(row.columns.label), row.columns.code,
             row.effect, row.chain)
            for stored, row in zip(events, group.events, strict=True)
        ],
    )  # fmt: skip
