"""Many new files read on every core (`cache.filling`): worker processes read them and make
their sessions' rows, the look's own process writes them; the cache is what one process
reading every file gives, row for row, file for file.

The folder holds every shared sample three times over (so many files give a session another
file gave first, with the same events or, for a copy cut short, with others), a transcript
that cannot be read and files that are none; the sizes that decide which files go to the
workers are lowered so that a small folder goes there, and so that some files stay with the
writer. A worker that dies leaves its files to the look, which reads them itself.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from correx_tools.shell.stores.fanout import WorkerLost, Workers
from correx_tools.shell.transcripts.cache import filling, passing
from correx_tools.shell.transcripts.cache.cache import TranscriptCache
from correx_tools.shell.transcripts.cache.look import Look

from .test_import_parts import rows_of
from .transcript_samples import DATA

CLAUDE = DATA / "claude-code" / "short_two_rejections.jsonl"


def folder_of_many(root: Path) -> Path:
    for copy in ("a", "b", "c"):
        shutil.copytree(DATA, root / copy)
    lines = CLAUDE.read_text(encoding="utf-8").splitlines(keepends=True)
    (root / "c" / "cut.jsonl").write_text("".join(lines[:3]), encoding="utf-8")  # hidden
    (root / "c" / "damaged.jsonl").write_text(lines[0] + "{not json\n", encoding="utf-8")
    (root / "c" / "notes.md").write_text("just some words\n", encoding="utf-8")
    return root


def filled(path: Path, root: Path, workers: int) -> tuple[Look, list[Any], list[Any]]:
    """What a first look does, the store's rows, and the cache's table of files."""
    cache = TranscriptCache(path, [root], workers=workers)
    try:
        look = cache.look()
        assert cache.look().read == 0
    finally:
        cache.close()
    connection = sqlite3.connect(path)
    try:
        table = connection.execute(
            "SELECT path, sessions, shared, state, reason FROM correx_transcript_files "
            "ORDER BY path"
        ).fetchall()
    finally:
        connection.close()
    return look, rows_of(path), table


@pytest.mark.parametrize("largest", [passing.LARGEST_SENT, 20_000])
def test_new_files_read_by_workers_give_the_cache_one_process_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, largest: int
) -> None:
    root = folder_of_many(tmp_path / "agents")
    one = filled(tmp_path / "one.sqlite", root, 1)
    monkeypatch.setattr(passing, "IN_PARALLEL_FROM", 0)
    monkeypatch.setattr(passing, "LARGEST_SENT", largest)
    monkeypatch.setattr(filling, "CHUNK_FILES", 7)
    sent: list[bool] = []  # for each file sent, whether a worker read it
    prepared = filling.prepared

    def counted(*args: Any) -> Iterator[Any]:
        for read in prepared(*args):
            sent.append(read is not None)
            yield read

    monkeypatch.setattr(filling, "prepared", counted)
    many = filled(tmp_path / "many.sqlite", root, 2)
    assert many == one
    assert all(sent) and 0 < len(sent) <= 108 - (largest < passing.LARGEST_SENT)
    look = one[0]
    # Each copy's files that record no id of their own (9 of them) are sessions of their own.
    assert look.read == look.files == 108 and len(look.new) == 20 + 2 * 9
    assert len(look.refused) == 2 and len(look.skipped) == 43


def test_a_worker_that_dies_leaves_its_files_to_the_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder_of_many(tmp_path / "agents")
    one = filled(tmp_path / "one.sqlite", root, 1)

    def dying(
        self: Workers, work: Callable[[Any], Any], parts: Sequence[Any], here: Any
    ) -> Iterator[Any]:
        yield work(parts[0])  # the first chunk comes back; then a worker is killed
        raise WorkerLost("a worker process ended before its part was done")

    monkeypatch.setattr(passing, "IN_PARALLEL_FROM", 0)
    monkeypatch.setattr(filling, "CHUNK_FILES", 7)
    monkeypatch.setattr(Workers, "stream_calls", dying)
    assert filled(tmp_path / "many.sqlite", root, 2) == one
