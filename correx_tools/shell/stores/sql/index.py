"""The time-travel index of a database store: written with the events, and rebuilt.

What the index holds and why is in `indexing`; the rule it rests on is in
`correx_tools.core.replay.stored_index`. This module is its SQL, written once
for every database (`dialect`), run in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ....core.lifecycle.events import REQUESTED_TYPE, StoredEvent
from ....core.replay.stored_index import STATUS_CODES, STATUS_OF_CODE, InvocationState
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.rows import decode_row
from .dialect import Cursor, Dialect
from .indexing import Head, IndexedGroup, claimed_columns, index_group, typed_columns

REBUILD_BATCH = 5_000
"""Events read, decoded and indexed at a time by a rebuild."""


def last_sequence(d: Dialect, cursor: Cursor, session_id: str) -> int:
    """The session's last sequence, from its events (0 for none)."""
    row = cursor.execute(
        d.sql("SELECT MAX(sequence) FROM {events} WHERE {session} = ?"),
        (d.session_key(session_id),),
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def chain_at(d: Dialect, cursor: Cursor, session_id: str, sequence: int) -> int | None:
    """The chain value stored with one event, or ``None`` when there is no such event."""
    row = cursor.execute(
        d.sql("SELECT chain FROM {events} WHERE {session} = ? AND sequence = ?"),
        (d.session_key(session_id), sequence),
    ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def load_head(d: Dialect, cursor: Cursor, session_id: str) -> Head | None:
    """The session's index head, if it is there, fresh and reaches the session's last event."""
    row = cursor.execute(
        d.sql(
            "SELECT indexed_through, requested, started, completed, failed, rejected, refused, "
            "chain, stale FROM {heads} WHERE {session} = ?"
        ),
        (d.session_key(session_id),),
    ).fetchone()
    last = last_sequence(d, cursor, session_id)
    if row is None:
        return Head() if last == 0 else None
    through, *counts, chain, stale = row
    if stale or through != last:
        return None
    if through and chain_at(d, cursor, session_id, through) != chain:
        return None
    return Head(through, list(counts), chain)


def save_head(d: Dialect, cursor: Cursor, session_id: str, head: Head) -> None:
    """Write the session's head (fresh: it was just computed)."""
    cursor.execute(
        d.sql(
            "INSERT INTO {heads} ({session}, indexed_through, requested, started, completed, "
            "failed, rejected, refused, chain, stale) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT ({session}) DO UPDATE SET indexed_through = excluded.indexed_through, "
            "requested = excluded.requested, started = excluded.started, "
            "completed = excluded.completed, failed = excluded.failed, "
            "rejected = excluded.rejected, refused = excluded.refused, chain = excluded.chain, "
            "stale = excluded.stale"
        ),
        (d.session_key(session_id), head.indexed_through, *head.counts, head.chain, False),
    )


def marked_fresh(d: Dialect, cursor: Cursor, session_id: str) -> bool:
    """Whether the session's head is there and not marked stale: its events' typed columns
    can be read instead of their JSON."""
    row = cursor.execute(
        d.sql("SELECT stale FROM {heads} WHERE {session} = ?"), (d.session_key(session_id),)
    ).fetchone()
    return row is not None and not row[0]


def mark_stale(d: Dialect, cursor: Cursor, session_id: str) -> None:
    """Mark the session's index stale: it is rebuilt before it is trusted again."""
    cursor.execute(
        d.sql("UPDATE {heads} SET stale = ? WHERE {session} = ?"),
        (True, d.session_key(session_id)),
    )


def invocation_states(
    d: Dialect, cursor: Cursor, session_id: str, ids: Iterable[str]
) -> Mapping[str, InvocationState]:
    """The state of each of ``ids`` that this session requested (its status, request time)."""
    by_key = {d.invocation_key(invocation): invocation for invocation in ids}
    mine = d.session_key(session_id)
    found: dict[str, InvocationState] = {}
    for fragment, keys in d.key_sets(list(by_key)):
        query = d.sql(
            "SELECT {invocation}, {session}, status, requested_at FROM {invocations} "
            "WHERE {invocation} "
        )
        for key, session, status, requested_at in cursor.execute(query + fragment, keys):
            if status is not None and session == mine:
                found[by_key[key]] = InvocationState(
                    session_id, STATUS_OF_CODE[status], d.when(requested_at)
                )
    return found


# -- writing -----------------------------------------------------------------------


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

    A session whose index does not reach its last event (written by an older
    release, or changed outside this store) has it rebuilt first.
    """
    head = load_head(d, cursor, session_id)
    if head is None:
        head = rebuild(d, cursor, session_id, interval)
    group = index_group(
        session_id,
        events,
        encoded,
        head=head,
        lookup=lambda ids: invocation_states(d, cursor, session_id, ids),
        interval=interval,
    )
    key, text, time = d.session_key(session_id), d.text_value, d.time_value
    cursor.executemany(
        d.sql(
            "INSERT INTO {events} ({session}, sequence, recorded_at, type, version, data, kind, "
            "invocation_id, label, code, effect, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ),
        [
            (
                key,
                row.sequence,
                time(stored.recorded_at, row.encoded.recorded_at),
                row.encoded.type,
                row.encoded.version,
                row.encoded.data,
                row.columns.kind,
                text(row.columns.invocation_id),
                text(row.columns.label),
                row.columns.code,
                row.effect,
                row.chain,
            )
            for stored, row in zip(events, group.events, strict=True)
        ],
    )
    apply_changes(d, cursor, session_id, group)
    save_head(d, cursor, session_id, group.head)


def apply_changes(d: Dialect, cursor: Cursor, session_id: str, group: IndexedGroup) -> None:
    """Move the invocations' entries on over a group's changes, and write its checkpoints."""
    time, text, ikey = d.time_value, d.text_value, d.invocation_key
    started = [
        (c.sequence, time(c.recorded_at), ikey(c.invocation_id))
        for c in group.changes
        if c.kind == 2
    ]
    ended = []
    for change in group.changes:
        if change.kind == 3:
            columns = typed_columns(change.event)
            ended.append(
                (
                    STATUS_CODES[change.status],
                    change.sequence,
                    time(change.recorded_at),
                    text(columns.label),
                    columns.code,
                    ikey(change.invocation_id),
                )
            )
    if started:
        cursor.executemany(
            d.sql(
                "UPDATE {invocations} SET status = 2, started_seq = ?, started_at = ? "
                "WHERE {invocation} = ?"
            ),
            started,
        )
    if ended:
        cursor.executemany(
            d.sql(
                "UPDATE {invocations} SET status = ?, ended_seq = ?, completed_at = ?, "
                "end_label = ?, end_code = ? WHERE {invocation} = ?"
            ),
            ended,
        )
    if group.checkpoints:
        key = d.session_key(session_id)
        cursor.executemany(
            d.sql(
                "INSERT INTO {checkpoints} ({session}, sequence, requested, started, completed, "
                "failed, rejected, refused, chain, seal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT ({session}, sequence) DO UPDATE SET "
                "requested = excluded.requested, started = excluded.started, "
                "completed = excluded.completed, failed = excluded.failed, "
                "rejected = excluded.rejected, refused = excluded.refused, "
                "chain = excluded.chain, seal = excluded.seal"
            ),
            [(key, c.sequence, *c.counts, c.chain, c.seal) for c in group.checkpoints],
        )


# -- rebuilding --------------------------------------------------------------------


def clear_all(d: Dialect, cursor: Cursor) -> None:
    """Drop every session's index (the events stay), for a rebuild in the same transaction."""
    cursor.execute(d.sql("DELETE FROM {heads}"))
    cursor.execute(d.sql("DELETE FROM {checkpoints}"))
    cursor.execute(
        d.sql(
            "UPDATE {events} SET kind = NULL, invocation_id = NULL, label = NULL, code = NULL, "
            "effect = NULL, chain = NULL"
        )
    )


def rebuild_all(
    d: Dialect, cursor: Cursor, interval: int, progress: Callable[[int, int], None] | None
) -> int:
    """Index every session again from its events, in the caller's transaction; how many
    events were indexed. ``progress(done, total)`` is told as they are."""
    total = int(cursor.execute(d.sql("SELECT COUNT(*) FROM {events}")).fetchone()[0])
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    for session_id in d.sessions(cursor):
        rebuild(d, cursor, session_id, interval, advance)
    return total


def rebuild(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    interval: int,
    progress: Callable[[int], None] | None = None,
) -> Head:
    """Index one session again from its events alone, in the caller's transaction.

    Every event is decoded in full (strictly) on the way: a damaged one stops
    the rebuild with a `StoreReadError` naming it.
    """
    from ..codec.encoding import encode_event  # noqa: PLC0415 - only a rebuild re-encodes

    key = d.session_key(session_id)
    cursor.execute(d.sql("DELETE FROM {checkpoints} WHERE {session} = ?"), (key,))
    cursor.execute(d.sql("DELETE FROM {heads} WHERE {session} = ?"), (key,))
    cursor.execute(
        d.sql(
            "UPDATE {invocations} SET status = NULL, requested_at = NULL, started_seq = NULL, "
            "ended_seq = NULL, tool_name = NULL, tier = NULL, started_at = NULL, "
            "completed_at = NULL, end_label = NULL, end_code = NULL WHERE {session} = ?"
        ),
        (key,),
    )
    head, after, text = Head(), 0, d.text_value
    while True:
        rows = cursor.execute(
            d.sql(
                "SELECT sequence, recorded_at, type, version, data FROM {events} "
                "WHERE {session} = ? AND sequence > ? ORDER BY sequence LIMIT ?"
            ),
            (key, after, REBUILD_BATCH),
        ).fetchall()
        if not rows:
            break
        events = [decode_row(d.where, SessionId(session_id), row) for row in rows]
        encoded = [encode_event(stored) for stored in events]
        requests = [
            (
                d.time_value(stored.recorded_at, envelope.recorded_at),
                text(tool),
                tier,
                d.invocation_key(invocation),
                key,
                stored.sequence,
            )
            for stored, envelope in zip(events, encoded, strict=True)
            if envelope.type == REQUESTED_TYPE
            for tool, tier, invocation in (claimed_columns(stored.event),)
        ]
        if requests:
            cursor.executemany(
                d.sql(
                    "UPDATE {invocations} SET status = 1, requested_at = ?, tool_name = ?, "
                    "tier = ? WHERE {invocation} = ? AND {session} = ? AND sequence = ?"
                ),
                requests,
            )
        group = index_group(
            session_id,
            events,
            encoded,
            head=head,
            lookup=lambda ids: invocation_states(d, cursor, session_id, ids),
            interval=interval,
        )
        cursor.executemany(
            d.sql(
                "UPDATE {events} SET kind = ?, invocation_id = ?, label = ?, code = ?, "
                "effect = ?, chain = ? WHERE {session} = ? AND sequence = ?"
            ),
            [
                (
                    row.columns.kind,
                    text(row.columns.invocation_id),
                    text(row.columns.label),
                    row.columns.code,
                    row.effect,
                    row.chain,
                    key,
                    row.sequence,
                )
                for row in group.events
            ],
        )
        apply_changes(d, cursor, session_id, group)
        head, after = group.head, rows[-1][0]
        if progress is not None:
            progress(len(rows))
    save_head(d, cursor, session_id, head)
    return head
