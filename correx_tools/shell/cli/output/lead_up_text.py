"""What the commands say of the conversation: ``history``, a call's arguments and what led
to it (the prompt that started its turn, the assistant's reasoning and words before it);
``sessions``, each session's title, models and tokens."""

from __future__ import annotations

import json
from typing import Any

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.replay.lead_up import LOOKED_AT_MOST, LeadUp, Words
from ....core.replay.talk_summary import TalkSummary
from ....core.tools.ids import SessionId
from ....core.tools.json_values import thaw_json
from ...stores.port import EventStore
from ...stores.said import conversation_events
from .readable import counted

SHOWN_CHARS = 2_000
"""The longest text the command prints of arguments or of one thing said (``--json`` has
more)."""
_NAMES = {"prompt": "prompt", "text": "said", "reasoning": "reasoning"}


def arguments_text(record: ToolInvocationRecord) -> list[str]:
    """The call's arguments as indented JSON, cut to `SHOWN_CHARS`."""
    arguments = thaw_json(record.request.arguments)
    text = json.dumps(arguments, ensure_ascii=False, indent=2, sort_keys=True)
    return ["arguments:", *_indented(text)]


def lead_up_text(found: LeadUp) -> list[str]:
    """What led to the call, in the order it was said; or that the session records none."""
    said = [*([found.prompt] if found.prompt is not None else []), *found.before]
    if not said:
        if found.whole:
            return ["what led to it: the session records no prompt or words before it"]
        return [f"what led to it: no prompt or words in the {LOOKED_AT_MOST:,} events before it"]
    lines = ["what led to it:"]
    if found.prompt is None and not found.whole:
        lines.append(f"  (no prompt in the {LOOKED_AT_MOST:,} events before it)")
    for words in said:
        lines.append(f"  {_heading(words)}")
        lines.extend(_indented(words.text, "    "))
    return lines


def _heading(words: Words) -> str:
    model = f", {words.model}" if words.model else ""
    return f"{_NAMES.get(words.kind, words.kind)} (sequence {words.sequence}{model}):"


def _indented(text: str, margin: str = "  ") -> list[str]:
    left = len(text) - SHOWN_CHARS
    shown = text[:SHOWN_CHARS] if left > 0 else text
    lines = [margin + line for line in shown.splitlines() or [""]]
    if left > 0:
        lines.append(f"{margin}... {counted(left, 'more character')} (--json has them)")
    return lines


def talk_of(store: EventStore, session: SessionId) -> TalkSummary:
    """What the session's conversation adds up to, from its conversation events alone."""
    with conversation_events(store, session) as said:
        return TalkSummary().taking(stored.event for stored in said)


def tokens_cell(row: dict[str, Any]) -> str:
    """A session's tokens in a cell: the total and its four counts, or why there are none."""
    tokens: dict[str, int] | None = row["tokens"]
    if tokens is None:
        # Nothing said at all: the store holds no conversation (imported without it, or a
        # format that records none), which says nothing of what the transcript recorded.
        return "none recorded" if row["said"] else "none in the store"
    parts = (tokens["input"], tokens["output"], tokens["cache_read"], tokens["cache_write"])
    return f"{tokens['total']:,} ({' / '.join(f'{n:,}' for n in parts)})"
