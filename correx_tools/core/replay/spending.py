"""What a session's tokens went to: the whole session, each turn, each call.

Read from the session's events in order, one pass. The rules:

* **A turn** begins at a prompt and runs to the event before the next one; the
  events before the first prompt are turn 0 (listed only when something happened
  in it). A turn's tokens are those of the usage events within it.
* **A call's tokens** are its share of the usage of the message that asked for it.
  Transcripts place a message's usage in one of two ways, and the usage event
  says which: one with the message's own id (Claude Code: a record per message,
  its usage written before its words and calls) reaches the calls requested after
  it, up to the next usage or prompt; one without (Codex's running count: what
  was spent since the count before) reaches the calls requested since the usage
  event before it. A message that asked for several calls splits each of its four
  counts evenly among them, the tokens a division leaves over going one each to
  the first calls, so the calls' shares add up to the message's count exactly.
  Usage no call is reached by (a message of words only) counts for its turn and
  the session, and is `Spending.unattributed`.
* Nothing recorded is ``None``, never zero: a session, turn or call no usage event
  reached has no tokens, which a view says as "none recorded".

ccusage and the viewers like it count tokens per message, day and session; none
splits them among calls. The even split is the plainest rule that keeps every
total exact; the first call of a message is not charged for the others.

>>> from correx_tools.core.lifecycle.conversation import Prompt, TokenUsage, Usage
>>> from correx_tools.core.lifecycle.conversation import conversation_event as said
>>> spending([(1, said(Prompt(text="go"))),
...           (2, said(Usage(usage=TokenUsage(output=5), message_id="m")))]).turns[0].spent
Spent(by_model=((None, TokenUsage(input=0, output=5, cache_read=0, cache_write=0)),))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import final

from ..lifecycle.conversation import Prompt, TokenUsage, Usage, conversation_of
from ..lifecycle.events import ToolInvocationRequestedEvent


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Spent:
    """Tokens spent, by the model that spent them (``None``: a model not recorded), in the
    order the models were first seen."""

    by_model: tuple[tuple[str | None, TokenUsage], ...]

    @property
    def total(self) -> TokenUsage:
        """Every model's tokens together."""
        whole = TokenUsage()
        for _, usage in self.by_model:
            whole = whole + usage
        return whole

    def plus(self, model: str | None, usage: TokenUsage) -> Spent:
        """These tokens and ``usage`` more, spent by ``model``."""
        pairs = list(self.by_model)
        for n, (known, kept) in enumerate(pairs):
            if known == model:
                pairs[n] = (known, kept + usage)
                return Spent(by_model=tuple(pairs))
        return Spent(by_model=(*pairs, (model, usage)))


_Tally = dict[str | None, TokenUsage]
"""Tokens being added up, by model in the order first seen: a dict, so that a usage adds
in constant time however many models a transcript names (a `Spent` is made of it once)."""


def _add(tally: _Tally | None, model: str | None, usage: TokenUsage) -> _Tally:
    if tally is None:
        return {model: usage}
    kept = tally.get(model)
    tally[model] = usage if kept is None else kept + usage
    return tally


def _spent(tally: _Tally | None) -> Spent | None:
    return None if tally is None else Spent(by_model=tuple(tally.items()))


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    """One turn: ``number`` (0 before the first prompt), its ``prompt``'s sequence, the
    sequences it spans (``first`` to ``last``), the ``calls`` requested in it and the
    tokens ``spent`` in it (``None``: no usage recorded in it)."""

    number: int
    prompt: int | None
    first: int
    last: int
    calls: int
    spent: Spent | None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Spending:
    """A session's tokens: ``spent`` in all (``None``: no usage recorded), each turn's, each
    call's share (``calls``: by invocation id, only the calls some usage reached), and the
    usage no call was reached by (``unattributed``)."""

    spent: Spent | None
    turns: tuple[Turn, ...]
    calls: dict[str, Spent] = field(hash=False)
    unattributed: Spent | None


def spending(events: Iterable[tuple[int, object]]) -> Spending:
    """What a session's tokens went to, from its events in order, each with its sequence
    (see the module docstring for the rules)."""
    turns: list[Turn] = []
    calls: dict[str, _Tally] = {}
    total: _Tally | None = None
    unattributed: _Tally | None = None
    number, prompt, first, last, requested, turn_spent = 0, None, 0, 0, 0, None
    leading: tuple[str | None, TokenUsage, list[str]] | None = None
    since: list[str] = []  # the calls requested since the last usage event

    def share(model: str | None, usage: TokenUsage, among: list[str]) -> None:
        nonlocal unattributed
        if not among:
            unattributed = _add(unattributed, model, usage)
            return
        for n, invocation in enumerate(_split(usage, len(among))):
            calls[among[n]] = _add(calls.get(among[n]), model, invocation)

    def close_leading() -> None:
        nonlocal leading
        if leading is not None:
            share(*leading)
            leading = None

    for sequence, event in events:
        if isinstance(event, ToolInvocationRequestedEvent):
            requested += 1
            (leading[2] if leading is not None else since).append(event.invocation_id)
        else:
            said = conversation_of(event)
            if isinstance(said, Prompt):
                close_leading()
                if number or requested or turn_spent is not None:
                    turns.append(Turn(number=number, prompt=prompt, first=first, last=last,
                                      calls=requested, spent=_spent(turn_spent)))  # fmt: skip
                number, prompt, first = number + 1, sequence, sequence
                requested, turn_spent = 0, None
            elif isinstance(said, Usage):
                close_leading()
                total = _add(total, said.model, said.usage)
                turn_spent = _add(turn_spent, said.model, said.usage)
                if said.message_id is not None:
                    leading = (said.model, said.usage, [])
                else:
                    share(said.model, said.usage, since)
                since = []
        if not first:
            first = sequence
        last = sequence
    close_leading()
    if number or requested or turn_spent is not None:
        turns.append(Turn(number=number, prompt=prompt, first=first, last=last, calls=requested,
                          spent=_spent(turn_spent)))  # fmt: skip
    return Spending(
        spent=_spent(total),
        turns=tuple(turns),
        calls={
            invocation: Spent(by_model=tuple(tally.items())) for invocation, tally in calls.items()
        },
        unattributed=_spent(unattributed),
    )


def _split(usage: TokenUsage, parts: int) -> list[TokenUsage]:
    """``usage`` split into ``parts`` shares as even as whole tokens allow, the first shares
    one token larger where the count does not divide."""

    def counts(value: int) -> list[int]:
        each, over = divmod(value, parts)
        return [each + (1 if n < over else 0) for n in range(parts)]

    columns = zip(
        counts(usage.input),
        counts(usage.output),
        counts(usage.cache_read),
        counts(usage.cache_write),
        strict=True,
    )
    return [TokenUsage(input=i, output=o, cache_read=r, cache_write=w) for i, o, r, w in columns]
