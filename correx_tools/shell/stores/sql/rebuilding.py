"""Rebuilding a session's index from its events alone, and every session's.

A rebuild drops what the session's index holds — its head, checkpoints and
invocation rows, its catalog and words — and builds it again from the events, read in order and
decoded in full (strictly). It never changes an event, and it never builds an
index over events that do not hold together: a gap in the numbering, an event
that cannot be decoded, or an invocation id another session requested too
stops it with `DamagedEvents` (or the `StoreReadError` naming the event), and
the caller rolls the session's part back, so its old index stays as evidence
and every reader keeps answering from the events themselves (which name the
fault).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ....core.replay.stored_index import InvocationState
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.envelope import format_timestamp
from ..codec.rows import decode_row, decode_written_row
from ..port import Reindexed, StoreReadError
from ..writing import Refused
from . import chains
from .chains import CHAINED_COLUMNS, continues
from .dialect import Cursor, Dialect
from .images import Image
from .index import (
    load_head,
    load_images,
    mark_stale,
    move_images,
    requested_in,
    save_head,
    states,
    write_checkpoints,
    write_images,
)
from .indexing import Head, IndexedEvent, index_group

CHANGED = (
    "the event changed after it was written (its chain vouches for other content); "
    "no index is built over it, and the one it has stays as evidence"
)

REBUILD_BATCH = 5_000
"""Events read, decoded and indexed at a time by a rebuild."""


class Parted(Protocol):
    """A rebuild of one session as `rebuild` does it, by other means (in parts)."""

    def __call__(
        self,
        d: Dialect,
        cursor: Cursor,
        session_id: str,
        interval: int,
        progress: Callable[[int], None] | None = None,
        *,
        accept_edits: bool = False,
    ) -> Head:
        """Index the session again, in the caller's transaction."""
        ...


class DamagedEvents(Exception):
    """A session whose events themselves do not hold together, so no index is built for it.

    ``sequence`` is the first sequence at fault; the message says what is wrong.
    """

    def __init__(self, session_id: str, sequence: int, message: str) -> None:
        super().__init__(f"session {session_id!r}, sequence {sequence}: {message}")
        self.session_id = session_id
        self.sequence = sequence


def rebuild_all(
    d: Dialect,
    cursor: Cursor,
    interval: int,
    progress: Callable[[int, int], None] | None,
    *,
    accept_edits: bool = False,
    parted: Parted | None = None,
) -> Reindexed:
    """Rebuild every session's index, in the caller's transaction, one savepoint each: a
    session whose events are damaged keeps the index it had. ``progress(done, total)`` is
    told as events are indexed; ``accept_edits`` as for `rebuild`; ``parted`` rebuilds a
    session instead of `rebuild` (in parts, `rebuild_parts`)."""
    total = int(cursor.execute(d.sql("SELECT COUNT(*) FROM {events}")).fetchone()[0])
    done, sessions, damaged = 0, 0, {}
    from .kept_words import clear_words  # noqa: PLC0415 - loaded when a store is written

    # Every session's words are indexed again: none is left over from before.
    clear_words(d, cursor)
    cursor.execute(d.sql("UPDATE {catalog} SET searched = 0"))

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    for session_id in d.sessions(cursor):
        cursor.execute("SAVEPOINT correx_rebuild")
        try:
            (parted or rebuild)(d, cursor, session_id, interval, advance, accept_edits=accept_edits)
        except (DamagedEvents, StoreReadError) as damage:
            cursor.execute("ROLLBACK TO SAVEPOINT correx_rebuild")
            # Its index stays as evidence, but no read may answer from it any more: marked
            # stale, every question folds the events, and the fold names the damage.
            mark_stale(d, cursor, session_id)
            damaged[session_id] = str(damage if isinstance(damage, DamagedEvents) else damage.error)
        else:
            sessions += 1
        cursor.execute("RELEASE SAVEPOINT correx_rebuild")
    return Reindexed(events=done, sessions=sessions, damaged=damaged)


def update_event_columns(d: Dialect, cursor: Cursor, changed: list[tuple[Any, ...]]) -> None:
    """Write each event row's index columns again (``changed``: the columns, then the row's
    position), where they differ from what the row holds."""
    if changed:
        cursor.executemany(
            d.sql(
                "UPDATE {events} SET kind = ?, invocation_id = ?, label = ?, code = ?, "
                "effect = ?, chain = ? WHERE position = ?"
            ),
            changed,
        )


def rebuild(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    interval: int,
    progress: Callable[[int], None] | None = None,
    *,
    accept_edits: bool = False,
    batch: int = REBUILD_BATCH,
) -> Head:
    """Index one session again from its events alone, in the caller's transaction.

    `DamagedEvents` for a gap, an id requested in another session too, or an
    event changed after it was written (its chain goes on from other content:
    a new index would vouch for the change) unless ``accept_edits`` says the
    change was meant; `StoreReadError` for an event that cannot be decoded.
    Each leaves the transaction to be rolled back by the caller.
    """
    key = d.session_key(session_id)
    for table in ("checkpoints", "heads", "invocations"):
        cursor.execute(d.sql(f"DELETE FROM {{{table}}} WHERE {{session}} = ?"), (key,))
    head, after = Head(), 0
    open_images: dict[str, Image] = {}

    def lookup(ids: Iterable[str]) -> dict[str, InvocationState]:
        wanted = list(ids)
        found = states(open_images, session_id)(wanted)
        # Invocations that ended in an earlier batch were written: read back from the store.
        closed = load_images(d, cursor, session_id, [i for i in wanted if i not in found])
        return found | states(closed, session_id)(closed)

    while True:
        rows = cursor.execute(
            d.sql(
                f"SELECT position, {CHAINED_COLUMNS} FROM {{events}} "
                "WHERE {session} = ? AND sequence > ? ORDER BY sequence LIMIT ?"
            ),
            (key, after, batch),
        ).fetchall()
        if not rows:
            break
        for expected, row in enumerate(rows, start=after + 1):
            if row[1] != expected:
                raise DamagedEvents(
                    session_id,
                    expected,
                    f"the event is missing (the next one stored is {row[1]}); "
                    "no index is built over a gap",
                )
        session = SessionId(session_id)
        events = [decode_written_row(d.where, session, row[1:6]) for row in rows]
        encoded = [
            EncodedEvent(t, v, data, at if isinstance(at, str) else format_timestamp(at))
            for _, _, at, t, v, data, *_ in rows
        ]
        group = index_group(
            session_id, events, encoded, head=head, lookup=lookup, interval=interval
        )
        for index, (indexed, row) in enumerate(zip(group.events, rows, strict=True)):
            if indexed.chain != row[11]:
                # Not the row its chain vouched for: read it again by the strict rules
                # (a StoreReadError names it when they refuse it), and refuse to build over
                # it when the chain goes on from what was written: the event was changed.
                decode_row(d.where, session, row[1:6])
                following = rows[index + 1][1:] if index + 1 < len(rows) else None
                if following is None:
                    after_it = chains.events(d, cursor, session_id, row[1], 1, indexed=True)
                    following = after_it[0] if after_it else None
                changed = row[11] is not None and following and continues(d, row[11], following)
                if changed and not accept_edits:
                    raise DamagedEvents(session_id, row[1], CHANGED)
        # Only the rows whose index columns differ from what the events make are written:
        # a rebuild of an intact index changes no event row at all.
        changed = [
            (*index_columns(d, indexed), row[0])
            for indexed, row in zip(group.events, rows, strict=True)
            if (indexed.columns, indexed.effect, indexed.chain) != as_stored(d, row)
        ]
        update_event_columns(d, cursor, changed)
        new, _ = move_images(group.changes, group.events, open_images)
        open_images.update(new)
        ended = [image for image in open_images.values() if image.ended_seq is not None]
        write_rebuilt(d, cursor, session_id, ended)
        for image in ended:
            del open_images[image.invocation_id]
        write_checkpoints(d, cursor, session_id, group.checkpoints)
        head, after = group.head, rows[-1][1]
        if progress is not None:
            progress(len(rows))
    write_rebuilt(d, cursor, session_id, open_images.values())
    save_head(d, cursor, session_id, head)
    from .catalog import refill_catalog  # noqa: PLC0415 - loaded when a store is written

    refill_catalog(d, cursor, session_id, head)
    return head


def as_stored(d: Dialect, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``(typed columns, effect, chain)`` as a rebuild's row (its position, then
    `CHAINED_COLUMNS`) holds them now."""
    text = d.text
    return (row[6], text(row[7]), text(row[8]), row[9]), row[10], row[11]


def index_columns(d: Dialect, indexed: IndexedEvent) -> tuple[Any, ...]:
    """The index columns of an event as the database keeps them, in the order a rebuild
    writes them."""
    kind, invocation, label, code = indexed.columns
    return kind, d.text_value(invocation), d.text_value(label), code, indexed.effect, indexed.chain


def write_rebuilt(d: Dialect, cursor: Cursor, session_id: str, images: Iterable[Image]) -> None:
    """Insert rebuilt rows: an id another session's events request too is damage, not a
    refusal; a row another session holds though its events never request the id (a row
    moved by hand) is derived data gone astray, and is removed."""
    written = list(images)
    for _ in range(len(written) + 1):
        try:
            write_images(d, cursor, session_id, written, ())
            return
        except Refused as refused:
            taken, other = refused.error.invocation_id, refused.error.other_session
            assert taken is not None  # a duplicate names the id
            assert other is not None  # and the session that holds it
            if other == session_id or requested_in(d, cursor, other, taken):
                sequence = next((i.sequence for i in written if i.invocation_id == taken), 0)
                raise DamagedEvents(session_id, sequence, refused.error.message) from None
            cursor.execute(
                d.sql("DELETE FROM {invocations} WHERE {invocation} = ?"),
                (d.invocation_key(taken),),
            )


def fill_catalogs(d: Dialect, cursor: Cursor, interval: int) -> None:
    """Every session's catalog folded from its events (a store that kept none before), in
    the caller's transaction; a session whose index is not fresh has it rebuilt, which
    folds its catalog too, and one whose events do not hold together is left out (it is
    marked stale: every question about it folds its events, which name the fault)."""
    for session_id in d.sessions(cursor):
        head = load_head(d, cursor, session_id)
        if head is not None:
            from .catalog import refill_catalog  # noqa: PLC0415 - loaded when written

            refill_catalog(d, cursor, session_id, head)
            continue
        cursor.execute("SAVEPOINT correx_catalog")
        try:
            rebuild(d, cursor, session_id, interval)
        except (DamagedEvents, StoreReadError):
            cursor.execute("ROLLBACK TO SAVEPOINT correx_catalog")
            mark_stale(d, cursor, session_id)
        cursor.execute("RELEASE SAVEPOINT correx_catalog")
