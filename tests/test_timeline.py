"""Time travel: every retention policy answers like a fresh fold of the prefix."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.maybe import Nothing, Some
from returns.result import Failure, Result, Success

from correx_tools import (
    InvocationId,
    RecordChange,
    Retention,
    StoredEvent,
    ToolInvocationStatus,
    ToolProjector,
    ToolState,
    fold_events,
)

from .strategies import completed, failed, requested, sessions, started, stored

projector = ToolProjector()
POLICIES = [
    Retention.all(),
    Retention.every(1),
    Retention.every(3),
    Retention.every(7),
    Retention.last(1),
    Retention.last(5),
]


def timeline_of(events: list[StoredEvent], retention: Retention):  # type: ignore[no-untyped-def]
    return fold_events(projector, events, strict=False, retention=retention).unwrap().timeline


@pytest.mark.parametrize("retention", POLICIES, ids=repr)
@given(events=sessions())
def test_at_k_equals_folding_the_first_k_events(
    retention: Retention, events: list[StoredEvent]
) -> None:
    timeline = timeline_of(events, retention)
    assert len(timeline) == len(events)
    for k in timeline.retained:
        expected = fold_events(projector, events[:k], strict=False).unwrap().state
        assert timeline.at(k) == expected
        if k > 0:
            assert timeline.event(k) == events[k - 1]
    assert timeline.at(len(events)) == fold_events(projector, events, strict=False).unwrap().state


@pytest.mark.parametrize("retention", POLICIES, ids=repr)
@given(events=sessions())
def test_states_walks_exactly_the_retained_range(
    retention: Retention, events: list[StoredEvent]
) -> None:
    timeline = timeline_of(events, retention)
    walked = list(timeline.states())
    assert [sequence for sequence, _ in walked] == list(timeline.retained)
    for sequence, state in walked:
        assert state == timeline.at(sequence)


def test_last_n_keeps_only_the_last_n_states() -> None:
    events = stored([requested("a"), started("a"), completed("a"), requested("b")])
    timeline = timeline_of(events, Retention.last(2))
    assert timeline.retained == range(3, 5)
    with pytest.raises(IndexError, match=r"outside the retained range 3\.\.4"):
        timeline.at(2)
    with pytest.raises(IndexError, match="outside the retained range"):
        timeline.event(1)


def test_out_of_range_sequences_name_the_range() -> None:
    timeline = timeline_of(stored([requested("a")]), Retention.all())
    with pytest.raises(IndexError, match=r"sequence 2 is outside the retained range 0\.\.1"):
        timeline.at(2)
    with pytest.raises(IndexError, match="sequence -1"):
        timeline.at(-1)


class Forgetful:
    """A projection that applies each event once and refuses it when asked again."""

    def __init__(self) -> None:
        self.seen: set[int] = set()

    def initial(self) -> int:
        return 0

    def apply(self, state: int, stored_event: StoredEvent) -> Result[int, str]:
        if stored_event.sequence in self.seen:
            return Failure("seen it already")
        self.seen.add(stored_event.sequence)
        return Success(state + 1)


def test_a_refold_refusing_what_the_replay_applied_names_the_sequence() -> None:
    events = stored([requested("a"), started("a"), completed("a")])
    # The batch path re-folds a tool state; a timeline's events never change,
    # so only a broken copy of them can make it refuse one.
    timeline = timeline_of(events, Retention.every(3))
    timeline._events[1] = stored([requested("a"), started("b")])[1]
    with pytest.raises(AssertionError, match="not deterministic: sequence 2 applied"):
        timeline.at(2)
    # Any other projection steps; one that changes its mind is named the same way.
    forgetful = fold_events(Forgetful(), events, retention=Retention.every(3)).unwrap()
    assert forgetful.state == 3
    with pytest.raises(AssertionError, match="not deterministic: sequence 1 applied"):
        forgetful.timeline.at(2)


def session_with_a_failure() -> list[StoredEvent]:
    return stored(
        [
            requested("a"),
            started("a"),
            completed("a"),
            requested("b"),
            started("b"),
            failed("b", "exit 1"),
            {"note": "user message"},
        ]
    )


@pytest.mark.parametrize(
    "retention", [Retention.all(), Retention.every(4), Retention.last(8)], ids=repr
)
def test_history_lists_each_version_with_its_sequence(retention: Retention) -> None:
    timeline = timeline_of(session_with_a_failure(), retention)
    history = timeline.history(InvocationId("b"))
    assert [(sequence, record.status) for sequence, record in history] == [
        (4, ToolInvocationStatus.REQUESTED),
        (5, ToolInvocationStatus.STARTED),
        (6, ToolInvocationStatus.FAILED),
    ]
    assert timeline.history(InvocationId("nope")) == ()


def test_history_starts_at_the_first_retained_state_for_last_n() -> None:
    timeline = timeline_of(session_with_a_failure(), Retention.last(3))
    assert [s for s, _ in timeline.history(InvocationId("b"))] == [5, 6]


def test_diff_lists_added_and_changed_records_only() -> None:
    timeline = timeline_of(session_with_a_failure(), Retention.all())
    changes = timeline.diff(2, 5)
    assert [(c.invocation_id, c.before and c.before.status, c.after.status) for c in changes] == [
        ("a", ToolInvocationStatus.STARTED, ToolInvocationStatus.COMPLETED),
        ("b", None, ToolInvocationStatus.STARTED),
    ]
    assert all(isinstance(c, RecordChange) for c in changes)
    assert timeline.diff(6, 7) == ()
    assert timeline.diff(3, 3) == ()
    with pytest.raises(ValueError, match="after"):
        timeline.diff(5, 2)


def test_first_finds_the_earliest_matching_sequence() -> None:
    timeline = timeline_of(session_with_a_failure(), Retention.every(4))

    def has_failure(state: ToolState) -> bool:
        return any(r.status is ToolInvocationStatus.FAILED for r in state.records())

    assert timeline.first(has_failure) == Some(6)
    assert timeline.first(lambda state: len(state) == 0) == Some(0)
    assert timeline.first(lambda state: len(state) > 5) == Nothing


@given(events=sessions(), data=st.data())
def test_diff_agrees_with_comparing_records(events: list[StoredEvent], data: st.DataObject) -> None:
    timeline = timeline_of(events, Retention.every(5))
    a = data.draw(st.integers(0, len(events)))
    b = data.draw(st.integers(a, len(events)))
    before = {r.invocation_id: r for r in timeline.at(a).records()}
    after = {r.invocation_id: r for r in timeline.at(b).records()}
    expected = [key for key in after if before.get(key) != after[key]]
    assert [c.invocation_id for c in timeline.diff(a, b)] == expected


def test_a_resumed_fold_has_a_timeline_from_its_start() -> None:
    events = stored([requested("a"), started("a"), completed("a")])
    head = fold_events(projector, events[:1]).unwrap()
    timeline = (
        fold_events(projector, events[1:], initial=head.state, after=1, retention=Retention.all())
        .unwrap()
        .timeline
    )
    assert timeline.retained == range(1, 4)
    assert timeline.at(1) == head.state
