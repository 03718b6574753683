"""Stores against a model: random appends and imports, then replay equals the pure fold."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from correx_tools import (
    AppendErrorKind,
    EventReplayer,
    SessionId,
    StoredEvent,
    ToolProjector,
    fold_events,
)
from correx_tools.shell.stores.port import EventStore

from .stores import KINDS, fresh_postgres, make_store
from .strategies import EPOCH, tool_events

SESSIONS = [SessionId("alpha"), SessionId("beta"), SessionId("gamma")]
events_without_foreign = tool_events().filter(lambda event: not isinstance(event, dict))


def make_machine(
    build: Callable[[Path], tuple[EventStore, Callable[[], None]]],
) -> type[RuleBasedStateMachine]:
    class StoreMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.directory = Path(tempfile.mkdtemp())
            self.store, self.cleanup = build(self.directory)
            self.model: dict[str, list[StoredEvent]] = {}
            self.used_ids: dict[str, str] = {}

        def teardown(self) -> None:
            close = getattr(self.store, "close", None)
            if close is not None:
                close()
            self.cleanup()
            shutil.rmtree(self.directory, ignore_errors=True)

        @rule(
            session=st.sampled_from(SESSIONS),
            batch=st.lists(events_without_foreign, max_size=4),
            stale=st.booleans(),
        )
        def append(self, session: SessionId, batch: list[object], stale: bool) -> None:
            last = len(self.model.get(session, []))
            expected = last - 1 if stale and last > 0 else last
            result = self.store.append(
                session, batch, expected_sequence=expected, recorded_at=EPOCH
            )
            new_ids = [
                getattr(e, "invocation_id", None)
                for e in batch
                if type(e).__name__ == "ToolInvocationRequestedEvent"
            ]
            duplicate = any(i in self.used_ids for i in new_ids) or len(set(new_ids)) != len(
                new_ids
            )
            if expected != last:
                assert result.failure().kind is AppendErrorKind.CONFLICT
            elif duplicate:
                assert result.failure().kind is AppendErrorKind.DUPLICATE_INVOCATION
            else:
                written = result.unwrap()
                assert [e.sequence for e in written] == list(range(last + 1, last + 1 + len(batch)))
                self.model.setdefault(session, []).extend(written)
                for invocation in new_ids:
                    self.used_ids[invocation] = session  # type: ignore[index]

        @invariant()
        def the_store_holds_exactly_the_model(self) -> None:
            assert self.store.sessions() == tuple(
                sorted(s for s, events in self.model.items() if events)
            )
            for session, events in self.model.items():
                assert list(self.store.read(session)) == events
                if events:
                    after = len(events) // 2
                    assert list(self.store.read(session, after=after)) == events[after:]

        @invariant()
        def replay_equals_the_pure_fold(self) -> None:
            replayer = EventReplayer(self.store)
            for session, events in self.model.items():
                from_store = replayer.replay(session, ToolProjector(), strict=False).unwrap()
                pure = fold_events(ToolProjector(), events, strict=False).unwrap()
                assert from_store.state == pure.state
                assert from_store.last_sequence == len(events)
                assert [e for e, _ in from_store.quarantined] == [e for e, _ in pure.quarantined]

    StoreMachine.TestCase.settings = settings(
        max_examples=25, stateful_step_count=15, deadline=None
    )
    return StoreMachine


# PostgreSQL's machine (a schema per example, on a server) runs with the slow tests; its
# contract suite and the SQL engine it shares with SQLite run in the quick pass.
@pytest.mark.parametrize(
    "kind", [pytest.param(k, marks=pytest.mark.slow) if k == "postgres" else k for k in KINDS]
)
def test_store_against_model(kind: str, request: pytest.FixtureRequest) -> None:
    if kind == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")

        def build(directory: Path) -> tuple[EventStore, Callable[[], None]]:
            store, schema = fresh_postgres(dsn)

            def drop() -> None:
                with psycopg.connect(dsn, autocommit=True) as connection:
                    connection.execute(f'DROP SCHEMA "{schema}" CASCADE')

            return store, drop

    else:

        def build(directory: Path) -> tuple[EventStore, Callable[[], None]]:
            return make_store(kind, directory, request), lambda: None

    make_machine(build).TestCase("runTest").runTest()
