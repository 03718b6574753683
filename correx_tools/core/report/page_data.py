"""What a session's report page holds, as one JSON document: decided here, drawn by the page.

The page must stay small and quick on a session of a million events, so the
document is built for it rather than for reading:

* every invocation, as columns in request order (``ids``, ``tool``, ``status`` and
  the sequences and times of its request, start and end, each number written as
  the difference from the one before it where that keeps it short); the page
  rebuilds the session's event order from them, so no per-event list is needed;
* ``checkpoints``: the counts by status (then refused events, then calls that
  exited non-zero) after every ``every``-th event, so the scrubber's counts at
  any sequence cost at most ``every`` steps; ``exited_nonzero`` lists the
  positions of the completed calls whose exit code is not 0;
* ``details``: the arguments, receipt and versions of the invocations worth
  opening (failed, rejected and in flight first, then the rest in request order),
  up to a count and a size, so an invocation's history opens without a store;
* ``stats``: `tool_stats` of the final state; ``refused``: the events the
  lifecycle refused, with why (lenient mode).

A session whose transcript records no time (``times`` false) is laid out by
step: ``axis`` is ``"sequence"``, every time in the columns is an event's
sequence (`at_sequence`), and no time or duration is written.

Every string that came from the session goes through a `Redaction` first:
nothing is written into the page unmasked.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, final

from ..lifecycle.events import StoredEvent
from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.status import ToolInvocationStatus
from ..lifecycle.transitions import TransitionError
from ..replay.analytics import Percentiles, ToolStatsBuilder
from ..replay.outline import InvocationOutline, outline_of
from ..replay.recorded import at_sequence, exit_code_of, exited_nonzero, recorded_start
from ..replay.stored_index import STATUS_CODES, InvocationEntry, record_at
from ..tools.json_values import thaw_json
from .redaction import DEFAULT, Redaction

FORMAT = 2
"""The version of the document's layout (the page refuses one it does not know): 2 added the
non-zero exits and the ``axis``."""

STATUSES = tuple(status.value for status in ToolInvocationStatus)
"""Status names by code minus one, as the page shows them."""


class PageLimits(NamedTuple):
    """How much of a session a page holds in full.

    ``details``: invocations whose arguments and receipts are embedded;
    ``details_bytes``: the most their JSON may take; ``refused``: refused events
    listed with their errors; ``checkpoints``: at most this many count
    checkpoints (the interval grows with the session).
    """

    details: int = 2_000
    details_bytes: int = 6_000_000
    refused: int = 1_000
    checkpoints: int = 2_000


LIMITS = PageLimits()
"""The default limits."""


def page_data(
    session_id: str,
    last_sequence: int,
    entries: Sequence[InvocationEntry],
    refused: Sequence[tuple[StoredEvent, TransitionError]],
    *,
    redaction: Redaction = DEFAULT,
    limits: PageLimits = LIMITS,
    times: bool = True,
    imported: bool = False,
) -> dict[str, Any]:
    """The page's document for one session: ``entries`` in request order (as
    `SessionEntries` gives them) and the refused events; every value plain JSON."""
    builder = PageBuilder(session_id, last_sequence, redaction=redaction, limits=limits,
                          times=times, imported=imported)  # fmt: skip
    for entry in entries:
        builder.add(outline_of(entry))
    chosen = {position: entries[position] for position, _ in builder.wanted()}
    return plain(builder.document(refused, chosen))


@final
class PageBuilder:
    """The page's document built one invocation at a time, in request order.

    `add` each invocation's outline as it stands at the end (a session's whole
    stream of them, read a page at a time); `wanted` then names the invocations
    whose details the page embeds, and `document` takes their entries and the
    refused events. The columns are kept as arrays of 64-bit integers (the ids
    as text): about 70 bytes an invocation. `plain` makes them lists;
    ``json.dumps`` of the plain document is the page's data.
    """

    __slots__ = ("_arrays", "_at", "_checkpoints", "_details", "_every", "_ids", "_imported",
                 "_last", "_limits", "_nonzero", "_origin", "_redaction", "_session", "_stats",
                 "_times", "_tools", "_unstarted")  # fmt: skip

    def __init__(
        self,
        session_id: str,
        last_sequence: int,
        *,
        redaction: Redaction = DEFAULT,
        limits: PageLimits = LIMITS,
        times: bool = True,
        imported: bool = False,
    ) -> None:
        self._session = session_id
        self._times = times  # false: the session records none, and is laid out by step
        # An imported session's start at its request's very time is a stand-in: not shown.
        self._imported = imported
        self._unstarted: list[int] = []
        self._nonzero: list[int] = []
        self._last = last_sequence
        self._redaction = redaction
        self._limits = limits
        self._every = max(1, -(-last_sequence // limits.checkpoints))
        self._checkpoints = [[0] * 7 for _ in range(last_sequence // self._every + 1)]
        self._tools: dict[str, int] = {}
        self._ids: list[str] = []
        self._arrays = tuple(array("q") for _ in _COLUMNS)
        self._origin: datetime | None = None
        self._at = [0, 0]  # the request sequence and time (after the origin) of the last one
        self._details: tuple[list[tuple[int, str]], list[tuple[int, str]]] = ([], [])
        self._stats = ToolStatsBuilder()

    def add(self, call: InvocationOutline) -> bool:
        """One more invocation, the next in request order, as it stands at the end; whether
        its details may be embedded (keep its entry for `document` then)."""
        # Written for speed (a million-event session has a third of a million calls): the
        # columns and the counts' moves are inlined, each time is turned into microseconds
        # once, and the tool's durations come from the columns' own numbers.
        if not self._times:
            call = _by_step(call)
        origin = self._origin
        if origin is None:
            origin = self._origin = call.requested_at
        tool, status_column, rs, ss, es, rt, qt, run = self._arrays
        requested_seq, started_seq, ended_seq = (
            call.requested_seq,
            call.started_seq,
            call.ended_seq,
        )
        requested = (call.requested_at - origin) // _MICROSECOND
        started_at, ended_at = call.started_at, call.completed_at
        status = STATUS_CODES[call.status]
        nonzero = exited_nonzero(call.status, call.exit_code)
        if nonzero:
            self._nonzero.append(len(self._ids))
        self._ids.append(self._redaction.text(call.invocation_id))
        tools = self._tools
        tool.append(tools.setdefault(call.tool_name, len(tools)))
        status_column.append(status)
        rs.append(requested_seq - self._at[0])
        rt.append(requested - self._at[1])
        self._at[0], self._at[1] = requested_seq, requested
        queued = ran = took = None
        if started_seq is None or (self._imported and started_at == call.requested_at):
            if started_seq is not None:  # started, at no time recorded (`recorded_start`)
                self._unstarted.append(len(self._ids) - 1)
            ss.append(0 if started_seq is None else started_seq - requested_seq)
            qt.append(-1)
        else:
            started = (started_at - origin) // _MICROSECOND  # type: ignore[operator]
            queued = started - requested
            ss.append(started_seq - requested_seq)
            qt.append(queued)
        if ended_seq is None:
            es.append(0)
            run.append(-1)
        else:
            ended = (ended_at - origin) // _MICROSECOND  # type: ignore[operator]
            es.append(ended_seq - requested_seq)
            took = ended - requested
            if queued is None:
                run.append(took)
            else:
                ran = ended - started
                run.append(ran)
        self._moves(requested_seq, started_seq, ended_seq, status, nonzero)
        self._stats.add_micros(call.tool_name, call.status, queued, ran, took, nonzero=nonzero)
        # The details worth opening: failed, rejected, exited non-zero and in flight first,
        # then the rest.
        worth = self._details[status == _COMPLETED and not nonzero]
        if len(worth) < self._limits.details:
            worth.append((len(self._ids) - 1, call.invocation_id))
            return True
        return False

    def _moves(
        self,
        requested_seq: int,
        started_seq: int | None,
        ended_seq: int | None,
        status: int,
        nonzero: bool,
    ) -> None:
        """The changes of one invocation's request, start and end (`_move`), in one call."""
        every, checkpoints = self._every, self._checkpoints
        slots = len(checkpoints)
        slot = -(-requested_seq // every)
        if slot < slots:
            checkpoints[slot][0] += 1
        before = 1
        if started_seq is not None:
            slot = -(-started_seq // every)
            if slot < slots:
                delta = checkpoints[slot]
                delta[0] -= 1
                delta[1] += 1
            before = 2
        if ended_seq is not None:
            slot = -(-ended_seq // every)
            if slot < slots:
                delta = checkpoints[slot]
                delta[before - 1] -= 1
                delta[status - 1] += 1
                delta[6] += nonzero

    def _move(self, sequence: int, before: int, after: int) -> None:
        """One change of the counts by status (five) and of refused events: it lands in the
        first checkpoint at or after its sequence."""
        slot = -(-sequence // self._every)
        if slot >= len(self._checkpoints):
            return  # after the last checkpoint: the page steps to it from there
        delta = self._checkpoints[slot]
        if before:
            delta[before - 1] -= 1
        delta[after - 1] += 1

    def wanted(self) -> list[tuple[int, str]]:
        """``(position, invocation id)`` of the invocations whose details the page may embed,
        in the order they are taken (up to the limits' count and size)."""
        unfinished, completed = self._details
        return (unfinished + completed)[: self._limits.details]

    def document(
        self,
        refused: Sequence[tuple[StoredEvent, TransitionError]],
        entries: Mapping[int, InvocationEntry],
    ) -> dict[str, Any]:
        """The page's document: ``entries`` by position are those `wanted` named (each as it
        is at the end); its columns are arrays (`plain` makes them lists)."""
        redaction, limits = self._redaction, self._limits
        for stored, _ in refused:
            self._move(stored.sequence, 0, 6)
        running = [0] * 7
        counts = []
        for delta in self._checkpoints:
            running = [a + b for a, b in zip(running, delta, strict=True)]
            counts.append(running)
        return {
            "format": FORMAT,
            "session": redaction.text(self._session),
            "last": self._last,
            "axis": "time" if self._times else "sequence",
            "origin": None if self._origin is None else _micros(self._origin),
            "statuses": STATUSES,
            "tools": [redaction.text(name) for name in self._tools],
            "invocations": {"ids": self._ids, **dict(zip(_COLUMNS, self._arrays, strict=True))},
            "exited_nonzero": self._nonzero,
            "unstarted": self._unstarted,
            "checkpoints": {"every": self._every, "counts": counts},
            "refused": {
                "total": len(refused),
                "sequences": [stored.sequence for stored, _ in refused],
                "shown": [
                    _refusal(stored, error, redaction)
                    for stored, error in refused[: limits.refused]
                ],
            },
            "details": self._embedded(entries),
            "stats": [_stats_row(row, redaction, self._times) for row in self._stats.stats()],
        }

    def _embedded(self, entries: Mapping[int, InvocationEntry]) -> dict[str, Any]:
        """The details, by position, in the order `wanted` gives, until the size is reached."""
        chosen: dict[str, Any] = {}
        size = 0
        for position, _ in self.wanted():
            entry = entries.get(position)
            record = None if entry is None else record_at(entry, self._last)
            if entry is None or record is None:
                continue  # not there to embed (the store changed under us): left out
            detail = _detail(record, entry, self._redaction, self._times, self._imported)
            size += len(json.dumps(detail, ensure_ascii=False))
            if size > self._limits.details_bytes:
                break
            chosen[str(position)] = detail
        return chosen


_COLUMNS = ("tool", "status", "rs", "ss", "es", "rt", "qt", "run")
"""The invocation columns after ``ids``, in the document's order."""
_COMPLETED = STATUS_CODES[ToolInvocationStatus.COMPLETED]


def plain(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its arrays made lists: plain JSON values throughout."""
    columns = document["invocations"]
    return {
        **document,
        "invocations": {name: list(values) for name, values in columns.items()},
    }


def _detail(record: ToolInvocationRecord, entry: InvocationEntry, redaction: Redaction,
            times: bool, imported: bool) -> dict[str, Any]:  # fmt: skip
    started = recorded_start(entry.requested_at, entry.started_at, imported=imported)
    receipt = record.receipt
    return {
        "tier": record.tier.value,
        "arguments": redaction.value(thaw_json(record.request.arguments)),
        "receipt": None
        if receipt is None
        else {
            "exit_code": exit_code_of(receipt),
            "output": redaction.value(thaw_json(receipt.output)),
            "metadata": redaction.value(thaw_json(receipt.metadata)),
        },
        "reason": None if record.reason is None else redaction.short_text(record.reason),
        "recoverable": record.recoverable,
        "versions": [
            [sequence, at.isoformat() if times and at is not None else None]
            for sequence, at in (
                (entry.requested_seq, entry.requested_at),
                (entry.started_seq, started),
                (entry.ended_seq, entry.completed_at),
            )
            if sequence is not None
        ],
    }


def _refusal(stored: StoredEvent, error: TransitionError, redaction: Redaction) -> list[Any]:
    invocation = getattr(stored.event, "invocation_id", None)
    return [
        stored.sequence,
        None if invocation is None else redaction.text(invocation),
        error.kind.value,
        redaction.short_text(str(error)),
    ]


def _stats_row(stats: Any, redaction: Redaction, times: bool) -> dict[str, Any]:
    return {
        "tool": redaction.text(stats.tool_name),
        "calls": stats.calls,
        "completed": stats.completed,
        "failed": stats.failed,
        "exited_nonzero": stats.exited_nonzero,
        "rejected": stats.rejected,
        "in_flight": stats.in_flight,
        "queued": _micros_of(stats.queued) if times else [None] * 3,
        "ran": _micros_of(stats.ran) if times else [None] * 3,
        "took": _micros_of(stats.took) if times else [None] * 3,
    }


def _by_step(call: InvocationOutline) -> InvocationOutline:
    """The call with its events' sequences standing for their times (`at_sequence`)."""
    started, ended = call.started_seq, call.ended_seq
    return call._replace(
        requested_at=at_sequence(call.requested_seq),
        started_at=None if started is None else at_sequence(started),
        completed_at=None if ended is None else at_sequence(ended),
    )


def _micros_of(values: Percentiles) -> list[int | None]:
    return [None if v is None else v // _MICROSECOND for v in values.spread]


def _after(sequence: int | None, requested: int) -> int:
    return 0 if sequence is None else sequence - requested


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // _MICROSECOND
