"""Questions to a database store's catalog: which sessions a question picks (`picked`, the
rule of `listing.picks` in SQL), a page of them most recent first with how many it picks
(`listed`), their short names (`short_names`) and their activity windows (`activity`).

The page is read in the catalog's order of last time (an index): the sessions with a
time first, the latest first and then by id from the last (as `recent_first` sorts
them), then those with none, by id; only the page's rows are read, their models and
tokens with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from ....core.catalog.activity import quarter_of
from ....core.catalog.listing import Listed, SessionQuery
from ....core.catalog.short_names import short_name
from ....core.catalog.short_names import short_names as every_short_name
from ....core.catalog.usage import Entry
from .catalog_rows import READ_COLUMNS, WINDOW_COLUMNS, listed_from, window_from
from .dialect import Cursor, Dialect


def picked(d: Dialect, query: SessionQuery, alias: str) -> tuple[str, tuple[Any, ...]]:
    """The condition (``""`` for none) on catalog rows ``alias`` that keeps the sessions
    ``query`` picks, with its parameters."""
    tests: list[str] = []
    parameters: list[Any] = []
    text = d.text_value
    if query.agent is not None:
        tests.append(f"{alias}.agent_fold = ?")
        parameters.append(text(query.agent.lower()))
    if query.project is not None:
        tests.append(d.contains(f"{alias}.project_fold"))
        parameters.append(text(query.project.lower()))
    if query.model is not None:
        tests.append(
            f"EXISTS (SELECT 1 FROM {{models}} m WHERE m.{{session}} = {alias}.{{session}} "
            f"AND {d.contains('m.model_fold')})"
        )
        parameters.append(text(query.model.lower()))
    if query.since is not None:
        tests.append(f"{alias}.ended >= ?")
        parameters.append(d.time_value(query.since.astimezone(UTC)))
    if query.until is not None:
        tests.append(f"{alias}.started < ?")
        parameters.append(d.time_value(query.until.astimezone(UTC)))
    if query.failed:
        tests.append(f"{alias}.failures > 0")
    if query.machine is not None:
        tests.append(f"{alias}.machine = ?")
        parameters.append(text(query.machine))
    if query.user is not None:
        tests.append(f"{alias}.user_name = ?")
        parameters.append(text(query.user))
    return " AND ".join(tests), tuple(parameters)


def listed(
    d: Dialect, cursor: Cursor, query: SessionQuery, limit: int | None
) -> tuple[list[Listed], int]:
    """The sessions ``query`` picks, most recent first (at most ``limit``), and how many it
    picks in all."""
    where, parameters = picked(d, query, "c")
    also = f" AND {where}" if where else ""
    total = int(
        cursor.execute(
            d.sql(f"SELECT COUNT(*) FROM {{catalog}} c {'WHERE ' + where if where else ''}"),
            parameters,
        ).fetchone()[0]
    )
    columns = ", ".join(f"c.{column}" for column in READ_COLUMNS)
    wanted = total if limit is None else min(limit, total)
    rows: list[Any] = []
    if wanted:
        rows = cursor.execute(
            d.sql(
                f"SELECT {columns} FROM {{catalog}} c WHERE c.ended IS NOT NULL{also} "
                f"ORDER BY c.ended DESC, c.name DESC LIMIT {wanted}"
            ),
            parameters,
        ).fetchall()
    if len(rows) < wanted:
        rows += cursor.execute(
            d.sql(
                f"SELECT {columns} FROM {{catalog}} c WHERE c.ended IS NULL{also} "
                f"ORDER BY c.name LIMIT {wanted - len(rows)}"
            ),
            parameters,
        ).fetchall()
    return _listed(d, cursor, rows), total


def _listed(d: Dialect, cursor: Cursor, rows: Sequence[Any]) -> list[Listed]:
    """Each catalog row as a `Listed`, its models and tokens read for all of them at once."""
    keys = [row[0] for row in rows]
    models: dict[Any, list[Any]] = {}
    spent: dict[Any, list[Any]] = {}
    for fragment, chunk in d.key_sets(keys):
        for key, model in cursor.execute(
            d.sql(
                f"SELECT {{session}}, model FROM {{models}} WHERE {{session}} {fragment} "
                "ORDER BY {session}, position"
            ),
            chunk,
        ):
            models.setdefault(bytes(key) if d.texts_as_bytes else key, []).append((model,))
        for key, *tokens in cursor.execute(
            d.sql(
                "SELECT {session}, model, input, output, cache_read, cache_write FROM {spent} "
                f"WHERE {{session}} {fragment} ORDER BY {{session}}, position"
            ),
            chunk,
        ):
            spent.setdefault(bytes(key) if d.texts_as_bytes else key, []).append(tokens)
    found = []
    for row in rows:
        key = bytes(row[0]) if d.texts_as_bytes else row[0]
        found.append(listed_from(d, row, models.get(key, ()), spent.get(key, ())))
    return found


NEAREST_AT_MOST = 200
"""Sessions named by their nearest ids (two lookups each); more are named from every id
read at once."""


def short_names(d: Dialect, cursor: Cursor, session_ids: Sequence[str]) -> dict[str, str]:
    """Each of these sessions' short name among every catalogued one, as `short_names` of
    them all names it: where the catalog's key is the id itself, from its nearest ids in
    their order (two lookups each in the key's index; text sorts there as its code points
    do), not a read of every id (unless they are many, or the key is a digest)."""
    if not d.keys_are_ids or len(session_ids) > NEAREST_AT_MOST:
        every = cursor.execute(d.sql("SELECT name FROM {catalog}")).fetchall()
        among = every_short_name(d.text(row[0]) or "" for row in every)
        return {session_id: among[session_id] for session_id in session_ids}
    before = d.sql(
        "SELECT {session} FROM {catalog} WHERE {session} < ? ORDER BY {session} DESC LIMIT 1"
    )
    after = d.sql("SELECT {session} FROM {catalog} WHERE {session} > ? ORDER BY {session} LIMIT 1")
    named: dict[str, str] = {}
    for session_id in session_ids:
        key = d.session_key(session_id)
        nearest = [cursor.execute(query, (key,)).fetchone() for query in (before, after)]
        below, above = (None if row is None else d.text(row[0]) for row in nearest)
        named[session_id] = short_name(session_id, below, above)
    return named


def quarter_bounds(since: datetime | None, until: datetime | None) -> tuple[str, tuple[int, ...]]:
    """The condition (``""`` for none) on activity rows ``a`` that keeps the windows whose
    quarter lies in ``[since, until)`` (those of no time only where neither is given)."""
    tests, bounds = [], []
    if since is not None or until is not None:
        tests.append("a.quarter IS NOT NULL")
    if since is not None:
        tests.append("a.quarter >= ?")
        bounds.append(quarter_of(since))
    if until is not None:
        tests.append("a.quarter < ?")
        bounds.append(quarter_of(until))
    return " AND ".join(tests), tuple(bounds)


def activity(
    d: Dialect,
    cursor: Cursor,
    query: SessionQuery,
    since: datetime | None,
    until: datetime | None,
) -> Iterator[Entry]:
    """The activity windows of the sessions ``query`` picks whose quarter lies in
    ``[since, until)`` (the windows of no time only where neither is given)."""
    where, parameters = picked(d, query, "c")
    bounds, bounded = quarter_bounds(since, until)
    tests = [test for test in (where, bounds) if test]
    condition = f"WHERE {' AND '.join(tests)}" if tests else ""
    windows = ", ".join(f"a.{column}" for column in WINDOW_COLUMNS)
    rows = cursor.execute(
        d.sql(
            f"SELECT a.{{session}}, {windows} FROM {{activity}} a "
            f"JOIN {{catalog}} c ON c.{{session}} = a.{{session}} {condition}"
        ),
        (*parameters, *bounded),
    ).fetchall()
    keys = list(dict.fromkeys(bytes(row[0]) if d.texts_as_bytes else row[0] for row in rows))
    sessions: dict[Any, Listed] = {}
    columns = ", ".join(f"c.{column}" for column in READ_COLUMNS)
    for fragment, chunk in d.key_sets(keys):
        found = cursor.execute(
            d.sql(f"SELECT {columns} FROM {{catalog}} c WHERE c.{{session}} {fragment}"), chunk
        ).fetchall()
        for listed_row, made in zip(found, _listed(d, cursor, found), strict=True):
            sessions[bytes(listed_row[0]) if d.texts_as_bytes else listed_row[0]] = made
    for row in rows:
        quarter, model, window = window_from(d, row[1:])
        yield sessions[bytes(row[0]) if d.texts_as_bytes else row[0]], quarter, model, window
