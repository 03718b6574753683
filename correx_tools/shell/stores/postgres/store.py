"""The PostgreSQL store: one event log shared by many machines.

An append moves the session's ``last_sequence`` on *only if* it is still the
writer's ``expected_sequence``; the row lock serialises writers of one session,
so sequences are gapless and a stale writer gets a conflict, never a gap. The
tables are created on first use or by ``correx-tools init-db``
(`postgres_layout` lists them).

Ids are kept as their UTF-8 bytes (``BYTEA``) and looked up by their SHA-256
digest (the ``*_key`` columns). A ``TEXT`` column cannot hold a NUL
character, and a B-tree index entry cannot hold a long id that does not
compress, yet both are legal ids: as bytes keyed by a fixed-size digest, any
id round-trips exactly and sorts by code point, as it does in Python.

Every value goes through placeholders; the schema name is checked and quoted
as an identifier. After each commit the store sends ``NOTIFY correx_events``
with the hex digest of the session id, which
`PostgresEventStore.follow` listens for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, final

from returns.result import Failure, Result, Success

from ....core.lifecycle.events import StoredEvent
from ....core.replay.errors import EventDecodeError
from ....core.tools.ids import SessionId
from ..addresses import StoreAddress, redact_dsn
from ..codec.rows import decode_indexed_rows, decode_row, encode_rows
from ..port import AppendError, AppendErrorKind, SessionIndex, StoreLayoutError, StoreReadError
from ..sql.indexing import CHECKPOINT_INTERVAL
from ..writing import BatchWritingStore, conflict
from .append import Refused, advance_session, claim_ids
from .connection import Link, Unavailable, require_psycopg
from .follow import follow_notified
from .index import PostgresIndex
from .layout import (
    CHANNEL,
    LAYOUT,
    SCHEMA_NAME,
    create,
    id_key,
    layout_of,
    lock_schema,
    upgrade,
)
from .layout import checkpoint_interval as stored_interval
from .reading import READ_FULL, READ_INDEXED, PostgresSessionIndex, texts_of

try:
    import psycopg
    from psycopg import sql
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]

_READ_BATCH = 2_000


@final
class PostgresEventStore(BatchWritingStore):
    """An `EventStore` in a PostgreSQL database.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. The tables are
    created on first use with a time-travel index beside the events, as in
    `SQLiteEventStore`; ``read_only``, ``upgrade`` and
    ``checkpoint_interval`` mean what they mean there. One store object holds
    one connection and may be shared by threads (their calls are serialised);
    give each process, and each writer that should race independently, its own
    store.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "public",
        connect_timeout: float = 10.0,
        read_only: bool = False,
        upgrade: bool = False,
        checkpoint_interval: int = CHECKPOINT_INTERVAL,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        require_psycopg()
        if SCHEMA_NAME.fullmatch(schema) is None:
            raise ValueError(f"schema {schema[:70]!r} must match {SCHEMA_NAME.pattern}")
        self.dsn = dsn
        self.schema = schema
        self.read_only = read_only
        self._link = Link(dsn, timeout=int(connect_timeout), read_only=read_only)
        self._names = {
            "schema": sql.Identifier(schema),
        }
        self._index = PostgresIndex(self._q)
        self._upgrade = upgrade
        self._progress = progress
        self.checkpoint_interval = checkpoint_interval
        try:
            if read_only:
                self._check_tables()
            else:
                self.init_db()
            if self.layout >= LAYOUT:
                self.checkpoint_interval = stored_interval(self._link.current, schema)
        except BaseException:
            self._link.close()
            raise

    def _read_error(self, unavailable: Unavailable, sequence: int) -> StoreReadError:
        return StoreReadError(
            EventDecodeError(
                source=redact_dsn(self.dsn),
                line=None,
                message=f"the database is unavailable: {unavailable.reason}",
            ),
            sequence=sequence,
        )

    def _q(self, text: str) -> sql.Composed:
        return sql.SQL(text).format(**self._names)

    def _check_tables(self) -> None:
        """Refuse a schema without this store's tables, creating nothing."""
        layout = layout_of(self._link.current, self.schema)
        if not layout:
            raise StoreLayoutError(
                f"{redact_dsn(self.dsn)}: schema {self.schema!r} holds no correx event store; "
                "create one with correx-tools init-db"
            )
        self.layout = layout

    def init_db(self) -> None:
        """Create the schema and tables if they do not exist (idempotent).

        A schema of an older layout is refused, with what to run to upgrade it,
        unless the store was opened with ``upgrade=True``.
        """
        with self._link.lock, self._link.current.transaction():
            connection = self._link.current
            lock_schema(connection, self.schema)
            layout = layout_of(connection, self.schema)
            if layout is None:
                raise ValueError(
                    f"schema {self.schema!r} holds correx tables of an earlier layout "
                    "(ids as text, version 0.1); use a new schema (see docs/deployment.md)"
                )
            if layout == 0:
                create(connection, self.schema, self.checkpoint_interval)
            elif layout < LAYOUT:
                if not self._upgrade:
                    raise StoreLayoutError(
                        f"{redact_dsn(self.dsn)}: schema {self.schema!r} was written by an older "
                        f"release (layout {layout}); upgrade it in place with: "
                        f"correx-tools reindex {redact_dsn(self.dsn)}"
                    )
                upgrade(connection, self.schema, self.checkpoint_interval)
                self._reindex(connection, self.checkpoint_interval)
        self.layout = LAYOUT

    def reindex(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Drop the time-travel index and rebuild it from the events, in one transaction.

        ``progress(done, total)`` is called as events are indexed. Returns how
        many events were indexed.
        """
        if self.read_only:
            raise PermissionError("the store was opened read-only")
        self._progress = progress
        with self._link.using() as connection, connection.transaction():
            lock_schema(connection, self.schema)
            self._index.clear(connection)
            return self._reindex(connection, self.checkpoint_interval)

    def _reindex(self, connection: Any, interval: int) -> int:
        total = int(
            connection.execute(self._q("SELECT COUNT(*) FROM {schema}.correx_events")).fetchone()[0]
        )
        done = 0
        progress = self._progress

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total)

        for (session,) in connection.execute(
            self._q("SELECT session_id FROM {schema}.correx_sessions ORDER BY session_id")
        ).fetchall():
            self._index.rebuild(connection, bytes(session).decode("utf-8"), interval, advance)
        return total

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("postgres", self.dsn, self.schema)

    def close(self) -> None:
        """Close the connection."""
        self._link.close()

    # -- writing -------------------------------------------------------------

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        if self.read_only:
            raise PermissionError("the store was opened read-only")
        rows = encode_rows(groups, lambda _session, _stored, envelope: envelope)
        if isinstance(rows, AppendError):
            return Failure(rows)
        if not rows:
            return self._check_empty(groups, expected)
        try:
            with self._link.using() as connection, connection.transaction():
                start = 0
                for session_id, events in groups:
                    envelopes = rows[start : start + len(events)]
                    start += len(events)
                    advance_session(connection, self._q, session_id, events, expected)
                    claim_ids(connection, self._q, session_id, events)
                    self._index.index_and_write(
                        connection, session_id, events, envelopes, self.checkpoint_interval
                    )
                for session_id, _ in groups:
                    # NOTIFY payloads are limited to 8000 bytes: send the digest, not the id.
                    connection.execute(
                        "SELECT pg_notify(%s, %s)", (CHANNEL, id_key(session_id).hex())
                    )
        except Refused as refused:
            return Failure(refused.error)
        except Unavailable as unavailable:
            return Failure(
                AppendError(
                    kind=AppendErrorKind.UNAVAILABLE,
                    session_id=groups[0][0],
                    message=f"{redact_dsn(self.dsn)}: the database is unavailable "
                    f"({unavailable.reason}); if the connection was lost while committing, "
                    "the events may have been written: read the session's last sequence, "
                    "then retry",
                )
            )
        except psycopg.errors.UniqueViolation:
            # A racing import took the same sequence between our check and insert.
            return Failure(conflict(groups[0][0], expected if expected is not None else -1, -1))
        return Success(len(rows))

    def _check_empty(
        self, groups: list[tuple[str, list[StoredEvent]]], expected: int | None
    ) -> Result[int, AppendError]:
        for session_id, _ in groups:
            if expected is not None:
                try:
                    last = self.last_sequence(SessionId(session_id))
                except StoreReadError as error:
                    return Failure(
                        AppendError(
                            kind=AppendErrorKind.UNAVAILABLE,
                            session_id=session_id,
                            message=str(error),
                        )
                    )
                if last != expected:
                    return Failure(conflict(session_id, expected, last))
        return Success(0)

    # -- reading -------------------------------------------------------------

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order, fetched in batches.

        Tool events are built from their typed columns while the session's index
        is fresh (see `sqlite.SQLiteEventStore.read`); otherwise decoded in full.
        """
        last, key = after, id_key(session_id)
        where = f"postgresql table {self.schema}.correx_events"
        try:
            with self._link.using() as connection:
                indexed = self.layout >= LAYOUT and self._fresh(connection, key)
        except Unavailable as unavailable:
            raise self._read_error(unavailable, last + 1) from None
        query = self._q(READ_INDEXED if indexed else READ_FULL)
        while True:
            try:
                with self._link.using() as connection:
                    rows = connection.execute(query, (key, last, _READ_BATCH)).fetchall()
            except Unavailable as unavailable:
                raise self._read_error(unavailable, last + 1) from None
            if indexed:
                yield from decode_indexed_rows(where, session_id, [texts_of(row) for row in rows])
            else:
                for row in rows:
                    yield decode_row(where, session_id, row)
            if rows:
                last = rows[-1][0]
            if len(rows) < _READ_BATCH:
                return

    def _fresh(self, connection: Any, key: bytes) -> bool:
        row = connection.execute(
            self._q("SELECT stale FROM {schema}.correx_session_heads WHERE session_key = %s"),
            (key,),
        ).fetchone()
        return row is not None and not row[0]

    @contextmanager
    def session_index(self, session_id: SessionId) -> Iterator[SessionIndex | None]:
        """The session's time-travel index, read in one snapshot; ``None`` where there is none
        to trust (see `sqlite.SQLiteEventStore.session_index`)."""
        if self.layout < LAYOUT:
            yield None
            return
        with self._link.using() as connection:
            if not self.read_only and self._index.load_head(connection, session_id) is None:
                with connection.transaction():
                    connection.execute(
                        self._q(
                            "SELECT 1 FROM {schema}.correx_sessions WHERE session_key = %s "
                            "FOR UPDATE"
                        ),
                        (id_key(session_id),),
                    )
                    self._index.rebuild(connection, session_id, self.checkpoint_interval)
            with connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                head = self._index.load_head(connection, session_id)
                last = self._index.last_sequence(connection, id_key(session_id))
                yield (
                    None
                    if head is None
                    else PostgresSessionIndex(connection, self._q, session_id, last)
                )

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        try:
            with self._link.using() as connection:
                rows = connection.execute(
                    self._q(
                        "SELECT session_id FROM {schema}.correx_sessions "
                        "WHERE last_sequence > 0 ORDER BY session_id"
                    )
                ).fetchall()
        except Unavailable as unavailable:
            raise self._read_error(unavailable, 0) from None
        # UTF-8 bytes sort as their code points do, so this is Python's order too.
        return tuple(SessionId(bytes(row[0]).decode("utf-8")) for row in rows)

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        try:
            with self._link.using() as connection:
                row = connection.execute(
                    self._q(
                        "SELECT last_sequence FROM {schema}.correx_sessions WHERE session_key = %s"
                    ),
                    (id_key(session_id),),
                ).fetchone()
        except Unavailable as unavailable:
            raise self._read_error(unavailable, 0) from None
        return int(row[0]) if row else 0

    def distrust_index(self, session_id: SessionId) -> None:
        """Mark the session's index stale (see `sqlite.SQLiteEventStore.distrust_index`)."""
        if self.read_only or self.layout < LAYOUT:
            return
        with self._link.using() as connection:
            connection.execute(
                self._q(
                    "UPDATE {schema}.correx_session_heads SET stale = true WHERE session_key = %s"
                ),
                (id_key(session_id),),
            )

    def count(self) -> int:
        """How many events the schema holds, over all sessions."""
        with self._link.using() as connection:
            row = connection.execute(self._q("SELECT COUNT(*) FROM {schema}.correx_events"))
            return int(row.fetchone()[0])

    def follow(
        self,
        session_id: SessionId,
        *,
        after: int = 0,
        idle_timeout: float | None = None,
        poll_interval: float = 1.0,
    ) -> Iterator[StoredEvent]:
        """Yield the session's events after ``after``, then new ones as they are committed.

        Wakes on ``NOTIFY`` (see `follow_notified`) and
        also polls every ``poll_interval`` seconds; stops after ``idle_timeout``
        seconds without a new event (never, if ``None``).
        """
        return follow_notified(
            self, session_id, after=after, idle_timeout=idle_timeout, poll_interval=poll_interval
        )
