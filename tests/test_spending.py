"""What tokens went to: the session, each turn and each call, by the rule in
`correx_tools.core.replay.spending`, held on every stream of events and on real
transcripts' own usage records."""

from __future__ import annotations

import itertools
import json

from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    AssistantText,
    InMemoryEventStore,
    Prompt,
    TokenUsage,
    Usage,
    conversation_event,
    import_transcript,
)
from correx_tools.core.replay.spending import Spent, spending
from correx_tools.core.replay.talk_summary import TalkSummary

from .strategies import requested
from .transcript_samples import DATA

counts = st.integers(min_value=0, max_value=10**7)
usages = st.builds(TokenUsage, input=counts, output=counts, cache_read=counts, cache_write=counts)
models = st.sampled_from([None, "claude-opus-4-6", "gpt-5.1-codex"])
said = st.one_of(
    st.builds(lambda t: conversation_event(Prompt(text=t)), st.text(max_size=5)),
    st.builds(lambda t: conversation_event(AssistantText(text=t)), st.text(max_size=5)),
    st.builds(
        lambda u, m, i: conversation_event(Usage(usage=u, model=m, message_id=i)),
        usages,
        models,
        st.one_of(st.none(), st.text(min_size=1, max_size=3)),
    ),
    st.just("call"),
)


def numbered(kinds: list[object]) -> list[tuple[int, object]]:
    events: list[tuple[int, object]] = []
    for n, kind in enumerate(kinds, start=1):
        events.append((n, requested(f"call-{n}") if kind == "call" else kind))
    return events


def total(spent: list[Spent | None]) -> TokenUsage:
    whole = TokenUsage()
    for one in spent:
        if one is not None:
            whole = whole + one.total
    return whole


@given(st.lists(said, max_size=40))
def test_turns_and_calls_add_up_to_the_session_exactly(kinds: list[object]) -> None:
    events = numbered(kinds)
    found = spending(events)
    usages_seen = [e for _, e in events if getattr(e, "type", "") == "conversation.usage"]
    if not usages_seen:
        assert found.spent is None and found.calls == {} and found.unattributed is None
        assert all(turn.spent is None for turn in found.turns)
        return
    assert found.spent is not None
    assert total([turn.spent for turn in found.turns]) == found.spent.total
    assert total([*found.calls.values(), found.unattributed]) == found.spent.total
    # Each turn spans its own events, in order, and counts the calls requested in it.
    assert sum(turn.calls for turn in found.turns) == kinds.count("call")
    spans = [(turn.first, turn.last) for turn in found.turns]
    assert all(a <= b for a, b in spans) and all(
        b < c for (_, b), (c, _) in itertools.pairwise(spans)
    )


def test_a_messages_usage_is_split_evenly_among_the_calls_it_made() -> None:
    def usage(message: str) -> object:
        counts = TokenUsage(input=7, output=10)
        return conversation_event(Usage(usage=counts, model="m", message_id=message))

    prompt = conversation_event(Prompt(text="p"))
    found = spending(numbered([prompt, usage("a"), "call", "call", "call", usage("b")]))
    shares = [found.calls[f"call-{n}"].total for n in (3, 4, 5)]
    assert [(s.input, s.output) for s in shares] == [(3, 4), (2, 3), (2, 3)]
    assert found.unattributed is not None and found.unattributed.total.output == 10
    # A running count (no message id) reaches the calls since the count before it.
    count = conversation_event(Usage(usage=TokenUsage(output=4)))
    later = spending(numbered(["call", count, "call", "call", count]))
    assert [later.calls[f"call-{n}"].total.output for n in (1, 3, 4)] == [4, 2, 2]


def test_the_tokens_match_a_sum_over_a_real_transcripts_own_usage_records() -> None:
    path = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
    seen: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        message = json.loads(line).get("message")
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            seen.setdefault(message["id"], message["usage"])
    own = sum(u.get("output_tokens", 0) for u in seen.values())
    store = InMemoryEventStore()
    done = import_transcript(path, store).unwrap()
    found = spending((e.sequence, e.event) for e in store.read(done.session_id))
    assert found.spent is not None and found.spent.total.output == own
    assert (
        sum(s.total.output for s in found.calls.values())
        + (found.unattributed.total.output if found.unattributed else 0)
        == own
    )


class _Compared(str):
    """A model's name that counts how often it is compared for equality."""

    compared = 0
    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        _Compared.compared += 1
        return str.__eq__(self, other)


def test_a_transcript_naming_a_model_per_message_costs_time_linear_in_its_messages() -> None:
    # A model's name is the transcript's to write (an Aider history names one before each
    # reply): the tokens by model must not be looked up in a list that grows with them.
    # Counted, not timed: a list scanned per message compares names n * n / 2 times (two
    # million for 2,000 messages); a table keyed by name compares next to none.
    n = 2000
    events = [(k, conversation_event(Usage(usage=TokenUsage(output=1), model=_Compared(f"m{k}"))))
              for k in range(1, n + 1)]  # fmt: skip
    _Compared.compared = 0
    found = spending(events)
    summary = TalkSummary().taking(event for _, event in events)
    assert found.spent is not None and len(found.spent.by_model) == n
    assert len(summary.models) == n
    assert _Compared.compared <= n, _Compared.compared
