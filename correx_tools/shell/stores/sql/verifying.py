"""Checking a database session end to end: its events, and every index row against a
fresh fold of them.

One pass over the session's events, in order, in one read snapshot, each
decoded in full: their numbering (no gap), and what the index should hold for
each — typed columns, effect, chain (computed by the writer's own code,
`indexing.index_group`, fed by this pass) — against what it holds; the
checkpoints and the head against the counters and chains at their sequences;
then every invocation row against the row the events make (`images`), by its
seal. Memory is bounded by the session's invocations, not its events: an
invocation that has ended is kept only as its expected seal and status.

A stored chain that does not match tells two kinds of damage apart. If the
next event's stored chain still continues from it, it is the chain the event
was written with, and the event's own content changed since: damage to the
*events*, which nothing repairs (the index, and the chain in it, stay as the
evidence). Otherwise the index is damaged, and rebuilding it from the events
repairs it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ....core.replay.stored_index import STATUS_OF_CODE, InvocationState
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.envelope import format_timestamp
from ..codec.rows import decode_row, decode_written_row
from ..port import Fault, SessionCheck, StoreReadError
from .chains import CHAINED_COLUMNS, continues
from .dialect import Cursor, Dialect
from .images import Image, Proof, keeps_crcs, payload_crc, proof_for, seal_of_row
from .index import move_images, requested_in
from .indexing import EMPTY_CHAIN, Head, IndexedEvent, chain_of, checkpoint_seal, index_group
from .parts import LONG_AGO, Outside, shipped
from .rebuilding import REBUILD_BATCH

Row = tuple[Any, ...]


def verify_session(
    d: Dialect, cursor: Cursor, session_id: str, interval: int, *, batch: int = REBUILD_BATCH
) -> SessionCheck:
    """Check one session's events and index, in the caller's read snapshot."""
    check = Checking(d, cursor, session_id, interval, batch=batch)
    head = check.events()
    if head is not None:
        check.head(head)
        check.rows()
    return check.outcome()


class Checking:
    """One session's check: what its events say its index should hold, and what it holds.

    With ``outside`` it checks one part of the session (`parts`): the invocations
    requested before the part are taken from there, and the changes the part makes to
    them are kept in ``foreign`` for whoever joins the parts.
    """

    def __init__(
        self,
        d: Dialect,
        cursor: Cursor,
        session_id: str,
        interval: int,
        *,
        batch: int = REBUILD_BATCH,
        outside: Outside | None = None,
    ) -> None:
        self.d, self.cursor, self.session, self.interval = d, cursor, session_id, interval
        self.batch, self.outside = batch, outside
        self.foreign: list[tuple[Any, Any, EncodedEvent, int]] = []
        self.proof = proof_for(d.layout)
        self.previous = EMPTY_CHAIN
        self.ended_images: dict[str, tuple[int, int]] = {}
        self.key = d.session_key(session_id)
        self.name = SessionId(session_id)
        self.faults: list[Fault] = []
        self.seen = 0
        self.requested: list[str] = []
        self.open: dict[str, Image] = {}
        self.ended: dict[str, tuple[int, int]] = {}  # id -> (expected seal, status code)
        # The counters and chain each checkpoint should hold, by its sequence.
        self.checkpoints: dict[int, tuple[tuple[int, ...], int]] = {}

    def outcome(self) -> SessionCheck:
        """What the check found."""
        return SessionCheck(
            session_id=self.session,
            events=self.seen,
            invocations=len(self.requested),
            faults=tuple(self.faults),
        )

    def fault(self, sequence: int | None, message: str, *, in_events: bool = False) -> None:
        self.faults.append(
            Fault(session_id=self.session, sequence=sequence, in_events=in_events, message=message)
        )

    def _lookup(self, ids: Iterable[str]) -> dict[str, InvocationState]:
        ids = list(ids)
        found: dict[str, InvocationState] = {}
        for invocation in ids:
            image = self.open.get(invocation)
            if image is not None:
                status, at = image.status, image.requested_at
            elif invocation in self.ended:
                # An ended invocation refuses every event whatever its time: any will do.
                status, at = self.ended[invocation][1], LONG_AGO
            else:
                continue
            found[invocation] = InvocationState(self.session, STATUS_OF_CODE[status], at)
        if self.outside is not None:
            found |= self.outside.states([i for i in ids if i not in found])
        return found

    def events(
        self, head: Head | None = None, previous: int = EMPTY_CHAIN, end: int | None = None
    ) -> Head | None:
        """The pass over the events (those after ``head`` through ``end``, when given); the
        head they make (``None`` if they are damaged)."""
        d, head = self.d, head or Head()
        after = self.seen = head.indexed_through
        self.previous = previous
        bound = "" if end is None else f" AND sequence <= {int(end)}"
        while True:
            limit = self.batch if end is None else min(self.batch, end - after)
            if limit <= 0:
                return head
            rows: list[Row] = self.cursor.execute(
                d.sql(
                    f"SELECT {CHAINED_COLUMNS} FROM {{events}} WHERE {{session}} = ? "
                    f"AND sequence > ?{bound} ORDER BY sequence LIMIT ?"
                ),
                (self.key, after, limit),
            ).fetchall()
            if not rows and end is None:
                return head
            for expected, row in enumerate(rows, start=after + 1):
                if row[0] != expected:
                    self.fault(expected, "the event is missing: a gap", in_events=True)
                    return None
            if end is not None and len(rows) < limit:
                # A part ends short of its end: the events after it exist (the session
                # reaches further), so the first missing one is a gap.
                self.fault(after + len(rows) + 1, "the event is missing: a gap", in_events=True)
                return None
            try:
                events = [decode_written_row(d.where, self.name, row[:5]) for row in rows]
            except StoreReadError as error:
                self.fault(error.sequence, f"cannot be read: {error.error}", in_events=True)
                return None
            encoded = [
                EncodedEvent(t, v, data, at if type(at) is str else format_timestamp(at))
                for _, at, t, v, data, *_ in rows
            ]
            group = index_group(
                self.session, events, encoded, head=head, lookup=self._lookup,
                interval=self.interval,
            )  # fmt: skip
            for index, (indexed, row) in enumerate(zip(group.events, rows, strict=True)):
                following = rows[index + 1] if index + 1 < len(rows) else None
                previous = self._event(indexed, row, previous, following)
            self.previous = previous
            if any(fault.in_events for fault in self.faults):
                return None
            for point in group.checkpoints:
                self.checkpoints[point.sequence] = (point.counts, point.chain)
            self._images(group.changes, group.events)
            head, after = group.head, rows[-1][0]
            self.seen = after

    def _event(self, indexed: IndexedEvent, row: Row, previous: int, following: Row | None) -> int:
        """One event's index columns against what its content makes of them; the stored
        chain (the next event's is checked from it)."""
        d = self.d
        kind, invocation, label, code, effect, stored = row[5:11]
        if d.texts_as_bytes:
            invocation, label = d.text(invocation), d.text(label)
        sequence, encoded = indexed.sequence, indexed.encoded
        content = (sequence, encoded.recorded_at, encoded.type, encoded.version, encoded.data)
        as_stored = (kind, invocation, label, code, effect)
        if stored == indexed.chain and as_stored == (*indexed.columns, indexed.effect):
            return int(stored)  # as written: the chain vouches for every column of it
        try:
            decode_row(d.where, self.name, row[:5])  # not vouched for: the strict rules
        except StoreReadError as error:
            self.fault(sequence, f"cannot be read: {error.error}", in_events=True)
            return int(stored or 0)
        if kind is None or stored is None:
            self.fault(sequence, "written without its index (an older release, or by hand)")
            return indexed.chain
        if as_stored != (*indexed.columns, indexed.effect):
            self.fault(sequence, "its typed columns or effect do not match its JSON")
        if stored == chain_of(previous, (*content, *indexed.columns, indexed.effect)):
            return int(stored)
        if stored == chain_of(previous, (*content, *as_stored)):
            return int(stored)  # the columns' fault, reported just above
        if following is not None and continues(d, stored, following):
            self.fault(
                sequence,
                "the event changed after it was written (its chain vouches for other content)",
                in_events=True,
            )
        else:
            self.fault(sequence, "its chain does not match the events (the index is damaged)")
        return int(stored)

    def _images(self, changes: Any, events: list[IndexedEvent]) -> None:
        """Move the expected rows on; an ended one is kept only as its seal and status."""
        if self.outside is not None:
            changes = self._own(changes, events)
        new, _ = move_images(changes, events, self.open, self.proof)
        self.requested += new
        self.open.update(new)
        for invocation in [i for i, image in self.open.items() if image.ended_seq is not None]:
            image = self.open.pop(invocation)
            self.ended[invocation] = (image.seal(self.session), image.status)
            if self.outside is not None:
                self.ended_images[invocation] = (image.sequence, image.ended_seq or 0)

    def _own(self, changes: Any, events: list[IndexedEvent]) -> list[Any]:
        """The changes to the part's own invocations; those to invocations requested before
        it are kept, as they are sent back, in ``foreign``."""
        assert self.outside is not None
        first, own, new = events[0].sequence, [], set()
        for change in changes:
            invocation = change.invocation_id
            if change.kind == 1:
                new.add(invocation)
            elif invocation not in new and invocation not in self.open:
                event = events[change.sequence - first]
                self.foreign.append((shipped(change), event.columns, event.encoded, event.chain))
                self.outside.moved(change)
                continue
            own.append(change)
        return own

    def head(self, head: Head) -> None:
        """The checkpoints and the head against the counters and chains the events make."""
        d = self.d
        stored = {
            row[0]: row
            for row in self.cursor.execute(
                d.sql(
                    "SELECT sequence, requested, started, completed, failed, rejected, refused, "
                    "chain, seal FROM {checkpoints} WHERE {session} = ?"
                ),
                (self.key,),
            )
        }
        expected = self.checkpoints
        for sequence in sorted(set(stored) | set(expected)):
            row, counts = stored.get(sequence), expected.get(sequence)
            if row is None:
                self.fault(sequence, f"the checkpoint at sequence {sequence} is missing")
            elif counts is None:
                self.fault(sequence, f"the checkpoint at sequence {sequence} covers no event")
            elif (tuple(row[1:7]), row[7]) != counts or row[8] != checkpoint_seal(
                self.session, sequence, list(row[1:7]), row[7]
            ):
                self.fault(sequence, f"the checkpoint at sequence {sequence} does not match")
        row = self.cursor.execute(
            d.sql(
                "SELECT indexed_through, requested, started, completed, failed, rejected, "
                "refused, chain, stale, seal FROM {heads} WHERE {session} = ?"
            ),
            (self.key,),
        ).fetchone()
        if row is None:
            self.fault(None, "the session's head is missing")
            return
        through, *counts, chain, stale, seal = row
        if (through, counts, chain) != (head.indexed_through, head.counts, head.chain):
            self.fault(through, "the session's head does not match its events")
        elif seal != checkpoint_seal(self.session, through, counts, chain):
            self.fault(through, "the session's head does not match its seal")
        elif stale:
            self.fault(through, "the index is marked stale (events changed outside this store)")

    def rows(self) -> None:
        """Every invocation row against the row the events make, by its seal."""
        d, text, when, proof = self.d, self.d.text, self.d.when, self.proof
        # A row that keeps its payloads' CRCs and its events' chains (layout 4) is checked
        # alone: its seal, made again from what it keeps, must be the one the events make.
        kept = keeps_crcs(proof)
        expected = {i: (image.seal(self.session), image.status) for i, image in self.open.items()}
        expected |= self.ended
        selected = (
            "i.invocation_id, i.sequence, i.status, i.requested_at, i.started_seq, "
            "i.started_at, i.ended_seq, i.completed_at, i.tool_name, i.tier, i.end_label, "
            "i.end_code, i.seal"
        )
        query = d.sql(
            f"SELECT {selected}, i.request_crc, i.request_chain, i.end_crc, i.end_chain "
            "FROM {invocations} i WHERE i.{session} = ?"
            if kept
            else f"SELECT {selected}, r.data, e.data FROM {{invocations}} i "
            "LEFT JOIN {events} r ON r.{session} = i.{session} AND r.sequence = i.sequence "
            "LEFT JOIN {events} e ON i.status = 3 AND e.{session} = i.{session} "
            "AND e.sequence = i.ended_seq WHERE i.{session} = ?"
        )
        for row in self.cursor.execute(query, (self.key,)):
            (invocation, sequence, status, requested, started_seq, started, ended_seq,
             completed, tool, tier, label, code, seal, *proved) = row  # fmt: skip
            invocation, tool, label = text(invocation) or "", text(tool), text(label)
            made = expected.pop(invocation, None)
            if made is None:
                self.fault(sequence, f"the index row of invocation {invocation!r} is not requested")
                continue
            columns: Any = (
                invocation, sequence, status, None if requested is None else when(requested),
                started_seq, None if started is None else when(started), ended_seq,
                None if completed is None else when(completed), tool, tier, label, code,
                *_proofs(proof, proved, kept),
            )  # fmt: skip
            if seal != made[0] or seal_of_row(self.session, columns) != made[0]:
                self.fault(sequence, f"the index row of invocation {invocation!r} does not match")
        for invocation in expected:
            owner = self.cursor.execute(
                d.sql("SELECT {session} FROM {invocations} WHERE {invocation} = ?"),
                (d.invocation_key(invocation),),
            ).fetchone()
            if owner is None:
                self.fault(None, f"the index row of invocation {invocation!r} is missing")
                continue
            other = d.session_name(self.cursor, owner[0])
            if not requested_in(d, self.cursor, other, invocation):
                # The row moved, not the events: the index's fault.
                self.fault(
                    None, f"the index row of invocation {invocation!r} is in session {other!r}"
                )
            else:
                self.fault(
                    None,
                    f"invocation {invocation!r} is requested here and in session {other!r}",
                    in_events=True,
                )


def _proofs(proof: Proof, proved: list[Any], kept: bool) -> tuple[int, int]:
    """The proofs of a row's two events from what `Checking.rows` read of them: the CRCs
    and chains the row keeps (an ended call's end values are 0 but for a completed one,
    and sealed so), or (layout 3) the events' JSON (the end's read for a completed call)."""
    if kept:
        r_crc, r_chain, e_crc, e_chain = proved
        return proof(r_crc, r_chain), proof(e_crc, e_chain)
    r_data, e_data = proved
    return proof(payload_crc(r_data), None), proof(payload_crc(e_data), None)
