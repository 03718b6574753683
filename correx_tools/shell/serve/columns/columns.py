"""A session's invocations as compact columns, exact at one sequence: what the page draws from.

The store's index answers one question at a time; the page asks for whole
pictures (a timeline of every call at any zoom, per-tool percentiles at any
sequence, every event around a point). So the server reads each session's
entries once, a piece at a time, into a few flat arrays (about 90 bytes a call,
ids included), and answers those pictures from them. The columns are exact at
``last``: an event after it is not in them, whatever the entries read say. A
session that grows is caught up from the entries changed since (`caught_up`),
into new columns: columns are never changed once built, so a question being
answered never sees half an update. A session whose transcript records no time
(``times`` false) keeps its calls' sequences where their times would be: its
pictures are laid out by step, and no duration is taken from them.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from operator import sub
from typing import Any, NamedTuple, TypeVar, final

from ....core.replay.stored_index import STATUS_CODES, InvocationEntry

T = TypeVar("T")

KIND_OTHER, KIND_REQUESTED, KIND_STARTED = 0, 1, 2
KIND_REFUSED = 6
"""What an event did, as ``event_kind`` holds it: the status it gave its invocation (1..5),
0 for an event that is not a tool event, 6 for one the lifecycle refused."""

STATUSES = ("requested", "started", "completed", "failed", "rejected")
"""The names of the status codes 1..5, as the answers say them."""
KINDS = ("other", *STATUSES, "refused")
"""The names of the ``event_kind`` codes 0..6, as the answers say them."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def micros(moment: datetime) -> int:
    """Microseconds since 1970 (exact: a timestamp is whole microseconds)."""
    return (moment - _EPOCH) // _MICROSECOND


def moment(value: int) -> datetime:
    """The inverse of `micros`."""
    return _EPOCH + value * _MICROSECOND


def sequence_code(last: int) -> str:
    """The array type that holds a session's sequences: four bytes while they fit."""
    return "i" if last < 2**31 else "q"


class Refusal(NamedTuple):
    """A refused event: its sequence, its invocation's id (if it names one), and why."""

    sequence: int
    invocation_id: str | None
    kind: str
    message: str


class _Piece:
    """Columns of a run of entries, before they are joined."""

    __slots__ = ("_ids", "end", "end_t", "lengths", "nonzero", "req", "req_t", "start", "start_t",
                 "status", "texts", "times", "tool")  # fmt: skip

    def __init__(self, code: str = "i", *, times: bool = True) -> None:
        self.req, self.start, self.end = array(code), array(code), array(code)
        self.req_t, self.start_t, self.end_t = array("q"), array("q"), array("q")
        self.status, self.tool, self.lengths = array("b"), array("i"), array("i")
        self.nonzero = array("b")
        self.times = times
        # The ids, joined a piece at a time: one string per piece, not one object per call.
        self.texts: list[str] = []
        self._ids: list[str] = []

    def sealed(self) -> _Piece:
        """The piece with the ids added since the last seal joined into one string."""
        if self._ids:
            self.texts.append("".join(self._ids))
            self.lengths.extend(map(len, self._ids))
            self._ids = []
        return self

    def add(self, entry: InvocationEntry, last: int, tools: dict[str, int]) -> None:
        """Add one call, as it stood right after ``last``; ``tools`` numbers the tool names."""
        started = entry.started_seq if entry.started_seq and entry.started_seq <= last else 0
        ended = entry.ended_seq if entry.ended_seq and entry.ended_seq <= last else 0
        self.req.append(entry.requested_seq)
        self.start.append(started)
        self.end.append(ended)
        if self.times:
            self.req_t.append(micros(entry.requested_at))
            self.start_t.append(micros(entry.started_at) if started and entry.started_at else 0)
            self.end_t.append(micros(entry.completed_at) if ended and entry.completed_at else 0)
        else:  # by step: each event's sequence stands where its time would be
            self.req_t.append(entry.requested_seq)
            self.start_t.append(started)
            self.end_t.append(ended)
        self.status.append(STATUS_CODES[entry.status] if ended else 2 if started else 1)
        receipt = entry.receipt  # its exit code is a column: nothing of it is decoded here
        self.nonzero.append(bool(ended) and receipt is not None and receipt.exit_code != 0)
        self.tool.append(tools.setdefault(entry.tool_name, len(tools)))
        self._ids.append(entry.invocation_id)


@final
class SessionColumns:
    """One session's invocations in request order, as they stood right after ``last``.

    Per position: ``req``, ``start`` and ``end`` (the sequences of its request,
    start and end; 0 for none by ``last``), their times in microseconds since
    1970 (``req_t``, ``start_t``, ``end_t``; with ``times`` false, the same
    sequences again), its ``status`` code then (1..5), whether it completed with
    an exit code other than 0 (``nonzero``, 1 or 0) and its ``tool`` (an index
    into ``tools``). Per sequence up to ``last``: ``event_position`` (the
    invocation an event is about, -1 for none) and ``event_kind``. ``refused``
    lists the refused events.
    """

    __slots__ = ("_cache", "_ids", "_lock", "_starts", "end", "end_t", "event_kind",
                 "event_position", "last", "nonzero", "refused", "req", "req_t", "session_id",
                 "start", "start_t", "status", "times", "tool", "tools")  # fmt: skip

    def __init__(
        self,
        session_id: str,
        last: int,
        piece: _Piece,
        tools: list[str],
        refused: list[Refusal],
        *,
        marked: tuple[SessionColumns, list[int]] | None = None,
    ) -> None:
        self.session_id, self.last, self.tools, self.refused = session_id, last, tools, refused
        self.req, self.start, self.end = piece.req, piece.start, piece.end
        self.req_t, self.start_t, self.end_t = piece.req_t, piece.start_t, piece.end_t
        self.status, self.tool = piece.status, piece.tool
        self.nonzero, self.times = piece.nonzero, piece.times
        piece.sealed()
        self._ids = "".join(piece.texts)
        self._starts = array("q", accumulate(piece.lengths, initial=0))
        # The events' kinds, from the columns these catch up on where given (only the changed
        # invocations are marked again): at a million events, marking all takes a while.
        if marked is None:
            self.event_position = array("i", [-1]) * (last + 1)
            self.event_kind = bytearray(last + 1)
            changed: Iterable[int] = range(len(self.req))
        else:
            before, changed = marked
            self.event_position = before.event_position + array("i", [-1]) * (last - before.last)
            self.event_kind = before.event_kind + bytearray(last - before.last)
        for position in changed:
            self._mark(position)
        for refusal in refused:
            self.event_kind[refusal.sequence] = KIND_REFUSED
            self.event_position[refusal.sequence] = (
                -1 if refusal.invocation_id is None else self.position_of(refusal.invocation_id)
            )
        self._cache: dict[str, Any] = {}
        # Re-entrant: one structure may be built from another.
        self._lock = threading.RLock()

    def _mark(self, position: int) -> None:
        kinds, positions = self.event_kind, self.event_position
        for sequence, kind in (
            (self.req[position], KIND_REQUESTED),
            (self.start[position], KIND_STARTED),
            (self.end[position], self.status[position]),
        ):
            if sequence:
                kinds[sequence], positions[sequence] = kind, position

    def __len__(self) -> int:
        return len(self.req)

    def invocation_id(self, position: int) -> str:
        """The id of the invocation at ``position``."""
        return self._ids[self._starts[position] : self._starts[position + 1]]

    def ids(self) -> Iterable[tuple[int, str]]:
        """Every position with its id."""
        text, starts = self._ids, self._starts
        return ((p, text[starts[p] : starts[p + 1]]) for p in range(len(starts) - 1))

    def find_ids(self, needle: str) -> Iterable[int]:
        """The positions whose id holds ``needle`` (as it is; empty matches none), in order."""
        if not needle:
            return
        text, starts, found = self._ids, self._starts, self._ids.find(needle)
        previous = -1
        while found >= 0:
            position = bisect_left(starts, found + 1) - 1
            if found + len(needle) <= starts[position + 1] and position != previous:
                previous = position
                yield position
            found = text.find(needle, found + 1)

    def position_of(self, invocation_id: str) -> int:
        """The position of the invocation with this id (-1 if it has none here)."""
        for position in self.find_ids(invocation_id):
            if self._starts[position + 1] - self._starts[position] == len(invocation_id):
                return position
        return -1

    def requested_by(self, sequence: int) -> int:
        """How many invocations were requested by ``sequence``."""
        return bisect_left(self.req, sequence + 1)

    def status_at(self, position: int, sequence: int) -> int:
        """The status code of an invocation right after ``sequence`` (0: not requested yet)."""
        if self.req[position] > sequence:
            return 0
        end = self.end[position]
        if end and end <= sequence:
            return self.status[position]
        start = self.start[position]
        return 2 if start and start <= sequence else 1

    def derived(self, name: str, build: Callable[[SessionColumns], T]) -> T:
        """A structure computed from these columns once, on first use (columns never change)."""
        found = self._cache.get(name)
        if found is None:
            with self._lock:
                found = self._cache.get(name)
                if found is None:
                    found = self._cache[name] = build(self)
        result: T = found
        return result

    def caught_up(
        self, last: int, changed: Sequence[InvocationEntry], refused: list[Refusal]
    ) -> SessionColumns:
        """New columns exact at ``last``: these, with the entries changed after ``self.last``
        (each as it is now) and the refused events by ``last``."""
        tools = {name: number for number, name in enumerate(self.tools)}
        code = sequence_code(last)
        piece = _Piece(code, times=self.times)
        piece.req, piece.start, piece.end = (
            array(code, self.req), array(code, self.start), array(code, self.end),
        )  # fmt: skip
        piece.req_t, piece.start_t = array("q", self.req_t), array("q", self.start_t)
        piece.end_t, piece.status = array("q", self.end_t), array("b", self.status)
        piece.tool, piece.nonzero = array("i", self.tool), array("b", self.nonzero)
        piece.texts = [self._ids]
        piece.lengths = array("i", map(sub, self._starts[1:], self._starts[:-1]))
        touched = []
        for entry in changed:
            if entry.requested_seq > self.last:
                touched.append(len(piece.req))
                piece.add(entry, last, tools)
                continue
            position = bisect_left(self.req, entry.requested_seq)
            touched.append(position)
            one = _Piece(code, times=self.times)
            one.add(entry, last, tools)
            piece.start[position], piece.end[position] = one.start[0], one.end[0]
            piece.start_t[position], piece.end_t[position] = one.start_t[0], one.end_t[0]
            piece.status[position], piece.nonzero[position] = one.status[0], one.nonzero[0]
        return SessionColumns(
            self.session_id, last, piece, list(tools), refused, marked=(self, touched)
        )


def columns_of(
    session_id: str,
    last: int,
    count: int,
    pieces_newest_first: Iterable[Sequence[InvocationEntry]],
    refused: list[Refusal],
    *,
    times: bool = True,
) -> SessionColumns:
    """The columns of a session exact at ``last``, whose ``count`` invocations were requested
    by then, from its entries read in pieces walking back from ``last`` (each piece in request
    order). Each piece is copied into place at once: the entries of a large session are never
    all held together, and the columns are allocated whole (no growing, no scattered holes).
    ``times`` false: the session records none (its calls' sequences stand for them)."""
    tools: dict[str, int] = {}
    code = sequence_code(last)
    whole = _Piece(code, times=times)
    for name in _ARRAYS:
        column = getattr(whole, name)
        column.extend(array(column.typecode, bytes(column.itemsize * count)))
    whole.lengths = array("i", bytes(4 * count))
    end = count
    texts: list[str] = []
    for entries in pieces_newest_first:
        piece = _Piece(code, times=times)
        for entry in entries:
            if entry.requested_seq <= last:
                piece.add(entry, last, tools)
        piece.sealed()
        start = end - len(piece.req)
        if start < 0:
            raise ValueError(f"session {session_id!r} holds more invocations than the {count} "
                             "its index counts; rebuild it with correx-tools reindex")  # fmt: skip
        for name in (*_ARRAYS, "lengths"):
            getattr(whole, name)[start:end] = getattr(piece, name)
        texts += reversed(piece.texts)
        end = start
    if end:  # fewer than counted: the session's first requests were not read
        raise ValueError(f"session {session_id!r} holds fewer invocations than the {count} its "
                         "index counts; rebuild it with correx-tools reindex")  # fmt: skip
    texts.reverse()
    whole.texts = texts
    return SessionColumns(session_id, last, whole, list(tools), refused)


_ARRAYS = ("req", "start", "end", "req_t", "start_t", "end_t", "status", "nonzero", "tool")
