"""Two recorders on one session, against a model of legal lifecycles, on every store kind.

Hypothesis drives random steps through either recorder (each one's view of
the session goes stale whenever the other writes); the model says which steps
are legal. Every step must be recorded exactly when the model allows it, and
the store must always replay strictly to the model's statuses.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test
from returns.result import Success

from correx_tools import (
    EventReplayer,
    EventStore,
    InMemoryEventStore,
    InMemoryToolRegistry,
    InvocationId,
    JsonlEventLog,
    PostgresEventStore,
    RecordErrorKind,
    SessionId,
    SessionRecorder,
    SQLiteEventStore,
    ToolProjector,
    ToolReceipt,
    ToolRequest,
    ToolSpec,
)

from .stores import KINDS

S = SessionId("modelled")
IDS = [InvocationId(f"c{n}") for n in range(5)]
TOOL = ToolSpec(
    name="echo",
    description="Echo",
    parameters={"type": "object", "properties": {"x": {"type": "integer"}}},
)
REGISTRY = InMemoryToolRegistry.of(TOOL).unwrap()

# The model: the lifecycle as a person would write it down, independent of the library's table.
NEXT = {
    None: {"request": "requested"},
    "requested": {"start": "started", "fail": "failed", "reject": "rejected"},
    "started": {"complete": "completed", "fail": "failed", "reject": "rejected"},
}


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def machine(open_store: Callable[[], tuple[EventStore, Callable[[], None]]]) -> type:
    class Recorders(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.store, self.close = open_store()
            clock = Clock()  # one clock, as two threads of one host would share
            self.recorders = [
                SessionRecorder(self.store, S, registry=REGISTRY, clock=clock) for _ in range(2)
            ]
            self.model: dict[str, str] = {}

        def teardown(self) -> None:
            self.close()

        def check(self, invocation: str, step: str, result: object, target: str | None) -> None:
            allowed = NEXT.get(self.model.get(invocation), {}).get(step)
            if allowed is None:
                assert not isinstance(result, Success), (step, invocation, self.model)
                assert result.failure().kind is RecordErrorKind.ILLEGAL  # type: ignore[attr-defined]
                return
            assert isinstance(result, Success), (step, invocation, result)
            self.model[invocation] = target or allowed

        @rule(who=st.sampled_from([0, 1]), invocation=st.sampled_from(IDS), valid=st.booleans())
        def request(self, who: int, invocation: InvocationId, valid: bool) -> None:
            arguments = {"x": 1} if valid else {"x": "not a number"}
            result = self.recorders[who].request(
                invocation, ToolRequest(tool_name="echo", arguments=arguments)
            )
            if valid or invocation in self.model:
                self.check(invocation, "request", result, None)
                return
            # Legal but invalid: recorded, then rejected with the validation message.
            error = result.failure()
            assert error.kind is RecordErrorKind.INVALID_REQUEST
            assert len(error.recorded) == 2
            self.model[invocation] = "rejected"

        @rule(who=st.sampled_from([0, 1]), invocation=st.sampled_from(IDS))
        def start(self, who: int, invocation: InvocationId) -> None:
            self.check(invocation, "start", self.recorders[who].start(invocation), None)

        @rule(who=st.sampled_from([0, 1]), invocation=st.sampled_from(IDS))
        def complete(self, who: int, invocation: InvocationId) -> None:
            result = self.recorders[who].complete(invocation, ToolReceipt(output={"ok": True}))
            self.check(invocation, "complete", result, None)

        @rule(who=st.sampled_from([0, 1]), invocation=st.sampled_from(IDS), again=st.booleans())
        def fail(self, who: int, invocation: InvocationId, again: bool) -> None:
            result = self.recorders[who].fail(invocation, "exit 1", recoverable=again)
            self.check(invocation, "fail", result, None)

        @rule(who=st.sampled_from([0, 1]), invocation=st.sampled_from(IDS))
        def reject(self, who: int, invocation: InvocationId) -> None:
            self.check(invocation, "reject", self.recorders[who].reject(invocation, "no"), None)

        @invariant()
        def the_store_replays_strictly_to_the_model(self) -> None:
            replay = EventReplayer(self.store).replay(S, ToolProjector()).unwrap()
            statuses = {r.invocation_id: r.status.value for r in replay.state.records()}
            assert statuses == self.model

    return Recorders


def opener(kind: str, dsn: str | None) -> Callable[[], tuple[EventStore, Callable[[], None]]]:
    """How each example gets a new, empty store of ``kind``, and how it is cleaned up."""

    def open_store() -> tuple[EventStore, Callable[[], None]]:
        if kind == "memory":
            return InMemoryEventStore(), lambda: None
        if kind == "postgres":
            assert dsn is not None
            schema = f"t_{uuid.uuid4().hex[:16]}"
            store = PostgresEventStore(dsn, schema=schema)

            def drop() -> None:
                import psycopg  # noqa: PLC0415 - only this kind needs it

                store.close()
                with psycopg.connect(dsn, autocommit=True) as connection:
                    connection.execute(f'DROP SCHEMA "{schema}" CASCADE')

            return store, drop
        directory = Path(tempfile.mkdtemp())
        if kind == "sqlite":
            sqlite = SQLiteEventStore(directory / "events.sqlite")

            def remove() -> None:
                sqlite.close()
                shutil.rmtree(directory)

            return sqlite, remove
        return JsonlEventLog(directory / "events.jsonl"), lambda: shutil.rmtree(directory)

    return open_store


@pytest.mark.parametrize("kind", KINDS)
def test_recorders_write_exactly_the_legal_steps(kind: str, request: pytest.FixtureRequest) -> None:
    dsn = request.getfixturevalue("postgres_dsn") if kind == "postgres" else None
    examples = 20 if kind == "postgres" else 40
    run_state_machine_as_test(
        machine(opener(kind, dsn)),
        settings=settings(max_examples=examples, stateful_step_count=25),
    )
