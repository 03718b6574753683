"""New sessions made ready to write by other processes, then written here, many at once.

An import of a new session spends most of its time before it writes: encoding
each event by the rule every store writes by, and indexing it (its typed
columns, effect and chain, its invocations' rows, the checkpoints and the head).
For a session the store does not hold yet, none of that needs the database: a
`Preparer` (the store's dialect, layout and checkpoint interval, sent to worker
processes) does it anywhere, and gives a `PreparedSession` of plain rows. The
writing process then writes a batch of them in one transaction
(`write_prepared`), each kind of row in one statement: the rows
`append.index_and_write` writes for the same events (the session's catalog and its
search values folded where its rows were made), and the same refusals (an
event the rule refuses, an id asked for twice in a session, an id another
session holds), but that a session holding events by then is refused, not
joined.

Only for a database whose write holds it whole and whose rows need nothing of it:
SQLite, which keeps a session's key as its id (`sqlite.store.SQLiteEventStore`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, final

from returns.result import Failure, Result, Success

from ....core.catalog.activity import Activity
from ....core.catalog.facts import SessionFacts
from ....core.lifecycle.events import StoredEvent, ToolInvocationRequestedEvent
from ..codec.encoding import EncodedEvent
from ..codec.rows import encode_rows
from ..port import AppendError, AppendErrorKind
from ..writing import Refused, check_import_run, conflict, duplicate
from .append import event_rows, insert_events
from .catalog import fold_new, write_new_catalogs
from .dialect import Database, Dialect, WriteFault
from .images import proof_for
from .index import (
    Claims,
    head_row,
    insert_claimed,
    last_sequence,
    move_images,
    new_rows,
    save_heads,
    states,
    write_checkpoints,
)
from .indexing import Checkpoint, Head, index_group


@final
@dataclass(frozen=True, slots=True)
class PreparedSession:
    """A new session's rows, made by a `Preparer`, as plain values (sent between processes
    cheaply): its events', its invocations' (with whom each id must belong to), its
    checkpoints and its head."""

    session_id: str
    events: list[tuple[Any, ...]]
    invocations: list[tuple[Any, ...]]
    claims: list[tuple[object, str, int]]
    """Each invocation's key, id and the sequence of its request."""
    checkpoints: list[Checkpoint]
    head: tuple[Any, ...]
    made_for: tuple[type, int, int]
    """The dialect's type, the layout and the checkpoint interval the rows were made by."""
    index_head: Head
    """The head the rows were made to: the calls it counts go into the session's catalog."""
    catalog: tuple[SessionFacts, Activity, list[tuple[int, int, list[str]]]]
    """The session's catalog and search values, folded from its events (`catalog.fold_new`)."""


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
        images = list(
            move_images(group.changes, group.events, {}, proof_for(self.layout))[0].values()
        )
        return PreparedSession(
            session_id,
            event_rows(d, d.session_key(session_id), listed, group) if listed else [],
            new_rows(d, session_id, images),
            [(d.invocation_key(i.invocation_id), i.invocation_id, i.sequence) for i in images],
            group.checkpoints,
            head_row(d, session_id, group.head),
            (type(d), self.layout, self.interval),
            group.head,
            fold_new(listed),
        )


def _as_encoded(_session: str, _stored: StoredEvent, encoded: EncodedEvent) -> EncodedEvent:
    return encoded


def write_prepared(
    database: Database, sessions: Sequence[PreparedSession], interval: int
) -> Result[int, AppendError]:
    """Write ``sessions`` in one transaction, all or none: the events written, or why none
    were (rows made by another store's rules, a session that holds events already, an id
    another session holds: the first of the first session in order that has one)."""
    d = database.dialect
    chosen = [session for session in sessions if session.events]  # none: nothing to write
    current = chosen[0].session_id if chosen else ""
    try:
        with database.writing() as cursor:
            for session in chosen:
                current = session.session_id
                if session.made_for != (type(d), d.layout, interval):
                    raise Refused(
                        AppendError(
                            kind=AppendErrorKind.INVALID_EVENT,
                            session_id=current,
                            message="its rows were prepared by another store's rules",
                        )
                    )
            held = _holding(d, cursor, [session.session_id for session in chosen])
            if held is not None:
                current = held
                raise Refused(conflict(held, 0, last_sequence(d, cursor, held)))
            insert_events(d, cursor, [row for session in chosen for row in session.events])
            claims: Claims = [
                (key, session.session_id, invocation, sequence)
                for session in chosen
                for key, invocation, sequence in session.claims
            ]
            if claims:
                rows = [row for session in chosen for row in session.invocations]
                insert_claimed(d, cursor, rows, claims)
            for session in chosen:
                write_checkpoints(d, cursor, session.session_id, session.checkpoints)
            save_heads(d, cursor, [session.head for session in chosen])
            # The catalog counts the calls the rows just written hold.
            write_new_catalogs(d, cursor, [(session.session_id, session.catalog,
                                            session.index_head) for session in chosen])  # fmt: skip
    except Refused as refused:
        return Failure(refused.error)
    except WriteFault as fault:
        return Failure(AppendError(kind=fault.kind, session_id=current, message=fault.message))
    return Success(sum(len(session.events) for session in chosen))


def _holding(d: Dialect, cursor: Any, sessions: list[str]) -> str | None:
    """The first of ``sessions`` that holds an event already (in their order), if any."""
    keys = {d.session_key(session): session for session in sessions}
    query = d.sql("SELECT DISTINCT {session} FROM {events} WHERE {session} ")
    found = {
        row[0]
        for fragment, chunk in d.key_sets(list(keys))
        for row in cursor.execute(query + fragment, chunk)
    }
    return next((session for key, session in keys.items() if key in found), None)
