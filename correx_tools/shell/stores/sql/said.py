"""A session's conversation read alone: its prompts, words, reasoning and usage, found
through the conversation's partial index (`layout.SAID_INDEX`) without reading the tool
events between them.

The rows are decoded in full from their own JSON by the strict rules, as a read of
a store without an index is: a chain vouches for a run of consecutive events, and
these are not consecutive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ..codec.rows import decode_row
from ..port import StoreReadError
from .chains import events
from .dialect import Database, ReadFault
from .layout import SAID


def said_events(
    database: Database,
    session_id: SessionId,
    after: int,
    batch: int,
    unavailable: Callable[[ReadFault, int], StoreReadError],
    *,
    before: int | None = None,
) -> Iterator[StoredEvent]:
    """The session's conversation events after ``after`` (and before ``before``), in order,
    ``batch`` rows a query; a database that cannot be read raises what ``unavailable`` makes
    of it."""
    d, last = database.dialect, after
    while True:
        # One batch per query: other threads may use the connection in between.
        try:
            with database.query() as cursor:
                rows = events(
                    d, cursor, session_id, last, batch, indexed=False, only=SAID, before=before
                )
        except ReadFault as fault:
            raise unavailable(fault, last + 1) from None
        for row in rows:
            yield decode_row(d.where, session_id, row)
        if len(rows) < batch:
            return
        last = rows[-1][0]
