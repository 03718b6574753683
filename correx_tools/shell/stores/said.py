"""A session's conversation read from any store: its prompts, words, reasoning and usage
(`correx_tools.core.lifecycle.conversation`), without the tool events between them.

A SQL store finds them through an index of their own (`ConversationStore`): a
session of a million calls and no conversation is known to hold none from one
probe. Any other store (memory, JSONL) reads the session's events and keeps the
conversation's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from ...core.lifecycle.conversation import CONVERSATION_TYPES
from ...core.lifecycle.events import OpaqueEvent, StoredEvent
from ...core.tools.ids import SessionId
from .port import EventStore, closed_after


@runtime_checkable
class ConversationStore(Protocol):
    """A store that reads a session's conversation events alone."""

    def read_conversation(
        self, session_id: SessionId, *, after: int = 0, before: int | None = None
    ) -> Iterator[StoredEvent]:
        """The session's conversation events after ``after`` (and before ``before``), in
        sequence order."""
        ...


def is_said(stored: StoredEvent) -> bool:
    """Whether a stored event is one of the conversation's (by its type tag)."""
    event = stored.event
    return type(event) is OpaqueEvent and event.type in CONVERSATION_TYPES


def conversation_events(
    store: EventStore, session_id: SessionId, *, after: int = 0, before: int | None = None
) -> AbstractContextManager[Iterator[StoredEvent]]:
    """The session's conversation events after ``after`` (and before ``before``), in order,
    closed on leaving."""
    if isinstance(store, ConversationStore):
        return closed_after(store.read_conversation(session_id, after=after, before=before))
    return closed_after(_said_only(store.read(session_id, after=after), before))


def _said_only(events: Iterator[StoredEvent], before: int | None) -> Iterator[StoredEvent]:
    with closed_after(events):  # closing this closes the read
        for stored in events:
            if before is not None and stored.sequence >= before:
                return
            if is_said(stored):
                yield stored


def holds_conversation(store: EventStore, session_id: SessionId) -> bool:
    """Whether the session holds any conversation event (from a SQL store: one probe)."""
    with conversation_events(store, session_id) as said:
        return next(said, None) is not None
