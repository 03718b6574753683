"""Two sessions compared: each one's calls read once from its view, aligned, and told as
one document (what ``compare --json`` prints and the server sends).

Each session is read a page at a time (`SessionView.entries_through`) into
columns (`comparison.Calls`): its calls' keys, what each did (`meaning.Meanings`) and
what each row needs, never the sessions' payloads, so two sessions of a million events
are compared in bounded memory. Once read, a session's workspace root is its working
directory, else the deepest folder holding every path it read or edited; its calls'
targets and files are named relative to it. The rows shown are then read again by id for
their arguments. The state
of each session at the first divergence is the view's own answer about the event
before the divergent call was requested (the last event, for a session that has
no call there): the same answer ``replay --at`` gives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, NamedTuple, final

from returns.result import Result, Success

from ...core.lifecycle.description import Described
from ...core.lifecycle.events import ToolReceipt, undecoded_text
from ...core.lifecycle.outcome import Outcome, outcome_json
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.alignment import Alignment, align_in_turn
from ...core.replay.call_keys import CallKeys
from ...core.replay.comparison import ALIKE, CallFacts, Calls, Row, side_by_side
from ...core.replay.errors import ReplayError
from ...core.replay.recorded import (
    EDIT_APPLIED,
    EXIT_CODE_KNOWN,
    edit_not_applied,
    exit_code_of,
)
from ...core.replay.stored_index import InvocationEntry
from ...core.report.meaning import Meanings
from ...core.report.redaction import Redaction
from ...core.report.workspaces import EditedFiles, FilesWalk
from ...core.tools.json_values import thaw_json
from ...core.tools.request import ToolRequest, undecoded_source
from .documents import by_status, seconds
from .files_document import workspace_document
from .view import SessionView

_COMPLETED = ToolInvocationStatus.COMPLETED


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Side:
    """One session of a comparison: where it came from, how to open a view of it (one at a
    time: a store answers one snapshot at a time), and what its transcript said of it (its
    working directory; whether it records times)."""

    source: str
    session: str
    open: Callable[[], AbstractContextManager[SessionView]]
    cwd: str | None = None
    times_recorded: bool = True
    format: str | None = None
    """The transcript's format (its tools' rows of the capability table)."""
    outcome: Outcome | None = None
    """How the run ended, where its harness wrote it."""


def side_of(
    source: str,
    session: str,
    open: Callable[[], AbstractContextManager[SessionView]],
    described: Described | None,
    *,
    times_recorded: bool | None = None,
) -> Side:
    """A session of a comparison, with what its description says (``None``: a session
    recorded here, not imported); ``times_recorded``, where the caller knows better."""
    times = described is None or described.times_recorded
    return Side(
        source=source,
        session=session,
        open=open,
        cwd=None if described is None else described.about.cwd,
        times_recorded=times if times_recorded is None else times_recorded,
        format=None if described is None else described.format,
        outcome=None if described is None else described.outcome,
    )


@final
class Run(NamedTuple):
    """One session as a comparison keeps it: its calls, and its files as its edits left them."""

    calls: Calls
    files: EditedFiles


def read_calls(side: Side) -> Result[Run, ReplayError]:
    """The session's calls in request order, as the comparison keeps them, read in one view
    (`StreamFailed` when its index is found stale part way and the fold then refuses it)."""
    with side.open() as view:
        return view.entries_through().map(lambda entries: _collected(entries, side))


def _collected(entries: Iterable[InvocationEntry], side: Side) -> Run:
    calls = Calls()
    files = EditedFiles(side.cwd)
    meanings = Meanings(side.format)
    keys = CallKeys(side.cwd)
    for position, entry in enumerate(entries):
        arguments = plain_arguments(entry.request)
        key = keys.of(entry.tool_name, arguments)
        meaning = meanings.of(entry.tool_name, arguments, key)
        calls.add(*_facts(entry, key, side), meaning.kind, meaning.target, meaning.content)
        # A completed edit that took effect (its receipt's metadata read for edits only).
        edits = entry.status is _COMPLETED and bool(meaning.changes)
        if edits and _applied(entry.receipt):
            files.record(position, meaning.changes, meaning.said or meaning.content)
    calls.settle(side.cwd)
    files.settle(calls.root)
    return Run(calls, files)


def plain_arguments(request: ToolRequest) -> dict[str, Any]:
    """The request's arguments as plain JSON values: from the store's own text while they
    are not decoded yet (a store's canonical JSON, checked when written: nothing to freeze
    only to thaw again), else thawed."""
    source = undecoded_source(request)
    if source is None:
        thawed: dict[str, Any] = thaw_json(request.arguments)
        return thawed
    text, keys = source
    node: Any = json.loads(text)
    for key in keys:
        node = node[key]
    found: dict[str, Any] = node
    return found


def _facts(
    entry: InvocationEntry, key: int, side: Side
) -> tuple[str, int, int, ToolInvocationStatus, int | None, float | None]:
    """A call's facts as `Calls.add` takes them (but what it did)."""
    receipt = entry.receipt
    ended = entry.completed_at if entry.ended_seq is not None else None
    began = entry.started_at or entry.requested_at
    duration = seconds(ended - began) if side.times_recorded and ended is not None else None
    exit_code = _exit_code(receipt) if receipt is not None and entry.status is _COMPLETED else None
    return entry.tool_name, entry.requested_seq, key, entry.status, exit_code, duration


def _applied(receipt: ToolReceipt | None) -> bool:
    """Whether a completed edit took effect: `edit_not_applied`, without decoding a stored
    receipt whose text lacks the mark's key anywhere (most edits took effect)."""
    text = None if receipt is None else undecoded_text(receipt)
    if text is not None and EDIT_APPLIED not in text:
        return True
    return edit_not_applied(receipt) is None


def _exit_code(receipt: ToolReceipt) -> int | None:
    """`exit_code_of`, without decoding a stored receipt whose text lacks the marker's key
    anywhere (its 0 was then recorded: the marker is the only way a 0 is not)."""
    text = undecoded_text(receipt)
    if receipt.exit_code == 0 and text is not None and EXIT_CODE_KNOWN not in text:
        return 0
    return exit_code_of(receipt)


@final
@dataclass(frozen=True, slots=True)
class Compared:
    """Two sessions' calls and their alignment."""

    a: Calls
    b: Calls
    alignment: Alignment
    files_a: EditedFiles
    files_b: EditedFiles


def compared(a: Run, b: Run) -> Compared:
    """Two sessions' calls aligned: exactly, then by meaning, then by target
    (`comparison`)."""
    keys_a = [a.calls.keys, a.calls.by_meaning, a.calls.by_target]
    keys_b = [b.calls.keys, b.calls.by_meaning, b.calls.by_target]
    found = align_in_turn(keys_a, keys_b, alike=ALIKE)
    return Compared(a.calls, b.calls, found, a.files, b.files)


def compare_document(
    a: Side,
    b: Side,
    found: Compared,
    *,
    limit: int,
    before: int = 3,
    redaction: Redaction | None = None,
    refs: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """The comparison as one document: both sessions, the counts of each kind of row, the
    first divergence with each session's state there, and ``limit`` rows (0: all) from
    ``before`` rows ahead of the divergence (from the start when there is none). Each
    session is opened once more, for what the rows show; ``refs`` names each call as a
    page links to it (its ``ref``)."""
    divergence = found.alignment.first_divergence
    # The common prefix comes first, a row a call: the divergence is row number ``prefix``.
    start = 0 if divergence is None else max(0, divergence[0] - before)
    counts = dict.fromkeys(("same", "changed", "only_a", "only_b"), 0)
    differing = by_meaning = 0
    shown: list[Row] = []
    walk = FilesWalk(found.files_a, found.files_b)
    for number, row in enumerate(side_by_side(found.alignment, found.a, found.b)):
        walk.see(number, row)
        counts[row.kind] += 1
        differing += row.kind == "same" and bool(row.differs)
        by_meaning += row.by == "meaning"
        if number >= start and (limit == 0 or len(shown) < limit):
            shown.append(row)
    told = _Told(redaction, refs)
    parted = walk.parted
    looked = [
        _look(side, calls, told, [row.a if name == "a" else row.b for row in shown],
              diverged=None if divergence is None else divergence[name == "b"],
              parted=None if parted is None else (parted[1].a if name == "a" else parted[1].b))
        for name, side, calls in (("a", a, found.a), ("b", b, found.b))
    ]  # fmt: skip
    return {
        "a": looked[0].about,
        "b": looked[1].about,
        "rows_by_kind": counts,
        "same_with_differences": differing,
        "by_meaning": by_meaning,
        "workspace": workspace_document(
            (found.files_a, found.files_b), _parted(parted, looked), told, (_patch(a), _patch(b))
        ),
        "first_divergence": None
        if divergence is None
        else {"a": looked[0].diverged, "b": looked[1].diverged},
        "rows_from": start,
        "rows": [
            {"kind": row.kind, "by": row.by, "a": a_call, "b": b_call, "differs": list(row.differs)}
            for row, a_call, b_call in zip(shown, looked[0].rows, looked[1].rows, strict=True)
        ],
    }


def _parted(parted: tuple[int, Row] | None, looked: list[_Looked]) -> dict[str, Any] | None:
    """Where the two runs' files first differ: the row, and each run's call there."""
    if parted is None:
        return None
    return {"row": parted[0], "a": looked[0].parted, "b": looked[1].parted}


def _patch(side: Side) -> str | None:
    return None if side.outcome is None else side.outcome.patch


@final
class _Told(NamedTuple):
    """How a document shows a session's strings: masked or not, and how a call is linked."""

    redaction: Redaction | None
    refs: Callable[[str], str] | None

    def text(self, text: str) -> str:
        return text if self.redaction is None else self.redaction.text(text)

    def value(self, value: Any) -> Any:
        return value if self.redaction is None else self.redaction.value(value)


@final
class _Looked(NamedTuple):
    """What one view of one session gave a document."""

    about: dict[str, Any]
    rows: list[dict[str, Any] | None]
    diverged: dict[str, Any] | None
    parted: dict[str, Any] | None


def _look(
    side: Side,
    calls: Calls,
    told: _Told,
    positions: list[int | None],
    *,
    diverged: int | None,
    parted: int | None,
) -> _Looked:
    """One session's part of the document, from one view of it: its calls in the rows shown
    (``None`` where it has none), its state at the divergence, its call where the files
    first differ."""
    with side.open() as view:
        entries = _entries(view, calls, [p for p in positions if p is not None])
        rows = [None if p is None else _call(calls[p], entries, told) for p in positions]
        about = {
            "source": side.source,
            "session_id": told.text(side.session),
            "format": side.format,
            "cwd": None if side.cwd is None else told.text(side.cwd),
            "root": None if calls.root is None else told.text(calls.root),
            "times_recorded": side.times_recorded,
            "events": view.last_sequence,
            "calls": len(calls),
            "outcome": outcome_json(side.outcome),
        }
        state = None if diverged is None else _diverged(view, calls, diverged, told)
        first = None
        if parted is not None:
            first = _call(calls[parted], _entries(view, calls, [parted]), told)
    return _Looked(about, rows, state, first)


def _entries(view: SessionView, calls: Calls, positions: list[int]) -> dict[int, InvocationEntry]:
    """The entries of the calls at ``positions`` (a run of them, as rows show them) by their
    request's sequence: one read of the calls requested from the first to the last."""
    if not positions:
        return {}
    first, last = min(positions), max(positions)
    found = view.entries_before(calls[last].requested_seq, last - first + 1)
    return {entry.requested_seq: entry for entry in found}


def _diverged(view: SessionView, calls: Calls, position: int, told: _Told) -> dict[str, Any]:
    """Where one session stands at the divergence: its call there (``None``: it had ended)
    and its state right before that call was requested."""
    call = calls[position] if position < len(calls) else None
    at = view.last_sequence if call is None else call.requested_seq - 1
    summary = view.summary(at)
    state: dict[str, Any] | None = None
    if isinstance(summary, Success):
        found = summary.unwrap()
        state = {
            "statuses": by_status(found.counts),
            "exited_nonzero": found.exited_nonzero,
            "invocations": found.invocations,
            "in_flight": [told.text(i) for i in found.in_flight],
        }
    entries = {} if call is None else _entries(view, calls, [position])
    return {
        "position": position,
        "at": at,
        "call": None if call is None else _call(call, entries, told),
        "state": state,
    }


def _call(call: CallFacts, entries: dict[int, InvocationEntry], told: _Told) -> dict[str, Any]:
    entry = entries.get(call.requested_seq)
    arguments = None if entry is None else thaw_json(entry.request.arguments)
    said = {
        "invocation_id": None if entry is None else told.text(entry.invocation_id),
        "tool_name": told.text(call.tool_name),
        "requested_seq": call.requested_seq,
        "status": call.status.value,
        "exit_code": call.exit_code,
        "duration": call.duration,
        "kind": call.kind,
        "target": told.text(call.target),
        "arguments": told.value(arguments),
    }
    if told.refs is not None:
        said["ref"] = None if entry is None else told.refs(entry.invocation_id)
    return said
