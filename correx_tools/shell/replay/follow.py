"""Following a live session in any store, by polling."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from ...core.lifecycle.events import StoredEvent
from ...core.tools.ids import SessionId
from ..stores.port import EventStore


def follow(
    store: EventStore,
    session_id: SessionId,
    *,
    after: int = 0,
    poll_interval: float = 0.2,
    idle_timeout: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[StoredEvent]:
    """Yield the session's events after ``after``, then each new one as it is committed.

    It reads ``sequence > last seen`` each time, and sequences are gapless and
    assigned in commit order within a session, so an event whose commit was
    slow is never skipped: it is simply seen on a later poll. Stops after
    ``idle_timeout`` seconds without a new event (never, if ``None``). A
    `PostgresEventStore` has its own
    ``follow`` that wakes on ``NOTIFY`` instead of waiting for the next poll.
    """
    last = after
    idle_since = time.monotonic()
    while True:
        fresh = False
        for stored in store.read(session_id, after=last):
            last, fresh = stored.sequence, True
            yield stored
        now = time.monotonic()
        if fresh:
            idle_since = now
        elif idle_timeout is not None and now - idle_since >= idle_timeout:
            return
        sleep(poll_interval)
