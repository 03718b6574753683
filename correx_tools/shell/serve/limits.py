"""What no client can take from the others: time to send a request, places, file descriptors.

uvicorn waits for a request's head as long as a client likes, and accepts
connections until the process runs out of file descriptors: 1,500 clients that
each sent half a request line once starved an authenticated one. Here:

* `WatchedH11` is uvicorn's h11 protocol, watched. A connection is *idle*
  while it is not being answered (just opened, or after its last answer);
  one idle for `HEAD_SECONDS` without sending a whole request head is closed.
* When more than the cap of connections are open, the one idle longest is
  closed to make room: a request being answered (a live stream too) is never
  closed, and a client that sends its request at once is never the one idle
  longest, so a flood of half requests cannot lock a person out.
* `raise_file_limit` raises the soft limit on open files to the hard one, and
  `connection_cap` keeps the cap below it, with room for the store, the
  threads, and the bursts asyncio accepts before the connections closed to
  make room give their descriptors back (`RESERVE`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Callable
from typing import ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_SECONDS = 5.0
"""How long an idle connection may take to send a whole request head."""
MAX_CONNECTIONS = 512
"""Connections open at once, at most (a person's browser uses a handful)."""
BACKLOG = 128
"""Connections accepted in one go (and queued by the system before they are)."""
RESERVE = 64 + 4 * BACKLOG
"""File descriptors kept for everything but connections: the store, the terminal, and the
connections accepted before the ones closed to make room are gone (a few bursts)."""


def raise_file_limit() -> int | None:
    """Raise the soft limit on open files to the hard limit; the soft limit then (``None``
    where there is none to read)."""
    try:
        import resource  # noqa: PLC0415 - not on every system
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # An unlimited hard limit (macOS) is refused as a soft one: ask for a large number.
    for wanted in (hard,) if hard != resource.RLIM_INFINITY else (1 << 20, 10_240):
        if wanted <= soft and soft != resource.RLIM_INFINITY:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            continue
        soft = wanted
        break
    return None if soft == resource.RLIM_INFINITY else soft


def connection_cap(soft: int | None) -> int:
    """Connections allowed at once with ``soft`` open files at most."""
    if soft is None:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - RESERVE))


class Watch:
    """The open connections of one server, and those idle, the longest idle first."""

    def __init__(self, cap: int, full: Callable[[], None]) -> None:
        self.cap, self.full = cap, full
        self.open: set[WatchedH11] = set()
        self.idle: OrderedDict[WatchedH11, None] = OrderedDict()

    def admit(self, connection: WatchedH11) -> None:
        """Count a new connection, idle; past the cap, close the one idle longest."""
        self.open.add(connection)
        connection.idle()
        while len(self.open) > self.cap and self.idle:
            oldest, _ = self.idle.popitem(last=False)
            self.open.discard(oldest)
            oldest.close()
            self.full()


class WatchedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head and a place under the
    cap (`watched` makes one for a `Watch`)."""

    watch: ClassVar[Watch]
    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """uvicorn's, then the connection is idle and counted."""
        super().connection_made(transport)
        self.watch.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        """uvicorn's, and the connection is forgotten."""
        self._busy()
        self.watch.open.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """uvicorn's; a whole request head makes the connection busy."""
        super().data_received(data)
        self._check()

    def on_response_complete(self) -> None:
        """uvicorn's; the connection is idle again (unless a pipelined request began)."""
        super().on_response_complete()
        self._check()

    def close(self) -> None:
        """Close the connection now."""
        self._busy()
        with contextlib.suppress(Exception):
            self.transport.close()

    def idle(self) -> None:
        """Not being answered: the clock for its next request head starts."""
        if self in self.watch.open and self not in self.watch.idle:
            self.watch.idle[self] = None
            self._timer = self.loop.call_later(HEAD_SECONDS, self.close)

    def _check(self) -> None:
        # Idle from its last answer on, whatever it sends, until a whole request head makes
        # it busy: neither half a head nor a body dribbled after an answer holds a place.
        if self.transport.is_closing() or (
            self.cycle is not None and not self.cycle.response_complete
        ):
            self._busy()
        else:
            self.idle()

    def _busy(self) -> None:
        self.watch.idle.pop(self, None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def watched(watch: Watch) -> type[WatchedH11]:
    """The protocol class of a server whose connections ``watch`` keeps."""

    class Watched(WatchedH11):
        pass

    Watched.watch = watch
    return Watched
