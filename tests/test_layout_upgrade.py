"""A store written by an older release opens with this release, and is upgraded exactly.

``tests/data/layout-v*.sqlite`` and ``layout-v*-postgres.sql`` were written by
that release's own code (``tests/data/layout-v*.md``). Read-only, layouts 1 and
2 are answered by folding, and layout 3 from its own index, each row checked by
its own layout's seal; writing needs an upgrade, refused with the command to run
or done in place in one transaction; afterwards every answer is what the fold
gives, and the index is kept as the file grows.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import psycopg
import pytest

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    PostgresEventStore,
    Retention,
    SessionId,
    SQLiteEventStore,
    StoreLayoutError,
    ToolProjector,
    fold_events,
)
from correx_tools.shell.replay.by_folding import ByFolding
from correx_tools.shell.replay.questions import FromIndex
from correx_tools.shell.stores.port import EventStore
from correx_tools.shell.stores.sql.layout import LAYOUT, READABLE_LAYOUT

from .strategies import requested, started
from .test_cli import fails, run, run_json

DATA = Path(__file__).parent / "data"
A, B = SessionId("legacy-session-a"), SessionId("legacy-session-b")


@pytest.fixture(params=[1, 2, 3])
def old_layout(request: pytest.FixtureRequest) -> int:
    """Each older layout a store may have been written in (see tests/data/layout-v*.md)."""
    layout: int = request.param
    return layout


@pytest.fixture
def legacy_file(tmp_path: Path, old_layout: int) -> Path:
    path = tmp_path / "legacy.sqlite"
    shutil.copy(DATA / f"layout-v{old_layout}.sqlite", path)
    return path


@pytest.fixture
def legacy_schema(postgres_dsn: str, old_layout: int) -> Iterator[str]:
    """A dump of an older layout loaded into a schema of this test's own."""
    schema = f"legacy_{uuid.uuid4().hex[:12]}"
    dump = (DATA / f"layout-v{old_layout}-postgres.sql").read_text(encoding="utf-8")
    statements = "\n".join(line for line in dump.splitlines() if not line.startswith("\\"))
    statements = re.sub(r"\blegacy\.", f"{schema}.", statements)
    statements = statements.replace("CREATE SCHEMA legacy;", f"CREATE SCHEMA {schema};")
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(statements)
    try:
        yield schema
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


def fold_answers(store: EventStore, session: SessionId) -> tuple[object, ...]:
    events = list(store.read(session))
    replay = fold_events(ToolProjector(), events, strict=False, retention=Retention.all()).unwrap()
    timeline = replay.timeline
    assert timeline is not None
    return (
        [timeline.at(k) for k in range(len(events) + 1)],
        timeline.history(events[0].event.invocation_id),  # type: ignore[attr-defined]
        replay.quarantined,
    )


def repository_answers(store: EventStore, session: SessionId) -> tuple[object, ...]:
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    last = repository.last_sequence(session)
    first = next(iter(store.read(session))).event.invocation_id  # type: ignore[attr-defined]
    return (
        [repository.at(session, k).unwrap() for k in range(last + 1)],
        repository.history(session, first).unwrap(),
        repository.refused(session),
    )


def way_of_answering(store: EventStore, session: SessionId) -> type:
    with DefaultToolRepository(EventReplayer(store))._questions(session) as questions:
        return type(questions)


def answered_by(layout: int) -> type:
    """How a store of ``layout`` opened read-only answers: from its index when this release
    reads it as it is."""
    return FromIndex if layout >= READABLE_LAYOUT else ByFolding


def test_a_legacy_file_reads_as_it_is_and_refuses_writing_until_upgraded(
    legacy_file: Path, old_layout: int
) -> None:
    read_only = SQLiteEventStore(legacy_file, read_only=True)
    assert read_only.layout == old_layout
    assert read_only.sessions() == (A, B)
    assert way_of_answering(read_only, A) is answered_by(old_layout)
    expected = {session: fold_answers(read_only, session) for session in (A, B)}
    assert {s: repository_answers(read_only, s) for s in (A, B)} == expected
    read_only.close()
    with pytest.raises(
        StoreLayoutError, match=rf"older release \(layout {old_layout}\).*correx-tools reindex"
    ):
        SQLiteEventStore(legacy_file)
    upgraded = SQLiteEventStore(legacy_file, upgrade=True)
    assert upgraded.layout == LAYOUT
    for session in (A, B):
        assert way_of_answering(upgraded, session) is FromIndex
        assert repository_answers(upgraded, session) == expected[session]
    # Written to after the upgrade: the index keeps up.
    upgraded.append(A, [requested("a-5"), started("a-5")], expected_sequence=12).unwrap()
    assert way_of_answering(upgraded, A) is FromIndex
    assert repository_answers(upgraded, A) == fold_answers(upgraded, A)


def test_the_command_upgrades_a_legacy_file_in_place(legacy_file: Path, old_layout: int) -> None:
    before = run_json("sessions", str(legacy_file))
    note = run("sessions", str(legacy_file)).stderr
    if old_layout < READABLE_LAYOUT:  # answered by folding meanwhile: said once
        assert "older release" in note and "reindex" in note
    else:
        assert note == ""
    fails("import", str(legacy_file), str(legacy_file), words="correx-tools reindex")
    done = run_json("reindex", str(legacy_file))
    assert done["upgraded"] is True and done["events"] == 16 and done["sessions"] == 2
    assert run_json("sessions", str(legacy_file)) == before
    assert run("sessions", str(legacy_file)).stderr == ""
    again = run_json("reindex", str(legacy_file))
    assert again["upgraded"] is False and again["events"] == 16


def test_a_legacy_postgres_schema_is_upgraded_the_same_way(
    postgres_dsn: str, legacy_schema: str, old_layout: int
) -> None:
    read_only = PostgresEventStore(postgres_dsn, schema=legacy_schema, read_only=True)
    assert read_only.layout == old_layout
    assert way_of_answering(read_only, A) is answered_by(old_layout)
    expected = {session: fold_answers(read_only, session) for session in (A, B)}
    read_only.close()
    with pytest.raises(StoreLayoutError, match="correx-tools reindex"):
        PostgresEventStore(postgres_dsn, schema=legacy_schema)
    upgraded = PostgresEventStore(postgres_dsn, schema=legacy_schema, upgrade=True)
    assert upgraded.layout == LAYOUT
    for session in (A, B):
        assert way_of_answering(upgraded, session) is FromIndex
        assert repository_answers(upgraded, session) == expected[session]
    upgraded.append(A, [requested("a-5"), started("a-5")], expected_sequence=12).unwrap()
    assert repository_answers(upgraded, A) == fold_answers(upgraded, A)
    upgraded.close()


@pytest.mark.parametrize("old_layout", [3])
def test_a_layout_3_index_is_checked_by_its_own_seals_and_sealed_anew(legacy_file: Path) -> None:
    def seals() -> dict[str, int]:
        with closing(sqlite3.connect(legacy_file)) as connection:
            return dict(connection.execute("SELECT invocation_id, seal FROM invocations"))

    before = seals()
    read_only = SQLiteEventStore(legacy_file, read_only=True)
    for session, calls in ((A, 4), (B, 1)):
        # Checked by layout 4's seals, every row of this file would be found damaged.
        assert read_only.verify_session(session).faults == ()
        with read_only.session_index(session) as index:
            assert index is not None
            assert len(index.entries(through=index.last_sequence)) == calls
        with DefaultToolRepository(EventReplayer(read_only), strict=False).view(session) as view:
            assert len(list(view.outlines().unwrap())) == calls
            assert view.indexed and not view.stale
    read_only.close()

    def rename(tool: str) -> None:
        with closing(sqlite3.connect(legacy_file)) as connection, connection:
            connection.execute(
                "UPDATE invocations SET tool_name = ? WHERE invocation_id = 'a-1'", (tool,)
            )

    rename("other")
    damaged = SQLiteEventStore(legacy_file, read_only=True)
    [fault] = damaged.verify_session(A).faults
    assert "'a-1' does not match" in fault.message and not fault.in_events
    damaged.close()
    rename("read_file")
    SQLiteEventStore(legacy_file, upgrade=True).close()
    after = seals()
    assert after.keys() == before.keys()
    assert all(after[invocation] != before[invocation] for invocation in after)
    upgraded = SQLiteEventStore(legacy_file, read_only=True)
    assert upgraded.layout == LAYOUT
    assert [upgraded.verify_session(session).faults for session in (A, B)] == [(), ()]


@pytest.mark.parametrize("old_layout", [3])
def test_a_layout_3_postgres_schema_is_checked_by_its_own_seals(
    postgres_dsn: str, legacy_schema: str
) -> None:
    read_only = PostgresEventStore(postgres_dsn, schema=legacy_schema, read_only=True)
    assert [read_only.verify_session(session).faults for session in (A, B)] == [(), ()]
    read_only.close()
    upgraded = PostgresEventStore(postgres_dsn, schema=legacy_schema, upgrade=True)
    assert [upgraded.verify_session(session).faults for session in (A, B)] == [(), ()]
    upgraded.close()


@pytest.mark.parametrize("old_layout", [3])
def test_a_reader_open_while_another_process_upgrades_reads_by_the_new_layout(
    legacy_file: Path,
) -> None:
    reader = SQLiteEventStore(legacy_file, read_only=True)
    assert reader.layout == 3 and reader.verify_session(A).faults == ()
    SQLiteEventStore(legacy_file, upgrade=True).close()  # another process, say
    assert reader.verify_session(A).faults == ()  # its rows now checked by layout 4's rule
    assert reader.layout == LAYOUT and not reader.outdated
    with DefaultToolRepository(EventReplayer(reader), strict=False).view(A) as view:
        assert len(list(view.outlines().unwrap())) == 4
        assert view.indexed and not view.stale
    reader.close()
