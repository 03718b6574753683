"""What ``stats`` says of a session's tokens: in all, by turn, and the calls that spent most
(``--json`` has every call's share)."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.lifecycle.conversation import TokenUsage
from ...core.replay.spending import Spent
from ...core.replay.talk_summary import cut_title
from ..replay.spent import Talked
from .render import one_line, table

TOP_CALLS = 10
"""How many calls the text lists by their tokens, most first."""
NONE_RECORDED = "none recorded"


def counts_text(usage: TokenUsage) -> str:
    """``total (in / out / cache read / cache write)``."""
    parts = (usage.input, usage.output, usage.cache_read, usage.cache_write)
    return f"{usage.total:,} ({' / '.join(f'{n:,}' for n in parts)})"


def spent_text(spent: Spent | None) -> str:
    """Tokens as a cell shows them: their total, or that none were recorded (never 0)."""
    return NONE_RECORDED if spent is None else f"{spent.total.total:,}"


def tokens_text(talk: Talked, tools: Mapping[str, str]) -> list[str]:
    """The lines ``stats`` adds for a session that holds a conversation."""
    found = talk.spending
    if found.spent is None:
        return ["", "tokens: none recorded (the transcript records no usage)"]
    lines = ["", f"tokens: {counts_text(found.spent.total)} (in / out / cache read / cache write)"]
    if len(found.spent.by_model) > 1:
        lines += [f"  {model or '(model not recorded)'}: {counts_text(usage)}"
                  for model, usage in found.spent.by_model]  # fmt: skip
    rows = [
        (
            str(turn.number),
            cut_title(one_line(talk.titles.get(turn.prompt, "")))
            if turn.prompt is not None
            else "",
            f"{turn.first}-{turn.last}",
            turn.calls,
            spent_text(turn.spent),
        )
        for turn in found.turns
    ]
    lines += ["", table(["turn", "prompt", "sequences", "calls", "tokens"], rows,
                        squeeze=("prompt",))]  # fmt: skip
    ranked = sorted(found.calls.items(), key=lambda item: -item[1].total.total)
    if ranked:
        shown = ranked[:TOP_CALLS]
        heading = f"calls by tokens (the {len(shown)} that spent most of {len(ranked):,}):"
        rows_calls = [
            (one_line(invocation), one_line(tools.get(invocation, "")), spent_text(spent))
            for invocation, spent in shown
        ]
        lines += ["", heading, table(["call", "tool", "tokens"], rows_calls, squeeze=("call",))]
    if found.unattributed is not None:
        lines.append(f"spent on words alone (no call): {counts_text(found.unattributed.total)}")
    return lines
