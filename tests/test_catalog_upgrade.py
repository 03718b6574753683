"""A store written before the catalog (layout 4, ``tests/data/layout-v4*``): read-only, its
sessions are listed, totalled and searched by folding and scanning their events; opened
for writing, it gains its catalog and full-text index in place (no upgrade asked for: its
index is kept), and they answer as the fold and the scan did."""

from __future__ import annotations

import re
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from correx_tools import EventReplayer, PostgresEventStore, SQLiteEventStore, import_transcript
from correx_tools.core.catalog.listing import SessionQuery
from correx_tools.shell.catalog.folded import FoldedCatalog
from correx_tools.shell.catalog.picking import catalog_of, searchable_of
from correx_tools.shell.catalog.scanned import ScannedSearch
from correx_tools.shell.replay.repository import DefaultToolRepository
from correx_tools.shell.stores.sql.layout import LAYOUT
from correx_tools.shell.stores.sql.store import SqlEventStore

DATA = Path(__file__).parent / "data"


def _answers(store: SqlEventStore) -> tuple[Any, ...]:
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    catalog = catalog_of(store, lambda: repository)
    searchable = searchable_of(store, lambda: repository)
    listed = catalog.listed(SessionQuery())
    windows = sorted(
        ((e[0].session_id, e[1] or 0, e[2] or "", e[3]) for e in catalog.activity(SessionQuery())),
        key=lambda entry: entry[:3],
    )
    hits = sorted((h.session_id, h.sequence, h.field, h.snippet) for h in searchable.search("read"))
    return listed, windows, hits


def _upgrades(opened: SqlEventStore, reopen: Any) -> None:
    assert opened.layout == 4 and not opened.keeps_catalog
    repository = DefaultToolRepository(EventReplayer(opened), strict=False)
    assert isinstance(catalog_of(opened, lambda: repository), FoldedCatalog)
    assert isinstance(searchable_of(opened, lambda: repository), ScannedSearch)
    before = _answers(opened)
    assert before[0][1] == 2 and before[2]  # both sessions, and calls that read
    opened.close()  # type: ignore[attr-defined]
    upgraded = reopen()
    assert upgraded.layout == LAYOUT and upgraded.keeps_catalog
    assert catalog_of(upgraded, lambda: repository) is upgraded
    assert _answers(upgraded) == before
    assert all(upgraded.verify_session(session).intact for session in upgraded.sessions())
    upgraded.close()


def test_a_layout_4_file_gains_its_catalog_when_opened_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "legacy.sqlite"
    shutil.copy(DATA / "layout-v4.sqlite", path)
    _upgrades(SQLiteEventStore(path, read_only=True), lambda: SQLiteEventStore(path))


@pytest.fixture
def legacy_schema(postgres_dsn: str) -> Iterator[str]:
    schema = f"legacy_{uuid.uuid4().hex[:12]}"
    dump = (DATA / "layout-v4-postgres.sql").read_text(encoding="utf-8")
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


def test_a_layout_4_schema_gains_its_catalog_when_opened_for_writing(
    postgres_dsn: str, legacy_schema: str
) -> None:
    def writer() -> PostgresEventStore:
        store = PostgresEventStore(postgres_dsn, schema=legacy_schema)
        store.init_db()
        return store

    reader = PostgresEventStore(postgres_dsn, schema=legacy_schema, read_only=True)
    _upgrades(reader, writer)


# A build made before layout 5 was final wrote a catalog without its last columns (how a
# run ended): read-only, such a store is listed by folding, never by a query that fails.
RUN = DATA / "runs" / "mini-swe-agent-gemini-3-pro" / "trajs" / "django__django-10999"


def _listed(store: SqlEventStore) -> tuple[Any, Any]:
    """The store's answer to listing every session, and who gave it."""
    catalog = catalog_of(store, lambda: DefaultToolRepository(EventReplayer(store), strict=False))
    return catalog, catalog.listed(SessionQuery())


def _mends(store: SqlEventStore, lacking: Any, reopen: Any) -> None:
    import_transcript(RUN / "django__django-10999.traj.json", store)
    _, before = _listed(store)
    assert before[0][0].facts.description.outcome is not None
    store.close()  # type: ignore[attr-defined]
    lacking()  # as that build left it
    reader = reopen(read_only=True)
    assert not reader.keeps_catalog
    catalog, listed = _listed(reader)
    assert isinstance(catalog, FoldedCatalog) and listed == before
    reader.close()
    writer = reopen(read_only=False)
    assert writer.keeps_catalog
    catalog, listed = _listed(writer)
    assert catalog is writer and listed == before
    writer.close()


def test_a_sqlite_catalog_without_its_last_column_is_folded_then_mended(tmp_path: Path) -> None:
    path = tmp_path / "early.sqlite"

    def lacking() -> None:
        with sqlite3.connect(path) as connection:
            connection.execute("ALTER TABLE session_catalog DROP COLUMN outcome")
        connection.close()

    def reopen(*, read_only: bool) -> SQLiteEventStore:
        return SQLiteEventStore(path, read_only=read_only)

    _mends(SQLiteEventStore(path), lacking, reopen)


def test_a_postgres_catalog_without_its_last_column_is_folded_then_mended(
    postgres_dsn: str, postgres_schema: str
) -> None:
    def lacking() -> None:
        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute(
                f'ALTER TABLE "{postgres_schema}".correx_catalog DROP COLUMN outcome'
            )

    def reopen(*, read_only: bool) -> PostgresEventStore:
        store = PostgresEventStore(postgres_dsn, schema=postgres_schema, read_only=read_only)
        if not read_only:
            store.init_db()
        return store

    _mends(reopen(read_only=False), lacking, reopen)
