"""Each session's tokens by turn and by call (`shell.replay.spent`), kept until it grows:
read from its events when first asked for, again only when its last sequence moved."""

from __future__ import annotations

import threading
from typing import final

from ....core.tools.ids import SessionId
from ...replay.spent import Talked, talked_if_any
from ...stores.port import EventStore
from ...transcripts.description import session_description


@final
class TalkShelf:
    """Each session's `Talked`, kept until the session grows."""

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self._kept: dict[str, tuple[int, Talked | None]] = {}
        self._lock = threading.Lock()

    def forget(self, session: SessionId) -> None:
        """Drop what is kept of the session (its events were replaced)."""
        with self._lock:
            self._kept.pop(session, None)

    def through(self, session: SessionId, last: int) -> Talked | None:
        """The session's tokens through ``last``; ``None`` for one that holds no
        conversation."""
        with self._lock:
            kept = self._kept.get(session)
        if kept is not None and kept[0] == last:
            return kept[1]
        imported = session_description(self._store, session) is not None
        found = talked_if_any(self._store, session, last, imported=imported)
        with self._lock:
            self._kept[session] = (last, found)
        return found
