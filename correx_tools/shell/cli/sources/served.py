"""What ``serve`` serves: a store, or transcripts followed as agents write them.

``serve SOURCE`` over a store serves it as it is. Over a transcript or a
folder of them, it serves the cache of the files
(`transcript_sources`) and follows them: a `Follower` brings the cache in
step every half second, and says in one line what the user should know (a
file that is gone, one that is not a transcript). With no SOURCE it serves
the folders of every agent found on this machine, a line for each.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...stores.addresses import redact_dsn
from ...stores.port import EventStore
from ...stores.sqlite import SQLiteEventStore
from ...transcripts.cache.following import Follower
from ...transcripts.cache.look import Look
from .options import command_name
from .stores import note_unindexed, open_store
from .transcripts import followed_cache, is_transcript_source, note, tell


@dataclass(frozen=True, slots=True)
class Served:
    """The store the server answers from, how it names it, and who follows its files."""

    store: EventStore
    label: str
    follower: Follower | None = None


def served(source: str | None) -> Served:
    """What ``serve`` answers from for SOURCE (``None``: every agent's folder)."""
    if source is not None and not is_transcript_source(source):
        store = open_store(source)
        note_unindexed(store, source)
        return Served(store, redact_dsn(source))
    cache, label = followed_cache(source)
    command = command_name()

    def told(look: Look) -> None:
        tell(look, command)
        for file, session in look.removed:
            note(f"{file} is gone, or no longer gives session {session}: it is no longer served",
                 command)  # fmt: skip

    def failed(why: str) -> None:
        note(f"following {label}: {why}", command)

    follower = Follower(cache, told=told, failed=failed)
    return Served(SQLiteEventStore(cache.path, read_only=True), label, follower)
