"""Why a recorder wrote nothing (or, for an invalid request, wrote its rejection)."""

from __future__ import annotations

import enum
from typing import final

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.transitions import TransitionError
from ...core.tools.errors import CorrexError, error_value
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.validation import Invalid
from ..stores.port import AppendError


class RecordErrorKind(enum.Enum):
    """What kind of refusal a `RecordError` is."""

    ILLEGAL = "illegal"
    """The lifecycle refuses the event at the session's current state (``transition``)."""
    UNKNOWN_TOOL = "unknown_tool"
    """The registry has no tool of the request's name; nothing was written."""
    INVALID_REQUEST = "invalid_request"
    """The arguments do not fit the tool's schema (``invalid``): the request was recorded,
    then rejected with the validation message (``recorded``)."""
    DUPLICATE_INVOCATION = "duplicate_invocation"
    """The invocation id is already used in another session (``append``)."""
    CONFLICT = "conflict"
    """Other writers appended first on every attempt; nothing was written."""
    STORE = "store"
    """The store failed or refused the write, or could not be read to catch up."""


@final
@error_value
class RecordError(CorrexError):
    """An event a `SessionRecorder` did not record, and why.

    ``recorded`` holds what was written all the same: an invalid request's
    Requested and Rejected events, or the steps of a ``run`` before the one
    that failed.
    """

    kind: RecordErrorKind
    session_id: SessionId
    invocation_id: InvocationId
    message: str
    transition: TransitionError | None = None
    invalid: Invalid | None = None
    append: AppendError | None = None
    recorded: tuple[StoredEvent, ...] = ()
