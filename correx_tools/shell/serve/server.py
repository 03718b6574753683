"""Running the server: bind, say where once it accepts connections, stop cleanly on a signal.

The socket is bound before anything else, so a port in use is one clear line
and nothing else happens. uvicorn serves the application on it, over the
watched protocol of `limits` (a deadline for each request head and for each answer
a client does not read, a cap on connections with a reserve for the credential's
requests, the file limit raised), its errors said once per cause (`troubles`);
the ready callback runs once uvicorn accepts connections (the command prints
the address then). Ctrl-C or SIGTERM ends the event streams, lets the answers
in progress finish (two seconds at most) and returns: a stop, not a crash.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
from collections.abc import Callable
from types import FrameType

import uvicorn

from .app import build_app
from .columns.memory import give_back
from .columns.shelf import prepare
from .debugger.debugger import Debugger
from .guard.access import Access
from .guard.hosts import allowed_hosts
from .guard.middleware import Guard
from .limits import BACKLOG, Watch, connection_cap, raise_file_limit, watched
from .troubles import LOGGERS, Said


class ListenError(Exception):
    """The address cannot be listened on; the message says why and what to do."""


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (port 0: any free port)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        if error.errno == errno.EADDRINUSE:
            raise ListenError(
                f"cannot listen on {host}:{port}: the port is in use (another server?); pick "
                "another with --port, or --port 0 for any free one"
            ) from None
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, telling when it accepts connections and stopping without re-raising
    the signal that stopped it."""

    def __init__(
        self,
        config: uvicorn.Config,
        ready: Callable[[], None],
        stopping: threading.Event,
        said: Said,
    ) -> None:
        super().__init__(config)
        self._ready, self._stopping, self._said = ready, stopping, said

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's start-up, then the ready callback once it accepts connections."""
        asyncio.get_running_loop().set_exception_handler(self._said.loop_error)
        await super().startup(sockets)
        if self.started and not self.should_exit:
            self._ready()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Stop on the first signal (a second forces it), without raising it again after."""
        self._stopping.set()  # the event streams end, so the connections close
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True


def serve(
    debugger: Debugger,
    sock: socket.socket,
    *,
    host: str,
    access: Access | None,
    ready: Callable[[], None],
    tell: Callable[[str], None],
) -> None:
    """Answer on ``sock`` (bound to ``host`` as the command was given it) until a signal
    stops it; ``access`` says who may ask (``None``: anyone), ``tell`` prints a line on the
    terminal."""
    bound = sock.getsockname()[0]
    hosts = allowed_hosts(host)
    if hosts is not None:
        hosts |= {str(bound)}
    stopping = threading.Event()
    said = Said(tell)
    cap = connection_cap(raise_file_limit())
    watch = Watch(
        cap,
        full=lambda: said.say(
            f"more than {cap:,} connections at once: for each new one, the one idle longest "
            "(else stalled longest, else answering longest) is closed"
        ),
    )
    config = uvicorn.Config(
        Guard(build_app(debugger, stopping), access=access, hosts=hosts, crowded=watch.crowded),
        http=watched(watch),
        backlog=BACKLOG,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="none",
        server_header=False,
        timeout_graceful_shutdown=2,
    )
    loggers = [logging.getLogger(name) for name in LOGGERS]
    for logger in loggers:
        logger.addFilter(said)
    debugger.start()

    def started() -> None:
        ready()
        threading.Thread(target=_warm, args=(debugger, stopping), daemon=True).start()

    try:
        _Server(config, started, stopping, said).run(sockets=[sock])
    finally:
        stopping.set()
        debugger.close()
        sock.close()
        for logger in loggers:
            logger.removeFilter(said)
        said.flush()


WARMED = 8
"""A store with at most this many sessions has them all read as soon as the server starts."""


def _warm(debugger: Debugger, stopping: threading.Event) -> None:
    """Read the sessions' columns, and what is built from them, before anyone asks (a store
    of a few sessions: the usual one); a larger store reads each on first use."""
    try:
        sessions = debugger.catalog.ids()
    except Exception:  # a store that cannot even be listed: each question says why
        return
    if len(sessions) > WARMED:
        return
    for session in sessions:
        if stopping.is_set():
            return
        try:
            prepare(debugger.columns(session))
        except Exception:  # the first question about it says what is wrong
            continue
        give_back()
