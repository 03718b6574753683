"""The write side: a SessionRecorder writes only legal histories, on every store kind.

Each test records through a real store (the ``store`` fixture runs it on
memory, JSONL, SQLite and the real PostgreSQL server) and checks what the
store then holds with a strict replay.
"""

from __future__ import annotations

import pickle
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from returns.result import Failure, Result, Success

from correx_tools import (
    CorrexError,
    DefaultToolRepository,
    EventReplayer,
    EventStore,
    InMemoryEventStore,
    InMemoryToolRegistry,
    InvocationId,
    RecordErrorKind,
    SessionId,
    SessionRecorder,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolFailure,
    ToolInvocationRequestedEvent,
    ToolInvocationStatus,
    ToolProjector,
    ToolReceipt,
    ToolRequest,
    ToolSpec,
    ToolSuccess,
    TransitionErrorKind,
)
from correx_tools.shell.stores.port import AppendError, AppendErrorKind

S = SessionId("agent-1")
START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
READ = ToolSpec(
    name="read_file",
    description="Read a file of the workspace.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string", "minLength": 1}},
        "required": ["path"],
        "additionalProperties": False,
    },
    tier=Tier.AUTO,
)
SHELL = ToolSpec(
    name="run_shell",
    description="Run a shell command.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}},
    tier=Tier.ELEVATED,
)
REGISTRY = InMemoryToolRegistry.of(READ, SHELL).unwrap()


class Clock:
    """A clock the test moves: one second per reading, or set back by hand."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def recorder(store: EventStore, **options: object) -> SessionRecorder:
    return SessionRecorder(store, S, registry=REGISTRY, clock=Clock(), **options)  # type: ignore[arg-type]


def read(path: str) -> ToolRequest:
    return ToolRequest(tool_name="read_file", arguments={"path": path})


def strict_statuses(store: EventStore) -> dict[str, ToolInvocationStatus]:
    """The store's session, replayed strictly: it must be a legal history."""
    replay = EventReplayer(store).replay(S, ToolProjector()).unwrap()
    return {record.invocation_id: record.status for record in replay.state.records()}


def event_types(store: EventStore) -> list[str]:
    return [type(stored.event).__name__ for stored in store.read(S)]


class Echo:
    """An executor that answers with the path it was asked for."""

    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolSuccess:
        return ToolSuccess(invocation_id=invocation_id, output={"read": request.arguments["path"]})


class Broken:
    """An executor that raises, as a buggy adapter would."""

    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolSuccess:
        raise OSError("disk on fire")


class Refusing:
    """An executor that reports a failure."""

    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolFailure:
        return ToolFailure(invocation_id=invocation_id, reason="exit 2", recoverable=False)


def test_a_legal_lifecycle_is_recorded_in_order(store: EventStore) -> None:
    rec = recorder(store)
    call = InvocationId("call-1")
    requested = rec.request(call, read("README.md")).unwrap()
    assert requested.sequence == 1
    assert requested.event == ToolInvocationRequestedEvent(
        invocation_id=call, tool_name="read_file", tier=Tier.AUTO, request=read("README.md")
    )
    assert rec.start(call).unwrap().sequence == 2
    completed = rec.complete(call, ToolReceipt(output="hello", exit_code=0)).unwrap()
    assert completed.sequence == 3
    assert completed.recorded_at == START + timedelta(seconds=3)
    assert strict_statuses(store) == {"call-1": ToolInvocationStatus.COMPLETED}
    assert list(store.read(S)) == [requested, *list(store.read(S, after=1))]


def test_an_illegal_step_is_refused_and_nothing_is_written(store: EventStore) -> None:
    rec = recorder(store)
    call = InvocationId("call-1")
    rec.request(call, read("a")).unwrap()
    rec.start(call).unwrap()
    rec.complete(call, ToolReceipt(output=None)).unwrap()
    refused = rec.start(call)
    assert isinstance(refused, Failure)
    error = refused.failure()
    assert error.kind is RecordErrorKind.ILLEGAL
    assert error.transition is not None
    assert error.transition.kind is TransitionErrorKind.ILLEGAL_TRANSITION
    assert "nothing recorded" in str(error)
    never_requested = rec.complete(InvocationId("ghost"), ToolReceipt(output=None))
    assert never_requested.failure().kind is RecordErrorKind.ILLEGAL
    assert event_types(store) == [
        "ToolInvocationRequestedEvent",
        "ToolExecutionStartedEvent",
        "ToolExecutionCompletedEvent",
    ]
    assert strict_statuses(store) == {"call-1": ToolInvocationStatus.COMPLETED}


def test_an_unknown_tool_writes_nothing(store: EventStore) -> None:
    result = recorder(store).request(InvocationId("c"), ToolRequest(tool_name="rm_rf"))
    assert result.failure().kind is RecordErrorKind.UNKNOWN_TOOL
    assert "'rm_rf'" in str(result.failure())
    assert event_types(store) == []


def test_an_invalid_request_is_recorded_as_rejected_with_the_validation_message(
    store: EventStore,
) -> None:
    rec = recorder(store)
    result = rec.request(InvocationId("c"), ToolRequest(tool_name="read_file", arguments={}))
    error = result.failure()
    assert error.kind is RecordErrorKind.INVALID_REQUEST
    assert error.invalid is not None and not error.invalid
    assert [type(e.event) for e in error.recorded] == [
        ToolInvocationRequestedEvent,
        ToolExecutionRejectedEvent,
    ]
    rejected = error.recorded[1].event
    assert isinstance(rejected, ToolExecutionRejectedEvent)
    assert rejected.reason.startswith("invalid request: ")
    assert "path" in rejected.reason
    assert list(store.read(S)) == list(error.recorded)
    assert strict_statuses(store) == {"c": ToolInvocationStatus.REJECTED}


def test_the_tier_comes_from_the_tool_unless_given_and_is_required_without_a_registry(
    store: EventStore,
) -> None:
    rec = recorder(store)
    shell = ToolRequest(tool_name="run_shell", arguments={"command": "ls"})
    event = rec.request(InvocationId("a"), shell).unwrap().event
    assert isinstance(event, ToolInvocationRequestedEvent) and event.tier is Tier.ELEVATED
    event = rec.request(InvocationId("b"), shell, tier=Tier.CONFIRM).unwrap().event
    assert isinstance(event, ToolInvocationRequestedEvent) and event.tier is Tier.CONFIRM
    bare = SessionRecorder(store, SessionId("other"), clock=Clock())
    with pytest.raises(ValueError, match="tier="):
        bare.request(InvocationId("c"), shell)
    assert bare.request(InvocationId("c"), shell, tier=Tier.AUTO).unwrap().sequence == 1


def test_two_recorders_on_one_session_catch_up_and_decide_on_the_current_state(
    store: EventStore,
) -> None:
    first, second = recorder(store), recorder(store)
    call = InvocationId("call-1")
    first.request(call, read("a")).unwrap()
    # The second recorder has not seen the request: it conflicts, catches up, then starts.
    started = second.start(call).unwrap()
    assert started.sequence == 2
    # The first one is now behind: its completion lands after the start it never saw.
    assert first.complete(call, ToolReceipt(output=1)).unwrap().sequence == 3
    # And the second, still thinking the call is running, is refused after catching up.
    late = second.fail(call, "timeout", recoverable=True)
    assert late.failure().kind is RecordErrorKind.ILLEGAL
    assert second.last_sequence == 3
    assert strict_statuses(store) == {"call-1": ToolInvocationStatus.COMPLETED}


def test_a_recorder_resumes_a_session_already_in_the_store(store: EventStore) -> None:
    recorder(store).request(InvocationId("call-1"), read("a")).unwrap()
    later = recorder(store)
    assert later.start(InvocationId("call-1")).unwrap().sequence == 2
    assert later.state.find("call-1") is not None


def test_an_id_used_in_another_session_is_a_duplicate(store: EventStore) -> None:
    recorder(store).request(InvocationId("call-1"), read("a")).unwrap()
    other = SessionRecorder(store, SessionId("agent-2"), registry=REGISTRY, clock=Clock())
    result = other.request(InvocationId("call-1"), read("b"))
    assert result.failure().kind is RecordErrorKind.DUPLICATE_INVOCATION
    assert result.failure().append is not None
    assert "agent-1" in str(result.failure())


def test_times_come_from_the_clock_and_never_go_backwards(store: EventStore) -> None:
    clock = Clock()
    rec = SessionRecorder(store, S, registry=REGISTRY, clock=clock)
    first = rec.request(InvocationId("c"), read("a")).unwrap()
    clock.now = START - timedelta(days=1)  # another machine's clock, a day behind
    second = rec.start(InvocationId("c")).unwrap()
    assert first.recorded_at == START + timedelta(seconds=1)
    assert second.recorded_at == first.recorded_at
    completed = rec.complete(InvocationId("c"), ToolReceipt(output=None)).unwrap()
    assert completed.recorded_at == first.recorded_at
    assert strict_statuses(store) == {"c": ToolInvocationStatus.COMPLETED}


def test_run_records_the_whole_step_for_a_success(store: EventStore) -> None:
    result = recorder(store).run(InvocationId("c"), read("README.md"), Echo()).unwrap()
    assert isinstance(result.outcome, ToolSuccess)
    assert [type(e.event) for e in result.events] == [
        ToolInvocationRequestedEvent,
        ToolExecutionStartedEvent,
        ToolExecutionCompletedEvent,
    ]
    completed = result.events[2].event
    assert isinstance(completed, ToolExecutionCompletedEvent)
    assert completed.receipt.output == {"read": "README.md"}
    assert list(store.read(S)) == list(result.events)


def test_run_records_a_failure_and_an_executor_that_raises(store: EventStore) -> None:
    rec = recorder(store)
    failed = rec.run(InvocationId("a"), read("x"), Refusing()).unwrap()
    assert isinstance(failed.outcome, ToolFailure)
    raised = rec.run(InvocationId("b"), read("y"), Broken()).unwrap()
    assert isinstance(raised.outcome, ToolFailure)
    assert raised.outcome.reason == "OSError: disk on fire"
    ended = raised.events[-1].event
    assert isinstance(ended, ToolExecutionFailedEvent)
    assert ended.recoverable is True and ended.reason == "OSError: disk on fire"
    first_end = failed.events[-1].event
    assert isinstance(first_end, ToolExecutionFailedEvent) and first_end.recoverable is False
    assert strict_statuses(store) == {
        "a": ToolInvocationStatus.FAILED,
        "b": ToolInvocationStatus.FAILED,
    }


class _Gives:
    """An executor that gives what it was made with, or raises it."""

    def __init__(self, outcome: object) -> None:
        self.outcome = outcome

    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> object:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        if self.outcome == "success":
            return ToolSuccess(invocation_id=invocation_id, output=self.output)
        return self.outcome

    output: object = None


def _giving_output(output: object) -> _Gives:
    executor = _Gives("success")
    executor.output = output
    return executor


@pytest.mark.parametrize(
    ("executor", "recorded_whole"),
    [
        # A command's stderr decoded as os.fsdecode does: an undecodable byte is a surrogate.
        (_Gives(RuntimeError("command failed: bad byte \udcff")), True),
        (_Gives(None), True),  # an executor that forgot to return
        (_giving_output("x" * 2_000_000), False),  # over the size limit
        (_giving_output({"mean": float("nan")}), False),  # no JSON number
    ],
)
def test_run_never_leaves_a_started_call_behind(
    store: EventStore, executor: _Gives, recorded_whole: bool
) -> None:
    result = recorder(store).run(InvocationId("c"), read("x"), executor)  # type: ignore[arg-type]
    assert strict_statuses(store) == {"c": ToolInvocationStatus.FAILED}
    ended = list(store.read(S))[-1].event
    assert isinstance(ended, ToolExecutionFailedEvent)
    if recorded_whole:  # the executor's failure, said in text every store keeps
        assert isinstance(result.unwrap().outcome, ToolFailure)
        assert "\udcff" not in ended.reason and len(ended.reason) < 5_000
    else:  # the output could not be recorded: said, and the call ended as failed
        error = result.failure()
        assert [type(e.event) for e in error.recorded][-1] is ToolExecutionFailedEvent
        assert ended.reason.startswith("what the tool returned could not be recorded")
        assert ended.recoverable is False


def test_run_never_executes_an_invalid_request(store: EventStore) -> None:
    class Counting(Echo):
        calls = 0

        def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolSuccess:
            Counting.calls += 1
            return super().execute(invocation_id, request)

    result = recorder(store).run(InvocationId("c"), ToolRequest(tool_name="read_file"), Counting())
    assert result.failure().kind is RecordErrorKind.INVALID_REQUEST
    assert Counting.calls == 0
    assert strict_statuses(store) == {"c": ToolInvocationStatus.REJECTED}


def test_run_of_a_used_id_reports_what_it_recorded_before_the_refusal(store: EventStore) -> None:
    rec = recorder(store)
    rec.request(InvocationId("c"), read("a")).unwrap()
    rec.start(InvocationId("c")).unwrap()
    again = rec.run(InvocationId("c"), read("a"), Echo())
    assert again.failure().kind is RecordErrorKind.ILLEGAL
    assert again.failure().recorded == ()
    assert len(event_types(store)) == 2


def test_a_record_error_is_a_value_that_unwraps_with_its_message(store: EventStore) -> None:
    rec = recorder(store)
    error = rec.start(InvocationId("ghost")).failure()
    assert isinstance(error, CorrexError)
    assert pickle.loads(pickle.dumps(error)) == error
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is returns' own
        rec.start(InvocationId("ghost")).unwrap()
    shown = "".join(traceback.format_exception(raised.value))
    assert "UnwrapFailedError" in shown
    assert "RecordError: " in shown and "ghost" in shown
    assert isinstance(rec.start(InvocationId("ghost")), Failure)
    assert isinstance(rec.request(InvocationId("ghost"), read("a")), Success)


def test_recording_keeps_the_repository_strict(store: EventStore) -> None:
    rec = recorder(store)
    for number in range(5):
        rec.run(InvocationId(f"c{number}"), read(f"f{number}"), Echo()).unwrap()
        rec.start(InvocationId(f"c{number}"))  # refused every time: nothing written
    repository = DefaultToolRepository(EventReplayer(store))
    assert len(repository.get(S).unwrap()) == 5
    assert repository.check_unique_invocations() == Success(None)


class _BeatenToEveryEnd(InMemoryEventStore):
    """A memory store where another writer always appends first when a call completes, as
    seven racing recorders made happen now and then in ``test_recorder_processes``."""

    def append(  # type: ignore[override]
        self, session_id: SessionId, events: Sequence[object], **options: Any
    ) -> Result[tuple[StoredEvent, ...], AppendError]:
        # Only the completion: a failure written after it would win, as it did in the race.
        if any(isinstance(event, ToolExecutionCompletedEvent) for event in events):
            return Failure(AppendError(kind=AppendErrorKind.CONFLICT, session_id=str(session_id),
                                       message="another writer appended first"))  # fmt: skip
        return super().append(session_id, events, **options)


def test_a_run_beaten_to_its_end_stays_started_and_is_not_said_to_have_failed() -> None:
    store = _BeatenToEveryEnd()
    result = recorder(store, attempts=2).run(InvocationId("c"), read("x"), Echo())
    assert result.failure().kind is RecordErrorKind.CONFLICT
    assert [type(e.event) for e in result.failure().recorded] == [
        ToolInvocationRequestedEvent,
        ToolExecutionStartedEvent,
    ]
    assert strict_statuses(store) == {"c": ToolInvocationStatus.STARTED}
