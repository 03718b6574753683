"""What the commands say of the conversation: ``history``, a call's arguments and what led
to it (the prompt that started its turn, the assistant's reasoning and words before it);
``sessions``, each session's title, models and tokens."""

from __future__ import annotations

import json
from typing import Any

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.lead_up import LOOKED_AT_MOST, LeadUp, Words
from ....core.replay.recorded import exit_code_of
from ....core.replay.talk_summary import TalkSummary
from ....core.report.redaction import Redaction
from ....core.report.tool_views import output_text as call_output
from ....core.tools.ids import SessionId
from ....core.tools.json_values import thaw_json
from ...stores.port import EventStore
from ...stores.said import conversation_events
from .readable import counted

SHOWN_CHARS = 2_000
"""The longest text the command prints of arguments or of one thing said (``--json`` has
more)."""
_NAMES = {"prompt": "prompt", "text": "said", "reasoning": "reasoning"}


TAIL_LINES = 20
"""The lines of a call's output ``history`` prints, from its end (``--full``: all)."""


def arguments_text(record: ToolInvocationRecord, redaction: Redaction | None) -> list[str]:
    """The call's arguments as indented JSON (masked whole), cut to `SHOWN_CHARS`."""
    arguments = _masked(thaw_json(record.request.arguments), redaction)
    text = json.dumps(arguments, ensure_ascii=False, indent=2, sort_keys=True)
    return ["arguments:", *_indented(text)]


def output_text(
    record: ToolInvocationRecord, redaction: Redaction | None, *, full: bool
) -> list[str]:
    """What the call said back, masked whole: its output (the last `TAIL_LINES` lines and
    `SHOWN_CHARS` characters, with how much was left out before them, unless ``full``), or
    the reason it failed or was rejected; nothing for a call not ended."""
    receipt = record.receipt
    if receipt is not None:
        code = exit_code_of(receipt)
        said = "output" + ("" if code is None else f" (exit {code})")
        text = call_output(_masked(thaw_json(receipt.output), redaction))
        if not text:
            return [f"{said}: none recorded"]
    elif record.reason is not None:
        said = "reason" if record.status is ToolInvocationStatus.FAILED else "rejected"
        text = _masked(record.reason, redaction)
    else:
        return []
    lines = text.splitlines() or [""]
    if full:
        return [f"{said}:", *("  " + line for line in lines)]
    shown = lines[-TAIL_LINES:]
    while len(shown) > 1 and sum(map(len, shown)) > SHOWN_CHARS:
        shown = shown[1:]
    kept = shown[-1][-SHOWN_CHARS:] if len(shown[-1]) > SHOWN_CHARS else None
    if kept is not None:
        shown = [kept]
    left = len(lines) - len(shown)
    cut = len(text) - sum(map(len, shown)) - max(0, len(shown) - 1)
    head = [f"{said}:"]
    if cut > 0:
        what = counted(left, "line") if left else counted(cut, "character")
        head = [f"{said}, its end ({what} before it left out: --full shows all):"]
    return [*head, *("  " + line for line in shown)]


def lead_up_text(found: LeadUp, redaction: Redaction | None = None) -> list[str]:
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
        lines.extend(_indented(_masked(words.text, redaction), "    "))
    return lines


def _masked(value: Any, redaction: Redaction | None) -> Any:
    """A value with its secrets masked (by shape and by member name), whole."""
    return value if redaction is None else redaction.masked(value)


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
