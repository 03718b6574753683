"""Who may read the debugger, in Chromium: the printed link opens one browser, once.

A real ``correx-tools serve`` runs on loopback and the distribution's Chromium
opens it through Playwright. The link's code is traded for a credential the
page keeps in its origin's storage (scoped to the port, unlike a cookie), so
another server on 127.0.0.1 receives nothing, and a copy of the link (the
browser's history, a terminal's scroll-back) opens nothing once used. No
address the server is asked for sends the browser to another host.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from correx_tools import SQLiteEventStore

from .browsing import Opened, module_browser
from .serving import Served
from .strategies import completed, requested, started, stored

playwright = pytest.importorskip("playwright.sync_api")

SESSION = "run-1"
browser = module_browser()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-access") / "run.sqlite"
    with SQLiteEventStore(path) as written:
        events = stored([requested("a"), started("a"), completed("a")], session=SESSION)
        written.import_events(events).unwrap()
    return path


@pytest.fixture(scope="module")
def served(store: Path) -> Iterator[Served]:
    server = Served(store)
    yield server
    assert server.stop()[0] == 0


def _listed(opened: Opened) -> None:
    opened.page.wait_for_selector("#sessions[data-total='1']", timeout=30_000)
    assert opened.errors == []


def test_the_printed_link_opens_one_browser_once(store: Path, browser: Any) -> None:
    served = Served(store)
    try:
        first = browser.new_context()
        opened = Opened(first.new_page())
        opened.page.goto(served.url)  # the link the command printed
        _listed(opened)
        # The address keeps nothing of value; the credential is in this origin's storage.
        assert opened.page.url == served.base + "/"
        credential = opened.page.evaluate("localStorage.getItem('correx-serve-credential')")
        assert credential and credential != served.token and first.cookies() == []
        # A new tab of the same browser needs no link (a link opened in a new tab, say).
        again = Opened(first.new_page())
        again.page.goto(f"{served.base}/sessions/{SESSION}")
        again.page.wait_for_selector("body[data-ready]", timeout=30_000)
        assert again.page.inner_text("#error") == ""
        # The same link in another browser (a copy from the history or the terminal): nothing.
        other = browser.new_context()
        copied = Opened(other.new_page())
        copied.page.goto(served.url)
        copied.page.wait_for_function("document.querySelector('#error').textContent !== ''")
        assert "used already" in copied.page.inner_text("#error")
        assert copied.page.query_selector_all("#sessions tr") == []
        other.close()
        first.close()
    finally:
        status, stderr = served.stop()
    # The terminal got a fresh link for another browser, once the printed one was used.
    assert status == 0
    fresh = re.findall(r"in another browser: (http://\S+/#code=\S+)", stderr)
    assert len(fresh) == 1 and fresh[0] != served.url, stderr


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []  # noqa: RUF012 - one list for the test's one server

    def do_GET(self) -> None:
        self.seen.append(str(self.headers))
        body = b"<!doctype html><title>another server</title>"
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


def test_another_server_on_this_host_receives_no_credential(served: Served, browser: Any) -> None:
    other = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        opened = Opened(context.new_page())
        opened.page.goto(served.link())
        _listed(opened)
        secret = opened.page.evaluate("localStorage.getItem('correx-serve-credential')")
        opened.page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        opened.page.wait_for_selector("title", state="attached")
        sent = "\n".join(_Recorder.seen)
        assert sent and "cookie" not in sent.lower()
        assert secret not in sent and str(served.token) not in sent
    finally:
        context.close()
        other.shutdown()
        other.server_close()


@pytest.mark.parametrize(
    "path",
    [
        "//evil.example/x?token={token}",
        "/\\evil.example/x?token={token}",
        "/%2F%2Fevil.example/x?token={token}",
        "/%5Cevil.example?token={token}",
        "/sessions/%2F%2Fevil.example?at=1#code={code}",
        "/sessions/%5C%5Cevil.example#code={code}",
    ],
)
def test_no_address_sends_the_browser_to_another_host(
    served: Served, browser: Any, path: str
) -> None:
    code = served.link().rsplit("#code=", 1)[-1] if "{code}" in path else ""
    context = browser.new_context()
    elsewhere: list[str] = []

    def refuse(route: Any) -> None:  # never let a test reach the network
        elsewhere.append(route.request.url)
        route.abort()

    try:
        opened = Opened(context.new_page())  # every request, redirects too
        opened.page.route(lambda url: not url.startswith(served.base + "/"), refuse)
        try:
            opened.page.goto(served.base + path.format(token=served.token, code=code))
            opened.page.wait_for_load_state("networkidle")
        except playwright.Error:
            pass  # a navigation to another host failed: the assertion below says so
        elsewhere += [url for url in opened.requests if not url.startswith(served.base + "/")]
        assert elsewhere == [], elsewhere
        assert opened.page.url.startswith(served.base + "/"), opened.page.url
    finally:
        context.close()
