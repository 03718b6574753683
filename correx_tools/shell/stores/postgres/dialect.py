"""PostgreSQL's spelling of the SQL engine, and its connection.

Ids and labels are kept as their UTF-8 bytes (``BYTEA``) and looked up by
their SHA-256 digest (the ``*_key`` columns): a ``TEXT`` column cannot hold a
NUL, and a B-tree entry cannot hold a long id that does not compress, yet both
are legal ids. Times are ``TIMESTAMPTZ``. A session is held against other
writers by its row in ``correx_sessions`` (``SELECT ... FOR UPDATE``), which
also keeps its last sequence; after each commit every session written is
announced with ``NOTIFY`` (its digest, in hex: payloads are limited to 8000
bytes), which `follow` listens for.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, final

from ..addresses import redact_dsn
from ..port import AppendErrorKind
from ..sql.dialect import Cursor, ReadFault, SearchIndex, WriteFault
from ..sql.layout import LAYOUT
from .connection import Link, Unavailable
from .layout import CHANNEL, id_key
from .search import PostgresSearch

try:
    import psycopg
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]


@final
class PostgresDialect:
    """The engine's SQL as PostgreSQL spells it, in one schema; ids as bytes."""

    layout = LAYOUT
    texts_as_bytes = True
    keys_are_ids = False
    claim_columns = "invocation_key, invocation_id"

    def __init__(self, schema: str) -> None:
        # The schema's name was checked against SCHEMA_NAME: quoting it is enough.
        prefix = f'"{schema}".correx_'
        self._names = {
            "events": prefix + "events",
            "invocations": prefix + "invocations",
            "heads": prefix + "session_heads",
            "checkpoints": prefix + "checkpoints",
            "sessions": prefix + "sessions",
            "settings": prefix + "settings",
            "catalog": prefix + "catalog",
            "models": prefix + "models",
            "spent": prefix + "spent",
            "activity": prefix + "activity",
            "search_runs": prefix + "search_runs",
            "session": "session_key",
            "invocation": "invocation_key",
            # The layout's words (`correx_tools.shell.stores.sql.layout`):
            "key": "BYTEA",
            "id": "BYTEA",
            "time": "TIMESTAMPTZ",
            "small": "SMALLINT",
            "big": "BIGINT",
            "bool": "BOOLEAN",
            "false": "false",
            "without_rowid": "",
            "index_prefix": "correx_",
        }
        self.schema = schema
        self.search: SearchIndex = PostgresSearch(
            prefix + "search", prefix + "search_runs", f"{schema}.correx_numbers"
        )
        self.where = f"postgresql table {schema}.correx_events"
        self._spelled: dict[str, str] = {}

    def sql(self, text: str) -> str:
        """The engine's SQL with ``%s`` parameters and the schema's table names."""
        spelled = self._spelled.get(text)
        if spelled is None:
            spelled = self._spelled[text] = text.replace("?", "%s").format(**self._names)
        return spelled

    session_key = staticmethod(id_key)
    invocation_key = staticmethod(id_key)

    @staticmethod
    def text_value(text: str | None) -> object:
        """Text as its UTF-8 bytes."""
        return None if text is None else text.encode("utf-8")

    @staticmethod
    def text(value: Any) -> str | None:
        """UTF-8 bytes as text."""
        return None if value is None else bytes(value).decode("utf-8")

    @staticmethod
    def time_value(moment: datetime, formatted: str | None = None) -> object:
        """A ``datetime`` as it is (``TIMESTAMPTZ``)."""
        return moment

    @staticmethod
    def when(value: Any) -> datetime:
        """A ``TIMESTAMPTZ`` comes back as an aware ``datetime``."""
        return value  # type: ignore[no-any-return]

    @staticmethod
    def unindexed(column: str) -> str:
        """The planner is left to choose (it has statistics)."""
        return column

    @staticmethod
    def contains(column: str) -> str:
        """``position``: where the bytes are found in the column's, from 1."""
        return f"position(? in {column}) > 0"

    @staticmethod
    def key_sets(keys: Sequence[object]) -> Iterator[tuple[str, tuple[object, ...]]]:
        """One array parameter: ``= ANY(%s)``."""
        if keys:
            yield "= ANY(%s)", (list(keys),)

    @staticmethod
    def claim_ids(invocation_id: str) -> tuple[object, ...]:
        """The digest, then the id's bytes."""
        return id_key(invocation_id), invocation_id.encode("utf-8")

    def sessions(self, cursor: Cursor) -> list[str]:
        """Every session with events; UTF-8 bytes sort as their code points do."""
        rows = cursor.execute(
            self.sql("SELECT session_id FROM {sessions} WHERE last_sequence > 0 ORDER BY 1")
        ).fetchall()
        return [bytes(row[0]).decode("utf-8") for row in rows]

    def has_index(self, cursor: Cursor, name: str) -> bool:
        """Asked of the catalogue's indexes of the store's schema."""
        found = "SELECT 1 FROM pg_indexes WHERE schemaname = %s AND indexname = %s"
        index = self._names["index_prefix"] + name
        return cursor.execute(found, (self.schema, index)).fetchone() is not None

    def session_name(self, cursor: Cursor, key: object) -> str:
        """The id of the session with this digest."""
        row = cursor.execute(
            self.sql("SELECT session_id FROM {sessions} WHERE session_key = ?"), (key,)
        ).fetchone()
        return "?" if row is None else bytes(row[0]).decode("utf-8")

    def lock_session(self, cursor: Cursor, session_id: str) -> int:
        """The session's row, made if missing and locked for this transaction; its last
        sequence."""
        key = id_key(session_id)
        # Both sent at once (a round trip, not two); each statement still sees the rows
        # committed before it began, so a row another writer made meanwhile is found.
        with cursor.connection.pipeline():  # type: ignore[attr-defined]
            cursor.execute(
                self.sql(
                    "INSERT INTO {sessions} (session_key, session_id, last_sequence) "
                    "VALUES (?, ?, 0) ON CONFLICT DO NOTHING"
                ),
                (key, session_id.encode("utf-8")),
            )
            row = cursor.execute(
                self.sql("SELECT last_sequence FROM {sessions} WHERE session_key = ? FOR UPDATE"),
                (key,),
            ).fetchone()
        return int(row[0]) if row else 0

    def advance_session(self, cursor: Cursor, session_id: str, last: int) -> None:
        """Move the session's row on to ``last``."""
        cursor.execute(
            self.sql("UPDATE {sessions} SET last_sequence = ? WHERE session_key = ?"),
            (last, id_key(session_id)),
        )

    def copy_rows(
        self, cursor: Cursor, table: str, columns: str, rows: Iterable[Sequence[Any]]
    ) -> None:
        """``COPY`` the rows in (text format: each value read by its column's type)."""
        with cursor.copy(f"COPY {self.sql(table)} ({columns}) FROM STDIN") as copy:  # type: ignore[attr-defined]
            for row in rows:
                copy.write_row(row)

    def copy_new(
        self, cursor: Cursor, table: str, columns: str, rows: Iterable[Sequence[Any]]
    ) -> bool:
        """`copy_rows` under a savepoint: a key taken (by a row committed, or by one of
        another transaction once it commits) undoes the ``COPY`` alone."""
        cursor.execute("SAVEPOINT correx_new_rows")
        try:
            self.copy_rows(cursor, table, columns, rows)
        except psycopg.errors.UniqueViolation:
            cursor.execute("ROLLBACK TO SAVEPOINT correx_new_rows")
            taken = True
        else:
            taken = False
        cursor.execute("RELEASE SAVEPOINT correx_new_rows")
        return not taken

    @staticmethod
    def after_write(cursor: Cursor, session_ids: Iterable[str]) -> None:
        """``NOTIFY`` each session written (sent when the transaction commits)."""
        for session_id in session_ids:
            cursor.execute("SELECT pg_notify(%s, %s)", (CHANNEL, id_key(session_id).hex()))


@final
class PostgresDatabase:
    """The store's `Link` (one connection, calls serialised) in the engine's terms."""

    def __init__(self, link: Link, schema: str, dsn: str) -> None:
        self._dialect = PostgresDialect(schema)
        self.link = link
        self._dsn = redact_dsn(dsn)

    @property
    def dialect(self) -> PostgresDialect:
        """PostgreSQL's spelling, in the store's schema."""
        return self._dialect

    @contextmanager
    def writing(self) -> Iterator[Any]:
        """One transaction; a lost server is an UNAVAILABLE fault, a sequence another
        writer took first a CONFLICT."""
        try:
            with (
                self.link.using() as connection,
                connection.transaction(),
                connection.cursor() as cursor,
            ):
                yield cursor
        except Unavailable as unavailable:
            raise WriteFault(
                AppendErrorKind.UNAVAILABLE,
                f"{self._dsn}: the database is unavailable ({unavailable.reason}); if the "
                "connection was lost while committing, the events may have been written: "
                "read the session's last sequence, then retry",
            ) from None
        except psycopg.errors.UniqueViolation:
            raise WriteFault(AppendErrorKind.CONFLICT, "") from None

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        """One ``REPEATABLE READ`` transaction: every read in it sees one state."""
        try:
            with self.link.using() as connection, connection.transaction():
                connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                with connection.cursor() as cursor:
                    yield cursor
        except Unavailable as unavailable:
            raise ReadFault(unavailable.reason) from None

    @contextmanager
    def query(self) -> Iterator[Any]:
        """A cursor on the live connection (autocommit)."""
        try:
            with self.link.using() as connection, connection.cursor() as cursor:
                yield cursor
        except Unavailable as unavailable:
            raise ReadFault(unavailable.reason) from None

    def close(self) -> None:
        """Close the connection."""
        self.link.close()
