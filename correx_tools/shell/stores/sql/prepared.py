"""New sessions made ready to write by other processes, then written here in one go.

An import of a new session spends most of its time before it writes: encoding
each event by the rule every store writes by, and indexing it (its typed
columns, effect and chain, its invocations' rows, the checkpoints and the head).
For a session the store does not hold yet, none of that needs the database: a
`Preparer` (the store's dialect, layout and checkpoint interval, sent to worker
processes) does it anywhere, and gives a `PreparedSession` of plain rows. The
writing process then writes them, in its transaction, as `append.index_and_write`
would have written the same events: the same rows, the same refusals (an event
the rule refuses, an id asked for twice in the session, an id another session
holds), and a session that holds events by then is refused, not joined.

Only for a database whose rows need nothing of it: SQLite keeps a session's key
as its id (`sqlite.store.SQLiteEventStore.preparer`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, final

from ....core.lifecycle.events import StoredEvent, ToolInvocationRequestedEvent
from ..codec.encoding import EncodedEvent
from ..codec.rows import encode_rows
from ..port import AppendError, AppendErrorKind
from ..writing import Refused, check_import_run, conflict, duplicate
from .append import Group, event_rows, insert_events
from .dialect import Cursor, Dialect
from .images import Image, proof_for
from .index import move_images, save_head, states, write_checkpoints, write_images
from .indexing import Checkpoint, Head, index_group


@final
@dataclass(frozen=True, slots=True)
class PreparedSession:
    """A new session's rows, made by a `Preparer`: written by `write` (an
    `append.WholeSession`), in the caller's transaction, only into a session that holds
    no event yet."""

    session_id: str
    rows: list[tuple[Any, ...]]
    """Its event rows, as `append.insert_events` writes them."""
    images: list[Image]
    """The rows of the invocations it requests."""
    checkpoints: list[Checkpoint]
    head: Head
    made_for: tuple[type, int, int]
    """The dialect's type, the layout and the checkpoint interval the rows were made by."""

    def write(self, d: Dialect, cursor: Cursor, interval: int) -> int | None:
        """The events written. A store of other rules (another database, layout or
        interval), or a session that holds events already, is refused; a session of no
        event writes nothing, as an import of none does."""
        session_id = self.session_id
        if not self.rows:
            return 0
        if self.made_for != (type(d), d.layout, interval):
            raise Refused(
                AppendError(
                    kind=AppendErrorKind.INVALID_EVENT,
                    session_id=session_id,
                    message="its rows were prepared by another store's rules",
                )
            )
        last = d.lock_session(cursor, session_id)
        if last != 0:
            raise Refused(conflict(session_id, 0, last))
        insert_events(d, cursor, self.rows)
        write_images(d, cursor, session_id, self.images, ())
        write_checkpoints(d, cursor, session_id, self.checkpoints)
        save_head(d, cursor, session_id, self.head)
        d.advance_session(cursor, session_id, self.head.indexed_through)
        return len(self.rows)

    def groups(self) -> Iterable[Group]:
        """Nothing: a prepared session is written whole, or refused."""
        return ()


@final
@dataclass(frozen=True, slots=True)
class Preparer:
    """How one store writes a new session's rows: its dialect, layout and checkpoint
    interval, sent whole to the processes that prepare them."""

    dialect: Dialect
    layout: int
    interval: int

    def prepare(
        self, session_id: str, events: Sequence[StoredEvent]
    ) -> PreparedSession | AppendError:
        """The rows writing ``events`` (the whole session, from sequence 1) into an empty
        session would write, or why it would refuse them."""
        # In the order an import checks them (`append.write_groups`): each event encoded,
        # the run numbered on from the session's start, no id asked for twice.
        encoded = encode_rows([(session_id, events)], _as_encoded)
        if isinstance(encoded, AppendError):
            return encoded
        problem = check_import_run(session_id, 0, events)
        if problem is not None:
            return problem
        requested: set[str] = set()
        for stored in events:
            if isinstance(stored.event, ToolInvocationRequestedEvent):
                invocation = stored.event.invocation_id
                if invocation in requested:
                    return duplicate(session_id, invocation, session_id)
                requested.add(invocation)
        d, listed = self.dialect, list(events)
        group = index_group(
            session_id, listed, encoded, head=Head(), lookup=states({}, session_id),
            interval=self.interval,
        )  # fmt: skip
        new, _ = move_images(group.changes, group.events, {}, proof_for(self.layout))
        return PreparedSession(
            session_id,
            event_rows(d, d.session_key(session_id), listed, group),
            list(new.values()),
            group.checkpoints,
            group.head,
            (type(d), self.layout, self.interval),
        )


def _as_encoded(_session: str, _stored: StoredEvent, encoded: EncodedEvent) -> EncodedEvent:
    return encoded
