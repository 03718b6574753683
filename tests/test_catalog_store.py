"""The catalog and the full-text index a database store keeps at write time, against the
events: after any sequence of appends, imports, replacements and reindexes, its listing
(every filter), its short names, its activity, its usage reports (every grouping, in three
zones) and its search answer exactly what a fold of the events (`FoldedCatalog`,
`usage_rows`, `short_names`) and a scan of them (`ScannedSearch`) answer, and ``verify``
finds it intact; on SQLite and on PostgreSQL."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from datetime import timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import psycopg
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from correx_tools import EventReplayer, SessionId, SQLiteEventStore, StoredEvent
from correx_tools.core.catalog.listing import SessionQuery
from correx_tools.core.catalog.short_names import short_names
from correx_tools.core.catalog.stacks import STACKS, stacked
from correx_tools.core.catalog.usage import BY, Report, usage_rows
from correx_tools.core.lifecycle.conversation import (
    AssistantText,
    Prompt,
    Reasoning,
    TokenUsage,
    Usage,
    conversation_event,
)
from correx_tools.core.lifecycle.description import About, description_event
from correx_tools.core.replay.pricing import Price, PriceTable
from correx_tools.shell.catalog.folded import FoldedCatalog
from correx_tools.shell.catalog.picking import short_names_of, stacked_of, usage_of
from correx_tools.shell.catalog.scanned import ScannedSearch
from correx_tools.shell.replay.repository import DefaultToolRepository
from correx_tools.shell.stores.sql.store import SqlEventStore

from .stores import fresh_postgres
from .strategies import EPOCH, completed, failed, rejected, requested, started

SESSIONS = ("alpha", "beta", "gamma", "delta")
VOCABULARY = ("push", "force", "Git", "main", "tests", "fail", "ok", "ünïcode")
MODELS = ("claude-a", "Claude-B", None)
QUERIES = (
    SessionQuery(),
    SessionQuery(agent="CLAUDE-code"),
    SessionQuery(project="app"),
    SessionQuery(model="claude-b"),
    SessionQuery(failed=True),
    SessionQuery(since=EPOCH + timedelta(hours=2)),
    SessionQuery(until=EPOCH + timedelta(hours=3)),
    SessionQuery(since=EPOCH + timedelta(hours=1), until=EPOCH + timedelta(hours=4), model="a"),
    SessionQuery(machine="m"),
)
PRICES = PriceTable(
    models={"claude-a": Price(input=Decimal(3), output=Decimal(15), cache_read=Decimal("0.3"),
                              cache_write=Decimal(4))}
)  # fmt: skip
ZONES = (
    lambda moment: moment,
    lambda moment: moment.astimezone(timezone(timedelta(hours=5, minutes=45))),
    lambda moment: moment.astimezone(ZoneInfo("Europe/Paris")),
)
"""UTC, a zone a quarter hour off the hour, and one that moves its clocks."""
SEARCHES = ("push", "force push", '"git push"', '"push force" main', "ünïcode tests", "nothing")

texts = st.lists(st.sampled_from(VOCABULARY), max_size=6).map(" ".join) | st.sampled_from(
    ["git push --force origin main", "tests fail: push", "GIT-PUSH", ""]
)
invocations = st.sampled_from([f"i{n}" for n in range(8)])


@st.composite
def steps(draw: st.DrawFn) -> object:
    """One event of any kind a session holds: a call's, or the conversation's."""
    invocation = draw(invocations)
    kind = draw(st.sampled_from(["requested", "started", "completed", "failed", "rejected",
                                 "prompt", "text", "reasoning", "usage"]))  # fmt: skip
    match kind:
        case "requested":
            return requested(invocation, "shell", command=draw(texts))
        case "started":
            return started(invocation)
        case "completed":
            code = draw(st.sampled_from([0, 1]))
            return completed(invocation, output=draw(texts), exit_code=code)
        case "failed":
            return failed(invocation, reason=draw(texts))
        case "rejected":
            return rejected(invocation, reason=draw(texts))
        case "prompt":
            return conversation_event(Prompt(text=draw(texts)))
        case "text":
            model = draw(st.sampled_from(MODELS))
            return conversation_event(AssistantText(text=draw(texts), model=model))
        case "reasoning":
            return conversation_event(Reasoning(text=draw(texts)))
        case _:
            count = st.integers(0, 900)
            tokens = TokenUsage(input=draw(count), output=draw(count), cache_read=draw(count))
            return conversation_event(Usage(usage=tokens, model=draw(st.sampled_from(MODELS))))


descriptions = st.builds(
    lambda agent, cwd, times: description_event(agent, About(cwd=cwd), times_recorded=times),
    st.sampled_from(["claude-code", "codex"]),
    st.sampled_from(["/home/me/App", "/srv/other", "/x/APPLE"]),
    st.booleans(),
)


def make_machine(build: Callable[[Path], tuple[SqlEventStore, Callable[[], None]]]) -> type:
    class CatalogMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.directory = Path(tempfile.mkdtemp())
            self.store, self.cleanup = build(self.directory)
            self.clock = 0

        def teardown(self) -> None:
            self.store.close()  # type: ignore[attr-defined]
            self.cleanup()
            shutil.rmtree(self.directory, ignore_errors=True)

        def _at(self, minutes: int) -> Any:
            self.clock += minutes
            return EPOCH + timedelta(minutes=self.clock)

        @rule(
            session=st.sampled_from(SESSIONS),
            described=st.none() | descriptions,
            batch=st.lists(steps(), max_size=5),
            minutes=st.sampled_from([0, 0, 1, 5, 20, 90, 400]),
        )
        def append(
            self, session: str, described: object, batch: list[object], minutes: int
        ) -> None:
            last = self.store.last_sequence(SessionId(session))
            events = [described, *batch] if described is not None and last == 0 else batch
            self.store.append(
                SessionId(session), events, expected_sequence=last, recorded_at=self._at(minutes)
            )  # a refused batch (an id used twice) writes nothing: still held below

        @rule(
            name=st.integers(0, 999),
            described=descriptions,
            batch=st.lists(steps(), min_size=1, max_size=6),
            minutes=st.lists(st.sampled_from([0, 1, 10, 100]), min_size=7, max_size=7),
        )
        def import_session(
            self, name: int, described: object, batch: list[object], minutes: list[int]
        ) -> None:
            session = SessionId(f"imported-{name}")
            if self.store.last_sequence(session):
                return
            events = [
                StoredEvent(session_id=session, sequence=n, recorded_at=self._at(m), event=e)
                for n, (e, m) in enumerate(zip([described, *batch], minutes, strict=False), 1)
            ]
            self.store.import_events(events)

        @rule()
        def reindex(self) -> None:
            assert not self.store.reindex().damaged

        @rule(session=st.sampled_from(SESSIONS))
        def repair(self, session: str) -> None:
            assert self.store.repair_index(SessionId(session)) is None

        @rule(session=st.sampled_from(SESSIONS), batch=st.lists(steps(), min_size=1, max_size=4))
        def replace(self, session: str, batch: list[object]) -> None:
            replacing = getattr(self.store, "import_replacing", None)
            if replacing is None:
                return
            events = [
                StoredEvent(session_id=SessionId(session), sequence=n, recorded_at=self._at(1),
                            event=event)
                for n, event in enumerate(batch, 1)
            ]  # fmt: skip
            replacing([session], events)

        def _folded(self) -> FoldedCatalog:
            repository = DefaultToolRepository(EventReplayer(self.store), strict=False)
            return FoldedCatalog(self.store, repository)

        @invariant()
        def the_catalog_is_the_fold_of_the_events(self) -> None:
            folded = self._folded()
            for query in QUERIES:
                assert self.store.listed(query) == folded.listed(query), query
                assert self.store.listed(query, limit=2) == folded.listed(query, limit=2)
            every = [listed.session_id for listed in folded.listed(SessionQuery())[0]]
            assert short_names_of(self.store, every) == short_names(every)
            for since in (None, EPOCH + timedelta(hours=3)):
                kept = _windows(self.store.activity(SessionQuery(), since=since))
                assert kept == _windows(folded.activity(SessionQuery(), since=since))

        @invariant()
        def usage_added_up_by_the_database_is_the_reports(self) -> None:
            folded = self._folded()
            for by in BY:
                for local in ZONES:
                    for since, until in ((None, None), (EPOCH + timedelta(hours=2), None)):
                        asked = Report(by=by, local=local, prices=PRICES, since=since,
                                       until=until)  # fmt: skip
                        kept = usage_of(self.store, QUERIES[0], asked)
                        entries = folded.activity(QUERIES[0], since=since, until=until)
                        assert kept == usage_rows(entries, by, local=local, prices=PRICES), by
            narrow = SessionQuery(project="app", failed=True)
            by_day = Report(by="day", local=ZONES[1], prices=PRICES)
            assert usage_of(self.store, narrow, by_day) == (
                usage_rows(folded.activity(narrow), "day", local=ZONES[1], prices=PRICES)
            )

        @invariant()
        def layers_added_up_by_the_database_are_the_stacks(self) -> None:
            # At most one or two layers as well, so that the rest are folded into one.
            folded = self._folded()
            for stack in STACKS:
                for local in ZONES:
                    for since in (None, EPOCH + timedelta(hours=2)):
                        asked = Report(by="day", local=local, prices=PRICES, since=since)
                        entries = list(folded.activity(QUERIES[0], since=since))
                        kept = stacked_of(self.store, QUERIES[0], asked, stack)
                        assert kept == stacked(entries, stack, local=local, prices=PRICES)
                        for most in (1, 2):  # every key folded into one layer, or all but one
                            fewer = self.store.stacked(QUERIES[0], asked, stack, most=most)
                            assert fewer == stacked(entries, stack, local=local, prices=PRICES,
                                                    most=most), (stack, most)  # fmt: skip

        @invariant()
        def the_index_finds_what_a_scan_finds(self) -> None:
            scan = ScannedSearch(self.store, self._folded())
            for text in SEARCHES:
                for fields in (("arguments", "outputs", "said"), ("outputs",)):
                    indexed = self.store.search(text, fields=fields)  # type: ignore[arg-type]
                    scanned = scan.search(text, fields=fields)  # type: ignore[arg-type]
                    assert sorted(map(_key, indexed)) == sorted(map(_key, scanned)), text

        @invariant()
        def verify_finds_it_intact(self) -> None:
            for session in self.store.sessions():
                assert self.store.verify_session(session).intact

    CatalogMachine.TestCase.settings = settings(
        max_examples=25, stateful_step_count=12, deadline=None
    )
    return CatalogMachine


def _windows(entries: Any) -> list[tuple[Any, ...]]:
    return sorted(
        ((listed.session_id, quarter if quarter is not None else -1, model or "", model, window,
          listed) for listed, quarter, model, window in entries),
        key=lambda entry: entry[:3],
    )  # fmt: skip


def _key(hit: Any) -> tuple[Any, ...]:
    return hit.session_id, hit.sequence, hit.field, hit.invocation_id, hit.snippet


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])
def test_the_kept_catalog_answers_as_the_events_do(
    kind: str, request: pytest.FixtureRequest
) -> None:
    if kind == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")

        def build(directory: Path) -> tuple[SqlEventStore, Callable[[], None]]:
            store, schema = fresh_postgres(dsn)
            store.init_db()

            def drop() -> None:
                with psycopg.connect(dsn, autocommit=True) as connection:
                    connection.execute(f'DROP SCHEMA "{schema}" CASCADE')

            return store, drop

    else:

        def build(directory: Path) -> tuple[SqlEventStore, Callable[[], None]]:
            return SQLiteEventStore(directory / "events.sqlite"), lambda: None

    make_machine(build).TestCase("runTest").runTest()
