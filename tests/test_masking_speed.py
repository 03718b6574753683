"""Masking is linear in its input: hostile text grows in cost as ordinary text does.

Before, masking backtracked: ``"token" * n`` took 0.06 / 0.24 / 0.94 / 3.74 s at
4k / 8k / 16k / 32k characters, and a session with one 64,000-character output
held the server for 15 s. Each guard here compares the CPU time of one text at two
sizes (`growth.grows_linearly`: quadratic work grows as the square of the size, far past
the limit), so a slower or busier machine cannot fail it; what hostile text costs against
ordinary text of its size is a row of the benchmarks (``benchmarks/masking.py``). The
growth up to 1 MiB is ``slow``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from correx_tools.core.report.redaction import MASK, Redaction
from correx_tools.core.report.secret_rules import builtin_rules

from .commands import correx
from .growth import grows_linearly
from .planted import SESSION, ordinary_text, transcript_with
from .serving import ROOT, Served

NAMED = ["token", "-----BEGIN PRIVATE KEY-----", "password=", "a"]
"""The hostile strings the issue names; each rule's keywords are hostile strings too."""
KEYWORDS = sorted({keyword for rule in builtin_rules() for keyword in rule.keywords})
FINDINGS = ["api_key=abc123def456ghi ", '"password": "x", ', "Bearer q7Zk ",
            "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY "]  # fmt: skip
"""Texts that are nothing but findings: masked in time linear in their number."""


def sized(seed: str, size: int) -> str:
    return (seed * (size // len(seed) + 1))[:size]


def masking(seed: str) -> Callable[[int], Callable[[], object]]:
    """Masking ``seed`` repeated to a size, with a new `Redaction` each time (nothing kept
    from the run before)."""

    def at(size: int) -> Callable[[], object]:
        text = sized(seed, size)
        return lambda: Redaction().text(text)

    return at


def test_the_named_hostile_strings_grow_as_ordinary_text_does() -> None:
    for seed in [*NAMED, ordinary_text(4096)]:
        grows_linearly(masking(seed), 16 * 1024, 128 * 1024)


def test_each_rules_keywords_repeated_grow_linearly() -> None:
    assert len(KEYWORDS) > 200
    for keyword in KEYWORDS:
        grows_linearly(masking(keyword), 8 * 1024, 64 * 1024)


def test_a_text_of_nothing_but_findings_costs_time_linear_in_its_size() -> None:
    for seed in FINDINGS:
        grows_linearly(masking(seed), 32 * 1024, 256 * 1024)
        assert MASK in Redaction().text(sized(seed, 1000))


@pytest.mark.slow
@pytest.mark.parametrize("seed", NAMED + FINDINGS)
def test_masking_grows_linearly_up_to_a_mebibyte(seed: str) -> None:
    grows_linearly(masking(seed), 64 * 1024, 1 << 20)


# The server and the report, with a session whose one output is a mebibyte of hostile text.

SIZE = 1_000_000
"""Characters of the hostile output: the store keeps events up to a mebibyte."""
HOSTILE = "".join(sized(seed, SIZE // 4) for seed in ["token", "password=", "a", NAMED[1]])


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    call = ("Bash", {"command": "python gen.py"}, HOSTILE)
    return transcript_with(tmp_path_factory.mktemp("hostile"), [call])


@pytest.fixture(scope="module")
def served(hostile: Path) -> Iterator[Served]:
    server = Served(hostile, "--no-cache")
    yield server
    server.stop()


def test_a_hostile_output_holds_up_no_other_client(served: Served) -> None:
    """One client opens the hostile call's history, its view and searches, again and again;
    another's requests are answered while each of the first one's is still being worked
    on (a server held up by masking answers nobody until it is done)."""
    session = f"/api/v1/sessions/{quote(SESSION, safe='')}"
    call = f"{session}/invocations/{quote(SESSION + '/toolu_planted00', safe='')}"
    heavy = [(f"{call}/history", None), (f"{call}/view", None), (f"{session}/search", {"q": "x"})]
    for path, query in heavy:  # each answers, masked
        status, body, _ = served.get(path, query)
        assert status == 200 and NAMED[1] * 2 not in str(body)
    stop = threading.Event()
    spans: list[tuple[float, float]] = []  # each heavy request: sent, answered

    def opener() -> None:
        while not stop.is_set():
            for path, query in heavy:
                sent = time.monotonic()
                served.get(path, query)
                spans.append((sent, time.monotonic()))

    thread = threading.Thread(target=opener)
    thread.start()
    light: list[tuple[float, float]] = []
    try:
        while len(spans) < 12:  # however long a busy machine makes them take
            sent = time.monotonic()
            assert served.get(session)[0] == 200
            light.append((sent, time.monotonic()))
    finally:
        stop.set()
        thread.join()
    # Light requests sent and answered while one heavy request was being worked on: held up,
    # the server would answer each only once the heavy one was done.
    inside = [(a, b) for a, b in light if any(start < a and b < end for start, end in spans)]
    assert len(inside) >= 6, (len(inside), len(light), len(spans))


def test_a_session_id_of_20000_characters_slows_no_request(tmp_path: Path) -> None:
    long_id = "token" * 4_000
    call = [("Bash", {"command": "ls"}, "a\nb")]
    transcript_with(tmp_path, call, session=long_id, name="long.jsonl")
    transcript_with(tmp_path, call, name="short.jsonl")  # the same session, its own id
    server = Served(tmp_path, "--no-cache")
    try:
        listed = server.answer("/api/v1/sessions")["sessions"]
        refs = {
            "long" if row["session_id"].startswith(long_id) else "short": row["ref"]
            for row in listed
            if row["session_id"].endswith("/agent-a2898e3")
        }
        spent = {"long": 0.0, "short": 0.0}  # the server's CPU seconds per session
        for question in ("", "/state", "/stats", "/timeline", "/scrub", "/search?q=ls") * 5:
            for which, ref in refs.items():
                before = server.cpu_seconds()
                status, body, _ = server.get(f"/api/v1/sessions/{quote(ref, safe='')}{question}")
                spent[which] += server.cpu_seconds() - before
                assert status == 200, body
        # Work that grows with the id slows every asking of a question. The server's own CPU
        # time is counted (what a loaded machine runs beside it does not count in it), over
        # thirty askings of each session in turn; work quadratic in 20,000 characters costs
        # seconds an asking.
        assert spent["long"] < 3 * spent["short"] + 0.25, spent
    finally:
        server.stop()


def test_the_report_of_a_hostile_output_grows_as_its_size(tmp_path: Path) -> None:
    def report(size: int) -> Callable[[], object]:
        folder = tmp_path / f"hostile-{size}"
        folder.mkdir()
        source = transcript_with(folder, [("Bash", {"command": "x"}, HOSTILE[:size])])
        out = folder / "report.html"
        return lambda: correx(
            "report", str(source), SESSION, "-o", str(out), "--no-cache", check=True, cwd=ROOT
        )

    # Up to 900,000 characters (ordinary text grows by a tenth as JSON: this fits an event).
    grows_linearly(report, 225_000, 900_000, runs=2)
