"""A session's tokens read from a store, and as the documents show them: in all, by turn
and by call (`correx_tools.core.replay.spending` has the rules).

The commands and the server read the tokens of a session imported from a transcript
(its first event describes where it came from) and of one that holds any
conversation event (a session recorded with `SessionRecorder.say`: one probe of a
SQL store's conversation index tells), and say ``"tokens": null`` of any other.
Reading the tokens reads the session's events once, up to the sequence asked about.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, final

from ...core.lifecycle.conversation import (
    AssistantText,
    Prompt,
    Reasoning,
    TokenUsage,
    Usage,
    conversation_of,
)
from ...core.lifecycle.description import description_of
from ...core.replay.pricing import Cost, PriceTable, cost_of
from ...core.replay.spending import Spending, Spent, Turn, spending
from ...core.replay.talk_summary import cut_title, first_line
from ...core.report.redaction import Redaction
from ...core.tools.ids import SessionId
from ..stores.codec.envelope import iso_time
from ..stores.port import EventStore, session_events
from ..stores.said import holds_conversation

_MILLIONTH = Decimal("0.000001")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Talked:
    """A session's `Spending` through sequence ``at``, with each turn's title (its prompt's
    first line, whole: masked before it is cut), the times of each turn's first and last
    events, and how many of its events are the conversation's (``said``: 0 for a session
    imported without it)."""

    at: int
    spending: Spending
    titles: dict[int, str]
    times: dict[int, datetime]
    said: int = 0
    kinds: bytearray = field(default_factory=bytearray)
    """Each event's kind of conversation, by sequence (`SAID_KINDS`; 0: none)."""

    def kind_of(self, sequence: int) -> str | None:
        """What the event at ``sequence`` says, if it is the conversation's or the session's
        description: ``prompt``, ``said``, ``reasoning``, ``tokens`` or ``described``."""
        code = self.kinds[sequence] if 0 <= sequence < len(self.kinds) else 0
        return SAID_KINDS[code] if code else None


SAID_KINDS = (None, "prompt", "said", "reasoning", "tokens", "described")
"""The kinds of the events that are not a call's, as `Talked.kinds` codes them."""
_CODES = {Prompt: 1, AssistantText: 2, Reasoning: 3, Usage: 4}


def talked(store: EventStore, session: SessionId, at: int) -> Talked:
    """The session's tokens through ``at``."""
    titles: dict[int, str] = {}
    times: dict[int, datetime] = {}
    kinds = bytearray(at + 1)
    said_count = 0
    with session_events(store, session) as events:

        def walked() -> Iterator[tuple[int, object]]:
            for stored in events:
                if stored.sequence > at:
                    return
                times[stored.sequence] = stored.recorded_at
                said = conversation_of(stored.event)
                if said is not None:
                    nonlocal said_count
                    said_count += 1
                    kinds[stored.sequence] = _CODES.get(type(said), 0)
                elif stored.sequence == 1 and description_of(stored.event) is not None:
                    kinds[1] = 5
                if isinstance(said, Prompt):
                    titles[stored.sequence] = first_line(said.text)
                yield stored.sequence, stored.event

        found = spending(walked())
    ends = {n for turn in found.turns for n in (turn.first, turn.last)}
    return Talked(at=at, spending=found, titles=titles, said=said_count, kinds=kinds,
                  times={n: t for n, t in times.items() if n in ends})  # fmt: skip


def talked_if_any(
    store: EventStore, session: SessionId, at: int, *, imported: bool
) -> Talked | None:
    """`talked` for an ``imported`` session or one that holds a conversation; ``None`` for
    any other, which is not read whole to find that out."""
    if not imported and not holds_conversation(store, session):
        return None
    return talked(store, session, at)


def usage_json(usage: TokenUsage) -> dict[str, int]:
    """Four counts and their total."""
    return {
        "input": usage.input,
        "output": usage.output,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "total": usage.total,
    }


def spent_json(
    spent: Spent | None, redaction: Redaction | None = None, prices: PriceTable | None = None
) -> dict[str, Any] | None:
    """Tokens as a document shows them: the counts, by model, and (with ``prices``) their
    ``cost``; ``None`` for none recorded."""
    if spent is None:
        return None
    shown: dict[str, Any] = {
        **usage_json(spent.total),
        "by_model": [
            {"model": _shown(model, redaction), **usage_json(usage)}
            for model, usage in spent.by_model
        ],
    }
    if prices is not None:
        shown["cost"] = cost_json(cost_of(spent, prices), redaction)
    return shown


def cost_json(cost: Cost | None, redaction: Redaction | None = None) -> dict[str, Any] | None:
    """A cost: ``usd`` (to the millionth of a dollar), or ``null`` with the models that have
    no price (``unpriced``) and a ``note`` saying so."""
    if cost is None:
        return None
    unpriced = [_shown(model, redaction) or "" for model in cost.unpriced]
    return {
        "usd": None if cost.amount is None else _to_millionth(cost.amount),
        "unpriced": unpriced,
        "note": no_price(unpriced),
    }


def _to_millionth(amount: Decimal) -> float:
    """``amount`` to the millionth of a dollar; one past a Decimal's 28 digits as it is (a
    transcript's counts are any whole numbers, and a quantize past them raises; a float
    does not hold the millionths of so large a number anyway)."""
    if amount.adjusted() >= 28 - 7:
        return float(amount)
    return float(amount.quantize(_MILLIONTH))


def no_price(models: list[str]) -> str | None:
    """What a cost says of the models without a price: ``no price for MODEL``."""
    return f"no price for {', '.join(models)}" if models else None


def prices_json(prices: PriceTable) -> dict[str, Any]:
    """Where the prices come from and when they were read."""
    return {"sources": list(prices.sources), "read": prices.read}


def turn_json(
    turn: Turn,
    talk: Talked,
    redaction: Redaction | None = None,
    prices: PriceTable | None = None,
    *,
    times: bool = True,
) -> dict[str, Any]:
    """One turn: its number, prompt (sequence and title), span, calls and tokens (``times``
    false: the session records none, and its turn's times are ``null``)."""
    title = None if turn.prompt is None else talk.titles.get(turn.prompt)
    first, last = (talk.times.get(turn.first), talk.times.get(turn.last)) if times else (None, None)
    return {
        "turn": turn.number,
        "prompt_sequence": turn.prompt,
        "title": None if title is None else cut_title(_shown(title, redaction) or ""),
        "first": turn.first,
        "last": turn.last,
        "first_time": iso_time(first),
        "last_time": iso_time(last),
        "calls": turn.calls,
        "tokens": spent_json(turn.spent, redaction, prices),
    }


def tokens_json(
    talk: Talked | None,
    redaction: Redaction | None = None,
    prices: PriceTable | None = None,
    *,
    times: bool = True,
) -> dict[str, Any] | None:
    """A session's tokens: in all, by turn, by call (each call's share) and what no call
    was reached by, each with its cost at ``prices``; ``None`` for a session that holds no
    conversation (``times`` false: it records no time, and no turn's time is given)."""
    if talk is None:
        return None
    found = talk.spending
    document = {
        "recorded": found.spent is not None,
        "said": talk.said,
        "total": spent_json(found.spent, redaction, prices),
        "turns": [turn_json(turn, talk, redaction, prices, times=times) for turn in found.turns],
        "calls": [
            {
                "invocation_id": _shown(invocation, redaction),
                "tokens": spent_json(spent, redaction, prices),
            }
            for invocation, spent in found.calls.items()
        ],
        "unattributed": spent_json(found.unattributed, redaction, prices),
    }
    if prices is not None:
        document["prices"] = prices_json(prices)
    return document


def call_spent_json(
    talk: Talked | None,
    invocation: str,
    redaction: Redaction | None = None,
    prices: PriceTable | None = None,
) -> dict[str, Any] | None:
    """A call's share of its message's tokens, as its history shows it (``spent``):
    ``recorded`` false where the session records no usage (``said`` 0: it holds no
    conversation at all), ``tokens`` null where none reached the call; ``None`` for a
    session not imported."""
    if talk is None:
        return None
    return {
        "recorded": talk.spending.spent is not None,
        "said": talk.said,
        "tokens": spent_json(talk.spending.calls.get(invocation), redaction, prices),
    }


def _shown(text: str | None, redaction: Redaction | None) -> str | None:
    return text if text is None or redaction is None else redaction.text(text)
