"""What the report adds to its page beside the calls: the session's span (its first and last
events, as ``sessions`` counts it), its turns, tokens and cost (as ``stats --json`` gives
them), and what each event that is not a call's says (a prompt, the assistant's words,
reasoning, tokens, the session's description), so that no event is shown as "other"."""

from __future__ import annotations

from typing import Any

from ...core.replay.pricing import PriceTable
from ...core.report.redaction import Redaction
from ...core.tools.ids import SessionId
from ..replay.spent import SAID_KINDS, talked_if_any, tokens_json
from ..stores.codec.envelope import iso_time
from ..stores.port import EventStore, first_event


def conversation_data(
    store: EventStore,
    session: SessionId,
    last: int,
    *,
    imported: bool,
    times: bool,
    redaction: Redaction,
    prices: PriceTable,
) -> dict[str, Any]:
    """``span`` (``null`` where no time is recorded), ``tokens`` (``null`` for a session
    that holds no conversation) and ``said`` (the sequences of each kind of event that is
    not a call's) of the session through ``last``."""
    talk = talked_if_any(store, session, last, imported=imported)
    first = first_event(store, session)
    final = first_event(store, session, after=last - 1) if last else None
    span = None
    if times and first is not None and final is not None:
        span = {"first": iso_time(first.recorded_at), "last": iso_time(final.recorded_at)}
    said: dict[str, list[int]] = {}
    if talk is not None:
        for sequence, code in enumerate(talk.kinds):
            name = SAID_KINDS[code]
            if name is not None:
                said.setdefault(name, []).append(sequence)
    elif imported:
        said["described"] = [1]
    return {"span": span, "tokens": tokens_json(talk, redaction, prices, times=times), "said": said}
