"""One invocation's row in a database store's index, and the seal that vouches for it.

The row (its *image*) holds the sequences and fields of the invocation's
request, start and end, so that its entry is read in one lookup. It is
derived data, and its ``seal`` — a CRC-32 over every column of the row, the
session, and a *proof* of the request (and of the completion) it was built
from — is checked each time the row is read (`entries.entry_of`): a stray
``UPDATE`` of a column or a row moved to another session no longer matches,
nor, where a read takes the events too, an event changed beside it; the
question is then answered from the events instead.

The proof of an event is its chain value with the CRC-32 of its JSON (layout 4
on), and the row keeps both in columns of its own: a row is checked alone,
without an event or a payload (an outline, for ``stats``); an entry, read with
its events, is checked against their chains and holds the payloads it hands
on to the kept CRCs; ``verify`` holds every kept value to the events. Layout 3 sealed a row over the
CRC-32s of the two events' JSON alone, kept nowhere (`payload_proof`): its
rows are checked by reading both payloads, until the store is upgraded.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import final

from ....core.replay.stored_index import EntryChange
from ..codec.columns import TypedColumns
from ..codec.encoding import EncodedEvent

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def micros(moment: datetime | None) -> int | None:
    """A moment as whole microseconds since 1970 (exact, whatever way a database kept it)."""
    return None if moment is None else (moment - _EPOCH) // _MICROSECOND


CHAIN_SEALS = 4
"""The first layout whose rows are sealed over their events' chains."""

Proof = Callable[[int | None, int | None], int]
"""What a row's seal takes of one of its events, from the CRC-32 of the event's JSON
(`payload_crc`) and the event's chain value."""


def payload_crc(data: str | None) -> int:
    """The CRC-32 of an event's JSON as stored (0 for none)."""
    return 0 if data is None else zlib.crc32(data.encode("utf-8"))


def chained_proof(crc: int | None, chain: int | None) -> int:
    """Layout 4's proof of an event: its chain value, with the CRC-32 of its JSON, which
    the row keeps in a column of its own (`keeps_crcs`); -1, which no row is sealed with,
    for a value no CRC-32 takes (one could otherwise stand in for another chain)."""
    crc, chain = crc or 0, chain or 0
    if not (0 <= crc <= _CRC_MAX and 0 <= chain <= _CRC_MAX):
        return -1
    return (chain << 32) | crc


_CRC_MAX = 0xFFFF_FFFF


def payload_proof(crc: int | None, chain: int | None) -> int:
    """Layout 3's proof of an event: the CRC-32 of its JSON alone."""
    return crc or 0


def proof_for(layout: int) -> Proof:
    """How the rows of a store of ``layout`` (3 or later) are sealed over their events."""
    return chained_proof if layout >= CHAIN_SEALS else payload_proof


def keeps_crcs(proof: Proof) -> bool:
    """Whether rows sealed by ``proof`` keep their events' CRCs and chains in columns of
    their own (``request_crc``, ``end_crc``, ``request_chain``, ``end_chain``): then a
    row's seal is checked without its events."""
    return proof is chained_proof


SealedColumns = tuple[
    str, int, int, datetime, int | None, datetime | None, int | None, datetime | None,
    str, int, str | None, int | None, int, int,
]  # fmt: skip
"""An invocation row's columns in the order its seal takes them: the invocation's id, its
request's sequence, its status, its request time, its start's sequence and time, its end's
sequence and time, its tool and tier, the end's label and code, and the proof (`Proof`) of
the Requested event and of the Completed event (0 unless it completed)."""


def seal_of_row(session_id: str, columns: SealedColumns) -> int:
    """The seal of an invocation's row: a CRC-32 over its columns and what it was built from."""
    (invocation_id, sequence, status, requested_at, started_seq, started_at, ended_seq,
     completed_at, tool, tier, end_label, end_code, request_proof, end_proof) = columns  # fmt: skip
    text = (
        f"{session_id}\x1f{invocation_id}\x1f{sequence}\x1f{status}\x1f{micros(requested_at)}"
        f"\x1f{started_seq}\x1f{micros(started_at)}\x1f{ended_seq}\x1f{micros(completed_at)}"
        f"\x1f{tool}\x1f{tier}\x1f{end_label}\x1f{end_code}\x1f{request_proof}\x1f{end_proof}"
    )
    return zlib.crc32(text.encode("utf-8"))


@final
@dataclass(slots=True)
class Image:
    """One invocation's row as it will be written: built at its request, moved on by its
    start and end (`advance`), sealed when written (`seal`)."""

    invocation_id: str
    sequence: int
    _: KW_ONLY
    requested_at: datetime
    tool_name: str
    tier: int
    request_crc: int
    """The `payload_crc` of the Requested event's JSON (and ``end_crc``, of the Completed
    event's; 0 unless it completed, and sealed as 0 then)."""
    request_chain: int
    """The Requested event's chain value (and ``end_chain``, the Completed event's; 0
    unless it completed)."""
    proof: Proof = chained_proof
    """How this row's seal takes its events (`proof_for` the store's layout)."""
    requested_text: str | None = None
    """Each time's text as the event stored it, when known: SQLite keeps that text, and
    writing it as it is saves formatting the moment again."""
    # Moved on by the start and the end (`advance`):
    status: int = field(default=1, init=False)
    started_seq: int | None = field(default=None, init=False)
    started_at: datetime | None = field(default=None, init=False)
    started_text: str | None = field(default=None, init=False)
    ended_seq: int | None = field(default=None, init=False)
    completed_at: datetime | None = field(default=None, init=False)
    completed_text: str | None = field(default=None, init=False)
    end_label: str | None = field(default=None, init=False)
    end_code: int | None = field(default=None, init=False)
    end_crc: int = field(default=0, init=False)
    end_chain: int = field(default=0, init=False)

    @classmethod
    def requested(
        cls,
        change: EntryChange,
        columns: TypedColumns,
        event: EncodedEvent,
        chain: int,
        proof: Proof = chained_proof,
    ) -> Image:
        """The row of an invocation just requested by ``change`` (its event's typed
        ``columns``, the ``event`` as stored and its ``chain``), sealed by ``proof``."""
        assert columns.label is not None  # a Requested event has a tool
        assert columns.code is not None  # and a tier
        return cls(
            change.invocation_id,
            change.sequence,
            requested_at=change.recorded_at,
            tool_name=columns.label,
            tier=columns.code,
            request_crc=payload_crc(event.data),
            request_chain=chain,
            proof=proof,
            requested_text=event.recorded_at,
        )

    def advance(
        self,
        change: EntryChange,
        status: int,
        columns: TypedColumns,
        event: EncodedEvent,
        chain: int,
    ) -> None:
        """Move the row on over its start or end (``status``: the status code it reaches;
        the event's typed ``columns``, the ``event`` as stored and its ``chain``)."""
        if change.kind == 2:
            self.status, self.started_seq, self.started_at = 2, change.sequence, change.recorded_at
            self.started_text = event.recorded_at
            return
        self.status, self.ended_seq, self.completed_at = status, change.sequence, change.recorded_at
        self.completed_text = event.recorded_at
        self.end_label, self.end_code = columns.label, columns.code
        if status == 3:
            self.end_crc, self.end_chain = payload_crc(event.data), chain

    def seal(self, session_id: str) -> int:
        """The seal of this row in ``session_id``."""
        return seal_of_row(
            session_id,
            (self.invocation_id, self.sequence, self.status, self.requested_at,
             self.started_seq, self.started_at, self.ended_seq, self.completed_at,
             self.tool_name, self.tier, self.end_label, self.end_code,
             self.proof(self.request_crc, self.request_chain),
             self.proof(self.end_crc, self.end_chain)),
        )  # fmt: skip
