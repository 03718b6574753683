"""Writing events to a database store: one transaction for an append or an import.

For each session in turn, inside the transaction: hold the session against
other writers and check that the events continue it (`check_continues`),
claim the invocation ids they request (unique across sessions), write the
events with their index (`index.index_and_write`), and move the session on.
Anything refused rolls the whole transaction back: all or nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from returns.result import Failure, Result, Success

from ....core.lifecycle.events import StoredEvent
from ..codec.encoding import EncodedEvent
from ..port import AppendError, AppendErrorKind
from ..writing import Refused, check_continues, conflict, duplicate, requested_ids
from .dialect import Cursor, Database, Dialect, ReadFault, WriteFault
from .index import index_and_write, last_sequence
from .indexing import claimed_columns


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
                    claim_ids(d, cursor, session_id, events)
                    index_and_write(d, cursor, session_id, events, envelopes, interval=interval)
                    d.advance_session(cursor, session_id, events[-1].sequence)
            d.after_write(cursor, [session_id for session_id, _ in groups])
    except Refused as refused:
        return Failure(refused.error)
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


def claim_ids(d: Dialect, cursor: Cursor, session_id: str, events: list[StoredEvent]) -> None:
    """Claim the ids ``events`` request, unique across sessions; a used one is `Refused`.

    Every claim is inserted unless its id is taken already, then the owners of
    the ids are read back: an id owned by another session, or by another event
    of this one, was used before.
    """
    claims: dict[object, tuple[str, StoredEvent]] = {}
    for invocation, stored in requested_ids(events):
        key = d.invocation_key(invocation)
        if key in claims:
            raise Refused(duplicate(session_id, invocation, session_id))
        claims[key] = (invocation, stored)
    if not claims:
        return
    session_key = d.session_key(session_id)
    cursor.executemany(
        d.sql(
            f"INSERT INTO {{invocations}} ({d.claim_columns}, {{session}}, sequence, status, "
            f"requested_at, tool_name, tier) VALUES ({', '.join('?' * _claim_width(d))}, "
            "?, ?, 1, ?, ?, ?) ON CONFLICT ({invocation}) DO NOTHING"
        ),
        [
            (
                *d.claim_ids(invocation),
                session_key,
                stored.sequence,
                d.time_value(stored.recorded_at),
                d.text_value(tool),
                tier,
            )
            for invocation, stored in claims.values()
            for tool, tier, _ in (claimed_columns(stored.event),)
        ],
    )
    for fragment, keys in d.key_sets(list(claims)):
        owners = cursor.execute(
            d.sql("SELECT {invocation}, {session}, sequence FROM {invocations} WHERE {invocation} ")
            + fragment,
            keys,
        ).fetchall()
        for key, owner, sequence in owners:
            invocation, stored = claims[key]
            if (owner, sequence) != (session_key, stored.sequence):
                other = d.session_name(cursor, owner)
                raise Refused(duplicate(session_id, invocation, other))


def _claim_width(d: Dialect) -> int:
    return len(d.claim_columns.split(","))
