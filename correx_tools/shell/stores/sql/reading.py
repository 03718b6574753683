"""Reading one session's time-travel index: the entries, counts and refusals it holds.

The writing side is in `index`; what the columns mean is in `indexing`. One
`SqlSessionIndex` reads through one cursor, inside the caller's read snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, final

from ....core.lifecycle.events import StoredEvent
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.outline import InvocationOutline
from ....core.replay.stored_index import STATUS_OF_CODE, Counts, InvocationEntry, count_delta
from ....core.tools.ids import SessionId
from ....core.tools.short_ids import prefix_end
from ..codec.rows import decode_row
from ..port import StaleIndex
from .chains import CHAINED_COLUMNS, ChainBroken, checked_rows
from .dialect import Cursor, Dialect
from .entries import TEXT_COLUMNS, entry_of, entry_query, outline_of_row, page_query
from .images import proof_for
from .index import chain_at, exits_nonzero, requested_in
from .indexing import EMPTY_CHAIN, checkpoint_seal

_ALL = 1 << 62
"""A limit no session reaches (SQLite's "no limit" is -1, PostgreSQL's NULL)."""

_OPEN_PAGE, _OPEN_PAGE_MAX = 64, 16_384
"""The first and the largest page of the walk back for the calls open at a point."""


@final
class SqlSessionIndex:
    """One session's index read through one cursor, inside the caller's read snapshot.

    Every query raises `StaleIndex` when what it reads does not match the
    events it covers.
    """

    __slots__ = ("_cursor", "_d", "_key", "_proof", "_session", "last_sequence")

    def __init__(self, d: Dialect, cursor: Cursor, session_id: str, last: int) -> None:
        self._d = d
        self._cursor = cursor
        self._session = session_id
        self._key = d.session_key(session_id)
        self._proof = proof_for(d.layout)
        self.last_sequence = last

    def counts_at(self, sequence: int) -> Counts:
        """Counters right after ``sequence``: the checkpoint before it, moved on by the effects
        of the events after it, each checked against its chain."""
        d, cursor, session = self._d, self._cursor, self._session
        row = cursor.execute(
            d.sql(
                "SELECT sequence, requested, started, completed, failed, rejected, refused, "
                "chain, seal FROM {checkpoints} WHERE {session} = ? AND sequence <= ? "
                "ORDER BY sequence DESC LIMIT 1"
            ),
            (self._key, sequence),
        ).fetchone()
        counts: Counts = [0] * 6
        start, chain = 0, EMPTY_CHAIN
        if row is not None:
            start, *stored, chain, seal = row
            counts = list(stored)
            if seal != checkpoint_seal(session, start, counts, chain) or chain != chain_at(
                d, cursor, session, start
            ):
                raise StaleIndex(f"the checkpoint at sequence {start} does not match its events")
        for _ in self._checked(start, chain, sequence, counts):
            pass
        return counts

    def exited_nonzero(self, sequence: int, completed: int) -> int:
        """The calls completed by ``sequence`` with an exit code other than 0 (`exits_nonzero`);
        ``completed``, the counters' count of completed calls, bounds it."""
        found = exits_nonzero(self._d, self._cursor, self._session, sequence)
        if found > completed:
            raise StaleIndex(f"{found} calls exited non-zero of the {completed} completed")
        return found

    def _checked(
        self, after: int, chain: int, through: int, counts: Counts | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """The rows of the events in ``(after, through]`` (``chain``: the chain at ``after``),
        each checked against its chain; ``counts`` moved on by their effects. A `StaleIndex`
        if one does not match, or one is missing."""
        rows = self._cursor.execute(
            self._d.sql(
                f"SELECT {CHAINED_COLUMNS} FROM {{events}} WHERE {{session}} = ? "
                "AND sequence > ? AND sequence <= ? ORDER BY sequence"
            ),
            (self._key, after, through),
        )
        seen = after
        try:
            for row in checked_rows(self._d, rows, after, chain):
                if counts is not None:
                    count_delta(counts, row[9])
                seen = row[0]
                yield row
        except ChainBroken as broken:
            raise StaleIndex(f"the index does not match the events at {broken}") from None
        if seen != through:
            raise StaleIndex(f"the event at sequence {seen + 1} is missing from the index")

    def _chain_at(self, sequence: int) -> int:
        if sequence == 0:
            return EMPTY_CHAIN
        chain = chain_at(self._d, self._cursor, self._session, sequence)
        if chain is None:
            raise StaleIndex(f"the event at sequence {sequence} is missing from the index")
        return chain

    def _query(self, where: str, *, newest: int | None, by_key: bool = False,
               first: int | None = None, skip: int = 0) -> str:  # fmt: skip
        # Looked up by key, the session is only checked: were its index walked, a lookup
        # of one invocation would read the whole session's.
        session = "i.{session}"
        limit = first if newest is None else newest
        assert not skip or limit is not None, "rows skipped need a limit (SQLite's OFFSET)"
        return self._d.sql(
            entry_query(self._proof).format(
                session_test=self._d.unindexed(session) if by_key else session,
                where=where,
                order="ASC" if newest is None else "DESC",
                limit="" if limit is None else f"LIMIT {int(limit)} OFFSET {int(skip)}",
            )
        )

    def _texts(self, row: Sequence[Any]) -> Sequence[Any]:
        """A row of the entry query with its ids and labels as text."""
        if not self._d.texts_as_bytes:
            return row
        values = list(row)
        for column in TEXT_COLUMNS[: len(values)]:
            values[column] = self._d.text(values[column])
        return values

    def _entry(self, row: Sequence[Any]) -> InvocationEntry:
        return entry_of(self._session, self._texts(row), self._d.when, self._proof)

    def _entries(self, where: str, parameters: tuple[Any, ...], *, newest: int | None = None,
                 first: int | None = None, skip: int = 0) -> list[InvocationEntry]:  # fmt: skip
        query = self._query(where, newest=newest, first=first, skip=skip)
        rows = self._cursor.execute(query, (self._key, *parameters))
        found = [self._entry(row) for row in rows]
        if newest is not None:
            found.reverse()
        return found

    def entries(self, *, through: int, last: int | None = None, after: int = 0,
                first: int | None = None, skip: int = 0) -> list[InvocationEntry]:  # fmt: skip
        """The entries of the invocations requested after ``after`` and by ``through``, in
        request order.

        With ``last``, only the last ``last`` of them; with ``first``, the first (after the
        first ``skip``, which are left out).
        """
        bounds = "i.sequence > ? AND i.sequence <= ?" if after else "i.sequence <= ?"
        parameters = (after, through) if after else (through,)
        return self._entries(bounds, parameters, newest=last, first=first, skip=skip)

    def requests_between(self, a: int, b: int) -> int:
        """How many invocations were requested by the events in ``(a, b]`` (their effects)."""
        row = self._cursor.execute(
            self._d.sql(
                "SELECT COUNT(*) FROM {events} WHERE {session} = ? AND sequence > ? "
                "AND sequence <= ? AND effect = 1"
            ),
            (self._key, a, b),
        ).fetchone()
        return int(row[0])

    def entries_after(self, after: int, *, through: int, count: int) -> list[InvocationEntry]:
        """At most ``count`` entries of the invocations requested in ``(after, through]``, in
        request order: a whole session read a page at a time."""
        rows = self._cursor.execute(
            self._d.sql(page_query(self._proof, payloads=True)), (self._key, after, through, count)
        ).fetchall()
        return [self._entry(row) for row in rows]

    def outlines_after(self, after: int, *, through: int, count: int) -> list[InvocationOutline]:
        """`entries_after`, as outlines: where rows are sealed over their events' chains,
        read without the payloads."""
        query = page_query(self._proof, payloads=False)
        rows = self._cursor.execute(
            self._d.sql(query), (self._key, after, through, count)
        ).fetchall()
        session, when, proof = self._session, self._d.when, self._proof
        return [outline_of_row(session, self._texts(row), when, proof) for row in rows]

    def rows_through(self, through: int) -> int:
        """How many invocation rows the index holds for the invocations requested by
        ``through`` (the counters say how many there should be)."""
        row = self._cursor.execute(
            self._d.sql("SELECT COUNT(*) FROM {invocations} WHERE {session} = ? AND sequence <= ?"),
            (self._key, through),
        ).fetchone()
        return int(row[0])

    def entry(self, invocation_id: str) -> InvocationEntry | None:
        """The entry of one invocation of this session, if it was requested here.

        An id with no row is looked for among the session's events (`requested_in`): one
        the events request means a row is missing, a `StaleIndex`."""
        return self.entries_of([invocation_id])[0]

    def entries_of(self, invocation_ids: Sequence[str]) -> list[InvocationEntry | None]:
        """The entry of each of ``invocation_ids`` (`entry`), their rows read by one query
        (or a few, for a long list) rather than one each."""
        if not invocation_ids:
            return []
        keys = [self._d.invocation_key(invocation_id) for invocation_id in invocation_ids]
        found: dict[str, InvocationEntry] = {e.invocation_id: e for e in self._by_keys(keys)}
        answers: list[InvocationEntry | None] = []
        for invocation_id in invocation_ids:
            entry = found.get(invocation_id)
            if entry is None and requested_in(self._d, self._cursor, self._session, invocation_id):
                raise StaleIndex(f"the index row of invocation {invocation_id!r} is missing")
            answers.append(entry)
        return answers

    def _by_keys(self, keys: list[object]) -> list[InvocationEntry]:
        found: list[InvocationEntry] = []
        for fragment, parameters in self._d.key_sets(keys):
            # Spelled in the database's own way already: added after `sql`.
            query = self._query("i.{invocation} <keys>", newest=None, by_key=True)
            found += (
                self._entry(row)
                for row in self._cursor.execute(
                    query.replace("<keys>", fragment), (self._key, *parameters)
                )
            )
        found.sort(key=_by_request)
        return found

    def added_counts(self, a: int, b: int) -> list[tuple[str, ToolInvocationStatus, int]]:
        """The invocations requested in ``(a, b]``, counted by tool and by their status right
        after ``b``: one aggregate over a range of the session's invocations."""
        d = self._d
        rows = self._cursor.execute(
            d.sql(
                "SELECT tool_name, CASE WHEN ended_seq <= ? THEN status "
                "WHEN started_seq <= ? THEN 2 ELSE 1 END, COUNT(*) FROM {invocations} "
                "WHERE {session} = ? AND sequence > ? AND sequence <= ? GROUP BY 1, 2"
            ),
            (b, b, self._key, a, b),
        ).fetchall()
        return [(d.text(tool) or "", STATUS_OF_CODE[code], count) for tool, code, count in rows]

    def ids_present(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that are invocation ids of this session: looked up by key."""
        d, found = self._d, set[str | None]()
        query = d.sql(
            "SELECT invocation_id FROM {invocations} WHERE "
            + d.unindexed("{session}")
            + " = ? AND {invocation} <keys>"
        )
        for fragment, parameters in d.key_sets([d.invocation_key(i) for i in ids]):
            # Spelled in the database's own way already: added after `sql`.
            rows = self._cursor.execute(query.replace("<keys>", fragment), (self._key, *parameters))
            found.update(d.text(row[0]) for row in rows)
        return {i for i in found if i is not None}

    def ids_starting(self, prefixes: Sequence[str], count: int) -> list[list[str]]:
        """For each prefix, the first ``count`` ids of the session's invocations that begin
        with it, in code point order: a range of the invocations' id index, however large
        the session."""
        d = self._d
        found = []
        for prefix in prefixes:
            end = prefix_end(prefix)
            # The session is only checked: walked by its own index, a short prefix would
            # read every invocation of the session.
            query = d.sql(
                "SELECT invocation_id FROM {invocations} WHERE "
                + d.unindexed("{session}")
                + " = ? AND invocation_id >= ?"
                + ("" if end is None else " AND invocation_id < ?")
                + " ORDER BY invocation_id LIMIT ?"
            )
            bounds = (prefix,) if end is None else (prefix, end)
            rows = self._cursor.execute(
                query, (self._key, *map(d.text_value, bounds), count)
            ).fetchall()
            ids = (d.text(row[0]) for row in rows)
            found.append([i for i in ids if i is not None and i.startswith(prefix)])
        if not any(found):
            self._none_requested(prefixes)
        return found

    def _none_requested(self, prefixes: Sequence[str]) -> None:
        """Nothing when no event of the session requests an id that begins with one of
        ``prefixes``; a `StaleIndex` when one does, for its row is missing. A scan of the
        session's events, made only when no row was found."""
        d = self._d
        for prefix in prefixes:
            end = prefix_end(prefix)
            test = ">= ?" if end is None else ">= ? AND invocation_id < ?"
            query = d.sql(
                "SELECT 1 FROM {events} WHERE {session} = ? AND kind = 1 AND invocation_id "
                + test
                + " LIMIT 1"
            )
            bounds = (prefix,) if end is None else (prefix, end)
            if self._cursor.execute(query, (self._key, *map(d.text_value, bounds))).fetchone():
                raise StaleIndex(f"the index row of an invocation named {prefix!r}... is missing")

    def changed(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``, in request order (the events in
        between checked against their chain)."""
        ids = {row[6] for row in self._checked(a, self._chain_at(a), b) if row[9] > 0}
        d = self._d
        found = self._by_keys([d.invocation_key(i) for i in ids if i is not None])
        if len(found) != len(ids):
            raise StaleIndex(f"{len(ids)} invocations changed, but the index has {len(found)} rows")
        return found

    def open_entries(self, through: int, count: int | None = None) -> list[InvocationEntry]:
        """The entries still open right after ``through`` (requested or started), in order;
        ``count``, when known, is how many there are.

        Walked back from ``through`` a page at a time: the calls open at a point
        were mostly requested just before it, and knowing how many there are ends
        the walk.
        """
        if count == 0:
            return []
        if through >= self.last_sequence:
            found = self._entries("i.ended_seq IS NULL", ())
            if count is not None and len(found) != count:
                raise StaleIndex(f"{count} invocations are open, but {len(found)} rows say so")
            return found
        found = []
        below, page = through + 1, _OPEN_PAGE
        while True:
            rows = self._cursor.execute(
                self._query("i.sequence < ?", newest=page), (self._key, below)
            ).fetchall()
            for row in rows:
                entry = self._entry(row)
                if entry.ended_seq is None or entry.ended_seq > through:
                    found.append(entry)
                    if len(found) == count:
                        found.reverse()
                        return found
            if len(rows) < page:
                if count is not None:
                    raise StaleIndex(f"{count} invocations are open, but {len(found)} rows say so")
                found.reverse()
                return found
            below, page = rows[-1][1], min(page * 4, _OPEN_PAGE_MAX)

    def refused(
        self, *, through: int, limit: int | None = None
    ) -> list[tuple[StoredEvent, InvocationEntry | None]]:
        """The events the lifecycle refused by ``through``, each with its invocation's entry
        (each checked against its chain, from the chain of the event before it)."""
        d = self._d
        rows = self._cursor.execute(
            d.sql(
                f"SELECT p.chain, {_prefixed('e.', CHAINED_COLUMNS)} FROM {{events}} e "
                "LEFT JOIN {events} p ON p.{session} = e.{session} AND p.sequence = e.sequence - 1 "
                "WHERE e.{session} = ? AND e.effect < 0 AND e.sequence <= ? "
                "ORDER BY e.sequence LIMIT ?"
            ),
            (self._key, through, _ALL if limit is None else limit),
        ).fetchall()
        found = []
        for previous, *row in rows:
            sequence = row[0]
            chain = EMPTY_CHAIN if sequence == 1 else previous
            try:
                (checked,) = checked_rows(d, [tuple(row)], sequence - 1, chain)
            except ChainBroken as broken:
                raise StaleIndex(f"the index does not match the events at {broken}") from None
            stored = decode_row(d.where, SessionId(self._session), checked[:5])
            invocation = checked[6]
            found.append((stored, None if invocation is None else self.entry(invocation)))
        return found


def _prefixed(prefix: str, columns: str) -> str:
    return ", ".join(prefix + column for column in columns.split(", "))


def _by_request(entry: InvocationEntry) -> int:
    return entry.requested_seq
