"""The PostgreSQL store's time-travel index: written with the events, rebuilt, and read.

The same index as SQLite's (`indexing`; its SQL is `sqlite_index`),
with ids and labels kept as UTF-8 bytes: a ``TEXT`` column cannot hold a NUL,
and ids and reasons may.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, final

from ....core.lifecycle.events import REQUESTED_TYPE, StoredEvent
from ....core.replay.stored_index import (
    STATUS_CODES,
    STATUS_OF_CODE,
    InvocationState,
)
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.rows import decode_row
from ..sql.indexing import Head, IndexedGroup, claimed_columns, index_group, typed_columns
from .layout import id_key

_REBUILD_BATCH = 5_000


def text_of(value: bytes | None) -> str | None:
    return None if value is None else bytes(value).decode("utf-8")


def as_when(value: datetime) -> datetime:
    return value


@final
class PostgresIndex:
    """The index's SQL for one schema, run on the caller's connection and transaction."""

    __slots__ = ("_q",)

    def __init__(self, compose: Callable[[str], Any]) -> None:
        self._q = compose

    # -- writing -----------------------------------------------------------------

    def index_and_write(
        self,
        connection: Any,
        session_id: str,
        events: list[StoredEvent],
        encoded: list[EncodedEvent],
        interval: int,
    ) -> None:
        """Write one session's events with their index; rebuild a stale index first."""
        head = self.load_head(connection, session_id)
        if head is None:
            head = self.rebuild(connection, session_id, interval)
        group = index_group(
            session_id,
            events,
            encoded,
            head=head,
            lookup=lambda ids: self.invocation_states(connection, ids),
            interval=interval,
        )
        key = id_key(session_id)
        with connection.cursor() as cursor:
            cursor.executemany(
                self._q(
                    "INSERT INTO {schema}.correx_events (session_key, sequence, recorded_at, "
                    "type, version, data, kind, invocation_id, label, code, effect, chain) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                ),
                [
                    (
                        key,
                        row.sequence,
                        stored.recorded_at,
                        row.encoded.type,
                        row.encoded.version,
                        row.encoded.data,
                        row.columns.kind,
                        _bytes(row.columns.invocation_id),
                        _bytes(row.columns.label),
                        row.columns.code,
                        row.effect,
                        row.chain,
                    )
                    for stored, row in zip(events, group.events, strict=True)
                ],
            )
        self._apply(connection, key, group)
        self.save_head(connection, key, group.head)

    def _apply(self, connection: Any, key: bytes, group: IndexedGroup) -> None:
        started = [
            (c.sequence, c.recorded_at, id_key(c.invocation_id))
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
                        change.recorded_at,
                        _bytes(columns.label),
                        columns.code,
                        id_key(change.invocation_id),
                    )
                )
        with connection.cursor() as cursor:
            if started:
                cursor.executemany(
                    self._q(
                        "UPDATE {schema}.correx_invocations SET status = 2, started_seq = %s, "
                        "started_at = %s WHERE invocation_key = %s"
                    ),
                    started,
                )
            if ended:
                cursor.executemany(
                    self._q(
                        "UPDATE {schema}.correx_invocations SET status = %s, ended_seq = %s, "
                        "completed_at = %s, end_label = %s, end_code = %s "
                        "WHERE invocation_key = %s"
                    ),
                    ended,
                )
            if group.checkpoints:
                cursor.executemany(
                    self._q(
                        "INSERT INTO {schema}.correx_checkpoints (session_key, sequence, "
                        "requested, started, completed, failed, rejected, refused, chain, seal) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                        "ON CONFLICT (session_key, sequence) DO UPDATE SET "
                        "requested = EXCLUDED.requested, started = EXCLUDED.started, "
                        "completed = EXCLUDED.completed, failed = EXCLUDED.failed, "
                        "rejected = EXCLUDED.rejected, refused = EXCLUDED.refused, "
                        "chain = EXCLUDED.chain, seal = EXCLUDED.seal"
                    ),
                    [(key, c.sequence, *c.counts, c.chain, c.seal) for c in group.checkpoints],
                )

    def invocation_states(
        self, connection: Any, ids: Iterable[str]
    ) -> Mapping[str, InvocationState]:
        """The state of each of ``ids`` the store knows of."""
        keys = {id_key(invocation): invocation for invocation in ids}
        if not keys:
            return {}
        found: dict[str, InvocationState] = {}
        for key, session, status, requested_at in connection.execute(
            self._q(
                "SELECT i.invocation_key, s.session_id, i.status, i.requested_at "
                "FROM {schema}.correx_invocations i JOIN {schema}.correx_sessions s "
                "ON s.session_key = i.session_key WHERE i.invocation_key = ANY(%s)"
            ),
            (list(keys),),
        ):
            if status is not None:
                found[keys[bytes(key)]] = InvocationState(
                    bytes(session).decode("utf-8"), STATUS_OF_CODE[status], requested_at
                )
        return found

    def load_head(self, connection: Any, session_id: str) -> Head | None:
        """The session's head, if it is there, fresh and reaches the session's last event."""
        key = id_key(session_id)
        row = connection.execute(
            self._q(
                "SELECT indexed_through, requested, started, completed, failed, rejected, "
                "refused, chain, stale FROM {schema}.correx_session_heads WHERE session_key = %s"
            ),
            (key,),
        ).fetchone()
        last = self.last_sequence(connection, key)
        if row is None:
            return Head() if last == 0 else None
        through, *counts, chain, stale = row
        if stale or through != last:
            return None
        if through and self._chain_at(connection, key, through) != chain:
            return None
        return Head(through, list(counts), chain)

    def save_head(self, connection: Any, key: bytes, head: Head) -> None:
        """Write the session's head (fresh: it was just computed)."""
        connection.execute(
            self._q(
                "INSERT INTO {schema}.correx_session_heads (session_key, indexed_through, "
                "requested, started, completed, failed, rejected, refused, chain, stale) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, false) "
                "ON CONFLICT (session_key) DO UPDATE SET "
                "indexed_through = EXCLUDED.indexed_through, requested = EXCLUDED.requested, "
                "started = EXCLUDED.started, completed = EXCLUDED.completed, "
                "failed = EXCLUDED.failed, rejected = EXCLUDED.rejected, "
                "refused = EXCLUDED.refused, chain = EXCLUDED.chain, stale = false"
            ),
            (key, head.indexed_through, *head.counts, head.chain),
        )

    def last_sequence(self, connection: Any, key: bytes) -> int:
        """A session's last sequence, from its events."""
        row = connection.execute(
            self._q("SELECT MAX(sequence) FROM {schema}.correx_events WHERE session_key = %s"),
            (key,),
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _chain_at(self, connection: Any, key: bytes, sequence: int) -> int | None:
        row = connection.execute(
            self._q(
                "SELECT chain FROM {schema}.correx_events WHERE session_key = %s AND sequence = %s"
            ),
            (key, sequence),
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    # -- rebuilding ----------------------------------------------------------------

    def clear(self, connection: Any) -> None:
        """Drop every session's index (the events stay), in the caller's transaction."""
        connection.execute(self._q("DELETE FROM {schema}.correx_session_heads"))
        connection.execute(self._q("DELETE FROM {schema}.correx_checkpoints"))
        connection.execute(
            self._q(
                "UPDATE {schema}.correx_events SET kind = NULL, invocation_id = NULL, "
                "label = NULL, code = NULL, effect = NULL, chain = NULL"
            )
        )

    def rebuild(
        self,
        connection: Any,
        session_id: str,
        interval: int,
        progress: Callable[[int], None] | None = None,
    ) -> Head:
        """Index one session again from its events alone (each decoded in full, strictly)."""
        from ..codec.encoding import encode_event  # noqa: PLC0415 - only a rebuild re-encodes

        key = id_key(session_id)
        connection.execute(
            self._q("DELETE FROM {schema}.correx_checkpoints WHERE session_key = %s"), (key,)
        )
        connection.execute(
            self._q("DELETE FROM {schema}.correx_session_heads WHERE session_key = %s"), (key,)
        )
        connection.execute(
            self._q(
                "UPDATE {schema}.correx_invocations SET status = NULL, requested_at = NULL, "
                "started_seq = NULL, ended_seq = NULL, tool_name = NULL, tier = NULL, "
                "started_at = NULL, completed_at = NULL, end_label = NULL, end_code = NULL "
                "WHERE session_key = %s"
            ),
            (key,),
        )
        head, after = Head(), 0
        where = "postgresql table correx_events"
        while True:
            rows = connection.execute(
                self._q(
                    "SELECT sequence, recorded_at, type, version, data FROM "
                    "{schema}.correx_events WHERE session_key = %s AND sequence > %s "
                    "ORDER BY sequence LIMIT %s"
                ),
                (key, after, _REBUILD_BATCH),
            ).fetchall()
            if not rows:
                break
            events = [decode_row(where, SessionId(session_id), row) for row in rows]
            encoded = [encode_event(stored) for stored in events]
            with connection.cursor() as cursor:
                requests = []
                for stored, envelope in zip(events, encoded, strict=True):
                    if envelope.type == REQUESTED_TYPE:
                        tool, tier, invocation = claimed_columns(stored.event)
                        requests.append(
                            (
                                stored.recorded_at,
                                _bytes(tool),
                                tier,
                                id_key(invocation),
                                key,
                                stored.sequence,
                            )
                        )
                if requests:
                    cursor.executemany(
                        self._q(
                            "UPDATE {schema}.correx_invocations SET status = 1, requested_at = %s, "
                            "tool_name = %s, tier = %s WHERE invocation_key = %s "
                            "AND session_key = %s AND sequence = %s"
                        ),
                        requests,
                    )
            group = index_group(
                session_id,
                events,
                encoded,
                head=head,
                lookup=lambda ids: self.invocation_states(connection, ids),
                interval=interval,
            )
            with connection.cursor() as cursor:
                cursor.executemany(
                    self._q(
                        "UPDATE {schema}.correx_events SET kind = %s, invocation_id = %s, "
                        "label = %s, code = %s, effect = %s, chain = %s "
                        "WHERE session_key = %s AND sequence = %s"
                    ),
                    [
                        (
                            row.columns.kind,
                            _bytes(row.columns.invocation_id),
                            _bytes(row.columns.label),
                            row.columns.code,
                            row.effect,
                            row.chain,
                            key,
                            row.sequence,
                        )
                        for row in group.events
                    ],
                )
            self._apply(connection, key, group)
            head, after = group.head, rows[-1][0]
            if progress is not None:
                progress(len(rows))
        self.save_head(connection, key, head)
        return head


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")
