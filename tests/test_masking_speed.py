"""Masking is linear in its input: hostile text costs what ordinary text of its size costs.

Before, masking backtracked: ``"token" * n`` took 0.06 / 0.24 / 0.94 / 3.74 s at
4k / 8k / 16k / 32k characters, and a session with one 64,000-character output
held the server for 15 s. Each measure here is a ratio to ordinary text (what
the real sample's tools gave back) of the same size, taken in the same run, so
a slower or busier machine moves both alike. The growth up to 1 MiB is ``slow``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from correx_tools.core.report.redaction import MASK, Redaction
from correx_tools.core.report.secret_rules import builtin_rules

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


def cost(text: str, *, runs: int = 5, give_up: float = 10.0) -> float:
    """The least time masking ``text`` took in ``runs`` runs (fewer if one passes
    ``give_up`` seconds: backtracking is not waited for)."""
    best = float("inf")
    for _ in range(runs):
        redaction = Redaction()  # nothing kept from the run before
        start = time.perf_counter()
        redaction.text(text)
        best = min(best, time.perf_counter() - start)
        if best > give_up:
            break
    return best


def ratios(seeds: list[str], size: int, *, rounds: int = 5) -> dict[str, float]:
    """Each seed's hostile text of ``size`` characters: its cost over ordinary text's.

    Ordinary and hostile text are timed in turns, and each keeps its best round,
    so a burst of other work on the machine lands on both rather than on one.
    """
    ordinary = ordinary_text(size)
    Redaction().text(ordinary)  # every rule it wakes compiled before anything is timed
    found = {}
    for seed in seeds:
        hostile = sized(seed, size)
        Redaction().text(hostile[:4096])
        base = hard = float("inf")
        for _ in range(rounds):
            base = min(base, cost(ordinary, runs=1))
            hard = min(hard, cost(hostile, runs=1))
            if hard > 50 * base:
                break  # backtracking is not waited for
        found[seed] = hard / base
    return found


def over_twice(found: dict[str, float], size: int, *, looks: int = 2) -> dict[str, float]:
    """The seeds of ``found`` that cost over twice ordinary text, and still do each time
    they are timed again (``looks`` more times, with three times the rounds): work that
    grows with a hostile text costs that every time, while a loaded machine slows one
    seed of hundreds now and then (beside the other tests, a private key's header at 1.5x
    alone was seen at 4.4x, then 2.05x)."""
    over = {seed: r for seed, r in found.items() if r > 2.0}
    for _ in range(looks):
        if not over:
            break
        again = ratios(sorted(over), size, rounds=15)
        over = {seed: r for seed, r in again.items() if r > 2.0}
    return {seed: round(r, 2) for seed, r in over.items()}


def test_the_named_hostile_strings_cost_what_ordinary_text_costs() -> None:
    found = ratios(NAMED, 64 * 1024)
    assert over_twice(found, 64 * 1024) == {}, found


def test_each_rules_keywords_repeated_cost_what_ordinary_text_costs() -> None:
    found = ratios(KEYWORDS, 64 * 1024)
    assert len(found) > 200
    assert over_twice(found, 64 * 1024) == {}


def test_a_text_of_nothing_but_findings_costs_time_linear_in_its_size() -> None:
    for seed in FINDINGS:
        small, large = sized(seed, 32 * 1024), sized(seed, 256 * 1024)
        Redaction().text(small)
        growth = cost(large) / cost(small)
        if growth >= 16:  # a busy core can meet all five runs once; a real slowdown stays
            growth = min(growth, cost(large) / cost(small))
        assert growth < 16, (seed, growth)  # linear is 8; quadratic, 64
        assert MASK in Redaction().text(large[:1000])


@pytest.mark.slow
@pytest.mark.parametrize("seed", NAMED + FINDINGS)
def test_masking_grows_linearly_up_to_a_mebibyte(seed: str) -> None:
    def growth() -> float:
        small, large = (cost(sized(seed, size), runs=3) for size in (64 * 1024, 1 << 20))
        return large / small  # linear is 16; quadratic, 256

    # A busy core can land on every run of one size (a 64 KiB run takes under a
    # millisecond); a real slowdown stays on a second look.
    grown = [growth()]
    if grown[0] >= 32:
        grown.append(growth())
    assert min(grown) < 32, grown
    if seed in NAMED:
        # Beside the other slow tests a mebibyte's rounds can all meet a busy
        # core; a real slowdown stays on a second look.
        found = [ratios([seed], 1 << 20)[seed] for _ in range(2)]
        assert min(found) < 2.0, found


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
    another's requests are each answered in under 100 ms meanwhile."""
    session = f"/api/v1/sessions/{quote(SESSION, safe='')}"
    call = f"{session}/invocations/{quote(SESSION + '/toolu_planted00', safe='')}"
    heavy = [(f"{call}/history", None), (f"{call}/view", None), (f"{session}/search", {"q": "x"})]
    for path, query in heavy:  # each answers, masked
        status, body, _ = served.get(path, query)
        assert status == 200 and NAMED[1] * 2 not in str(body)
    stop, opened = threading.Event(), [0]

    def opener() -> None:
        while not stop.is_set():
            for path, query in heavy:
                served.get(path, query)
                opened[0] += 1

    thread = threading.Thread(target=opener)
    thread.start()
    waits = []
    try:
        time.sleep(0.3)
        for _ in range(40):
            start = time.perf_counter()
            assert served.get(session)[0] == 200
            waits.append(time.perf_counter() - start)
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join()
    assert opened[0] >= 6, opened  # the other client was busy all along
    # A stall (masking the hostile value while holding up the server) costs every request
    # seconds; a loaded test machine may delay one request a little past 100 ms.
    waits.sort()
    assert waits[-2] < 0.1 and waits[-1] < 0.5, (waits[-3:], statistics.median(waits))


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
        waits: dict[tuple[str, str], list[float]] = {}
        for question in ("", "/state", "/stats", "/timeline", "/scrub", "/search?q=ls") * 3:
            for which, ref in refs.items():
                start = time.perf_counter()
                status, body, _ = server.get(f"/api/v1/sessions/{quote(ref, safe='')}{question}")
                waits.setdefault((question, which), []).append(time.perf_counter() - start)
                assert status == 200, body
        # Work that grows with the id slows every asking of a question; a loaded machine
        # delays one asking now and then, so the fastest of three is compared with the
        # fastest of the same question about the same session under a short id, asked
        # in turn with it (work quadratic in 20,000 characters takes seconds).
        for question in {question for question, _ in waits}:
            long, short = min(waits[question, "long"]), min(waits[question, "short"])
            assert long < 3 * short + 0.1, (question, waits)
        assert max(max(times) for times in waits.values()) < 2.0, waits
    finally:
        server.stop()


def _report_seconds(source: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "correx_tools", "report", str(source), SESSION, "-o", str(out),
         "--no-cache"],
        check=True, capture_output=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    return time.perf_counter() - start


def test_report_costs_what_it_costs_on_ordinary_text(tmp_path: Path) -> None:
    size = 900_000  # ordinary text grows by a tenth as JSON: this fits an event
    sources = {
        kind: transcript_with(tmp_path / kind, [("Bash", {"command": "x"}, text)])
        for kind, text in (("ordinary", ordinary_text(size)), ("hostile", HOSTILE[:size]))
        if (tmp_path / kind).mkdir() is None
    }
    seconds = {
        kind: min(_report_seconds(path, tmp_path / f"{kind}-{n}.html") for n in range(2))
        for kind, path in sources.items()
    }
    assert seconds["hostile"] <= 2 * seconds["ordinary"], seconds
