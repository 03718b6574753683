"""fold_events: numbering, strict and lenient modes, resuming, and its laws."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    InvocationId,
    ReplayError,
    SequenceError,
    SequenceErrorKind,
    StoredEvent,
    ToolInvocationStatus,
    ToolProjector,
    TransitionError,
    TransitionErrorKind,
    fold_events,
)

from .strategies import completed, requested, sessions, started, stored

projector = ToolProjector()


def fold_lenient(events: list[StoredEvent]) -> object:
    return fold_events(projector, events, strict=False).unwrap()


def test_an_empty_stream_folds_to_the_initial_state() -> None:
    replay = fold_events(projector, []).unwrap()
    assert len(replay.state) == 0
    assert replay.last_sequence == 0
    assert replay.quarantined == ()
    assert replay.timeline is None


def test_strict_mode_stops_at_the_first_refused_event() -> None:
    events = stored([requested("a"), started("b"), started("a")])
    error = fold_events(projector, events).failure()
    assert isinstance(error, ReplayError)
    assert error.sequence == 2
    assert isinstance(error.cause, TransitionError)
    assert error.cause.kind is TransitionErrorKind.UNKNOWN_INVOCATION
    assert error.message.startswith("sequence 2: ")
    assert error.message.count("sequence 2") == 1


def test_lenient_mode_quarantines_and_goes_on() -> None:
    events = stored([requested("a"), started("b"), started("a"), completed("a")])
    replay = fold_events(projector, events, strict=False).unwrap()
    assert replay.last_sequence == 4
    assert [(e.sequence, err.kind) for e, err in replay.quarantined] == [
        (2, TransitionErrorKind.UNKNOWN_INVOCATION)
    ]
    assert replay.state.get(InvocationId("a")).unwrap().status is ToolInvocationStatus.COMPLETED


def test_an_exact_redelivery_is_skipped() -> None:
    events = stored([requested("a"), started("a")])
    replay = fold_events(projector, [events[0], events[0], events[1], events[1]]).unwrap()
    assert replay.last_sequence == 2
    assert replay.state.get(InvocationId("a")).unwrap().status is ToolInvocationStatus.STARTED


def test_a_redelivery_with_another_body_is_an_error_in_both_modes() -> None:
    first, second = stored([requested("a"), started("a")])
    changed = stored([requested("b")])[0]
    for strict in (True, False):
        error = fold_events(projector, [first, changed], strict=strict).failure()
        assert isinstance(error.cause, SequenceError)
        assert error.cause.kind is SequenceErrorKind.STALE
        assert error.sequence == 1
    del second


def test_a_gap_is_an_error_naming_the_sequences_in_both_modes() -> None:
    events = stored([requested("a"), started("a"), completed("a")])
    for strict in (True, False):
        error = fold_events(projector, [events[0], events[2]], strict=strict).failure()
        assert isinstance(error.cause, SequenceError)
        assert error.cause.kind is SequenceErrorKind.GAP
        assert (error.cause.expected, error.cause.got) == (2, 3)
        assert "expected sequence 2, got 3" in error.message


def test_streams_must_start_at_one() -> None:
    error = fold_events(projector, stored([requested("a")], start=2)).failure()
    assert error.cause.kind is SequenceErrorKind.GAP


def test_an_out_of_order_event_is_an_error_never_resorted() -> None:
    events = stored([requested("a"), started("a"), completed("a")])
    error = fold_events(projector, [events[0], events[1], events[0]], strict=False).failure()
    assert error.cause.kind is SequenceErrorKind.STALE
    assert error.sequence == 1


def test_events_of_another_session_are_refused() -> None:
    first = stored([requested("a")])[0]
    other = stored([started("a")], start=2, session="other")[0]
    error = fold_events(projector, [first, other]).failure()
    assert error.cause.kind is SequenceErrorKind.SESSION_MISMATCH


def test_resume_from_a_state_continues_after_its_sequence() -> None:
    events = stored([requested("a"), started("a"), completed("a")])
    head = fold_events(projector, events[:1]).unwrap()
    tail = fold_events(projector, events[1:], initial=head.state, after=1).unwrap()
    assert tail.state == fold_events(projector, events).unwrap().state
    assert (
        fold_events(projector, events, initial=head.state, after=1).failure().cause.kind
        is SequenceErrorKind.STALE
    )


@given(sessions(), st.data())
def test_folding_a_then_b_equals_folding_b_from_the_state_after_a(
    events: list[StoredEvent], data: st.DataObject
) -> None:
    cut = data.draw(st.integers(0, len(events)))
    whole = fold_lenient(events)
    first = fold_lenient(events[:cut])
    second = fold_events(
        projector, events[cut:], strict=False, initial=first.state, after=first.last_sequence
    ).unwrap()
    assert second.state == whole.state
    assert second.last_sequence == whole.last_sequence
    assert first.quarantined + second.quarantined == whole.quarantined


@given(sessions())
def test_strict_succeeds_exactly_when_lenient_quarantines_nothing(
    events: list[StoredEvent],
) -> None:
    lenient = fold_lenient(events)
    strict = fold_events(projector, events)
    if lenient.quarantined:
        assert strict.failure().sequence == lenient.quarantined[0][0].sequence
    else:
        assert strict.unwrap().state == lenient.state


@given(sessions())
def test_the_fold_does_not_modify_its_inputs(events: list[StoredEvent]) -> None:
    snapshot = copy.deepcopy(events)
    fold_lenient(events)
    assert events == snapshot


@given(sessions())
def test_the_fast_step_gives_exactly_what_apply_gives(events: list[StoredEvent]) -> None:
    state = projector.initial()
    for event in events:
        slow = projector.apply(state, event)
        fast = projector.step(state, event)
        if isinstance(fast, TransitionError):
            assert slow.failure() == fast
        else:
            assert slow.unwrap() == fast
            state = fast
