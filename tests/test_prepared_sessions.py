"""New sessions whose rows another process made (`stores.sql.prepared`): a SQLite store
writes them as it writes the same events imported, row for row, or refuses them as it
refuses those events.

The property draws sessions of any tool events (legal or not, some of a kind no store
keeps), the checkpoint spacing, and a session already in the store that asks for one of the
same ids; each session's rows are made, sent as a worker sends them (pickled), and written,
one at a time and all at once, and held to `import_events` of the same events into a twin
store: the same answer, and the same rows.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure

from correx_tools import SQLiteEventStore, StoredEvent
from correx_tools.shell.stores.sql.prepared import PreparedSession

from .strategies import requested, stored, tool_events
from .test_import_parts import rows_of

IDS = ("inv-1", "inv-2", "inv-3")


def store_with(path: Path, interval: int, clash: str | None) -> SQLiteEventStore:
    """A new store, holding a session that asks for ``clash`` when one is given."""
    path.unlink(missing_ok=True)
    store = SQLiteEventStore(path, checkpoint_interval=interval)
    if clash is not None:
        store.import_events(stored([requested(clash)], session="other")).unwrap()
    return store


def sent(store: SQLiteEventStore, session: str, events: list[StoredEvent]) -> Any:
    """The session's rows as a worker process makes and sends them (or why it cannot)."""
    made = pickle.loads(pickle.dumps(store.preparer()))
    return pickle.loads(pickle.dumps(made.prepare(session, events)))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drawn=st.lists(st.lists(tool_events(), max_size=14), min_size=1, max_size=3),
    interval=st.integers(1, 4),
    clash=st.none() | st.sampled_from(IDS),
)
def test_prepared_sessions_are_written_as_their_events_are_imported(
    tmp_path_factory: Any, drawn: list[list[Any]], interval: int, clash: str | None
) -> None:
    folder = tmp_path_factory.mktemp("prepared")
    sessions = {f"s{n}": stored(events, session=f"s{n}") for n, events in enumerate(drawn)}
    # One session at a time: the same answer and rows, a refusal included.
    for session, events in sessions.items():
        ours = store_with(folder / "ours.sqlite", interval, clash)
        theirs = store_with(folder / "theirs.sqlite", interval, clash)
        ready = sent(ours, session, events)
        said = (
            ours.import_prepared([ready]) if isinstance(ready, PreparedSession) else Failure(ready)
        )
        assert repr(said) == repr(theirs.import_events(events))
        assert rows_of(folder / "ours.sqlite") == rows_of(folder / "theirs.sqlite")
        ours.close()
        theirs.close()
    # All at once, where every one's rows could be made: one transaction, all or nothing.
    ours = store_with(folder / "ours.sqlite", interval, clash)
    theirs = store_with(folder / "theirs.sqlite", interval, clash)
    ready = [sent(ours, session, events) for session, events in sessions.items()]
    if all(isinstance(one, PreparedSession) for one in ready):
        said = ours.import_prepared(ready)
        every = [event for events in sessions.values() for event in events]
        assert repr(said) == repr(theirs.import_events(every))
        assert rows_of(folder / "ours.sqlite") == rows_of(folder / "theirs.sqlite")
    ours.close()
    theirs.close()


def test_a_session_that_holds_events_already_is_refused_not_joined(tmp_path: Path) -> None:
    store = store_with(tmp_path / "store.sqlite", 2, None)
    events = stored([requested("inv-1")], session="s")
    ready = store.preparer().prepare("s", events)
    assert isinstance(ready, PreparedSession)
    store.import_events(events).unwrap()
    before = rows_of(tmp_path / "store.sqlite")
    refused = store.import_prepared([ready]).failure()
    assert refused.kind.value == "conflict" and "holds 1 event" in refused.message
    store.close()
    assert rows_of(tmp_path / "store.sqlite") == before
