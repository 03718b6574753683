"""The catalog's check for ``verify``: each session's catalog row, activity and count of
indexed values against a fold of its events."""

from __future__ import annotations

from ....core.catalog.activity import Activity
from ....core.catalog.facts import SessionFacts
from .catalog import counts_of_head, kept_catalog, stored_runs
from .catalog_rows import WINDOW_COLUMNS, window_from
from .dialect import Cursor, Dialect
from .index import load_head
from .kept_words import search_values


def catalog_fault(d: Dialect, cursor: Cursor, session_id: str) -> str | None:
    """What the session's catalog holds that its events do not say (``None``: nothing):
    its facts, calls, activity and the count of its indexed values, each against a fold of
    the events, in the caller's snapshot."""
    kept = kept_catalog(d, cursor, session_id)
    facts, windows, searched = SessionFacts(), Activity(), 0
    for run in stored_runs(d, cursor, session_id):
        facts = facts.taking(run)
        windows = windows.taking(run, times_recorded=facts.times_recorded)
        searched += len(search_values(run))
    if kept is None:
        return "the session has no catalog row" if facts.events else None
    listed_row, _number, kept_searched = kept
    if listed_row.facts != facts:
        return "the catalog's facts do not match the events"
    head = load_head(d, cursor, session_id)
    if head is not None and listed_row.counts != counts_of_head(d, cursor, session_id, head):
        return "the catalog's counts of calls do not match the index"
    rows = cursor.execute(
        d.sql(f"SELECT {', '.join(WINDOW_COLUMNS)} FROM {{activity}} WHERE {{session}} = ?"),
        (d.session_key(session_id),),
    ).fetchall()
    stored = {}
    for row in rows:
        quarter, model, window = window_from(d, row)
        if (quarter, model) in stored:
            return "the catalog holds a window twice"
        stored[(quarter, model)] = window
    if stored != dict(windows.windows):
        return "the catalog's activity does not match the events"
    if kept_searched != searched:
        return f"the full-text index holds {kept_searched} values of the {searched} the events give"
    return None
