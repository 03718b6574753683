"""What the SQL engine asks of a database: how to spell its SQL and keep its values (a
`Dialect`), and how to run it (a `Database`: transactions, snapshots, faults).

The engine (`index`, `reading`, `append`, `store`) holds every decision and
writes its SQL once, in one spelling: ``?`` for a parameter, and braces for
what a database names its own way —

* ``{events}``, ``{invocations}``, ``{heads}``, ``{checkpoints}``: the tables;
* ``{session}``: the column a session is looked up by (its id, or a digest of it);
* ``{invocation}``: the column an invocation is looked up by.

`Dialect.sql` turns that into the database's own spelling; everything else a
dialect does is say how a value is kept (ids as text or as bytes, times as
text or as timestamps) and what differs in the shape of a table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from ..port import AppendErrorKind


class Cursor(Protocol):
    """The part of a DB-API cursor the engine uses (``sqlite3`` and ``psycopg`` both fit)."""

    def execute(self, query: Any, params: Sequence[Any] = ..., /) -> Any:
        """Run one statement."""
        ...

    def executemany(self, query: Any, params: Iterable[Sequence[Any]], /) -> Any:
        """Run one statement once per row of parameters."""
        ...

    def fetchone(self) -> Any:
        """The next row, or ``None``."""
        ...

    def fetchall(self) -> list[Any]:
        """Every remaining row."""
        ...

    def __iter__(self) -> Iterator[Any]: ...


class SearchIndex(Protocol):
    """How one database keeps the full-text index of what agents did (`searching`).

    Each indexed value is kept under an id (`searching`: a run's position and the
    value's field) with its words, the tokenizer's (`correx_tools.core.catalog.words`).
    """

    def numbered(self, cursor: Cursor, count: int) -> list[int]:
        """``count`` new numbers for sessions' catalogs, never given before, in the order
        they are given (as one at a time would give them)."""
        ...

    def positions(self, cursor: Cursor, runs: Sequence[tuple[int, int, int]]) -> list[int]:
        """For each run of values (the number of its session, the sequence it begins at,
        and how many positions it takes), the first of its positions (`kept_words`), in
        the order given (as one run at a time would take them)."""
        ...

    def written(self, cursor: Cursor, rows: Sequence[tuple[int, list[str]]]) -> None:
        """Index ``rows`` (each an id and its words)."""
        ...

    def dropped(self, cursor: Cursor, number: int, rows: int) -> None:
        """Let go of the ``rows`` values indexed for the session numbered ``number`` (its
        runs are still there)."""
        ...

    def cleared(self, cursor: Cursor) -> None:
        """Let go of every indexed value."""
        ...

    def wasted(self, cursor: Cursor) -> bool:
        """Whether the values let go of cost enough to make the index again (`catalog`)."""
        ...

    def matching(self, every: Sequence[str]) -> tuple[str, str, str, tuple[Any, ...]]:
        """What finds the values holding every word: its ``FROM`` part, the expression of a
        found row's id, its condition and the condition's parameters."""
        ...

    def windows(self, cursor: Cursor) -> list[int | None]:
        """The lowest id of each range of ids a search asks in turn, the newest first, each
        range from the last one's lowest down to its own; the last ``None`` (down to the
        first id). ``[None]``: one question of every id (an index that gives its matches
        newest first, a page at a time, without reading the others)."""
        ...


class Dialect(Protocol):
    """How one database spells the engine's SQL and keeps its values."""

    search: SearchIndex
    """Its full-text index."""

    where: str
    """How messages name where the events are (a file, a table)."""

    layout: int
    """The layout of the store it reads and writes: its index rows are checked by that
    layout's seals (`images.proof_for`)."""

    def sql(self, text: str) -> str:
        """The engine's SQL (``?`` parameters, braced names) in this database's spelling."""
        ...

    def session_key(self, session_id: str) -> object:
        """The value of the ``{session}`` column for a session."""
        ...

    def invocation_key(self, invocation_id: str) -> object:
        """The value of the ``{invocation}`` column for an invocation."""
        ...

    texts_as_bytes: bool
    """Whether ids and labels are kept as UTF-8 bytes (`text` turns them back)."""

    keys_are_ids: bool
    """Whether a session's ``{session}`` value is its id itself, so that the column's
    index keeps the sessions in their ids' order (else it is a digest of the id: an id may
    be longer than an index's row can be)."""

    def text_value(self, text: str | None) -> object:
        """An id or a label as the database keeps it."""
        ...

    def text(self, value: Any) -> str | None:
        """An id or a label as the database gave it back."""
        ...

    def time_value(self, moment: datetime, formatted: str | None = None) -> object:
        """A time as the database keeps it (``formatted``: its text, when already made)."""
        ...

    def when(self, value: Any) -> datetime:
        """A time as the database gave it back."""
        ...

    def unindexed(self, column: str) -> str:
        """``column`` spelled so that the planner does not walk an index of it (a test
        that should not choose the way a query reads)."""
        ...

    def contains(self, column: str) -> str:
        """The test that ``column`` holds one parameter's text (ids as the database keeps
        them) anywhere in it."""
        ...

    def key_sets(self, keys: Sequence[object]) -> Iterator[tuple[str, tuple[object, ...]]]:
        """``keys`` as ``(fragment, parameters)`` pairs, each fragment completing
        ``column ...`` to a test of membership (one pair, or a few for a long list)."""
        ...

    claim_columns: str
    """The columns a claim writes to identify its invocation (see `claim_ids`)."""

    def claim_ids(self, invocation_id: str) -> tuple[object, ...]:
        """The values of `claim_columns` for one invocation."""
        ...

    def sessions(self, cursor: Cursor) -> list[str]:
        """Every session with events, sorted by code point."""
        ...

    def has_index(self, cursor: Cursor, name: str) -> bool:
        """Whether the store's index ``name`` (as the layout spells it, without the
        ``{index_prefix}``) exists."""
        ...

    def session_name(self, cursor: Cursor, key: object) -> str:
        """The id of the session whose ``{session}`` value is ``key``."""
        ...

    def lock_session(self, cursor: Cursor, session_id: str) -> int:
        """Hold the session against other writers for this transaction; its last sequence."""
        ...

    def advance_session(self, cursor: Cursor, session_id: str, last: int) -> None:
        """Record that the session now ends at ``last`` (after its events were written)."""
        ...

    def after_write(self, cursor: Cursor, session_ids: Iterable[str]) -> None:
        """Whatever the database does for the sessions a transaction wrote (notify, say)."""
        ...


@runtime_checkable
class Copying(Protocol):
    """A dialect whose database loads many rows in one statement (PostgreSQL's ``COPY``):
    the engine writes a batch of new rows through it rather than a statement a row. A
    dialect without it has them inserted one statement a row, in one ``executemany``."""

    def copy_rows(
        self, cursor: Cursor, table: str, columns: str, rows: Iterable[Sequence[Any]]
    ) -> None:
        """Load ``rows`` into ``table`` (the engine's spelling) in one statement: a key
        already taken fails the transaction, as the row's own ``INSERT`` would."""
        ...

    def copy_new(
        self, cursor: Cursor, table: str, columns: str, rows: Iterable[Sequence[Any]]
    ) -> bool:
        """Load ``rows`` as `copy_rows` does if none of their keys is taken, yet or by
        another of them: ``False`` when one is, with nothing of them written and the
        transaction going on."""
        ...


class WriteFault(Exception):
    """A write transaction the database could not carry out (rolled back).

    ``kind`` is ``BUSY`` (locked too long), ``UNAVAILABLE`` (the server is
    gone) or ``CONFLICT`` (another writer took the same sequence first).
    """

    def __init__(self, kind: AppendErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class ReadFault(Exception):
    """A read the database could not answer (the server is gone); ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Database(Protocol):
    """One open database: its dialect and its connection, one call at a time."""

    @property
    def dialect(self) -> Dialect:
        """How this database spells the engine's SQL."""
        ...

    def writing(self) -> AbstractContextManager[Cursor]:
        """One write transaction, committed when the block ends and rolled back if it
        raises; database trouble is a `WriteFault`."""
        ...

    def snapshot(self) -> AbstractContextManager[Cursor]:
        """One read transaction: every query in the block sees the same state. A
        `ReadFault` when the database cannot be reached."""
        ...

    def query(self) -> AbstractContextManager[Cursor]:
        """A cursor for a few reads outside any transaction (a `ReadFault` as above)."""
        ...
