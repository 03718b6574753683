"""What led to a call, read from a store: the events before its request, at most
`LOOKED_AT_MOST` of them (`correx_tools.core.replay.lead_up` has the rule)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.lead_up import LOOKED_AT_MOST, LeadUp, Words, lead_up
from ...core.report.redaction import Redaction
from ...core.tools.ids import SessionId
from ..stores.port import EventStore
from ..stores.said import conversation_events

MAX_CHARS = 20_000
"""The longest text a document shows of one thing said (masked whole first, then cut)."""


_OTHER = object()
"""Stands for the events between two of the conversation's: the rule only asks whether
there are any (they end a run of words), not what they are."""


def lead_up_in(
    store: EventStore, session: SessionId, request: int, *, window: int = LOOKED_AT_MOST
) -> LeadUp:
    """What led to the call requested at sequence ``request`` of ``session``, from the
    ``window`` events before it. They are read as the conversation's events alone (a SQL
    store finds them through their own index: a session of tool calls alone reads
    nothing), with one stand-in for each run of other events between them, which is all
    the rule asks of those."""
    after = max(0, request - 1 - window)
    walked: list[tuple[int, object]] = []
    with conversation_events(store, session, after=after, before=request) as said:
        for stored in said:
            # Other events before the first or after the last change nothing: the walk
            # passes over them looking for words, and has done all it can past them.
            if walked and stored.sequence > walked[-1][0] + 1:
                walked.append((stored.sequence - 1, _OTHER))
            walked.append((stored.sequence, stored.event))
    found = lead_up(reversed(walked), limit=len(walked) + 1)
    return dataclasses.replace(found, whole=found.prompt is not None or after == 0)


def request_sequence(history: Sequence[tuple[int, ToolInvocationRecord]]) -> int | None:
    """The sequence of the call's request among its versions (``None``: not among them)."""
    for sequence, record in history:
        if record.status is ToolInvocationStatus.REQUESTED:
            return sequence
    return None


def lead_up_json(found: LeadUp, redaction: Redaction | None = None) -> dict[str, Any]:
    """What led to a call as a document shows it: each text masked whole, then cut."""
    return {
        "prompt": None if found.prompt is None else words_json(found.prompt, redaction),
        "before": [words_json(words, redaction) for words in found.before],
        "whole": found.whole,
        "looked_at_most": LOOKED_AT_MOST,
    }


def words_json(words: Words, redaction: Redaction | None = None) -> dict[str, Any]:
    """One thing said: masked whole before it is cut, so no cut can split a secret."""
    text = words.text if redaction is None else redaction.text(words.text)
    cut = len(text) > MAX_CHARS
    model = words.model
    if model is not None and redaction is not None:
        model = redaction.text(model)
    return {
        "sequence": words.sequence,
        "kind": words.kind,
        "text": text[:MAX_CHARS] if cut else text,
        "cut": len(text) - MAX_CHARS if cut else 0,
        "model": model,
    }
