"""Following a session in PostgreSQL: woken by ``NOTIFY``, polling as a fallback."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Protocol

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from .layout import CHANNEL


class NotifyingStore(Protocol):
    """A PostgreSQL store as following needs it: where it is, and how to read a session."""

    @property
    def dsn(self) -> str:
        """The database's address."""
        ...

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``."""
        ...


def follow_notified(
    store: NotifyingStore,
    session_id: SessionId,
    *,
    after: int = 0,
    idle_timeout: float | None = None,
    poll_interval: float = 1.0,
) -> Iterator[StoredEvent]:
    """Yield the session's events after ``after``, then new ones as they are committed.

    Wakes on ``NOTIFY`` and also polls every ``poll_interval`` seconds, so
    a lost notification only delays an event. Per-session sequences are
    assigned under the session's row lock, so reading ``sequence > last``
    never skips an event whose commit was slow. Stops after
    ``idle_timeout`` seconds without a new event (never, if ``None``).
    """
    import psycopg  # noqa: PLC0415 - the optional extra, present wherever a store is
    from psycopg import sql  # noqa: PLC0415

    listener = psycopg.connect(store.dsn, autocommit=True)
    try:
        listener.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
        last, idle_since = after, time.monotonic()
        while True:
            fresh = False
            for stored in store.read(session_id, after=last):
                last, fresh = stored.sequence, True
                yield stored
            if fresh:
                idle_since = time.monotonic()
            wait = poll_interval
            if idle_timeout is not None:
                remaining = idle_timeout - (time.monotonic() - idle_since)
                if remaining <= 0:
                    return
                wait = min(wait, remaining)
            for _ in listener.notifies(timeout=wait, stop_after=1):
                pass
    finally:
        listener.close()
