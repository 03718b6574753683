"""Clients without the token cannot wear the debugger out: time, places, file descriptors.

A real ``correx-tools serve`` runs with a low limit on open files (set before
it starts, as a machine with a low hard limit would have it) and is flooded
with real sockets that each send half a request line: a client with the token
is still answered at once, the half requests are closed within the deadline,
a live stream is not, and stderr says each cause once. At start the server
raises its soft limit on open files to the hard one.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from correx_tools import SQLiteEventStore
from correx_tools.shell.serve.limits import HEAD_SECONDS, connection_cap
from correx_tools.shell.serve.troubles import EVERY_SECONDS, Said

from .serving import Served, wait_for
from .strategies import completed, requested, started, stored

OPEN_FILES = 512
"""The server's limit on open files, soft and hard."""
FLOOD = 700
"""Half requests sent: more than the server's open files allow at once."""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-load") / "run.sqlite"
    with SQLiteEventStore(path) as written:
        events = stored([requested("a"), started("a"), completed("a")], session="live")
        written.import_events(events).unwrap()
    return path


def _ask(served: Served, path: str, timeout: float) -> bytes:
    """The first bytes of the answer to a GET with the token, on a socket of its own."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=timeout) as client:
        client.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {served.token}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        return client.recv(65_536)


def _open(connection: socket.socket) -> bool:
    """Whether the server still holds ``connection`` open."""
    connection.setblocking(False)
    try:
        return connection.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def test_a_flood_of_half_requests_does_not_keep_a_client_with_the_token_waiting(
    store: Path,
) -> None:
    served = Served(store, open_files=(OPEN_FILES, OPEN_FILES))
    flood: list[socket.socket] = []
    stream = socket.create_connection(("127.0.0.1", served.port), timeout=10)
    try:
        stream.sendall(
            f"GET /api/v1/sessions/live/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {served.token}\r\n\r\n".encode()
        )
        received = b""
        while b"event: head" not in received:
            received += stream.recv(4_096) or pytest.fail(f"the stream ended: {received!r}")
        for _ in range(FLOOD):
            half = socket.create_connection(("127.0.0.1", served.port), timeout=10)
            half.sendall(b"GET /api/v1/sess")
            flood.append(half)
        answer = _ask(served, "/api/v1/sessions", timeout=HEAD_SECONDS * 4)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
        # Answered while the half requests were still open: it did not wait for the deadline
        # that closes them (what a busy machine does to the time is not timed here).
        assert any(map(_open, flood))
        # The half requests are closed within the deadline; the live stream is not.
        wait_for(lambda: not any(map(_open, flood)), timeout=HEAD_SECONDS + 2, every=0.5)
        assert _open(stream)
    finally:
        for connection in (*flood, stream):
            connection.close()
        status, stderr = served.stop()
    assert status == 0
    # Each cause once, and a count: no line per connection.
    lines = stderr.splitlines()
    assert len(stderr) < 1_000 and len(lines) == len(set(lines)) <= 4, stderr
    cap = connection_cap(OPEN_FILES)
    assert f"more than {cap:,} connections at once" in lines[0], stderr


def test_the_soft_limit_on_open_files_is_raised_to_the_hard_one(store: Path) -> None:
    served = Served(store, open_files=(256, 4096))
    try:
        limits = Path(f"/proc/{served.process.pid}/limits").read_text()
        line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        assert line.split()[3:5] == ["4096", "4096"], line
    finally:
        assert served.stop()[0] == 0


def test_a_cause_is_said_once_then_counted() -> None:
    lines: list[str] = []
    now = [0.0]
    said = Said(lines.append, clock=lambda: now[0])
    for _ in range(10_000):
        said.say("socket.accept() out of system resource: OSError: [Errno 24] Too many open files")
    said.say("another cause")
    assert len(lines) == 2 and lines[0].endswith("(said once; how often it recurs is counted)")
    now[0] = EVERY_SECONDS + 1  # it keeps happening a minute later: counted in a line
    said.say("another cause")
    assert lines[2:] == [
        "socket.accept() out of system resource: OSError: [Errno 24] Too many open files: "
        "9,999 more times",
        "another cause: 1 more time",
    ]
    said.flush()
    assert len(lines) == 4  # nothing new to count: nothing said
