"""Rows for ``correx-tools serve`` on a stored session: start-up, answers, memory, first paint.

The server runs as the command runs it, in a process of its own, on loopback.
Each API question is asked 200 times at random points; its time is the
server's own (the ``Server-Timing`` it sends: from the request's arrival to
the answer, without the network), and its size the body's. The resident
memory is the server's after every question of the run (more than 1,000).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from .commands import command
from .stored import StoredSession
from .table import Row

QUESTIONS = 200
READY_SECONDS = 2.0
ANSWER_MS = 50.0
ANSWER_KB = 200
RESIDENT_MB = 150
PAINT_SECONDS = 1.5


class _Server:
    """``correx-tools serve SOURCE`` in a process of its own, and a client for it."""

    def __init__(self, source: str) -> None:
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [*command(), "serve", source, "--port", "0", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        self.listening = time.perf_counter() - started
        if not line.startswith("{"):
            self.process.kill()
            self.process.communicate()
            raise RuntimeError(f"correx-tools serve did not start: {line!r}")
        started_with = json.loads(line)
        self.url, self.token = started_with["url"], started_with["token"]
        parts = urllib.parse.urlsplit(self.url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.ask("/api/v1/sessions")
        self.first_answer = time.perf_counter() - started

    def ask(self, path: str, **params: object) -> tuple[float, int, Any]:
        """``(milliseconds the server took, bytes, body)`` of one question."""
        query = "?" + urllib.parse.urlencode(params) if params else ""
        request = urllib.request.Request(
            self.base + path + query, headers={"Authorization": f"Bearer {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            body = response.read()
            took = float(response.headers["server-timing"].split("dur=")[1])
        return took, len(body), json.loads(body)

    def resident_mb(self) -> float:
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.process.terminate()
        self.process.communicate(timeout=30)


Question = Callable[[], tuple[str, dict[str, object]]]


def _questions(stored: StoredSession, rng: random.Random) -> dict[str, Question]:
    """Each kind of question, asked about a random point of the session."""
    n, session = stored.events, stored.session_id
    base = f"/api/v1/sessions/{session}"

    def point() -> int:
        return rng.randrange(n + 1)

    def invocation() -> str:
        # The benchmark sessions name their invocations "<session>-<number>", ~3 events each.
        return urllib.parse.quote(f"{session}-{rng.randrange(n // 3)}", safe="")

    def diff() -> dict[str, object]:
        a = rng.randrange(n)
        return {"a": a, "b": min(n, a + rng.choice([10, 1_000, n]))}

    def window() -> dict[str, object]:
        # Microseconds after the first request: the benchmark's events are 1 µs apart, so
        # the windows hold from a few calls (bars) to the whole session (buckets).
        start = rng.randrange(n)
        return {"from": start, "to": start + rng.choice([10, 1_000, 100_000, n])}

    def search(**filters: object) -> dict[str, object]:
        return {**filters, "after": rng.randrange(n // 3)}

    return {
        "sessions": lambda: ("/api/v1/sessions", {}),
        "state": lambda: (f"{base}/state", {"at": point()}),
        "history": lambda: (f"{base}/invocations/{invocation()}/history", {}),
        "diff": lambda: (f"{base}/diff", diff()),
        "stats": lambda: (f"{base}/stats", {"at": point()}),
        "scrub": lambda: (f"{base}/scrub", {"at": point(), "since": point()}),
        "timeline": lambda: (f"{base}/timeline", window()),
        "search by tool and status": lambda: (
            f"{base}/search",
            search(tool="read_file", status=rng.choice(["failed", "rejected"])),
        ),
        "search by text": lambda: (f"{base}/search", search(q="exit 1")),
    }


SEARCH_MS = 300.0
"""A search page answers within its time budget (0.25 s) and a little more."""


def serve_rows(stored: StoredSession, questions: int = QUESTIONS) -> list[Row]:
    """Start-up, the answers' time and size by kind, memory after them, and first paint."""
    size = f"{stored.events:,}"
    server = _Server(stored.source)
    try:
        rows = [
            Row(
                f"{stored.kind}: correx-tools serve, ready",
                size,
                f"listening in {server.listening:.2f} s, first answer at {server.first_answer:.2f} s",
                "-",
                None,
                f"<= {READY_SECONDS:g} s",
                server.first_answer <= READY_SECONDS,
            )
        ]
        started = time.perf_counter()
        server.ask(f"/api/v1/sessions/{stored.session_id}/timeline")
        rows.append(
            Row(f"{stored.kind}: serve, the session's columns read", size,
                f"{time.perf_counter() - started:.2f} s after the first question (then kept)",
                "-", None, "-", None)
        )  # fmt: skip
        rng = random.Random(29)
        asked = 0
        for kind, question in _questions(stored, rng).items():
            times, sizes = [], []
            for _ in range(questions):
                path, params = question()
                took, length, _ = server.ask(path, **params)
                times.append(took)
                sizes.append(length)
            asked += questions
            p95 = statistics.quantiles(times, n=20)[-1]
            largest = max(sizes) / 1000
            limit = SEARCH_MS if kind.startswith("search") else ANSWER_MS
            rows.append(
                Row(
                    f"{stored.kind}: serve API, {kind}",
                    size,
                    f"p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms; "
                    f"largest {largest:,.0f} KB",
                    f"{questions} random questions, server side",
                    None,
                    f"p95 <= {limit:g} ms, <= {ANSWER_KB} KB",
                    p95 <= limit and largest <= ANSWER_KB,
                )
            )
        resident = server.resident_mb()
        rows.append(
            Row(f"{stored.kind}: serve, resident memory", size,
                f"{resident:,.0f} MB after {asked:,} questions", "-", None,
                f"<= {RESIDENT_MB} MB", resident <= RESIDENT_MB)
        )  # fmt: skip
        paint = first_paint(server, stored.session_id)
        rows.append(
            Row(f"{stored.kind}: serve, first paint of a session page", size,
                "no Chromium" if paint is None else f"{paint:.2f} s in Chromium",
                "-", None, f"<= {PAINT_SECONDS:g} s",
                None if paint is None else paint <= PAINT_SECONDS)
        )  # fmt: skip
        return rows
    finally:
        server.stop()


def first_paint(server: _Server, session: str) -> float | None:
    """Seconds from opening the session's page in headless Chromium to its first state shown."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 - optional here
    except ImportError:
        return None
    if chromium is None or not os.path.exists(chromium):
        return None
    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=flags)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.goto(server.url)  # the printed link: the page trades its code, as a person's does
        tab.wait_for_selector("body[data-ready]", timeout=120_000)
        started = time.perf_counter()
        tab.goto(f"{server.base}/sessions/{urllib.parse.quote(session, safe='')}")
        tab.wait_for_selector("body[data-ready]", timeout=120_000)
        seconds = time.perf_counter() - started
        browser.close()
    return seconds
