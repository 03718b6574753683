"""The page's answers over many sessions: the list and the usage the sessions view asks
the server for, answered by the serve application under uvicorn in a thread of this
process (on loopback), each timed by the server itself (its ``Server-Timing``: from the
request's arrival to the answer)."""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from correx_tools.core.report.redaction import Redaction
from correx_tools.shell.serve.app import build_app
from correx_tools.shell.serve.debugger.debugger import Debugger
from correx_tools.shell.stores.sql.store import SqlEventStore

from .table import Row

ANSWER_MS = 50.0
ASKED = 20
"""Times each question is asked."""
PAGE = 50
"""The rows of a page of the list, as the page asks for them."""
QUESTIONS = {
    "the list, first page": ("/api/v1/sessions", {"sort": "recent", "limit": PAGE}),
    "the list, by project": ("/api/v1/sessions", {"project": "project-17", "limit": PAGE}),
    "the list, by model": ("/api/v1/sessions", {"model": "opus", "limit": PAGE}),
    "usage by day, stacked by project": ("/api/v1/usage", {"stack": "project"}),
}
"""What the sessions view asks, by the name of its row."""


@contextmanager
def _served(debugger: Debugger) -> Iterator[str]:
    """The application over ``debugger`` under uvicorn, on a free loopback port: its base
    address (no credential asked: the guard is the server's, not the application's)."""
    import uvicorn  # noqa: PLC0415 - the serve extra's

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(build_app(debugger, threading.Event()), log_level="warning",
                            access_log=False, lifespan="off", ws="none")  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def _ask(base: str, path: str, params: dict[str, object]) -> float:
    """The milliseconds the server took to answer (the answer is read and parsed)."""
    address = f"{base}{path}?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(address, timeout=120) as answer:
        json.loads(answer.read())
        return float(answer.headers["server-timing"].split("dur=")[1])


def page_rows(prefix: str, store: SqlEventStore, source: str, size: str) -> list[Row]:
    """The p95 of each of the page's questions (`QUESTIONS`), ``ASKED`` times each."""
    # As ``correx-tools serve`` makes it: secrets masked by the built-in rules.
    debugger = Debugger(store, source, lenient=False, redaction=Redaction.with_patterns([]))
    debugger.start()  # as the server does: it keeps no catalog of its own for such a store
    rows = []
    with _served(debugger) as base:
        for name, (path, params) in QUESTIONS.items():
            # The first answer reads what the server then keeps (each listed session's
            # damage, asked once); it is shown, not counted, as the stored rows' start is.
            first = _ask(base, path, params)
            times = [_ask(base, path, params) for _ in range(ASKED)]
            p95 = statistics.quantiles(times, n=20)[-1]
            rows.append(Row(f"{prefix}: serve API, {name}", size,
                            f"p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms; "
                            f"first {first:.0f} ms",
                            f"{ASKED} questions, server side", None,
                            f"p95 <= {ANSWER_MS:g} ms", p95 <= ANSWER_MS))  # fmt: skip
    debugger.catalog.stop()
    return rows
