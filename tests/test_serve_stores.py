"""``correx-tools serve`` over every kind of store: the same answers, and live from each.

The demo's generated session is copied into a JSONL log and a PostgreSQL
database beside its SQLite file; a server over each gives the same answers. A
`SessionRecorder` in another process then records into each store while its
server watches: the new head is pushed within two seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from correx_tools import JsonlEventLog, PostgresEventStore, SessionId, SQLiteEventStore

from .serving import ROOT, Served, demo_store

SESSION = "demo-run01-session-1"


@pytest.fixture(scope="module")
def sqlite_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("serve-stores")
    return demo_store(directory, 1, 120)


@pytest.fixture(scope="module")
def jsonl_source(sqlite_source: Path) -> Path:
    path = sqlite_source.with_name("demo.jsonl")
    with SQLiteEventStore(sqlite_source, read_only=True) as store:
        JsonlEventLog(path).import_events(list(store.read(SessionId(SESSION)))).unwrap()
    return path


@pytest.fixture(scope="module")
def postgres_source(sqlite_source: Path, postgres_dsn: str) -> Iterator[str]:
    import psycopg  # noqa: PLC0415 - only this fixture needs it
    from psycopg.conninfo import conninfo_to_dict  # noqa: PLC0415

    name = f"serve_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    params = conninfo_to_dict(postgres_dsn)
    url = f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}/{name}"
    with SQLiteEventStore(sqlite_source, read_only=True) as source:
        target = PostgresEventStore(url)
        target.import_events(list(source.read(SessionId(SESSION)))).unwrap()
        target.close()
    yield url
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


QUESTIONS = [
    (f"/api/v1/sessions/{SESSION}/state", {"at": 100, "limit": 30}),
    (f"/api/v1/sessions/{SESSION}/state", {}),
    (f"/api/v1/sessions/{SESSION}/invocations/{SESSION}%2Fcall-00042/history", {}),
    (f"/api/v1/sessions/{SESSION}/diff", {"a": 17, "b": 230}),
    (f"/api/v1/sessions/{SESSION}/stats", {"at": 211}),
    (f"/api/v1/sessions/{SESSION}/scrub", {"at": 211, "since": 60}),
    (f"/api/v1/sessions/{SESSION}/timeline", {"buckets": 5}),
    (f"/api/v1/sessions/{SESSION}/search", {"q": "tests/"}),
    (f"/api/v1/sessions/{SESSION}/seek", {"from": 50}),
    (f"/api/v1/sessions/{SESSION}/refused", {}),
]


def answers(served: Served) -> list[object]:
    return [
        whole_search(served, path, params)
        if path.endswith("/search")
        else served.answer(path, **params)
        for path, params in QUESTIONS
    ]


def whole_search(served: Served, path: str, params: dict[str, object]) -> object:
    """A search's every match: where a page ends depends on the machine's load."""
    return served.every_match(path, **params)


def test_every_kind_of_store_gives_the_same_answers(
    sqlite_source: Path, jsonl_source: Path, postgres_source: str
) -> None:
    # The test server trusts every local connection: the password is there to be masked.
    with_password = postgres_source.replace(
        "postgresql://postgres@", "postgresql://postgres:s3cret@"
    )
    sources = (sqlite_source, jsonl_source, with_password)
    servers = [Served(source, "--no-redact") for source in sources]
    try:
        given = [answers(served) for served in servers]
        assert given[0] == given[1] == given[2]
        rows = [served.answer("/api/v1/sessions", q=SESSION)["sessions"] for served in servers]
        assert rows[0] == rows[1] == rows[2] and len(rows[0]) == 1
        masked = postgres_source.replace("postgresql://postgres@", "postgresql://postgres:***@")
        assert servers[2].document["source"] == masked and "s3cret" not in servers[2].line
        assert servers[2].answer("/api/v1/sessions")["source"] == masked
        assert "s3cret" not in str(servers[2].get("/api/v1/sessions/nope/state")[1])
    finally:
        for served in servers:
            assert served.stop()[0] == 0


def _heads(served: Served) -> Iterator[int]:
    request = urllib.request.Request(
        f"{served.base}/api/v1/sessions/{SESSION}/stream",
        headers={"Authorization": f"Bearer {served.token}"},
    )
    with urllib.request.urlopen(request, timeout=20) as stream:
        for line in stream:
            if line.startswith(b"data: "):
                yield json.loads(line.removeprefix(b"data: "))["last_sequence"]


@pytest.mark.parametrize("kind", ["sqlite", "jsonl", "postgres"])
def test_a_recorder_in_another_process_is_pushed_live(
    kind: str, sqlite_source: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if kind == "postgres":
        source = request.getfixturevalue("postgres_source")
    else:
        original = sqlite_source if kind == "sqlite" else request.getfixturevalue("jsonl_source")
        copy = tmp_path / original.name
        copy.write_bytes(original.read_bytes())
        source = str(copy)
    served = Served(source)
    heads = _heads(served)
    first = next(heads)
    script = str(ROOT / "tests" / "serve_recorder.py")
    recorder = subprocess.Popen(
        [sys.executable, script, source, SESSION, "3", "0.3"],
        stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        assert recorder.stdout is not None
        seen = first
        for _ in range(3):
            recorded = int(recorder.stdout.readline().split()[1])
            while seen < recorded:  # a head may also pass a call recorded since
                seen = next(heads)
        assert recorder.wait(timeout=30) == 0 and recorded == first + 9
        scrub = served.answer(f"/api/v1/sessions/{SESSION}/scrub", since=first)
        assert scrub["last"] == recorded and scrub["changes"]["total"] == 3
        assert {c["after"] for c in scrub["changes"]["items"]} == {"completed", "failed"}
    finally:
        recorder.kill()
        recorder.communicate()
        heads.close()
        assert served.stop()[0] == 0
