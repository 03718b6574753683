"""``GET /api/v1/sessions/{S}/stream``: server-sent events, ``event: head`` with the session's
last sequence now and on each change, and a comment every `KEEP_ALIVE_SECONDS` while quiet.

The head is polled (the session's last sequence every `POLL_SECONDS`) rather than taken from
a database's notifications: one cheap question is the same for every store. A stream ends
when the server stops.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator

import anyio
from starlette.concurrency import run_in_threadpool

from ....core.tools.ids import SessionId
from ...stores.port import StoreReadError
from ..debugger.debugger import Debugger

POLL_SECONDS = 0.5
"""How often a stream looks at its session's last sequence."""
KEEP_ALIVE_SECONDS = 15.0
"""How long a quiet stream waits before it sends a comment, to say it is still there."""


async def heads(
    debugger: Debugger, session: SessionId, stopping: threading.Event
) -> AsyncIterator[str]:
    """``event: head`` with the session's last sequence, now and on each change."""
    last: int | None = None
    quiet = 0.0
    while not stopping.is_set():
        current: int | None
        try:
            current = await run_in_threadpool(debugger.last_sequence, session)
        except StoreReadError as error:
            if not error.torn:
                raise
            current = last  # a log's last line half written: looked at again next time
        if current is not None and current != last:
            last, quiet = current, 0.0
            yield f"event: head\ndata: {json.dumps({'last_sequence': current})}\n\n"
        elif quiet >= KEEP_ALIVE_SECONDS:
            quiet = 0.0
            yield ": still here\n\n"
        await anyio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS
