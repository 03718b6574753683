"""Many new files read on every core: the cache's first fill, or any look that finds many.

Reading a new file for the cache is reading and parsing it, turning it into
events, encoding them and indexing them: the file's own work, which needs
nothing of the cache. Worker processes do it (`reading.prepared_files`, a chunk
of files at a time), and send back each session's rows ready to write; the
look's own process writes them, taking the files in their order as they come,
so it decides exactly as it does for a file it reads itself (which file gives a
session first, what is refused). At most a few chunks are held at a time, so
memory stays bounded however many files there are.

The workers are forked where that is safe (on Linux, from a process that runs no other
thread: the command's), so they start at once with what the look's process imported;
elsewhere they are spawned, and import what they need first.

A file too large to send whole (`passing.LARGEST_SENT`) is read by the look's own
process, which writes a large session in runs; so is every file left when a
worker process dies (killed, out of memory): the look goes on without the
workers.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from pathlib import Path

from ...stores.fanout import WorkerLost, Workers, default_workers
from ...stores.sql.prepared import Preparer
from ..importing.options import ImportOptions
from .reading import FileRead, Task, prepared_files

WORKERS_AT_MOST = 3
"""Worker processes a fill starts at most (on a machine of more cores): with the writing
process, four cores in use. Each worker holds some 40 MB (about 20 MB of its own, the rest
shared with the process it was forked from): three keep a fill of 10,000 sessions under
200 MB however it is counted (measured 2026-12-07: 142 MB summed over the writer and two
workers, 227 MB with four). The writer would keep up with about six, each reading a file in
some six times the time it takes to write it: more workers would fill faster, at 40 MB
each."""
CHUNK_BYTES = 1_000_000
CHUNK_FILES = 200
"""A chunk of files sent to a worker at a time: enough to make sending it cheap, few enough
that the first rows come back at once and the writer is never left waiting long."""


def fill_workers() -> int:
    """The worker processes a fill starts: one a core, up to `WORKERS_AT_MOST`."""
    return min(default_workers(), WORKERS_AT_MOST)


def prepared(
    files: Sequence[tuple[Path, Path, int]],
    workers: int,
    options: ImportOptions,
    preparer: Preparer,
) -> Generator[FileRead | None, None, None]:
    """What each of ``files`` (its path, the root it was found under, its size) gives, in
    their order, read by ``workers`` processes; ``None`` for a file left to the caller to
    read (a worker died)."""
    chunks: list[list[tuple[str, str]]] = [[]]
    size = 0
    for path, root, bytes_ in files:
        if chunks[-1] and (size + bytes_ > CHUNK_BYTES or len(chunks[-1]) == CHUNK_FILES):
            chunks.append([])
            size = 0
        chunks[-1].append((str(path), str(root)))
        size += bytes_
    tasks: list[Task] = [(chunk, options, preparer) for chunk in chunks if chunk]
    given = 0
    with Workers(None, workers, forked=True) as pool:
        try:
            for reads in pool.stream_calls(prepared_files, tasks, here=prepared_files):
                yield from reads
                given += len(reads)
        except WorkerLost:
            pass  # the rest are read by the caller, in this process
    yield from (None for _ in range(len(files) - given))
