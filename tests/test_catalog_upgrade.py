"""A store written before the catalog (layout 4, ``tests/data/layout-v4*``): read-only, its
sessions are listed, totalled and searched by folding and scanning their events; opened
for writing, it gains its catalog and full-text index in place (no upgrade asked for: its
index is kept), and they answer as the fold and the scan did."""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from correx_tools import EventReplayer, PostgresEventStore, SQLiteEventStore
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
