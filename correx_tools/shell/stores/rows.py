"""Database rows of events: encoded for writing, decoded for reading (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from ...core.lifecycle.checked import checked_stored_event
from ...core.lifecycle.events import StoredEvent, utc
from ...core.replay.errors import EventDecodeError
from ...core.tools.ids import SessionId
from .encoding import EncodedEvent
from .envelope import decode_payload, parse_timestamp
from .port import AppendError, StoreReadError
from .strict_json import EnvelopeError, encode_utf8, loads_strict
from .writing import encode_payload, invalid_event

Row = TypeVar("Row")


def encode_rows(
    groups: Iterable[tuple[str, Sequence[StoredEvent]]],
    row: Callable[[str, StoredEvent, EncodedEvent], Row],
) -> list[Row] | AppendError:
    """Every event of ``groups`` encoded and shaped by ``row``, or the first refusal."""
    rows: list[Row] = []
    for session_id, events in groups:
        for stored in events[:1]:
            try:
                encode_utf8(session_id)
            except ValueError as error:
                return invalid_event(stored, f"the session id: {error}")
        for stored in events:
            encoded = encode_payload(stored)
            if isinstance(encoded, AppendError):
                return encoded
            rows.append(row(session_id, stored, encoded))
    return rows


def decode_row(
    where: str, session_id: SessionId, row: tuple[int, datetime | str, str, int, str]
) -> StoredEvent:
    """A database row ``(sequence, recorded_at, type, version, data)`` as a stored event.

    Damage is a :class:`StoreReadError` naming ``where``, the session and the sequence.
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
