"""What no client can take from the others: time to send a request, time to read an answer,
places, file descriptors.

uvicorn waits for a request's head as long as a client likes, writes an answer to a client
that never reads it for as long as the client likes, and accepts connections until the
process runs out of file descriptors: 1,500 clients that each sent half a request line once
starved an authenticated one, and 512 that each pipelined 40 requests for a page file and
never read the answers held every place, so that each new connection, the person's browser
too, was reset. Here:

* `WatchedH11` is uvicorn's h11 protocol, watched. A connection is *idle* while it is not
  being answered (just opened, or after its last answer); one idle for `HEAD_SECONDS`
  without sending a whole request head is closed. It is *stalled* while its answer cannot
  be written (the client reads nothing: the transport's buffer is past its high mark); one
  stalled for `SEND_SECONDS` is closed, its buffered answer dropped. A connection is
  answered one request at a time (h11 reads no pipelined request before the answer before
  it is written).
* When more than the cap of connections are open, a connection is closed to make room for
  the newcomer: the one idle longest, else the one stalled longest, else the one answering
  longest that streams (`STREAM`) or has been answered for `HEAD_SECONDS`; never the
  newcomer. Past the cap,
  `CREDENTIAL_RESERVE` more are kept for requests that carry the credential: a request
  without one is answered 503 while the server is past its cap (`Watch.crowded`, which the
  guard asks).
* `raise_file_limit` raises the soft limit on open files to the hard one, and
  `connection_cap` keeps the cap below it, with room for the store, the
  threads, and the bursts asyncio accepts before the connections closed to
  make room give their descriptors back (`RESERVE`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections import OrderedDict
from collections.abc import Callable
from typing import ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_SECONDS = 5.0
"""How long an idle connection may take to send a whole request head."""
SEND_SECONDS = 10.0
"""How long an answer may wait for its client to read some of it (a slow link reads a
little at a time; a client that reads nothing is closed)."""
MAX_CONNECTIONS = 512
"""Connections open at once, at most (a person's browser uses a handful)."""
CREDENTIAL_RESERVE = 32
"""Connections kept, past the cap, for requests that carry the credential."""
STREAM = "correx.stream"
"""Set on a request's scope by an answer that streams for as long as its client listens
(the page's event stream): such an answer is closed to make room without the grace a
request being answered has."""
BACKLOG = 128
"""Connections accepted in one go (and queued by the system before they are)."""
RESERVE = 64 + 4 * BACKLOG
"""File descriptors kept for everything but connections: the store, the terminal, and the
connections accepted before the ones closed to make room are gone (a few bursts)."""


_RESET = struct.pack("ii", 1, 0)
"""``SO_LINGER`` on, for no time: a close drops what is unsent and resets the connection."""


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
    return max(16, min(MAX_CONNECTIONS, soft - RESERVE - CREDENTIAL_RESERVE))


class Watch:
    """The open connections of one server: those idle, the longest idle first; those
    stalled, the longest stalled first; those being answered, the longest first."""

    def __init__(self, cap: int, full: Callable[[], None]) -> None:
        self.cap, self.full = cap, full
        self.open: set[WatchedH11] = set()
        self.idle: OrderedDict[WatchedH11, None] = OrderedDict()
        self.stalled: OrderedDict[WatchedH11, None] = OrderedDict()
        self.answering: OrderedDict[WatchedH11, float] = OrderedDict()

    def admit(self, connection: WatchedH11) -> None:
        """Count a new connection, idle; past the cap, close another to make room for it
        (see the module docstring), and past the reserve too, the newcomer."""
        self.open.add(connection)
        connection.idle()
        while len(self.open) > self.cap:
            victim = self._victim(connection)
            if victim is None:
                break
            victim.close()
            self.full()
        if len(self.open) > self.cap + CREDENTIAL_RESERVE:
            connection.close()

    def _victim(self, newcomer: WatchedH11) -> WatchedH11 | None:
        for kept in (self.idle, self.stalled):
            for found in kept:
                if found is not newcomer:
                    return found
        now = newcomer.loop.time()
        for found, since in self.answering.items():
            if found.streaming() or now - since >= HEAD_SECONDS:
                return found
        return None

    def crowded(self) -> bool:
        """Whether more connections are open than the cap: a request without the
        credential is then refused, the reserve kept for those with it."""
        return len(self.open) > self.cap

    def forget(self, connection: WatchedH11) -> None:
        """``connection`` is closed: no longer counted anywhere."""
        self.open.discard(connection)
        self.idle.pop(connection, None)
        self.stalled.pop(connection, None)
        self.answering.pop(connection, None)


class WatchedH11(H11Protocol):
    """uvicorn's h11 protocol with deadlines for each request head and for each answer a
    client does not read, and a place under the cap (`watched` makes one for a `Watch`)."""

    watch: ClassVar[Watch]
    _timer: asyncio.TimerHandle | None = None
    _stall: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """uvicorn's, then the connection is idle and counted."""
        super().connection_made(transport)
        self.watch.admit(self)

    def connection_lost(self, exc: Exception | None) -> None:
        """uvicorn's, and the connection is forgotten."""
        self._busy()
        self._unstall()
        self.watch.forget(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """uvicorn's; a whole request head makes the connection busy."""
        super().data_received(data)
        self._check()

    def on_response_complete(self) -> None:
        """uvicorn's; the connection is idle again (unless a pipelined request began)."""
        self.watch.answering.pop(self, None)  # a pipelined request is a new answer
        super().on_response_complete()
        self._check()

    def pause_writing(self) -> None:
        """uvicorn's; the answer is stalled until the client reads, for `SEND_SECONDS` at
        most."""
        super().pause_writing()
        if self in self.watch.open and self not in self.watch.stalled:
            self.watch.stalled[self] = None
            self._stall = self.loop.call_later(SEND_SECONDS, self.close)

    def resume_writing(self) -> None:
        """uvicorn's; the client read: the answer goes on."""
        super().resume_writing()
        self._unstall()

    def close(self) -> None:
        """Close the connection now, dropping what it has not written, here and in the
        system's buffers: a reset, not a goodbye queued behind answers a client that reads
        nothing would never take."""
        self._busy()
        self._unstall()
        self.watch.forget(self)
        with contextlib.suppress(Exception):
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        with contextlib.suppress(Exception):
            self.transport.abort()

    def streaming(self) -> bool:
        """Whether its answer streams for as long as the client listens (`STREAM`)."""
        return self.cycle is not None and bool(self.cycle.scope.get(STREAM))

    def idle(self) -> None:
        """Not being answered: the clock for its next request head starts."""
        self.watch.answering.pop(self, None)
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
            if self in self.watch.open and self not in self.watch.answering:
                self.watch.answering[self] = self.loop.time()
        else:
            self.idle()

    def _busy(self) -> None:
        self.watch.idle.pop(self, None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _unstall(self) -> None:
        self.watch.stalled.pop(self, None)
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None


def watched(watch: Watch) -> type[WatchedH11]:
    """The protocol class of a server whose connections ``watch`` keeps."""

    class Watched(WatchedH11):
        pass

    Watched.watch = watch
    return Watched
