"""Writing events to a database store: one transaction for an append or an import.

For each session in turn, inside the transaction: hold the session against
other writers and check that the events continue it (`check_continues`),
write the events with their index (`index_and_write`: their typed columns,
effects and chain, the rows of the invocations they request — claiming those
ids, unique across sessions — or move on, the checkpoints and the head) and the
session's catalog and words (`catalog.keep_catalog`), and
move the session on. Anything refused rolls the whole transaction back: all or
nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, Protocol

from returns.result import Failure, Result, Success

from ....core.lifecycle.events import (
    TOOL_EVENT_TYPES,
    StoredEvent,
    ToolInvocationRequestedEvent,
)
from ..codec.encoding import EncodedEvent
from ..codec.rows import encode_rows
from ..port import AppendError, AppendErrorKind, StaleIndex
from ..writing import Refused, check_continues, conflict, duplicate
from .dialect import Copying, Cursor, Database, Dialect, WriteFault
from .index import (
    load_head,
    load_images,
    move_images,
    save_head,
    states,
    write_checkpoints,
    write_images,
)
from .indexing import IndexedGroup, index_group
from .rebuilding import DamagedEvents, rebuild

IMPORT_RUN = 5_000
"""At most this many events of one session are encoded and indexed at a time by an import:
an import of any size holds a few thousand events in memory, not all of them."""

Group = tuple[str, Sequence[StoredEvent]]


class WholeSession(Protocol):
    """A session an import writes whole, by other means than its events one group at a
    time (`copy_parts`); where it cannot, its events are written as groups."""

    @property
    def session_id(self) -> str:
        """The session it writes."""
        ...

    def write(self, d: Dialect, cursor: Cursor, interval: int) -> int | None:
        """The events written, in the caller's transaction; ``None`` when it wrote nothing
        and leaves the session to `groups`."""
        ...

    def groups(self) -> Iterable[Group]:
        """The session's events, a group at a time."""
        ...


def write_groups(
    database: Database,
    groups: Iterable[Group | WholeSession],
    *,
    expected: int | None,
    interval: int,
    first: Callable[[Cursor], None] | None = None,
) -> Result[int, AppendError]:
    """Write each session's events in one transaction: the number written, or why none were.

    ``groups`` may be a stream: each group is encoded (by the rule every store
    writes by), checked and indexed as it comes, and only then is the next one
    read, so an import's memory is bounded by a group. An append is one group,
    found at ``expected``; an import's groups each continue their session. ``first``
    runs in the transaction before anything is written (removing sessions the events
    replace): it is undone with them if they are refused.
    """
    d, written = database.dialect, 0
    sessions: dict[str, None] = {}  # the sessions written, in order
    # The first group is read before the transaction begins, so that a database too busy
    # to begin one is named with the session it was to write.
    stream = iter(groups)
    head = next(stream, None)
    current = "" if head is None else head[0] if isinstance(head, tuple) else head.session_id
    try:
        with database.writing() as cursor:
            if first is not None:
                first(cursor)
            for item in chain(() if head is None else (head,), stream):
                if isinstance(item, tuple):
                    parts: Iterable[Group] = (item,)
                else:
                    current = item.session_id
                    copied = item.write(d, cursor, interval)
                    if copied is not None:
                        sessions[current], written = None, written + copied
                        continue
                    parts = item.groups()  # written as any other events are
                for session_id, events in parts:
                    current = session_id
                    sessions[session_id] = None
                    written += write_run(
                        d, cursor, session_id, events, expected=expected, interval=interval
                    )
            if not written:
                raise _Nothing
            d.after_write(cursor, sessions)
    except _Nothing:
        return Success(0)
    except Refused as refused:
        return Failure(refused.error)
    except DamagedEvents as damage:
        return Failure(
            AppendError(
                kind=AppendErrorKind.DAMAGED,
                session_id=damage.session_id,
                message=f"{damage}; nothing was written (correx-tools verify names every fault)",
            )
        )
    except WriteFault as fault:
        session_id = current
        if fault.kind is AppendErrorKind.CONFLICT:
            # Another writer committed the same sequence between our check and our write.
            return Failure(conflict(session_id, -1 if expected is None else expected, -1))
        return Failure(AppendError(kind=fault.kind, session_id=session_id, message=fault.message))
    return Success(written)


def write_run(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    events: Sequence[StoredEvent],
    *,
    expected: int | None,
    interval: int,
) -> int:
    """Write one run of a session's events, in the caller's transaction: the session held,
    the events checked to continue it (found at ``expected``, or for an import exactly
    after its last), encoded, indexed and written, the session moved on; how many were
    written. `Refused` for events that may not be written."""
    encoded = encode_rows([(session_id, events)], _envelope)
    if isinstance(encoded, AppendError):
        raise Refused(encoded)
    last = d.lock_session(cursor, session_id)
    problem = check_continues(session_id, last, events, expected)
    if problem is not None:
        raise Refused(problem)
    if not events:
        return 0
    index_and_write(d, cursor, session_id, list(events), encoded, interval=interval)
    d.advance_session(cursor, session_id, events[-1].sequence)
    return len(events)


def runs(stored_events: Iterable[StoredEvent], size: int = IMPORT_RUN) -> Iterator[Group]:
    """The events as they come, cut into runs of one session, at most ``size`` long.

    The events are read inside the destination's transaction: anything reading
    them raises comes out as a `SourceFailed`, so that a source's own fault (a
    locked source file, say) is not taken for the destination's.
    """
    run: list[StoredEvent] = []
    try:
        for stored in stored_events:
            if run and (stored.session_id != run[0].session_id or len(run) == size):
                yield run[0].session_id, run
                run = []
            run.append(stored)
    except Exception as error:
        raise SourceFailed(error) from error
    if run:
        yield run[0].session_id, run


class SourceFailed(Exception):
    """Reading the events to import raised ``error`` (the import wrote nothing)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class _Nothing(Exception):
    """Rolls back a transaction that wrote no event (it left nothing to keep)."""


def _envelope(_session: str, _stored: StoredEvent, envelope: EncodedEvent) -> EncodedEvent:
    return envelope


def index_and_write(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    events: list[StoredEvent],
    encoded: list[EncodedEvent],
    *,
    interval: int,
) -> None:
    """Write one session's events with their index, in the caller's transaction.

    A session whose index does not reach its last event, or does not match it
    (written by an older release, or changed outside this store), has it
    rebuilt first (`rebuild`).
    """
    head = load_head(d, cursor, session_id)
    if head is None:
        head = rebuild(d, cursor, session_id, interval)
    requested_here: set[str] = set()
    for stored in events:
        if isinstance(stored.event, ToolInvocationRequestedEvent):
            invocation = stored.event.invocation_id
            if invocation in requested_here:
                raise Refused(duplicate(session_id, invocation, session_id))
            requested_here.add(invocation)
    touched = {
        s.event.invocation_id
        for s in events
        if isinstance(s.event, TOOL_EVENT_TYPES) and s.event.invocation_id not in requested_here
    }
    try:
        known = load_images(d, cursor, session_id, touched)
    except StaleIndex:
        head = rebuild(d, cursor, session_id, interval)
        known = load_images(d, cursor, session_id, touched)
    group = index_group(
        session_id, events, encoded, head=head, lookup=states(known, session_id),
        interval=interval,
    )  # fmt: skip
    write_events(d, cursor, session_id, events, group)
    new, changed = move_images(group.changes, group.events, known)
    write_images(d, cursor, session_id, new.values(), changed.values())
    write_checkpoints(d, cursor, session_id, group.checkpoints)
    save_head(d, cursor, session_id, group.head)
    # Imported when first written: a command that only reads never loads the catalog's.
    from .catalog import keep_catalog  # noqa: PLC0415

    keep_catalog(d, cursor, session_id, events, group.head)


def write_events(
    d: Dialect, cursor: Cursor, session_id: str, events: list[StoredEvent], group: IndexedGroup
) -> None:
    """Insert a group's events with their typed columns, effects and chains."""
    insert_events(d, cursor, event_rows(d, d.session_key(session_id), events, group))


def event_rows(
    d: Dialect, key: object, events: list[StoredEvent], group: IndexedGroup
) -> list[tuple[Any, ...]]:
    """A group's event rows as `insert_events` writes them (``key``: their session's)."""
    text, time = d.text_value, d.time_value
    return [
        (key, row.sequence, time(stored.recorded_at, row.encoded.recorded_at), row.encoded.type,
         row.encoded.version, row.encoded.data, row.columns.kind, text(row.columns.invocation_id),
         text(row.columns.label), row.columns.code, row.effect, row.chain)
        for stored, row in zip(events, group.events, strict=True)
    ]  # fmt: skip


_EVENT_COLUMNS = (
    "{session}, sequence, recorded_at, type, version, data, kind, invocation_id, label, code, "
    "effect, chain"
)


def insert_events(d: Dialect, cursor: Cursor, rows: list[tuple[Any, ...]]) -> None:
    """Insert event rows made by `event_rows`: copied in where the database can (a row at a
    sequence taken fails the write there too: the session was held and checked first)."""
    if isinstance(d, Copying):
        d.copy_rows(cursor, "{events}", d.sql(_EVENT_COLUMNS), rows)
        return
    cursor.executemany(
        d.sql(
            f"INSERT INTO {{events}} ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ),
        rows,
    )
