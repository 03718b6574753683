"""The PostgreSQL store: one event log shared by many machines.

An append moves the session's ``last_sequence`` on *only if* it is still the
writer's ``expected_sequence``; the row lock serialises writers of one session,
so sequences are gapless and a stale writer gets a conflict, never a gap. The
tables are created on first use or by ``correx-tools init-db``
(:mod:`.postgres_layout` lists them).

Ids are kept as their UTF-8 bytes (``BYTEA``) and looked up by their SHA-256
digest (the ``*_key`` columns). A ``TEXT`` column cannot hold a NUL
character, and a B-tree index entry cannot hold a long id that does not
compress, yet both are legal ids: as bytes keyed by a fixed-size digest, any
id round-trips exactly and sorts by code point, as it does in Python.

Every value goes through placeholders; the schema name is checked and quoted
as an identifier. After each commit the store sends ``NOTIFY correx_events``
with the hex digest of the session id, which
:meth:`PostgresEventStore.follow` listens for.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import StoredEvent
from ...core.replay.errors import EventDecodeError
from ...core.tools.ids import SessionId
from .addresses import StoreAddress, redact_dsn
from .port import AppendError, AppendErrorKind, StoreLayoutError, StoreReadError
from .postgres_follow import follow_notified
from .postgres_layout import CHANNEL, SCHEMA_NAME, create_tables, has_tables, id_key
from .rows import decode_row, encode_rows
from .writing import BatchWritingStore, check_import_run, conflict, duplicate, requested_ids

try:
    import psycopg
    from psycopg import sql
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]

_READ_BATCH = 2_000


def _require_psycopg() -> None:
    if psycopg is None:
        raise RuntimeError(
            "PostgresEventStore needs psycopg 3: pip install 'correx-tools[postgres]'"
        )


class _Unavailable(Exception):
    """The server could not be reached, or the connection was lost mid-call."""

    def __init__(self, error: Exception) -> None:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        super().__init__(reason)
        self.reason = reason


class _Refused(Exception):
    def __init__(self, error: AppendError) -> None:
        super().__init__(error.message)
        self.error = error


@final
class PostgresEventStore(BatchWritingStore):
    """An :class:`~correx_tools.shell.stores.port.EventStore` in a PostgreSQL database.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. One store
    object holds one connection and may be shared by threads (their calls
    are serialised); give each process, and each writer that should race
    independently, its own store.
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "public",
        connect_timeout: float = 10.0,
        read_only: bool = False,
    ) -> None:
        _require_psycopg()
        if SCHEMA_NAME.fullmatch(schema) is None:
            raise ValueError(f"schema {schema[:70]!r} must match {SCHEMA_NAME.pattern}")
        self.dsn = dsn
        self.schema = schema
        self.read_only = read_only
        self._connect_timeout = int(connect_timeout)
        self._lock = threading.Lock()
        self._names = {
            "schema": sql.Identifier(schema),
        }
        self._connection = self._connect()
        try:
            if read_only:
                self._check_tables()
            else:
                self.init_db()
        except BaseException:
            self._connection.close()
            raise

    def _connect(self) -> psycopg.Connection[Any]:
        connection = psycopg.connect(
            self.dsn, autocommit=True, connect_timeout=self._connect_timeout
        )
        if self.read_only:
            # The server itself then refuses any write this connection might attempt.
            connection.execute("SET default_transaction_read_only = on")
        return connection

    @contextmanager
    def _using(self) -> Iterator[psycopg.Connection[Any]]:
        """The store's lock and a live connection: one lost earlier is opened again first.

        A lost server (a restart, a network cut) is an :class:`_Unavailable`; the
        broken connection is replaced on the next call, so the store object
        recovers on its own once the server is back.
        """
        with self._lock:
            try:
                if self._connection.closed or self._connection.broken:
                    self._connection.close()
                    self._connection = self._connect()
                yield self._connection
            except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                raise _Unavailable(error) from None

    def _read_error(self, unavailable: _Unavailable, sequence: int) -> StoreReadError:
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
        if not has_tables(self._connection, self.schema):
            raise StoreLayoutError(
                f"{redact_dsn(self.dsn)}: schema {self.schema!r} holds no correx event store; "
                "create one with correx-tools init-db"
            )

    def init_db(self) -> None:
        """Create the schema and tables if they do not exist (idempotent)."""
        with self._lock:
            create_tables(self._connection, self.schema)

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("postgres", self.dsn, self.schema)

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()

    # -- writing -------------------------------------------------------------

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        rows = encode_rows(
            groups,
            lambda session_id, stored, encoded: (
                id_key(session_id),
                stored.sequence,
                stored.recorded_at,
                encoded.type,
                encoded.version,
                encoded.data,
            ),
        )
        if isinstance(rows, AppendError):
            return Failure(rows)
        if not rows:
            return self._check_empty(groups, expected)
        try:
            with self._using() as connection, connection.transaction():
                for session_id, events in groups:
                    self._advance(session_id, events, expected)
                    self._claim_ids(session_id, events)
                with connection.cursor() as cursor:
                    cursor.executemany(
                        self._q(
                            "INSERT INTO {schema}.correx_events "
                            "(session_key, sequence, recorded_at, type, version, data) "
                            "VALUES (%s, %s, %s, %s, %s, %s)"
                        ),
                        rows,
                    )
                for session_id, _ in groups:
                    # NOTIFY payloads are limited to 8000 bytes: send the digest, not the id.
                    connection.execute(
                        "SELECT pg_notify(%s, %s)", (CHANNEL, id_key(session_id).hex())
                    )
        except _Refused as refused:
            return Failure(refused.error)
        except _Unavailable as unavailable:
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

    def _advance(self, session_id: str, events: list[StoredEvent], expected: int | None) -> None:
        connection = self._connection
        key = id_key(session_id)
        connection.execute(
            self._q(
                "INSERT INTO {schema}.correx_sessions (session_key, session_id, last_sequence) "
                "VALUES (%s, %s, 0) ON CONFLICT DO NOTHING"
            ),
            (key, session_id.encode("utf-8")),
        )
        row = connection.execute(
            self._q(
                "SELECT last_sequence FROM {schema}.correx_sessions "
                "WHERE session_key = %s FOR UPDATE"
            ),
            (key,),
        ).fetchone()
        last = int(row[0]) if row else 0
        if expected is None:
            problem = check_import_run(session_id, last, events)
            if problem is not None:
                raise _Refused(problem)
        elif last != expected:
            raise _Refused(conflict(session_id, expected, last))
        connection.execute(
            self._q(
                "UPDATE {schema}.correx_sessions SET last_sequence = %s WHERE session_key = %s"
            ),
            (events[-1].sequence, key),
        )

    def _claim_ids(self, session_id: str, events: list[StoredEvent]) -> None:
        requested = [(invocation, stored.sequence) for invocation, stored in requested_ids(events)]
        if not requested:
            return
        claims = {id_key(invocation): (invocation, sequence) for invocation, sequence in requested}
        if len(claims) != len(requested):
            ids = [invocation for invocation, _ in requested]
            repeated = next(i for i in ids if ids.count(i) > 1)
            raise _Refused(duplicate(session_id, repeated, session_id))
        session_key = id_key(session_id)
        with self._connection.cursor() as cursor:
            cursor.executemany(
                self._q(
                    "INSERT INTO {schema}.correx_invocations "
                    "(invocation_key, invocation_id, session_key, sequence) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (invocation_key) DO NOTHING"
                ),
                [
                    (key, invocation.encode("utf-8"), session_key, sequence)
                    for key, (invocation, sequence) in claims.items()
                ],
            )
            owners = cursor.execute(
                self._q(
                    "SELECT i.invocation_key, i.session_key, i.sequence, s.session_id "
                    "FROM {schema}.correx_invocations i "
                    "JOIN {schema}.correx_sessions s ON s.session_key = i.session_key "
                    "WHERE i.invocation_key = ANY(%s)"
                ),
                (list(claims),),
            ).fetchall()
        for key, owner_key, sequence, owner in owners:
            invocation, mine = claims[key]
            if (owner_key, sequence) != (session_key, mine):
                raise _Refused(duplicate(session_id, invocation, bytes(owner).decode("utf-8")))

    # -- reading -------------------------------------------------------------

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order, fetched in batches."""
        last, key = after, id_key(session_id)
        while True:
            try:
                with self._using() as connection:
                    rows = connection.execute(
                        self._q(
                            "SELECT sequence, recorded_at, type, version, data "
                            "FROM {schema}.correx_events "
                            "WHERE session_key = %s AND sequence > %s ORDER BY sequence LIMIT %s"
                        ),
                        (key, last, _READ_BATCH),
                    ).fetchall()
            except _Unavailable as unavailable:
                raise self._read_error(unavailable, last + 1) from None
            where = f"postgresql table {self.schema}.correx_events"
            for row in rows:
                yield decode_row(where, session_id, row)
                last = row[0]
            if len(rows) < _READ_BATCH:
                return

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        try:
            with self._using() as connection:
                rows = connection.execute(
                    self._q(
                        "SELECT session_id FROM {schema}.correx_sessions "
                        "WHERE last_sequence > 0 ORDER BY session_id"
                    )
                ).fetchall()
        except _Unavailable as unavailable:
            raise self._read_error(unavailable, 0) from None
        # UTF-8 bytes sort as their code points do, so this is Python's order too.
        return tuple(SessionId(bytes(row[0]).decode("utf-8")) for row in rows)

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        try:
            with self._using() as connection:
                row = connection.execute(
                    self._q(
                        "SELECT last_sequence FROM {schema}.correx_sessions WHERE session_key = %s"
                    ),
                    (id_key(session_id),),
                ).fetchone()
        except _Unavailable as unavailable:
            raise self._read_error(unavailable, 0) from None
        return int(row[0]) if row else 0

    def follow(
        self,
        session_id: SessionId,
        *,
        after: int = 0,
        idle_timeout: float | None = None,
        poll_interval: float = 1.0,
    ) -> Iterator[StoredEvent]:
        """Yield the session's events after ``after``, then new ones as they are committed.

        Wakes on ``NOTIFY`` (see :func:`~.postgres_follow.follow_notified`) and
        also polls every ``poll_interval`` seconds; stops after ``idle_timeout``
        seconds without a new event (never, if ``None``).
        """
        return follow_notified(
            self, session_id, after=after, idle_timeout=idle_timeout, poll_interval=poll_interval
        )
