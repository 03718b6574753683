"""The PostgreSQL store: one event log shared by many machines.

An append moves the session's ``last_sequence`` on *only if* it is still the
writer's ``expected_sequence``; the row lock serialises writers of one session,
so sequences are gapless and a stale writer gets a conflict, never a gap. The
tables are created on first use or by ``correx-tools init-db`` (`layout` lists
them). How ids, times and sessions are kept is in `dialect`; reading, writing
and the index are the SQL engine's (`correx_tools.shell.stores.sql`).

Every value goes through placeholders; the schema name is checked and quoted
as an identifier. After each commit the store sends ``NOTIFY correx_events``
with the hex digest of the session id, which `PostgresEventStore.follow`
listens for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, final

from returns.result import Result

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ..addresses import StoreAddress, redact_dsn
from ..port import AppendError, StoreLayoutError
from ..sql.indexing import CHECKPOINT_INTERVAL
from ..sql.layout import LAYOUT
from ..sql.store import SqlEventStore
from .connection import Link, require_psycopg
from .dialect import PostgresDatabase
from .follow import follow_notified
from .layout import (
    SCHEMA_NAME,
    create,
    hidden_tables,
    layout_of,
    lock_schema,
    partition,
    upgrade,
)
from .pushing import PushedSession, pushed_rows
from .team import grants, has_push_tables, missing_to_push, push_tables


@final
class PostgresEventStore(SqlEventStore):
    """An `EventStore` in a PostgreSQL database.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. The tables are
    created on first use with a time-travel index beside the events, as in
    `SQLiteEventStore`; ``read_only``, ``upgrade`` and
    ``checkpoint_interval`` mean what they mean there. One store object holds
    one connection and may be shared by threads (their calls are serialised);
    give each process, and each writer that should race independently, its own
    store.
    """

    _layout = LAYOUT
    _read_batch = 2_000

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
        self.name = redact_dsn(dsn)
        self.schema = schema
        self.read_only = read_only
        link = Link(dsn, timeout=int(connect_timeout), read_only=read_only)
        self._database = self._postgres = PostgresDatabase(link, schema, dsn)
        self._upgrade = upgrade
        self._progress = progress
        self.checkpoint_interval = checkpoint_interval
        try:
            if read_only:
                self._check_tables()
            else:
                self.init_db()
            self.checkpoint_interval = self._interval(link.current, checkpoint_interval)
        except BaseException:
            link.close()
            raise

    def _check_tables(self) -> None:
        """Refuse a schema without this store's tables, creating nothing."""
        connection = self._postgres.link.current
        self._refuse_hidden(connection)
        layout = layout_of(connection, self.schema)
        if layout is None:
            raise StoreLayoutError(f"{self.name}: {self._text_ids}")
        if not layout:
            raise StoreLayoutError(
                f"{self.name}: schema {self.schema!r} holds no correx event store; "
                "create one with correx-tools init-db"
            )
        self.layout = layout
        with connection.cursor() as cursor:
            self._note_catalog(cursor)

    def init_db(self) -> None:
        """Create the schema and tables if they do not exist (idempotent).

        A schema of an older layout is refused, with what to run to upgrade it,
        unless the store was opened with ``upgrade=True``.
        """
        link = self._postgres.link
        with link.lock, link.current.transaction(), link.current.cursor() as cursor:
            self._refuse_hidden(cursor)
            lock_schema(cursor, self.schema)
            layout = layout_of(cursor, self.schema)
            if layout is None:
                raise ValueError(self._text_ids)
            self._bring_to_layout(
                cursor,
                layout,
                allowed=self._upgrade,
                interval=self.checkpoint_interval,
                progress=self._progress,
            )
            if not has_push_tables(cursor, self.schema):  # a store made before pushes were
                push_tables(cursor, self.schema)
        self.layout = LAYOUT
        self._catalog_whole = True  # brought to this release's layout, its columns with it

    def prepare_team(self, *, pushers: list[str], readers: list[str]) -> int | None:
        """Make the schema a team's store, in one transaction: its events partitioned (those
        of an older store moved over: how many is returned, ``None`` when they already
        were), and each role of ``pushers`` and ``readers`` granted what it needs
        (`team.grants`)."""
        self._refuse_writes()
        link = self._postgres.link
        with link.lock, link.current.transaction(), link.current.cursor() as cursor:
            lock_schema(cursor, self.schema)
            moved = partition(cursor, self._postgres.dialect, self.schema)
            grants(cursor, self.schema, pushers=pushers, readers=readers)
        return moved

    def pushed(self, machine: str) -> dict[bytes, tuple[int, int, str]]:
        """What the store records of ``machine``'s pushes (`pushing.pushed_rows`)."""
        with self._database.query() as cursor:
            return pushed_rows(cursor, self.schema, machine)

    def missing_to_push(self, *, replace: bool = False) -> str | None:
        """The first privilege this role lacks to push (with ``replace``, to replace a
        session: DELETE on the events too), or ``None``."""
        with self._database.query() as cursor:
            missing = missing_to_push(cursor, self.schema)
            if missing is None and replace:
                row = cursor.execute(
                    "SELECT has_table_privilege(%s, 'DELETE')", (f'"{self.schema}".correx_events',)
                ).fetchone()
                missing = None if row[0] else "DELETE on correx_events (to replace a session)"
        return missing

    def push(self, session: PushedSession) -> Result[int, AppendError]:
        """Write one machine's session in one transaction (`pushing`): how many events, or
        why none were."""
        return self.import_copies([session])

    def _refuse_hidden(self, connection: Any) -> None:
        """A store this role may not read (the information schema then hides its tables,
        and it would look like no store at all) is refused, naming the privilege."""
        hidden = hidden_tables(connection, self.schema)
        if hidden is not None:
            raise StoreLayoutError(
                f"{self.name}: schema {self.schema!r} holds a correx event store, but {hidden}"
            )

    @property
    def _text_ids(self) -> str:
        return (
            f"schema {self.schema!r} holds correx tables of an earlier layout "
            "(ids as text, version 0.1); use a new schema (see docs/deployment.md)"
        )

    def _create_tables(self, cursor: Any, interval: int) -> None:
        create(cursor, self._postgres.dialect, self.schema, interval)

    def _layout_in(self, cursor: Any) -> int | None:
        return layout_of(cursor, self.schema)

    def _upgrade_tables(self, cursor: Any, interval: int, *, since: int) -> None:
        upgrade(cursor, self._postgres.dialect, self.schema, interval, since=since)

    @property
    def _what(self) -> str:
        return f"{self.name}: schema {self.schema!r}"

    def _hold_layout(self, cursor: Any) -> None:
        """Other processes' creations and upgrades of the schema wait for this transaction."""
        lock_schema(cursor, self.schema)

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("postgres", self.dsn, self.schema)

    def close(self) -> None:
        """Close the connection."""
        self._postgres.close()

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
