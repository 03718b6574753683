"""A page of the list as a database answers it (its rows read in order up to the limit,
how many there are in all, and the short names of its sessions found from the nearest
names in the index) against every session listed and named in Python: the same rows, the
same count, the same names, whatever the ids share and whatever the limit."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import EventReplayer, SessionId, SQLiteEventStore
from correx_tools.core.catalog.listing import SessionQuery
from correx_tools.core.catalog.short_names import short_names
from correx_tools.core.lifecycle.conversation import Prompt, conversation_event
from correx_tools.core.lifecycle.description import About, description_event
from correx_tools.shell.catalog.folded import FoldedCatalog
from correx_tools.shell.catalog.picking import short_names_of
from correx_tools.shell.replay.repository import DefaultToolRepository
from correx_tools.shell.stores.sql import catalog_query

from .strategies import EPOCH

# Starts that many ids share, longer and shorter than a short name's least; then few
# letters: a "/" as a subagent's id holds its parent's whole; non-ASCII, whose UTF-8 bytes
# must sort as its code points do.
ids = st.builds(
    str.__add__,
    st.sampled_from(["4d5611e5", "4d5611e", "4d5611e5-2", ""]),
    st.text(alphabet="0a/é€", max_size=5),
).filter(bool)
sessions = st.dictionaries(
    ids,
    st.tuples(st.integers(0, 3), st.booleans()),  # minutes after the first; times recorded
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(
    sessions=sessions,
    limit=st.integers(0, 14),
    since=st.none() | st.integers(0, 3),
    nearest=st.sampled_from([0, 3, catalog_query.NEAREST_AT_MOST]),
)
def test_a_page_is_the_first_rows_of_everything_listed_and_named_among_all(
    sessions: dict[str, tuple[int, bool]], limit: int, since: int | None, nearest: int
) -> None:
    """(``nearest``: the most sessions named by their nearest names, more by every name.)"""
    with tempfile.TemporaryDirectory() as folder:
        store = SQLiteEventStore(Path(folder) / "events.sqlite")
        try:
            for session, (minutes, recorded) in sessions.items():
                described = description_event("claude-code", About(), times_recorded=recorded)
                store.append(SessionId(session), [described, conversation_event(Prompt(text="go"))],
                             expected_sequence=0,
                             recorded_at=EPOCH + timedelta(minutes=minutes))  # fmt: skip
            query = SessionQuery(since=None if since is None else EPOCH + timedelta(minutes=since))
            page, total = store.listed(query, limit=limit or None)
            folded = FoldedCatalog(store, DefaultToolRepository(EventReplayer(store), strict=False))
            everything, count = folded.listed(query)
            assert (page, total) == ((everything[:limit] if limit else everything), count)
            named = short_names(listed.session_id for listed in folded.listed(SessionQuery())[0])
            shown = [listed.session_id for listed in page]
            with patch.object(catalog_query, "NEAREST_AT_MOST", nearest):
                found = short_names_of(store, shown)
            assert found == {session: named[session] for session in shown}
        finally:
            store.close()
