"""The fold's batch path gives exactly what stepping the reducer gives, and states branch safely.

The batch path (``ToolStateBuilder``) and the reducer's step share the
transition table, but not the bookkeeping around it: rows kept open across
commits, a pool of recycled rows, records built when an invocation ends, one
persistent update per commit. The builder's own loop (``run``) also has a
second copy of the lifecycle's common cases. These tests hold it all to the
step reducer on random sessions, with commits at random points, resumed from
random states, and disordered as a store or a network (or a clock) may
disorder them; and they hold ``ToolState``'s shared, append-only index to a
plain model while versions branch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from returns.result import Result

from correx_tools import (
    DefaultToolReducer,
    InvocationId,
    Replay,
    ReplayError,
    Retention,
    SessionId,
    StoredEvent,
    ToolInvocationStatus,
    ToolProjector,
    ToolState,
    TransitionError,
    TransitionErrorKind,
    fold_events,
)
from correx_tools.core.lifecycle._engine.batch import ToolStateBuilder
from correx_tools.core.replay import batching as batching_module

from .strategies import EPOCH, completed, failed, rejected, requested, sessions, started, stored

REDUCER = DefaultToolReducer()


class SteppingReducer:
    """The default reducer behind another type, so the fold steps instead of batching."""

    def reduce(
        self, state: ToolState, stored_event: StoredEvent
    ) -> Result[ToolState, TransitionError]:
        return REDUCER.reduce(state, stored_event)


STEPPING = ToolProjector(SteppingReducer())


def stepped(state: ToolState, events: list[StoredEvent]) -> tuple[ToolState, list[object]]:
    """Every event through ``reduce``: the final state and each event's refusal or ``None``."""
    refusals: list[object] = []
    for event in events:
        outcome = REDUCER.step(state, event)
        if isinstance(outcome, TransitionError):
            refusals.append(outcome)
        else:
            state = outcome
            refusals.append(None)
    return state, refusals


def built(
    state: ToolState, events: list[StoredEvent], commits: set[int]
) -> tuple[ToolState, list[object], dict[int, ToolState]]:
    """The same through a builder, asking for the state after each event in ``commits``."""
    builder = ToolStateBuilder(state)
    refusals: list[object] = []
    kept = {}
    for number, event in enumerate(events):
        refusals.append(builder.apply(event))
        if number in commits:
            kept[number] = builder.state()
    return builder.state(), refusals, kept


@pytest.mark.parametrize("ending", [completed, failed, rejected])
def test_the_batch_paths_loop_refuses_an_end_recorded_before_its_request(
    ending: Callable[[str], object],
) -> None:
    events = stored([requested("a"), started("a"), ending("a")], times=[10, 11, 9])
    refused = fold_events(ToolProjector(), events)
    assert refused.failure().cause.kind is TransitionErrorKind.TIME_REGRESSION
    assert refused.alt(str) == fold_events(STEPPING, events).alt(str)
    lenient = fold_events(ToolProjector(), events, strict=False).unwrap()
    assert [event for event, _ in lenient.quarantined] == events[2:]
    assert lenient.state.find("a").status is ToolInvocationStatus.STARTED


@given(events=sessions(max_size=60), commits=st.sets(st.integers(0, 60)))
def test_the_builder_decides_and_builds_exactly_as_the_reducer(
    events: list[StoredEvent], commits: set[int]
) -> None:
    final, refusals, kept = built(ToolState.empty(), events, commits)
    expected, expected_refusals = stepped(ToolState.empty(), events)
    assert final == expected
    assert list(final.records()) == list(expected.records())
    assert refusals == expected_refusals
    for number, state in kept.items():
        assert state == stepped(ToolState.empty(), events[: number + 1])[0]


@given(
    before=sessions(max_size=30), after=sessions(max_size=30), commits=st.sets(st.integers(0, 30))
)
def test_resuming_from_a_state_gives_what_stepping_gives(
    before: list[StoredEvent], after: list[StoredEvent], commits: set[int]
) -> None:
    start, _ = stepped(ToolState.empty(), before)
    final, refusals, _ = built(start, after, commits)
    expected, expected_refusals = stepped(start, after)
    assert final == expected
    assert refusals == expected_refusals
    # The state it started from is untouched.
    assert start == stepped(ToolState.empty(), before)[0]


@given(events=sessions(max_size=80), strict=st.booleans())
def test_the_fold_on_the_batch_path_equals_the_fold_that_steps(
    events: list[StoredEvent], strict: bool
) -> None:
    for retention in (None, Retention.all(), Retention.every(3), Retention.last(4)):
        batch = fold_events(ToolProjector(), events, strict=strict, retention=retention)
        step = fold_events(STEPPING, events, strict=strict, retention=retention)
        assert batch.map(lambda r: (r.state, r.last_sequence, r.quarantined)) == step.map(
            lambda r: (r.state, r.last_sequence, r.quarantined)
        )
        timeline = batch.map(lambda r: r.timeline).value_or(None)
        reference = step.map(lambda r: r.timeline).value_or(None)
        if timeline is not None and reference is not None:
            for sequence in timeline.retained:
                assert timeline.at(sequence) == reference.at(sequence)


@st.composite
def disordered(draw: st.DrawFn) -> list[StoredEvent]:
    """A session with what a store or a network may do to it: re-deliveries, exact or not,
    gaps, swaps, another session's event, equal session ids that are other objects, and
    recording times that step back."""
    events = list(draw(sessions(max_size=40, clock_skew=True)))
    for _ in range(draw(st.integers(0, 3))):
        if not events:
            break
        at = draw(st.integers(0, len(events) - 1))
        one = events[at]
        match draw(st.sampled_from(["again", "again-changed", "gap", "swap", "foreign", "copy"])):
            case "again":
                events.insert(at + 1, one)
            case "again-changed":
                events.insert(at + 1, replace(one, recorded_at=one.recorded_at + timedelta(days=1)))
            case "gap":
                del events[at]
            case "swap" if at + 1 < len(events):
                events[at], events[at + 1] = events[at + 1], one
            case "foreign":
                events[at] = replace(one, session_id=SessionId("another"))
            case "copy":
                # Equal, not identical: the fold's identity test on session ids must not matter.
                events[at] = replace(one, session_id=SessionId("".join(list(one.session_id))))
    return events


@given(events=disordered(), strict=st.booleans())
def test_the_batch_paths_own_loop_decides_every_disorder_as_stepping_does(
    events: list[StoredEvent], strict: bool
) -> None:
    assert_same_replay(
        fold_events(ToolProjector(), events, strict=strict),
        fold_events(STEPPING, events, strict=strict),
    )


RECORDED = [Retention.all(), Retention.every(1), Retention.every(3), Retention.every(8)]


def assert_same_replay(
    batch: Result[Replay[ToolState], ReplayError], step: Result[Replay[ToolState], ReplayError]
) -> None:
    """Both folds end alike: the same state, numbering, quarantine and error, and timelines
    that answer alike for every sequence they keep."""
    assert batch.map(lambda r: (r.state, r.last_sequence, r.quarantined)) == step.map(
        lambda r: (r.state, r.last_sequence, r.quarantined)
    )
    assert batch.map(lambda _: None).alt(str) == step.map(lambda _: None).alt(str)
    timeline = batch.map(lambda r: r.timeline).value_or(None)
    reference = step.map(lambda r: r.timeline).value_or(None)
    assert (timeline is None) == (reference is None)
    if timeline is not None and reference is not None:
        assert timeline.retained == reference.retained
        assert list(timeline.states()) == list(reference.states())
        for sequence in timeline.retained:
            assert timeline.at(sequence) == reference.at(sequence)
            if sequence > timeline.retained.start:
                assert timeline.event(sequence) is reference.event(sequence)


@given(
    events=disordered(),
    strict=st.booleans(),
    retention=st.sampled_from(RECORDED),
    slice_size=st.integers(1, 9),
)
def test_a_recorded_fold_on_the_batch_path_keeps_the_timeline_stepping_keeps(
    events: list[StoredEvent], strict: bool, retention: Retention, slice_size: int
) -> None:
    # Recording a timeline, the fold runs the batch path's loop a slice at a time,
    # none past the next checkpoint, and takes the rest of a slice itself after a
    # stop. Slices as small as one event put stops and checkpoints everywhere.
    with patch.object(batching_module, "SLICE", slice_size):
        batch = fold_events(ToolProjector(), events, strict=strict, retention=retention)
    step = fold_events(STEPPING, events, strict=strict, retention=retention)
    assert_same_replay(batch, step)


@given(
    before=sessions(max_size=30),
    after=sessions(max_size=40, clock_skew=True),
    strict=st.booleans(),
    retention=st.sampled_from([None, *RECORDED]),
)
def test_a_fold_resumed_on_the_batch_path_decides_as_one_that_steps(
    before: list[StoredEvent],
    after: list[StoredEvent],
    strict: bool,
    retention: Retention | None,
) -> None:
    # Resumed, the batch path's loop meets invocations the starting state holds:
    # ended ones, open ones to carry on, ids requested a second time.
    head = fold_events(STEPPING, before, strict=False).unwrap()
    tail = [replace(event, sequence=event.sequence + head.last_sequence) for event in after]
    batch = fold_events(
        ToolProjector(),
        tail,
        strict=strict,
        initial=head.state,
        after=head.last_sequence,
        retention=retention,
    )
    step = fold_events(
        STEPPING,
        tail,
        strict=strict,
        initial=head.state,
        after=head.last_sequence,
        retention=retention,
    )
    assert_same_replay(batch, step)


def test_many_open_invocations_recycle_rows_and_end_in_request_order() -> None:
    ids = [f"inv-{n}" for n in range(300)]
    payloads: list[object] = [requested(i) for i in ids]
    payloads += [started(i) for i in ids]
    endings = [completed, failed, rejected]
    payloads += [endings[n % 3](i) for n, i in enumerate(reversed(ids))]
    events = stored(payloads)
    for commits in (set(), {299, 599}, set(range(0, 900, 7))):
        final, refusals, _ = built(ToolState.empty(), events, commits)
        assert refusals == [None] * 900
        assert final == stepped(ToolState.empty(), events)[0]
        assert [r.invocation_id for r in final.records()] == ids


@pytest.mark.parametrize("recoverable", [False, True])
def test_the_batch_paths_own_loop_keeps_whether_a_failure_is_recoverable(
    recoverable: bool,
) -> None:
    # Named rather than left to the random sessions above, which draw a failure
    # that cannot be recovered on the batch path's own loop only now and then.
    events = stored([requested("a"), started("a"), failed("a", recoverable=recoverable)])
    batch = fold_events(ToolProjector(), events).unwrap().state
    assert batch == fold_events(STEPPING, events).unwrap().state
    assert [r.recoverable for r in batch.records()] == [recoverable]


@pytest.mark.parametrize("every", [2, 3, 5])
def test_a_recorded_fold_snapshots_each_checkpoint_before_the_event_after_it(every: int) -> None:
    # A slice that ran one event past a checkpoint would record there the state
    # after the next event; every retained sequence must hold its own state.
    ids = [f"inv-{n}" for n in range(8)]
    events = stored([e for i in ids for e in (requested(i), started(i), completed(i))])
    retention = Retention.every(every)
    batch = fold_events(ToolProjector(), events, retention=retention).unwrap().timeline
    step = fold_events(STEPPING, events, retention=retention).unwrap().timeline
    assert batch is not None and step is not None
    assert list(batch.states()) == list(step.states())
    for sequence in step.retained:
        assert batch.at(sequence) == step.at(sequence)


# -- the shared index under branching ----------------------------------------------


class BranchingMachine(RuleBasedStateMachine):
    """Versions of a state branch freely; each keeps its own records and finds exactly them."""

    def __init__(self) -> None:
        super().__init__()
        self.versions: list[tuple[ToolState, list[str]]] = [(ToolState.empty(), [])]
        self.sequence = 0

    def event(self, payload: object) -> StoredEvent:
        self.sequence += 1
        return StoredEvent(
            session_id="s",  # type: ignore[arg-type]
            sequence=self.sequence,
            recorded_at=EPOCH + timedelta(seconds=self.sequence),
            event=payload,
        )

    @rule(data=st.data(), name=st.sampled_from([f"id-{n}" for n in range(12)]))
    def request_on_any_version(self, data: st.DataObject, name: str) -> None:
        state, ids = data.draw(st.sampled_from(self.versions))
        result = REDUCER.reduce(state, self.event(requested(name)))
        if name in ids:
            assert result.failure().kind.value == "duplicate invocation"
        else:
            self.versions.append((result.unwrap(), [*ids, name]))

    @rule(
        data=st.data(), names=st.lists(st.sampled_from([f"id-{n}" for n in range(12)]), max_size=6)
    )
    def batch_on_any_version(self, data: st.DataObject, names: list[str]) -> None:
        state, ids = data.draw(st.sampled_from(self.versions))
        builder = ToolStateBuilder(state)
        model = list(ids)
        for name in names:
            refused = builder.apply(self.event(requested(name)))
            assert (refused is not None) == (name in model)
            if refused is None:
                model.append(name)
        self.versions.append((builder.state(), model))

    @invariant()
    def every_version_finds_exactly_its_own_records(self) -> None:
        for state, ids in self.versions:
            assert [r.invocation_id for r in state.records()] == ids
            for position, name in enumerate(ids):
                assert state.position(name) == position
                assert state.get(InvocationId(name)).unwrap().invocation_id == name
            for name in (f"id-{n}" for n in range(12)):
                if name not in ids:
                    assert state.position(name) is None
                    assert name not in state


BranchingMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=30)
TestBranching = BranchingMachine.TestCase


def test_threads_branching_from_one_state_each_see_their_own_ids() -> None:
    base = ToolState.empty()
    for name in ("a", "b"):
        base = REDUCER.reduce(base, stored([requested(name)])[0]).unwrap()
    results: dict[int, ToolState] = {}
    barrier = threading.Barrier(8)

    def branch(number: int) -> None:
        barrier.wait()
        state = base
        for step in range(50):
            event = stored([requested(f"t{number}-{step}")], start=3 + step)[0]
            state = REDUCER.reduce(state, event).unwrap()
        results[number] = state

    threads = [threading.Thread(target=branch, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for number, state in results.items():
        assert len(state) == 52
        for step in range(50):
            assert state.position(f"t{number}-{step}") == 2 + step
            other = (number + 1) % 8
            assert state.position(f"t{other}-{step}") is None
