"""Database rows of events: encoded for writing, decoded for reading (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, TypeVar

from ....core.lifecycle.checked import (
    checked_completed,
    checked_failed,
    checked_rejected,
    checked_requested,
    checked_started,
    checked_stored_event,
)
from ....core.lifecycle.events import StoredEvent, lazy_receipt, utc
from ....core.replay.errors import EventDecodeError
from ....core.replay.stored_index import TIER_OF_CODE
from ....core.tools.ids import SessionId
from ....core.tools.request import lazy_request
from ..port import AppendError, StoreReadError
from ..writing import encode_payload, invalid_event
from .columns import KIND_COMPLETED, KIND_FAILED, KIND_REQUESTED, KIND_STARTED
from .encoding import EncodedEvent, encoded_time
from .envelope import decode_payload, parse_timestamp
from .strict_json import EnvelopeError, encode_utf8, loads_strict, loads_vouched

Row = TypeVar("Row")


def encode_rows(
    groups: Iterable[tuple[str, Sequence[StoredEvent]]],
    row: Callable[[str, StoredEvent, EncodedEvent], Row],
) -> list[Row] | AppendError:
    """Every event of ``groups`` encoded and shaped by ``row``, or the first refusal."""
    rows: list[Row] = []
    # An append's events share one timestamp: it is formatted and checked once.
    moment: object = None
    when = ""
    for session_id, events in groups:
        for stored in events[:1]:
            try:
                encode_utf8(session_id)
            except ValueError as error:
                return invalid_event(stored, f"the session id: {error}")
        for stored in events:
            try:
                if stored.recorded_at is not moment:
                    when, moment = encoded_time(stored), stored.recorded_at
            except ValueError as error:
                return invalid_event(stored, str(error))
            encoded = encode_payload(stored, when)
            if isinstance(encoded, AppendError):
                return encoded
            rows.append(row(session_id, stored, encoded))
    return rows


def decode_row(
    where: str, session_id: SessionId, row: tuple[int, datetime | str, str, int, str]
) -> StoredEvent:
    """A database row ``(sequence, recorded_at, type, version, data)`` as a stored event.

    Damage is a `StoreReadError` naming ``where``, the session and the sequence.
    """
    sequence, recorded_at, type_tag, version, data = row
    try:
        body = loads_strict(data)
        if not isinstance(body, dict):
            raise EnvelopeError("data must be a JSON object")
        if type(sequence) is not int or sequence < 1:
            raise EnvelopeError(f"sequence {sequence!r} is not an integer >= 1")
        return checked_stored_event(
            session_id,
            sequence,
            utc(recorded_at) if isinstance(recorded_at, datetime) else parse_timestamp(recorded_at),
            decode_payload(type_tag, version, body),
        )
    except (EnvelopeError, ValueError, TypeError) as error:
        place = f"{where} (session {session_id!r}, sequence {sequence})"
        raise StoreReadError(
            EventDecodeError(source=place, line=None, message=str(error)), sequence=sequence
        ) from None


def decode_written_row(
    where: str, session_id: SessionId, row: tuple[int, datetime | str, str, int, str]
) -> StoredEvent:
    """A row this library wrote, as a stored event: its JSON parsed without the strict
    reader's checks and its payload values decoded when first used.

    For a caller that then holds the row to the chain the index keeps for it
    (`correx_tools.shell.stores.sql.chains`), which vouches that its text is
    what this library checked and wrote, and reads it again with `decode_row`
    when the chain does not match. Anything that does not even parse is a
    `StoreReadError`, as there.
    """
    sequence, recorded_at, type_tag, version, data = row
    try:
        body = loads_vouched(data)
        if not isinstance(body, dict):
            raise EnvelopeError("data must be a JSON object")
        return checked_stored_event(
            session_id,
            sequence,
            utc(recorded_at) if isinstance(recorded_at, datetime) else _from_iso(recorded_at),
            decode_payload(type_tag, version, body, text=data),
        )
    except (EnvelopeError, ValueError, TypeError, RecursionError):
        return decode_row(where, session_id, row)  # it words the error


def decode_indexed_rows(
    where: str,
    session_id: SessionId,
    rows: Iterable[tuple[Any, ...]],
) -> Iterator[StoredEvent]:
    """Rows ``(sequence, recorded_at, type, version, data, kind, invocation_id, label, code,
    effect, chain)`` as stored events (the last two are the index's own, checked before).

    A tool event is built from its typed columns, its payloads (arguments,
    output, metadata) decoded from ``data`` only when first used: the store
    checked that text when it wrote it. A row without typed columns (written
    before the index, or another event) is decoded in full by `decode_row`.
    One loop for a batch of rows (a replay decodes a million): no call per row.
    """
    stored = checked_stored_event
    for sequence, recorded_at, type_tag, version, data, kind, invocation, label, code, _, _ in rows:
        if not kind:
            yield decode_row(where, session_id, (sequence, recorded_at, type_tag, version, data))
            continue
        when = recorded_at if type(recorded_at) is not str else _from_iso(recorded_at)
        event: object
        if kind == KIND_STARTED:
            event = checked_started(invocation)
        elif kind == KIND_REQUESTED:
            event = checked_requested(
                invocation,
                label,
                TIER_OF_CODE[code],
                lazy_request(label, data, _ARGUMENTS),
            )
        elif kind == KIND_COMPLETED:
            event = checked_completed(invocation, lazy_receipt(code, data))
        elif kind == KIND_FAILED:
            event = checked_failed(invocation, label, code == 1)
        else:
            event = checked_rejected(invocation, label)
        yield stored(session_id, sequence, when, event)


_ARGUMENTS = ("request", "arguments")
# Timestamps this store wrote itself: their shape was checked on the way in.
_from_iso = datetime.fromisoformat
