"""Finding what was said: the prompts, the assistant's words and its reasoning, by their text.

``GET /api/v1/sessions/{S}/said?q=&at=&after=&limit=`` walks the session's events
in order from the sequence after ``after``, up to ``at``, and keeps each prompt,
text or reasoning whose text, masked as the page shows it, holds ``q`` (any
case). Each text is masked whole before anything is looked for or cut from it,
so no search finds a secret the page masks, and no snippet splits one. Like a
call's search, a page stops at ``limit`` matches or when its time budget is
spent; ``next`` is the sequence the following page starts after (``null`` once
the walk reached ``at``). Each match names its event (its sequence and kind),
which the page scrubs to.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ....core.lifecycle.conversation import AssistantText, Prompt, Reasoning, conversation_of
from ....core.tools.ids import SessionId
from ...stores.port import session_events
from ..debugger.debugger import Debugger
from .params import paging, sequence, whole
from .search import BUDGET_SECONDS

AROUND = 80
"""How many characters of the masked text a snippet shows on each side of the match."""
_LOOK_EVERY = 64
"""Events read between two looks at the clock."""


def said(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """One page of the things said by ``at`` whose masked text holds ``q``."""
    last = debugger.last_sequence(session)
    at = sequence(query, "at", debugger.shown(session), last, default=last)
    _, limit = paging(query)
    after = max(whole(query, "after", 0), 0)
    deadline = time.monotonic() + BUDGET_SECONDS
    matches, upto = said_in(
        debugger, session, query.get("q") or "", at=at, after=after, limit=limit, deadline=deadline
    )
    return {
        "session_id": debugger.shown(session),
        "at": at,
        "matches": matches,
        "next": None if upto >= at else upto,
        "limit": limit,
    }


def said_in(
    debugger: Debugger,
    session: SessionId,
    text: str,
    *,
    at: int,
    after: int,
    limit: int,
    deadline: float,
) -> tuple[list[dict[str, Any]], int]:
    """The matches of ``text`` after sequence ``after`` and by ``at`` (at most ``limit``,
    within ``deadline``), and the sequence the walk got to: everything up to it was looked
    at. No text finds nothing: the words are not listed without a question."""
    needle = text.casefold()
    if not needle or after >= at:
        return [], at
    matches: list[dict[str, Any]] = []
    upto = after
    with session_events(debugger.store, session, after=after) as events:
        for looked, stored in enumerate(events):
            if stored.sequence > at:
                return matches, at
            if looked % _LOOK_EVERY == 0 and looked and time.monotonic() >= deadline:
                return matches, upto
            found = _match(debugger, stored.sequence, stored.event, needle)
            if found is not None:
                if len(matches) == limit:
                    return matches, upto  # this page ends before it: the next starts here
                matches.append(found)
            upto = stored.sequence
    return matches, at


def _match(debugger: Debugger, seq: int, event: object, needle: str) -> dict[str, Any] | None:
    """The match of one event: a prompt, text or reasoning whose masked text holds
    ``needle`` (already case-folded); ``None`` for any other event."""
    words = conversation_of(event)
    if isinstance(words, Prompt):
        kind, model = "prompt", None
    elif isinstance(words, AssistantText):
        kind, model = "text", words.model
    elif isinstance(words, Reasoning):
        kind, model = "reasoning", words.model
    else:
        return None
    masked = debugger.shown(words.text)  # whole, before it is looked in or cut
    folded = masked.casefold()
    where = folded.find(needle)
    if where < 0:
        return None
    return {
        "sequence": seq,
        "kind": kind,
        "model": None if model is None else debugger.shown(model),
        "snippet": snippet(masked, folded, where, len(needle)),
    }


def snippet(masked: str, folded: str, where: int, length: int) -> str:
    """The masked text around a match found at ``where`` in its case-folded form (a fold
    that changed the text's length, as ``ß`` to ``ss`` does, shows it from its start)."""
    if len(folded) != len(masked):
        where, length = 0, 0
    start, end = max(0, where - AROUND), min(len(masked), where + length + AROUND)
    return ("…" if start else "") + masked[start:end] + ("…" if end < len(masked) else "")
