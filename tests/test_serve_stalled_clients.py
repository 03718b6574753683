"""Clients that never read cannot lock anyone out of the debugger, and a hostile body is a bad
request, not a server error.

A real ``correx-tools serve`` (uvicorn on loopback) and real sockets: 512 clients that
each pipeline 40 requests for a page file and never read the answers, and more event
streams than the server has places, that never read either. The person's own connection
(a fresh socket with the token) is answered all the while; an answer nobody reads is
closed after its deadline. The assertions are on what happens, never on how long it took.
"""

from __future__ import annotations

import functools
import http.client
import socket
from collections.abc import Iterator

import pytest

if not hasattr(socket, "TCP_INFO"):
    pytest.skip("the TCP state is read from Linux's TCP_INFO", allow_module_level=True)

from correx_tools import SQLiteEventStore
from correx_tools.shell.serve.limits import CREDENTIAL_RESERVE, MAX_CONNECTIONS, SEND_SECONDS

from .serving import Served, wait_for
from .strategies import completed, requested, started, stored

PIPELINED = b"GET /static/serve.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 40
"""Forty requests for a page file (no credential needed), sent at once."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("stalled") / "run.sqlite"
    with SQLiteEventStore(path) as written:
        calls = [
            requested("a"),
            started("a"),
            completed("a"),
            requested("big", tool="Bash"),
            started("big"),
            completed("big", output="a line of its output\n" * 45_000),
        ]
        written.import_events(stored(calls, session="live")).unwrap()  # fmt: skip
    server = Served(path)
    try:
        yield server
    finally:
        status, stderr = server.stop()
        assert status == 0 and "Traceback" not in stderr, stderr


def _never_reading(served: Served, request: bytes) -> socket.socket:
    """A client that sends ``request`` and reads nothing (a small receive buffer, so the
    server's answer stalls early)."""
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4_096)
    client.settimeout(10)
    client.connect(("127.0.0.1", served.port))
    client.sendall(request)
    return client


def _person(served: Served) -> bytes:
    """The person's request on a fresh connection, read whole: the status line."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        connection.request(
            "GET", "/api/v1/sessions", headers={"Authorization": f"Bearer {served.token}"}
        )
        answer = connection.getresponse()
        answer.read()
        return f"{answer.status}".encode()
    finally:
        connection.close()


_ESTABLISHED = 1
"""Linux's TCP state of an open connection (``tcpi_state``, the first byte of TCP_INFO)."""


def _closed_by_the_server(client: socket.socket) -> bool:
    """Whether the server has closed ``client``'s connection, as the client's kernel sees
    it: nothing is read or sent, so a stalled answer stays stalled."""
    info = client.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return info[0] != _ESTABLISHED


def _answer_begun(clients: list[socket.socket]) -> bool:
    """Whether every client has the first bytes of an answer waiting (peeked, not read), or
    was closed to make room: the server is answering each, none idle."""
    for client in clients:
        client.setblocking(False)
        try:
            if not client.recv(1, socket.MSG_PEEK):
                continue  # closed by the server
        except BlockingIOError:
            return False
        except OSError:
            continue  # reset by the server, to make room
        finally:
            client.setblocking(True)
    return True


def test_the_persons_connection_is_served_while_512_clients_stall_their_answers(
    served: Served,
) -> None:
    stalled = []
    try:
        for _ in range(MAX_CONNECTIONS):
            stalled.append(_never_reading(served, PIPELINED))
        wait_for(lambda: _answer_begun(stalled), timeout=60, every=0.5)  # all busy, none idle
        for _ in range(3):
            assert _person(served) == b"200"
    finally:
        for client in stalled:
            client.close()


def test_more_event_streams_than_places_do_not_lock_the_person_out(served: Served) -> None:
    stream = (
        "GET /api/v1/sessions/live/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {served.token}\r\n\r\n"
    ).encode()
    streams = []
    try:
        for _ in range(MAX_CONNECTIONS + CREDENTIAL_RESERVE + 16):
            streams.append(_never_reading(served, stream))
        wait_for(lambda: _answer_begun(streams[:MAX_CONNECTIONS]), timeout=60, every=0.5)
        for _ in range(3):
            assert _person(served) == b"200"
    finally:
        for client in streams:
            client.close()


def test_answers_nobody_reads_are_closed_after_their_deadline(served: Served) -> None:
    # Page files the system's buffers take whole (the connection idles, its answers
    # unread), and a call's history of a megabyte each, which stall the writing: each
    # connection is reset after its deadline, what it was sent and never read dropped.
    history = (
        "GET /api/v1/sessions/live/invocations/big/history HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {served.token}\r\n\r\n"
    ).encode()
    clients = [_never_reading(served, PIPELINED), _never_reading(served, history * 40)]
    try:
        for client in clients:
            closed = functools.partial(_closed_by_the_server, client)
            wait_for(closed, timeout=SEND_SECONDS + 30, every=0.5)
    finally:
        for client in clients:
            client.close()


def test_a_credential_asked_with_a_body_nested_4000_deep_is_a_bad_request(
    served: Served,
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        connection.request(
            "POST", "/api/v1/credential", body=b"[" * 4_000,
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        answer = connection.getresponse()
        assert answer.status == 400, answer.read()
        assert b"code" in answer.read()
    finally:
        connection.close()
