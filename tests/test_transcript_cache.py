"""The cache of transcripts: always exactly what importing the files as they are now gives.

Real files (the shared samples, cut and grown as an agent writes them), a real
SQLite cache, and a fresh import of the same bytes to hold it to.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import (
    InMemoryEventStore,
    SQLiteEventStore,
    ToolExecutionCompletedEvent,
    ToolReceipt,
)
from correx_tools.core.tools.ids import SessionId
from correx_tools.shell.stores.verifying import verify_store
from correx_tools.shell.transcripts.cache.cache import CacheError, TranscriptCache
from correx_tools.shell.transcripts.cache.manifest import RULES, Manifest
from correx_tools.shell.transcripts.importing.folders import import_file, import_folder
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .transcript_samples import DATA

LIVE = {
    "claude/session.jsonl": DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl",
    "codex/rollout.jsonl": next((DATA / "codex").glob("rollout-*.jsonl")),
    "synth/.aider.chat.history.md": DATA / "aider" / "synth" / ".aider.chat.history.md",
    "gemini/chat.jsonl": DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl",
    "mcp/traffic-wrapped.jsonl": DATA / "mcp" / "traffic-wrapped.jsonl",
}
"""Files that agents write as they go, each a session of its own."""
CONTENT = {name: path.read_bytes() for name, path in LIVE.items()}


def fresh(path: Path, root: Path | None = None) -> dict[str, list[object]]:
    """What importing the file now into a new store gives, as a folder's import under
    ``root`` does: its sessions' events."""
    store = InMemoryEventStore()
    return {
        done.session_id: list(store.read(done.session_id))
        for done in import_file(path, store, root=root).imported
    }


SESSION_OF = {
    name: session
    for name, path in LIVE.items()
    for session in fresh(path, path.parents[len(Path(name).parts) - 1])
}


def held(cache: TranscriptCache) -> dict[str, list[object]]:
    return {session: list(cache.store.read(session)) for session in cache.store.sessions()}


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[TranscriptCache]:
    (tmp_path / "folder").mkdir()
    opened = TranscriptCache(tmp_path / "cache.sqlite", [tmp_path / "folder"])
    yield opened
    opened.close()


def test_a_folder_is_cached_as_its_import_gives_it_and_then_costs_a_stat_a_file(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "samples"
    shutil.copytree(DATA, folder)
    cache = TranscriptCache(tmp_path / "cache.sqlite", [folder])
    first = cache.look()
    reference = InMemoryEventStore()
    import_folder(folder, reference)
    assert cache.store.sessions() == reference.sessions()
    for session in reference.sessions():
        assert list(cache.store.read(session)) == list(reference.read(session))
    assert first.read == first.files == 35
    assert len(first.skipped) == 14  # the expected.json files and Cline's ui_messages.json
    again = cache.look()
    assert (again.read, again.changed, again.skipped) == (0, False, [])
    cache.close()


@settings(max_examples=40)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(LIVE)),
            st.one_of(st.floats(0, 1), st.just(1.0), st.none()),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_the_cache_is_what_a_fresh_import_gives_after_any_appends_rewrites_and_deletions(
    steps: list[tuple[str, float | None]],
) -> None:
    import tempfile  # noqa: PLC0415 - a folder per example, Hypothesis runs many

    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "folder"
        root.mkdir()
        cache = TranscriptCache(Path(directory) / "cache.sqlite", [root])
        try:
            for name, cut in steps:
                path = root / name
                if cut is None:  # deleted
                    path.unlink(missing_ok=True)
                else:  # cut anywhere (mid-line, mid-character): grown, or rewritten shorter
                    path.parent.mkdir(exist_ok=True)
                    path.write_bytes(CONTENT[name][: round(cut * len(CONTENT[name]))])
                cache.look()
                cached = held(cache)
                assert set(cached) <= set(SESSION_OF.values())
                for other, session in SESSION_OF.items():
                    now = root / other
                    if not now.exists():
                        assert session not in cached, other
                        continue
                    given = fresh(now, root)
                    # A file that does not read now (cut inside its first line) keeps what it
                    # gave last; one that reads is exactly its import.
                    if given:
                        assert cached.get(session) == given[session], other
                # And the cache is a store like any other: every index row checks out.
                checks = list(verify_store(cache.store, cache.store.sessions()))
                assert all(check.intact for check in checks), checks
        finally:
            cache.close()


def test_a_grown_file_adds_its_new_events_to_the_same_session(cache: TranscriptCache) -> None:
    path = cache.roots[0] / "session.jsonl"
    lines = CONTENT["claude/session.jsonl"].splitlines(keepends=True)
    path.write_bytes(b"".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:40])
    first = cache.look()
    [(_, session)] = first.new
    before = list(cache.store.read(SessionId(session)))
    path.write_bytes(CONTENT["claude/session.jsonl"])
    second = cache.look()
    assert second.grown == [(str(path), session)] and not second.rewritten
    after = list(cache.store.read(SessionId(session)))
    assert after[: len(before)] == before and len(after) > len(before)
    assert after == fresh(path)[session]


def test_a_file_rewritten_in_place_is_imported_again(cache: TranscriptCache) -> None:
    path = cache.roots[0] / "session.jsonl"
    path.write_bytes(CONTENT["claude/session.jsonl"])
    [(_, session)] = cache.look().new
    lines = CONTENT["claude/session.jsonl"].splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:10]))  # a compaction: shorter, other events
    look = cache.look()
    assert look.rewritten == [(str(path), session)]
    assert held(cache) == fresh(path)


def test_a_cache_an_earlier_release_made_is_read_again_once(cache: TranscriptCache) -> None:
    path = cache.roots[0] / "session.jsonl"
    path.write_bytes(CONTENT["claude/session.jsonl"])
    [(_, session)] = cache.look().new
    # What an earlier release made of it: no exit_code_known, and a stamp without the rules.
    before = [
        replace(stored, event=ToolExecutionCompletedEvent(
            invocation_id=stored.event.invocation_id,
            receipt=ToolReceipt(output=stored.event.receipt.output, exit_code=0, metadata={
                k: v for k, v in stored.event.receipt.metadata.items() if k != "exit_code_known"
            }),
        )) if isinstance(stored.event, ToolExecutionCompletedEvent) else stored
        for stored in cache.store.read(SessionId(session))
    ]  # fmt: skip
    assert before != fresh(path)[session]
    cache._manifest.forget_sessions([session])
    cache.store.import_events(before).unwrap()
    with sqlite3.connect(cache.path) as connection:
        connection.execute(
            "UPDATE correx_transcript_files SET stamp = replace(stamp, ?, '')", (f"{RULES}:",)
        )
    look = cache.look()
    assert look.read == 1 and look.rewritten == [(str(path), session)]
    assert held(cache) == fresh(path)
    assert cache.look().read == 0  # once


def test_a_session_two_files_give_is_kept_once_and_passes_on_when_the_first_goes(
    cache: TranscriptCache,
) -> None:
    first, second = cache.roots[0] / "a.jsonl", cache.roots[0] / "b.jsonl"
    first.write_bytes(CONTENT["codex/rollout.jsonl"])
    second.write_bytes(CONTENT["codex/rollout.jsonl"])
    look = cache.look()
    assert len(look.new) == 1 and not look.refused
    first.unlink()
    look = cache.look()
    assert [file for file, _ in look.removed] == [str(first)]
    assert [file for file, _ in look.new] == [str(second)]
    assert held(cache) == fresh(second)


def test_a_session_another_file_gives_with_other_events_is_refused_with_the_reason(
    cache: TranscriptCache,
) -> None:
    first, second = cache.roots[0] / "a.jsonl", cache.roots[0] / "b.jsonl"
    first.write_bytes(CONTENT["codex/rollout.jsonl"])
    lines = CONTENT["codex/rollout.jsonl"].splitlines(keepends=True)
    second.write_bytes(b"".join(lines[:8]))
    look = cache.look()
    assert [file for file, _ in look.refused] == [str(second)]
    assert "given by" in look.refused[0][1] and str(first) in look.refused[0][1]
    assert held(cache) == fresh(first)
    assert cache.look().refused == []  # said once: the file has not changed since


def test_a_file_that_no_longer_reads_keeps_what_it_gave_until_it_reads_again(
    cache: TranscriptCache,
) -> None:
    path = cache.roots[0] / "traj.json"
    whole = (DATA / "openhands" / "runtime_test_basic.json").read_bytes()
    path.write_bytes(whole)
    cache.look()
    kept = held(cache)
    path.write_bytes(whole[: len(whole) // 2])  # being written again, whole, by its agent
    look = cache.look()
    assert (look.skipped or look.refused) and held(cache) == kept
    path.write_bytes(whole)
    cache.look()
    assert held(cache) == kept


def test_removing_a_session_leaves_none_of_its_rows_in_any_table(tmp_path: Path) -> None:
    # Every table of the store's layout that holds a session's rows keys them by session_id:
    # that is what lets the cache remove a session whole.
    path = tmp_path / "store.sqlite"
    with SQLiteEventStore(path) as store:
        for sample in (LIVE["claude/session.jsonl"], LIVE["codex/rollout.jsonl"]):
            import_transcripts(sample, store)
        sessions = store.sessions()
    connection = sqlite3.connect(path)
    # The full-text index (a virtual table) keeps words, not ids: its values are let go of
    # with the session's catalog number (`sqlite.search`).
    tables = [
        n
        for (n,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'search_words%'"
        )
    ]
    keyed = {
        table
        for table in tables
        if any(c[1] == "session_id" for c in connection.execute(f"PRAGMA table_info({table})"))
    }
    for table in set(tables) - keyed:
        text = " ".join(str(row) for row in connection.execute(f"SELECT * FROM {table}"))
        assert not any(session in text for session in sessions), table
    manifest = Manifest(path)
    manifest.forget_sessions([sessions[0]])
    manifest.close()
    for table in keyed:
        left = connection.execute(
            f"SELECT COUNT(*) FROM {table} WHERE session_id = ?", (sessions[0],)
        ).fetchone()[0]
        assert left == 0, table
    connection.close()
    with SQLiteEventStore(path) as store:
        assert store.sessions() == sessions[1:]
        reference = InMemoryEventStore()
        import_transcripts(LIVE["claude/session.jsonl"], reference)
        import_transcripts(LIVE["codex/rollout.jsonl"], reference)
        assert list(store.read(sessions[1])) == list(reference.read(sessions[1]))


def test_a_store_of_someones_own_is_never_taken_for_a_cache(tmp_path: Path) -> None:
    path = tmp_path / "mine.sqlite"
    with SQLiteEventStore(path) as store:
        import_transcripts(LIVE["codex/rollout.jsonl"], store)
    before = path.read_bytes()
    with pytest.raises(CacheError, match="not a cache of transcripts"):
        TranscriptCache(path, [tmp_path])
    assert path.read_bytes() == before


def test_a_cline_tasks_tokens_rewritten_in_its_ui_messages_are_read_again(
    cache: TranscriptCache, tmp_path: Path
) -> None:
    # Cline keeps a task's tokens in the ui_messages.json beside its history: a change
    # there alone (the history untouched) is a change of the task.
    task = tmp_path / "folder" / "tasks" / "1763448130250"
    shutil.copytree(DATA / "cline" / "tasks" / "1763448130250", task)
    history = task / "api_conversation_history.json"
    cache.look()
    assert held(cache) == fresh(history)
    ui = task / "ui_messages.json"
    rewritten = ui.read_text(encoding="utf-8").replace('"tokensOut\\": 113', '"tokensOut\\": 9113')
    ui.write_text(rewritten, encoding="utf-8")
    before = held(cache)
    cache.look()
    assert held(cache) == fresh(history) != before


def test_a_session_whose_file_is_rewritten_is_never_missing_to_a_reader(
    cache: TranscriptCache, tmp_path: Path
) -> None:
    # The cache removes a rewritten session's old events in the transaction that adds its
    # new ones: a reader (the server, answering meanwhile) finds it as it was or as it is.
    path = tmp_path / "folder" / "rollout.jsonl"
    lines = CONTENT["codex/rollout.jsonl"].splitlines(keepends=True)
    versions = [b"".join(lines), b"".join(lines[:-2])]  # a rewind drops the last calls
    path.write_bytes(versions[0])
    cache.look()
    session = SessionId(SESSION_OF["codex/rollout.jsonl"])
    lengths = {len(fresh(path)[session])}
    missing: list[int] = []
    stop = threading.Event()

    def read() -> None:
        with SQLiteEventStore(cache.path, read_only=True) as reader:
            while not stop.is_set():
                last = reader.last_sequence(session)
                if last == 0:
                    missing.append(last)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for turn in range(1, 41):
            path.write_bytes(versions[turn % 2] + b"\n" * (turn // 2))  # a new size each turn
            look = cache.look()
            assert look.rewritten or look.grown, look
            lengths.add(cache.store.last_sequence(session))
    finally:
        stop.set()
        reader.join()
    assert missing == []
    assert len(lengths) == 2  # it was rewritten, both ways, again and again
