"""The time-travel index of a database store: written with the events, and rebuilt.

What the index holds and why is in `indexing`; an invocation's row is in
`images`; the rule it rests on is in `correx_tools.core.replay.stored_index`.
This module is its SQL, written once for every database (`dialect`), run in
the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ....core.replay.stored_index import STATUS_CODES, STATUS_OF_CODE, EntryChange
from ....core.replay.stored_index import InvocationState as State
from ..port import StaleIndex
from ..writing import Refused, duplicate
from .dialect import Copying, Cursor, Dialect
from .images import Image, Proof, chained_proof
from .indexing import Checkpoint, Head, IndexedEvent, head_seal

# -- the session's head ------------------------------------------------------------


def last_sequence(d: Dialect, cursor: Cursor, session_id: str) -> int:
    """The session's last sequence, from its events (0 for none)."""
    row = cursor.execute(
        d.sql("SELECT MAX(sequence) FROM {events} WHERE {session} = ?"),
        (d.session_key(session_id),),
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def chain_at(d: Dialect, cursor: Cursor, session_id: str, sequence: int) -> int | None:
    """The chain value stored with one event, or ``None`` when there is no such event."""
    row = cursor.execute(
        d.sql("SELECT chain FROM {events} WHERE {session} = ? AND sequence = ?"),
        (d.session_key(session_id), sequence),
    ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def requested_in(d: Dialect, cursor: Cursor, session_id: str, invocation_id: str) -> bool:
    """Whether one of the session's events requests the invocation (a scan of its events:
    asked only when an index row is missing or held elsewhere)."""
    found = cursor.execute(
        d.sql(
            "SELECT 1 FROM {events} WHERE {session} = ? AND kind = 1 AND invocation_id = ? LIMIT 1"
        ),
        (d.session_key(session_id), d.text_value(invocation_id)),
    ).fetchone()
    return found is not None


def exits_nonzero(d: Dialect, cursor: Cursor, session_id: str, through: int) -> int:
    """How many of the session's invocations completed by ``through`` with an exit code
    other than 0: one aggregate over its invocation rows (their ``end_code``, what their
    Completed event's typed ``code`` column holds), the rows read by the database alone."""
    row = cursor.execute(
        d.sql(
            "SELECT COUNT(*) FROM {invocations} WHERE {session} = ? AND status = 3 "
            "AND ended_seq <= ? AND end_code <> 0"
        ),
        (d.session_key(session_id), through),
    ).fetchone()
    return int(row[0])


def exits_nonzero_of(d: Dialect, cursor: Cursor, throughs: Mapping[str, int]) -> dict[str, int]:
    """`exits_nonzero` of many sessions, each by its own ``through``: the rows of their
    non-zero exits (the index of them) read once for them all."""
    keys = {d.session_key(session_id): session_id for session_id in throughs}
    counted = dict.fromkeys(throughs, 0)
    query = d.sql(
        "SELECT {session}, ended_seq FROM {invocations} WHERE status = 3 AND end_code <> 0 "
        "AND {session} "
    )
    for fragment, chunk in d.key_sets(list(keys)):
        for key, ended in cursor.execute(query + fragment, chunk).fetchall():
            session_id = keys[bytes(key) if d.texts_as_bytes else key]
            if ended <= throughs[session_id]:
                counted[session_id] += 1
    return counted


def load_head(d: Dialect, cursor: Cursor, session_id: str) -> Head | None:
    """The session's index head, if it is there, sealed, fresh, and reaches (with the same
    chain) the session's last event; ``None`` otherwise (the index is to be rebuilt)."""
    found, last = _head_row(d, cursor, session_id)
    if found is None:
        return Head() if last == 0 else None
    head, stale, seal = found
    if stale or head.indexed_through != last or seal != head_seal(session_id, head):
        return None
    if head.indexed_through and chain_at(d, cursor, session_id, head.indexed_through) != head.chain:
        return None
    return head


def sealed_head(d: Dialect, cursor: Cursor, session_id: str) -> tuple[int, int] | None:
    """The last sequence and chain the session's head holds, if its seal holds (stale or
    not: a stale head still holds the chain its events were written with)."""
    found, _ = _head_row(d, cursor, session_id)
    if found is None or found[2] != head_seal(session_id, found[0]):
        return None
    return int(found[0].indexed_through), int(found[0].chain)


def _head_row(
    d: Dialect, cursor: Cursor, session_id: str
) -> tuple[tuple[Head, bool, int] | None, int]:
    """The session's head row as it is stored (the head, whether it is marked stale, and its
    seal; ``None``: there is none) and its last sequence (`last_sequence`), in one query."""
    key = d.session_key(session_id)
    row = cursor.execute(
        d.sql(
            "SELECT (SELECT MAX(sequence) FROM {events} WHERE {session} = ?), indexed_through, "
            "requested, started, completed, failed, rejected, refused, chain, stale, seal "
            "FROM (SELECT 1) AS one LEFT JOIN {heads} ON {session} = ?"
        ),
        (key, key),
    ).fetchone()
    last, through, *counts, chain, stale, seal = row
    found = None if through is None else (Head(through, list(counts), chain), bool(stale), seal)
    return found, 0 if last is None else int(last)


def save_head(d: Dialect, cursor: Cursor, session_id: str, head: Head) -> None:
    """Write the session's head (fresh: it was just computed), sealed."""
    save_heads(d, cursor, [head_row(d, session_id, head)])


def head_row(d: Dialect, session_id: str, head: Head) -> tuple[Any, ...]:
    """A session's head as `save_heads` writes it, sealed."""
    return (d.session_key(session_id), head.indexed_through, *head.counts, head.chain, False,
            head_seal(session_id, head))  # fmt: skip


def save_heads(d: Dialect, cursor: Cursor, rows: list[tuple[Any, ...]]) -> None:
    """Write heads made by `head_row`."""
    cursor.executemany(
        d.sql(
            "INSERT INTO {heads} ({session}, indexed_through, requested, started, completed, "
            "failed, rejected, refused, chain, stale, seal) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT ({session}) DO UPDATE SET indexed_through = excluded.indexed_through, "
            "requested = excluded.requested, started = excluded.started, "
            "completed = excluded.completed, failed = excluded.failed, "
            "rejected = excluded.rejected, refused = excluded.refused, chain = excluded.chain, "
            "stale = excluded.stale, seal = excluded.seal"
        ),
        rows,
    )


def marked_fresh(d: Dialect, cursor: Cursor, session_id: str) -> bool:
    """Whether the session's head is there and not marked stale: its events' typed columns
    can be read instead of their JSON (each checked against its chain as it is read)."""
    row = cursor.execute(
        d.sql("SELECT stale FROM {heads} WHERE {session} = ?"), (d.session_key(session_id),)
    ).fetchone()
    return row is not None and not row[0]


def mark_stale(d: Dialect, cursor: Cursor, session_id: str) -> None:
    """Mark the session's index stale: it is rebuilt before it is trusted again."""
    cursor.execute(
        d.sql("UPDATE {heads} SET stale = ? WHERE {session} = ?"),
        (True, d.session_key(session_id)),
    )


# -- the invocations' rows ---------------------------------------------------------

_IMAGE_QUERY = (
    "SELECT i.{invocation}, i.{session}, i.invocation_id, i.sequence, i.status, "
    "i.requested_at, i.started_seq, i.started_at, i.ended_seq, i.completed_at, i.tool_name, "
    "i.tier, i.end_label, i.end_code, i.seal, i.request_crc, i.request_chain, i.end_crc, "
    "i.end_chain FROM {invocations} i WHERE i.{invocation} "
)


def load_images(
    d: Dialect, cursor: Cursor, session_id: str, ids: Iterable[str]
) -> dict[str, Image]:
    """The rows of those of ``ids`` this session requested, each checked against its seal
    (`StaleIndex` when one does not match: the session's index is to be rebuilt). For a
    store being written to, whose rows are sealed over their events' chains."""
    by_key = {d.invocation_key(invocation): invocation for invocation in ids}
    mine, text, when = d.session_key(session_id), d.text, d.when
    found: dict[str, Image] = {}
    for fragment, keys in d.key_sets(list(by_key)):
        for row in cursor.execute(d.sql(_IMAGE_QUERY) + fragment, keys):
            (key, session, _, sequence, status, requested, started_seq, started, ended_seq,
             completed, tool, tier, label, code, seal, r_crc, r_chain, e_crc,
             e_chain) = row  # fmt: skip
            if session != mine or status is None:
                continue
            invocation = by_key[key]
            image = Image(
                invocation,
                sequence,
                requested_at=when(requested),
                tool_name=text(tool) or "",
                tier=tier,
                request_crc=r_crc or 0,
                request_chain=r_chain or 0,
                requested_text=_text_of(requested),
            )
            image.status, image.started_seq, image.ended_seq = status, started_seq, ended_seq
            image.started_at = None if started is None else when(started)
            image.completed_at = None if completed is None else when(completed)
            image.started_text, image.completed_text = _text_of(started), _text_of(completed)
            image.end_label, image.end_code = text(label), code
            if status == 3:
                image.end_crc, image.end_chain = e_crc or 0, e_chain or 0
            if seal != image.seal(session_id):
                raise StaleIndex(f"the index row of invocation {invocation!r} does not match")
            found[invocation] = image
    return found


def _text_of(stored: object) -> str | None:
    """A time's text as the database gave it back, if it keeps times as text."""
    return stored if type(stored) is str else None


def write_images(
    d: Dialect, cursor: Cursor, session_id: str, new: Iterable[Image], changed: Iterable[Image]
) -> None:
    """Insert the rows of invocations first requested here, then move changed ones on.

    Ids are unique across sessions: every new row is inserted unless its id is
    taken already, then the owners of the ids are read back; an id owned by
    another session, or by another event of this one, is `Refused`.
    """
    fresh = list(new)
    if fresh:
        claims = [(d.invocation_key(i.invocation_id), session_id, i.invocation_id, i.sequence)
                  for i in fresh]  # fmt: skip
        insert_claimed(d, cursor, new_rows(d, session_id, fresh), claims)
    rows = [(*_columns(d, i)[1:], i.seal(session_id), d.invocation_key(i.invocation_id))
            for i in changed]  # fmt: skip
    if rows:
        cursor.executemany(
            d.sql(
                "UPDATE {invocations} SET status = ?, requested_at = ?, started_seq = ?, "
                "started_at = ?, ended_seq = ?, completed_at = ?, tool_name = ?, tier = ?, "
                "end_label = ?, end_code = ?, request_crc = ?, end_crc = ?, request_chain = ?, "
                "end_chain = ?, seal = ? WHERE {invocation} = ?"
            ),
            rows,
        )


def new_rows(d: Dialect, session_id: str, images: Iterable[Image]) -> list[tuple[Any, ...]]:
    """The rows of invocations first requested here, as `insert_claimed` writes them."""
    key = d.session_key(session_id)
    return [(*d.claim_ids(i.invocation_id), key, *_columns(d, i), i.seal(session_id))
            for i in images]  # fmt: skip


Claims = list[tuple[object, str, str, int]]
"""Each invocation key inserted, with its session's id, its id and the sequence of its
request: whom the row must belong to (sessions written together may claim one key: the
row is the first's, and each other one is refused)."""


def insert_claimed(d: Dialect, cursor: Cursor, rows: list[tuple[Any, ...]], claims: Claims) -> None:
    """Insert invocation rows made by `new_rows` (of one session or several), each unless its
    id is taken already, then read the owners of the ids back: an id owned by another
    session, or by another event of the same one, is `Refused` (the first found, of the
    first session in ``claims``' order that has one). Where the database copies rows in,
    they are, unless one's id is taken: then they are inserted as here."""
    columns = d.sql(
        f"{d.claim_columns}, {{session}}, sequence, status, requested_at, started_seq, "
        "started_at, ended_seq, completed_at, tool_name, tier, end_label, end_code, "
        "request_crc, end_crc, request_chain, end_chain, seal"
    )
    if isinstance(d, Copying) and d.copy_new(cursor, "{invocations}", columns, rows):
        return  # every id was free, and claimed once: each row is its claimant's
    cursor.executemany(
        d.sql(
            f"INSERT INTO {{invocations}} ({columns}) VALUES ({_marks(d)}, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ({invocation}) DO NOTHING"
        ),
        rows,
    )
    query = d.sql("SELECT {invocation}, {session}, sequence FROM {invocations} WHERE {invocation} ")
    order: dict[str, int] = {}
    claimants: dict[object, list[tuple[str, str, int]]] = {}
    for key, session, invocation, requested in claims:
        order.setdefault(session, len(order))
        claimants.setdefault(key, []).append((session, invocation, requested))
    taken: list[tuple[int, int, str, str, object]] = []
    for fragment, keys in d.key_sets(list(claimants)):
        for owned, owner, sequence in cursor.execute(query + fragment, keys):
            for session_id, invocation_id, requested in claimants[owned]:
                if (owner, sequence) != (d.session_key(session_id), requested):
                    taken.append((order[session_id], len(taken), session_id, invocation_id, owner))
    if taken:
        _, _, session_id, invocation_id, owner = min(taken)
        raise Refused(duplicate(session_id, invocation_id, d.session_name(cursor, owner)))


def _marks(d: Dialect) -> str:
    return ", ".join("?" * len(d.claim_columns.split(",")))


def _columns(d: Dialect, image: Image) -> tuple[Any, ...]:
    """An image's columns from ``sequence`` to ``end_chain``, as the database keeps them."""
    time, text = d.time_value, d.text_value
    return (
        image.sequence,
        image.status,
        time(image.requested_at, image.requested_text),
        image.started_seq,
        None if image.started_at is None else time(image.started_at, image.started_text),
        image.ended_seq,
        None if image.completed_at is None else time(image.completed_at, image.completed_text),
        text(image.tool_name),
        image.tier,
        text(image.end_label),
        image.end_code,
        image.request_crc,
        image.end_crc,
        image.request_chain,
        image.end_chain,
    )


def move_images(
    changes: Iterable[EntryChange],
    events: Sequence[IndexedEvent],
    known: Mapping[str, Image],
    proof: Proof = chained_proof,
) -> tuple[dict[str, Image], dict[str, Image]]:
    """The rows ``changes`` make or move on: those requested here, and those of ``known``
    (requested earlier) that changed. ``events`` are the indexed events the changes came
    from, in sequence order; a new row is sealed by ``proof``."""
    first = events[0].sequence if events else 0
    new: dict[str, Image] = {}
    changed: dict[str, Image] = {}
    for change in changes:
        invocation, event = change.invocation_id, events[change.sequence - first]
        if change.kind == 1:
            new[invocation] = Image.requested(
                change, event.columns, event.encoded, event.chain, proof
            )
            continue
        image = new.get(invocation)
        if image is None:
            image = changed[invocation] = known[invocation]
        status = STATUS_CODES[change.status]
        image.advance(change, status, event.columns, event.encoded, event.chain)
    return new, changed


def write_checkpoints(
    d: Dialect, cursor: Cursor, session_id: str, checkpoints: list[Checkpoint]
) -> None:
    """Write (or write again) a group's checkpoints."""
    if checkpoints:
        key = d.session_key(session_id)
        cursor.executemany(
            d.sql(
                "INSERT INTO {checkpoints} ({session}, sequence, requested, started, completed, "
                "failed, rejected, refused, chain, seal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT ({session}, sequence) DO UPDATE SET "
                "requested = excluded.requested, started = excluded.started, "
                "completed = excluded.completed, failed = excluded.failed, "
                "rejected = excluded.rejected, refused = excluded.refused, "
                "chain = excluded.chain, seal = excluded.seal"
            ),
            [(key, c.sequence, *c.counts, c.chain, c.seal) for c in checkpoints],
        )


def states(
    images: Mapping[str, Image], session_id: str
) -> Callable[[Iterable[str]], dict[str, State]]:
    """A lookup for `index_group`: the state of each of the ids that ``images`` holds."""

    def lookup(ids: Iterable[str]) -> dict[str, State]:
        return {
            i: State(session_id, STATUS_OF_CODE[images[i].status], images[i].requested_at)
            for i in ids
            if i in images
        }

    return lookup
