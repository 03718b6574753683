"""The catalog of a database store, kept in the transaction that writes the events.

Each write moves a session's catalog on by the events it writes (`keep_catalog`):
its facts folded on from the ones kept (`SessionFacts.taking`), the activity windows the
events touch added to the kept ones, and the events' words indexed (`searching`). A
rebuild of the session's index, an import in parts and an upgrade fold it anew from the
stored events (`refill_catalog`). A session's catalog is numbered when it is made (a
number never used again), and its words are indexed in runs of that number
(`searching`): a session folded anew takes a new number and lets go of its runs, so a
full-text index that cannot forget a value (SQLite's contentless FTS5) never answers
with the words it had.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any

from ....core.catalog.activity import Activity, Window, WindowKey
from ....core.catalog.facts import SessionFacts
from ....core.catalog.listing import CallCounts, Listed
from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ..codec.rows import decode_written_row
from .catalog_rows import (
    READ_COLUMNS,
    ROW_COLUMNS,
    WINDOW_COLUMNS,
    listed_from,
    model_rows,
    row_values,
    spent_rows,
    window_from,
    window_values,
)
from .dialect import Cursor, Dialect
from .index import exits_nonzero, exits_nonzero_of
from .indexing import Head
from .kept_words import clear_words, drop_words, search_values, write_new_values, write_words

FOLD_BATCH = 5_000
"""Events read and folded at a time by a refill."""


def counts_of_head(d: Dialect, cursor: Cursor, session_id: str, head: Head) -> CallCounts:
    """A session's calls as its index head counts them (with its non-zero exits)."""
    completed = head.counts[2]
    exited = exits_nonzero(d, cursor, session_id, head.indexed_through) if completed else 0
    return _counts(head, exited)


def _counts(head: Head, exited: int) -> CallCounts:
    requested, started, completed, failed, rejected, refused = head.counts
    return CallCounts(calls=requested + started + completed + failed + rejected,
                      completed=completed, failed=failed, rejected=rejected,
                      requested=requested, started=started, exited_nonzero=exited,
                      refused=refused)  # fmt: skip


def kept_catalog(d: Dialect, cursor: Cursor, session_id: str) -> tuple[Listed, int, int] | None:
    """A session's catalog as kept, with its number and how many values it indexed."""
    key = d.session_key(session_id)
    columns = ", ".join(READ_COLUMNS)
    row = cursor.execute(
        d.sql(f"SELECT {columns} FROM {{catalog}} WHERE {{session}} = ?"), (key,)
    ).fetchone()
    if row is None:
        return None
    models = cursor.execute(
        d.sql("SELECT model FROM {models} WHERE {session} = ? ORDER BY position"), (key,)
    ).fetchall()
    spent = cursor.execute(
        d.sql(
            "SELECT model, input, output, cache_read, cache_write FROM {spent} "
            "WHERE {session} = ? ORDER BY position"
        ),
        (key,),
    ).fetchall()
    return listed_from(d, row, models, spent), int(row[1]), int(row[2])


def keep_catalog(
    d: Dialect, cursor: Cursor, session_id: str, events: list[StoredEvent], head: Head
) -> None:
    """Move the session's catalog on by ``events`` (just written, its index at ``head``)."""
    kept = kept_catalog(d, cursor, session_id)
    if kept is None and events[0].sequence == 1:
        # A new session: its catalog starts empty, folded from the events in hand.
        empty = Listed(session_id=session_id, facts=SessionFacts(), counts=CallCounts())
        kept = empty, d.search.numbered(cursor, 1)[0], 0
    if kept is None or kept[0].facts.events != events[0].sequence - 1:
        refill_catalog(d, cursor, session_id, head)  # none kept yet, or not up to here
        return
    listed, number, searched = kept
    facts = listed.facts.taking(events)
    added = Activity().taking(events, times_recorded=facts.times_recorded)
    key = d.session_key(session_id)
    if facts.talk.models != listed.facts.talk.models:
        _rewrite(d, cursor, "models", key, model_rows(d, key, facts.talk.models))
    if facts.spent != listed.facts.spent:
        _rewrite(d, cursor, "spent", key, spent_rows(d, key, facts.spent))
    _merge_windows(d, cursor, key, added)
    indexed = write_words(d, cursor, number, events)
    counts = counts_of_head(d, cursor, session_id, head)
    _save_row(d, cursor, session_id, facts, counts=counts, number=number,
              searched=searched + indexed)  # fmt: skip


NewCatalog = tuple[SessionFacts, Activity, list[tuple[int, int, list[str]]]]
"""A new session's facts, activity and search values, folded from its events (`fold_new`)."""


def write_new_catalogs(
    d: Dialect, cursor: Cursor, sessions: Sequence[tuple[str, NewCatalog, Head]]
) -> None:
    """Write new sessions' catalogs and words (each its id, what `fold_new` folded in the
    process that prepared its rows, and its index head), each as `keep_catalog` writes
    it, in its order: the same numbers, positions and rows, each kind of row written for
    all of them in one statement rather than one a session."""
    if not sessions:
        return
    numbers = d.search.numbered(cursor, len(sessions))
    keys = [d.session_key(session_id) for session_id, _, _ in sessions]
    models, spent, windows = [], [], []
    for key, (_, (facts, activity, _), _) in zip(keys, sessions, strict=True):
        models += model_rows(d, key, facts.talk.models)
        spent += spent_rows(d, key, facts.spent)
        windows += [(key, *window_values(d, q, m, w)) for (q, m), w in activity.windows.items()]
    for table, rows in (("models", models), ("spent", spent)):
        for fragment, chunk in d.key_sets(keys):
            cursor.execute(d.sql(f"DELETE FROM {{{table}}} WHERE {{session}} {fragment}"), chunk)
        _insert(d, cursor, table, rows)
    _insert_window_rows(d, cursor, windows)
    values = [
        (number, found) for number, (_, (_, _, found), _) in zip(numbers, sessions, strict=True)
    ]
    searched = write_new_values(d, cursor, values)
    exited = exits_nonzero_of(
        d, cursor, {session_id: head.indexed_through for session_id, _, head in sessions
                    if head.counts[2]}
    )  # fmt: skip
    _save_rows(d, cursor, [
        (key, number, count, *row_values(d, session_id, facts,
                                         _counts(head, exited.get(session_id, 0))))
        for key, number, count, (session_id, (facts, _, _), head)
        in zip(keys, numbers, searched, sessions, strict=True)
    ])  # fmt: skip


def fold_new(events: Sequence[StoredEvent]) -> NewCatalog:
    """What a new session's catalog and words are made of: its facts, its activity and its
    search values, folded from its events (anywhere: nothing here reads the database)."""
    facts = SessionFacts().taking(events)
    activity = Activity().taking(events, times_recorded=facts.times_recorded)
    return facts, activity, search_values(events)


def refill_catalog(d: Dialect, cursor: Cursor, session_id: str, head: Head) -> None:
    """Fold the session's catalog anew from its stored events (a new number)."""
    kept = kept_catalog(d, cursor, session_id)
    drop_catalog(d, cursor, session_id, kept)
    number = d.search.numbered(cursor, 1)[0]
    facts, activity, searched = SessionFacts(), Activity(), 0
    for run in stored_runs(d, cursor, session_id):
        facts = facts.taking(run)
        activity = activity.taking(run, times_recorded=facts.times_recorded)
        searched += write_words(d, cursor, number, run)
    if not facts.events:
        return
    key = d.session_key(session_id)
    _rewrite(d, cursor, "models", key, model_rows(d, key, facts.talk.models))
    _rewrite(d, cursor, "spent", key, spent_rows(d, key, facts.spent))
    _insert_windows(d, cursor, key, activity.windows.items())
    counts = counts_of_head(d, cursor, session_id, head)
    _save_row(d, cursor, session_id, facts, counts=counts, number=number, searched=searched)
    if kept is not None:
        machine, user = kept[0].machine, kept[0].user
        if machine is not None or user is not None:
            cursor.execute(
                d.sql("UPDATE {catalog} SET machine = ?, user_name = ? WHERE {session} = ?"),
                (d.text_value(machine), d.text_value(user), key),
            )


def drop_catalog(
    d: Dialect, cursor: Cursor, session_id: str, kept: tuple[Listed, int, int] | None
) -> None:
    """Remove the session's catalog (``kept``: as `kept_catalog` read it) and its words."""
    key = d.session_key(session_id)
    for table in ("catalog", "models", "spent", "activity"):
        cursor.execute(d.sql(f"DELETE FROM {{{table}}} WHERE {{session}} = ?"), (key,))
    if kept is not None:
        drop_words(d, cursor, kept[1], kept[2])
        if d.search.wasted(cursor):
            rewrite_words(d, cursor)


def rewrite_words(d: Dialect, cursor: Cursor) -> None:
    """Make the full-text index again from every catalogued session's events."""
    clear_words(d, cursor)
    sessions = cursor.execute(d.sql("SELECT name, number FROM {catalog}")).fetchall()
    for name, number in sessions:
        session_id, searched = d.text(name) or "", 0
        for run in stored_runs(d, cursor, session_id):
            searched += write_words(d, cursor, int(number), run)
        cursor.execute(
            d.sql("UPDATE {catalog} SET searched = ? WHERE {session} = ?"),
            (searched, d.session_key(session_id)),
        )


def stored_runs(d: Dialect, cursor: Cursor, session_id: str) -> Iterator[list[StoredEvent]]:
    """The session's stored events, decoded a run at a time, in order."""
    key, session, after = d.session_key(session_id), SessionId(session_id), 0
    query = d.sql(
        "SELECT sequence, recorded_at, type, version, data FROM {events} "
        "WHERE {session} = ? AND sequence > ? ORDER BY sequence LIMIT ?"
    )
    while rows := cursor.execute(query, (key, after, FOLD_BATCH)).fetchall():
        yield [decode_written_row(d.where, session, tuple(row)) for row in rows]
        after = rows[-1][0]


def _save_row(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    facts: SessionFacts,
    *,
    counts: CallCounts,
    number: int,
    searched: int,
) -> None:
    key = d.session_key(session_id)
    _save_rows(d, cursor, [(key, number, searched, *row_values(d, session_id, facts, counts))])


def _save_rows(d: Dialect, cursor: Cursor, rows: list[tuple[Any, ...]]) -> None:
    """Catalog rows (each its key, number, count of values searched, `row_values`)."""
    columns = ("{session}", "number", "searched", *ROW_COLUMNS)
    updated = ", ".join(f"{column} = excluded.{column}" for column in columns[1:])
    cursor.executemany(
        d.sql(
            f"INSERT INTO {{catalog}} ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' * len(columns))}) "
            f"ON CONFLICT ({{session}}) DO UPDATE SET {updated}"
        ),
        rows,
    )


def _rewrite(
    d: Dialect, cursor: Cursor, table: str, key: object, rows: list[tuple[object, ...]]
) -> None:
    cursor.execute(d.sql(f"DELETE FROM {{{table}}} WHERE {{session}} = ?"), (key,))
    _insert(d, cursor, table, rows)


def _insert(d: Dialect, cursor: Cursor, table: str, rows: list[tuple[object, ...]]) -> None:
    if rows:
        marks = ", ".join("?" * len(rows[0]))
        cursor.executemany(d.sql(f"INSERT INTO {{{table}}} VALUES ({marks})"), rows)


def _insert_windows(d: Dialect, cursor: Cursor, key: object, windows: object) -> None:
    rows = [(key, *window_values(d, q, m, w)) for (q, m), w in windows]  # type: ignore[attr-defined]
    _insert_window_rows(d, cursor, rows)


def _insert_window_rows(d: Dialect, cursor: Cursor, rows: list[tuple[Any, ...]]) -> None:
    if rows:
        cursor.executemany(
            d.sql(
                f"INSERT INTO {{activity}} ({{session}}, {', '.join(WINDOW_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(rows[0]))})"
            ),
            rows,
        )


def _merge_windows(d: Dialect, cursor: Cursor, key: object, added: Activity) -> None:
    """The windows ``added`` touches, added to the kept ones: those of the quarters they
    span are read, taken out and written again together."""
    if not added.windows:
        return
    quarters = [q for q, _ in added.windows if q is not None]
    low, high = (min(quarters), max(quarters)) if quarters else (0, -1)
    untimed = any(q is None for q, _ in added.windows)
    where = "WHERE {session} = ? AND ((quarter >= ? AND quarter <= ?) OR (? AND quarter IS NULL))"
    parameters = (key, low, high, untimed)
    kept = cursor.execute(
        d.sql(f"SELECT {', '.join(WINDOW_COLUMNS)} FROM {{activity}} {where}"), parameters
    ).fetchall()
    merged: dict[WindowKey, Window] = {}
    for quarter, model, window in chain(
        (window_from(d, row) for row in kept),
        ((q, m, w) for (q, m), w in added.windows.items()),
    ):
        known = merged.get((quarter, model))
        merged[(quarter, model)] = window if known is None else known.plus(window)
    cursor.execute(d.sql(f"DELETE FROM {{activity}} {where}"), parameters)
    _insert_windows(d, cursor, key, merged.items())
