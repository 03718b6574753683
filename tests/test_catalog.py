"""The catalog's rules: a session's facts and activity folded in any number of pieces are
the same as folded at once (a store moves them on with each append); the usage report's
rows add up to its total, whatever they are grouped by; and the 5-hour blocks follow
ccusage's rule, checked against a plain reading of that rule over the usages one by one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from correx_tools.core.catalog.activity import Activity, Window, quarter_of, quarter_start
from correx_tools.core.catalog.facts import SessionFacts
from correx_tools.core.catalog.listing import CallCounts, Listed, SessionQuery, picks
from correx_tools.core.catalog.usage import BY, usage_rows
from correx_tools.core.lifecycle.conversation import (
    AssistantText,
    Prompt,
    TokenUsage,
    Usage,
    conversation_event,
)
from correx_tools.core.lifecycle.description import About, description_event
from correx_tools.core.lifecycle.events import StoredEvent
from correx_tools.core.replay.pricing import Price, PriceTable

from .strategies import EPOCH, stored, tool_events

MODELS = ("claude-a", "claude-b", None)
PRICES = PriceTable(
    models={"claude-a": Price(input=Decimal(3), output=Decimal(15), cache_read=Decimal("0.3"),
                              cache_write=Decimal(4))}
)  # fmt: skip
counts = st.integers(0, 5_000)
usages = st.builds(
    lambda i, o, r, w, model: conversation_event(
        Usage(usage=TokenUsage(input=i, output=o, cache_read=r, cache_write=w), model=model)
    ),
    counts, counts, counts, counts, st.sampled_from(MODELS),
)  # fmt: skip
said = st.one_of(
    st.builds(lambda t: conversation_event(Prompt(text=t)), st.text(max_size=20)),
    st.builds(
        lambda t, m: conversation_event(AssistantText(text=t, model=m)),
        st.text(max_size=10),
        st.sampled_from(MODELS),
    ),
    usages,
)


@st.composite
def sessions(draw: st.DrawFn) -> list[StoredEvent]:
    """A session, perhaps imported (a description first), of tool and conversation events
    hours apart or close together."""
    events: list[object] = draw(st.lists(st.one_of(tool_events(), said), max_size=30))
    if draw(st.booleans()):
        times = draw(st.booleans())
        events.insert(0, description_event("claude-code", About(cwd="/p"),
                                           times_recorded=times))  # fmt: skip
    steps = draw(st.lists(st.integers(0, 4 * 3600), min_size=len(events), max_size=len(events)))
    moments, now = [], 0
    for step in steps:
        now += step
        moments.append(now)
    return stored(events, times=moments)


@given(sessions(), st.lists(st.integers(0, 30), max_size=4))
def test_facts_and_activity_folded_in_pieces_are_folded_at_once(
    events: list[StoredEvent], cuts: list[int]
) -> None:
    whole = SessionFacts().taking(events)
    whole_activity = Activity().taking(events, times_recorded=whole.times_recorded)
    facts, activity, start = SessionFacts(), Activity(), 0
    for cut in [*sorted(cuts), len(events)]:
        piece = events[start : max(start, cut)]
        facts = facts.taking(piece)
        activity = activity.taking(piece, times_recorded=facts.times_recorded)
        start = max(start, cut)
    assert facts == whole
    assert activity == whole_activity


@given(sessions())
def test_the_activity_counts_every_call_and_token_of_the_session(events: list[StoredEvent]) -> None:
    facts = SessionFacts().taking(events)
    activity = Activity().taking(events, times_recorded=facts.times_recorded)
    windows = list(activity.windows.values())
    assert sum(w.calls for w in windows) == sum(
        1 for s in events if type(s.event).__name__ == "ToolInvocationRequestedEvent"
    )
    tokens = sum((w.tokens for w in windows), TokenUsage())
    assert (tokens if any(w.messages for w in windows) else None) == facts.tokens
    for (quarter, _), window in activity.windows.items():
        if quarter is None:
            assert not facts.times_recorded
            continue
        for moment in (window.first_at, window.last_at):
            assert moment is None or quarter_of(moment) == quarter


def _entries(all_events: list[list[StoredEvent]]) -> list[tuple[Listed, int | None, str | None,
                                                                 Window]]:  # fmt: skip
    found = []
    for number, events in enumerate(all_events):
        renamed = [StoredEvent(session_id=f"s{number}", sequence=e.sequence,
                               recorded_at=e.recorded_at + timedelta(hours=number), event=e.event)
                   for e in events]  # fmt: skip
        facts = SessionFacts().taking(renamed)
        listed = Listed(session_id=f"s{number}", facts=facts, counts=CallCounts(),
                        machine=f"m{number % 2}")  # fmt: skip
        activity = Activity().taking(renamed, times_recorded=facts.times_recorded)
        found += [(listed, q, m, w) for (q, m), w in activity.windows.items()]
    return found


@given(st.lists(sessions(), max_size=4), st.sampled_from(BY))
def test_the_rows_add_up_to_the_total_whatever_they_are_grouped_by(
    all_events: list[list[StoredEvent]], by: str
) -> None:
    rows, total = usage_rows(_entries(all_events), by, local=lambda t: t, prices=PRICES)  # type: ignore[arg-type]
    assert sum((r.tokens for r in rows), TokenUsage()) == total.tokens
    assert sum(r.calls for r in rows) == total.calls
    assert sum(r.unpriced_tokens for r in rows) == total.unpriced_tokens
    assert sum((r.cost or Decimal(0)) for r in rows) == (total.cost or Decimal(0))
    assert max((r.sessions for r in rows), default=0) <= total.sessions
    assert len({r.key for r in rows}) == len(rows)


def _blocks_one_by_one(moments: list[datetime]) -> list[datetime]:
    """ccusage's rule read plainly: each usage in time order starts a block at its whole
    hour when it is more than five hours after the block's start or after the usage before."""
    starts: list[datetime] = []
    last: datetime | None = None
    span = timedelta(hours=5)
    for moment in sorted(moments):
        if not starts or last is None or moment - starts[-1] > span or moment - last > span:
            starts.append(moment.replace(minute=0, second=0, microsecond=0))
        last = moment
    return starts


@given(st.lists(st.integers(0, 40 * 3600 * 1000), min_size=1, max_size=40))
def test_blocks_are_ccusages_blocks(offsets: list[int]) -> None:
    moments = [EPOCH + timedelta(milliseconds=ms) for ms in offsets]
    # Never exactly on a block's end: there the windows differ by design (docstring).
    starts = _blocks_one_by_one(moments)
    if any(m == s + timedelta(hours=5) for m in moments for s in starts):
        return
    events = [conversation_event(Usage(usage=TokenUsage(output=1), model="claude-a"))
              for _ in moments]  # fmt: skip
    session = [StoredEvent(session_id="s", sequence=n + 1, recorded_at=m, event=e)
               for n, (m, e) in enumerate(zip(sorted(moments), events, strict=True))]  # fmt: skip
    listed = Listed(session_id="s", facts=SessionFacts().taking(session), counts=CallCounts())
    activity = Activity().taking(session, times_recorded=True)
    entries = [(listed, q, m, w) for (q, m), w in activity.windows.items()]
    rows, _ = usage_rows(entries, "block", local=lambda t: t, prices=PRICES)
    assert [r.key for r in rows] == [s.strftime("%Y-%m-%d %H:%M") for s in starts]
    per_block = [sum(1 for m in moments if s <= m and (n + 1 == len(starts) or m < starts[n + 1]))
                 for n, s in enumerate(starts)]  # fmt: skip
    assert [r.tokens.output for r in rows] == per_block


def test_days_are_counted_in_the_zone_asked_for() -> None:
    at = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)
    event = conversation_event(Usage(usage=TokenUsage(output=7), model="claude-a"))
    session = [StoredEvent(session_id="s", sequence=1, recorded_at=at, event=event)]
    listed = Listed(session_id="s", facts=SessionFacts().taking(session), counts=CallCounts())
    entries = [(listed, q, m, w) for (q, m), w in
               Activity().taking(session, times_recorded=True).windows.items()]  # fmt: skip
    utc, _ = usage_rows(entries, "day", local=lambda t: t, prices=PRICES)
    east, _ = usage_rows(entries, "day", local=lambda t: t + timedelta(hours=5, minutes=30),
                         prices=PRICES)  # fmt: skip
    assert [r.key for r in utc] == ["2026-12-01"]
    assert [r.key for r in east] == ["2026-12-02"]
    assert quarter_start(quarter_of(at)) == datetime(2026, 12, 1, 23, 30, tzinfo=UTC)


def test_a_model_with_no_price_is_unpriced_never_free() -> None:
    event = conversation_event(Usage(usage=TokenUsage(output=1_000_000), model="claude-b"))
    session = [StoredEvent(session_id="s", sequence=1, recorded_at=EPOCH, event=event)]
    listed = Listed(session_id="s", facts=SessionFacts().taking(session), counts=CallCounts())
    entries = [(listed, q, m, w) for (q, m), w in
               Activity().taking(session, times_recorded=True).windows.items()]  # fmt: skip
    rows, total = usage_rows(entries, "model", local=lambda t: t, prices=PRICES)
    assert [(r.key, r.cost, r.unpriced_tokens) for r in rows] == [("claude-b", None, 1_000_000)]
    assert total.cost is None


def test_a_query_picks_by_each_of_its_fields() -> None:
    at = datetime(2026, 12, 1, 10, tzinfo=UTC)
    events = stored([description_event("codex", About(cwd="/home/a/Shop")),
                     conversation_event(AssistantText(text="hi", model="gpt-5"))])  # fmt: skip
    events = [StoredEvent(session_id="s", sequence=e.sequence, recorded_at=at, event=e.event)
              for e in events]  # fmt: skip
    listed = Listed(session_id="s", facts=SessionFacts().taking(events),
                    counts=CallCounts(exited_nonzero=1), machine="m1")  # fmt: skip
    every = SessionQuery(agent="Codex", project="shop", model="GPT", failed=True, machine="m1",
                         since=at, until=at + timedelta(seconds=1))  # fmt: skip
    assert picks(listed, every)
    for miss in (SessionQuery(agent="aider"), SessionQuery(project="cart"),
                 SessionQuery(model="claude"), SessionQuery(since=at + timedelta(seconds=1)),
                 SessionQuery(until=at), SessionQuery(machine="m2")):  # fmt: skip
        assert not picks(listed, miss)
