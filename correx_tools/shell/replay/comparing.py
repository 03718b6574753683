"""Two sessions compared: each one's calls read once from its view, aligned, and told as
one document (what ``compare --json`` prints and the server sends).

Each session is read a page at a time (`SessionView.entries_through`) into
columns (`comparison.Calls`): its calls' keys and what each row needs, never the
sessions' payloads, so two sessions of a million events are compared in bounded
memory. The rows shown are then read again by id for their arguments. The state
of each session at the first divergence is the view's own answer about the event
before the divergent call was requested (the last event, for a session that has
no call there): the same answer ``replay --at`` gives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, final

from returns.result import Result, Success

from ...core.lifecycle.events import ToolReceipt, undecoded_text
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.alignment import Alignment, align
from ...core.replay.comparison import CallFacts, Calls, Row, call_key, side_by_side
from ...core.replay.errors import ReplayError
from ...core.replay.recorded import EXIT_CODE_KNOWN, edit_not_applied, exit_code_of
from ...core.replay.stored_index import InvocationEntry
from ...core.report.edits import edit_of
from ...core.report.redaction import Redaction
from ...core.report.workspaces import EditedFiles, FilesWalk, differing_files, file_diff
from ...core.tools.json_values import thaw_json
from ...core.tools.request import ToolRequest, undecoded_source
from .documents import by_status, seconds
from .view import SessionView

_COMPLETED = ToolInvocationStatus.COMPLETED


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Side:
    """One session of a comparison: where it came from, its view, and what its transcript
    said of it (its working directory; whether it records times)."""

    source: str
    view: SessionView
    cwd: str | None = None
    times_recorded: bool = True


@final
class Run(NamedTuple):
    """One session as a comparison keeps it: its calls, and its files as its edits left them."""

    calls: Calls
    files: EditedFiles


def read_calls(side: Side) -> Result[Run, ReplayError]:
    """The session's calls in request order, as the comparison keeps them (`StreamFailed`
    when its index is found stale part way and the fold then refuses the session)."""
    return side.view.entries_through().map(lambda entries: _collected(entries, side))


def _collected(entries: Iterable[InvocationEntry], side: Side) -> Run:
    calls = Calls()
    files = EditedFiles(side.cwd)
    for position, entry in enumerate(entries):
        arguments = plain_arguments(entry.request)
        calls.append(_facts(entry, arguments, side))
        # A completed edit that took effect (its receipt's metadata read for edits only).
        edits = entry.status is _COMPLETED and edit_of(entry.tool_name, arguments) is not None
        if edits and edit_not_applied(entry.receipt) is None:
            files.record(position, entry.tool_name, arguments)
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


def _facts(entry: InvocationEntry, arguments: dict[str, Any], side: Side) -> CallFacts:
    receipt = entry.receipt
    ended = entry.completed_at if entry.ended_seq is not None else None
    began = entry.started_at or entry.requested_at
    duration = seconds(ended - began) if side.times_recorded and ended is not None else None
    return CallFacts(
        entry.tool_name,
        entry.requested_seq,
        call_key(entry.tool_name, arguments, side.cwd),
        entry.status,
        _exit_code(receipt) if receipt is not None and entry.status is _COMPLETED else None,
        duration,
    )


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
    """Two sessions' calls aligned."""
    return Compared(a.calls, b.calls, align(a.calls.keys, b.calls.keys), a.files, b.files)


def compare_document(
    a: Side,
    b: Side,
    found: Compared,
    *,
    limit: int,
    before: int = 3,
    redaction: Redaction | None = None,
) -> dict[str, Any]:
    """The comparison as one document: both sessions, the counts of each kind of row, the
    first divergence with each session's state there, and ``limit`` rows (0: all) from
    ``before`` rows ahead of the divergence (from the start when there is none)."""
    divergence = found.alignment.first_divergence
    # The common prefix comes first, a row a call: the divergence is row number ``prefix``.
    start = 0 if divergence is None else max(0, divergence[0] - before)
    counts = dict.fromkeys(("same", "changed", "only_a", "only_b"), 0)
    differing = 0
    shown: list[Row] = []
    walk = FilesWalk(found.files_a, found.files_b)
    for number, row in enumerate(side_by_side(found.alignment, found.a, found.b)):
        walk.see(number, row)
        counts[row.kind] += 1
        differing += row.kind == "same" and bool(row.differs)
        if number >= start and (limit == 0 or len(shown) < limit):
            shown.append(row)
    entries_a = _entries(a.view, found.a, [row.a for row in shown if row.a is not None])
    entries_b = _entries(b.view, found.b, [row.b for row in shown if row.b is not None])
    return {
        "a": _about(a, found.a, redaction),
        "b": _about(b, found.b, redaction),
        "rows_by_kind": counts,
        "same_with_differences": differing,
        "workspace": _workspace(found, walk.parted, (a.view, b.view), redaction),
        "first_divergence": None
        if divergence is None
        else {
            "a": _diverged(a, found.a, divergence[0], redaction),
            "b": _diverged(b, found.b, divergence[1], redaction),
        },
        "rows_from": start,
        "rows": [
            {
                "kind": row.kind,
                "a": None if row.a is None else _call(found.a[row.a], entries_a, redaction),
                "b": None if row.b is None else _call(found.b[row.b], entries_b, redaction),
                "differs": list(row.differs),
            }
            for row in shown
        ],
    }


def _entries(view: SessionView, calls: Calls, positions: list[int]) -> dict[int, InvocationEntry]:
    """The entries of the calls at ``positions`` (a run of them, as rows show them) by their
    request's sequence: one read of the calls requested from the first to the last."""
    if not positions:
        return {}
    first, last = min(positions), max(positions)
    found = view.entries_before(calls[last].requested_seq, last - first + 1)
    return {entry.requested_seq: entry for entry in found}


def _shown(text: str, redaction: Redaction | None) -> str:
    return text if redaction is None else redaction.text(text)


def _about(side: Side, calls: Calls, redaction: Redaction | None) -> dict[str, Any]:
    return {
        "source": side.source,
        "session_id": _shown(side.view.session_id, redaction),
        "cwd": None if side.cwd is None else _shown(side.cwd, redaction),
        "times_recorded": side.times_recorded,
        "events": side.view.last_sequence,
        "calls": len(calls),
    }


def _diverged(
    side: Side, calls: Calls, position: int, redaction: Redaction | None
) -> dict[str, Any]:
    """Where one session stands at the divergence: its call there (``None``: it had ended)
    and its state right before that call was requested."""
    view = side.view
    call = calls[position] if position < len(calls) else None
    at = view.last_sequence if call is None else call.requested_seq - 1
    summary = view.summary(at)
    state: dict[str, Any] | None = None
    if isinstance(summary, Success):
        told = summary.unwrap()
        state = {
            "statuses": by_status(told.counts),
            "exited_nonzero": told.exited_nonzero,
            "invocations": told.invocations,
            "in_flight": [_shown(i, redaction) for i in told.in_flight],
        }
    entries = {} if call is None else _entries(view, calls, [position])
    return {
        "position": position,
        "at": at,
        "call": None if call is None else _call(call, entries, redaction),
        "state": state,
    }


def _call(
    call: CallFacts, entries: dict[int, InvocationEntry], redaction: Redaction | None
) -> dict[str, Any]:
    entry = entries.get(call.requested_seq)
    arguments = None if entry is None else thaw_json(entry.request.arguments)
    return {
        "invocation_id": None if entry is None else _shown(entry.invocation_id, redaction),
        "tool_name": _shown(call.tool_name, redaction),
        "requested_seq": call.requested_seq,
        "status": call.status.value,
        "exit_code": call.exit_code,
        "duration": call.duration,
        "arguments": arguments if redaction is None else redaction.value(arguments),
    }


FILE_DIFFS = 5
"""Files whose final versions differ shown as a diff (the first, by path)."""


def _workspace(
    found: Compared,
    parted: tuple[int, Row] | None,
    views: tuple[SessionView, SessionView],
    redaction: Redaction | None,
) -> dict[str, Any]:
    """What the two runs did to their files: each one's, where they first differ (after
    row ``parted``), and how the first few that end differently differ."""
    a, b = found.files_a, found.files_b
    differing = differing_files(a, b)

    def files(run: EditedFiles) -> list[dict[str, Any]]:
        return [{"path": _shown(f.path, redaction), "edits": f.edits} for f in run.files.values()]

    def value(hunks: Any) -> Any:
        return hunks if redaction is None else redaction.value(hunks)

    first: dict[str, Any] | None = None
    if parted is not None:
        number, row = parted
        first = {"row": number}
        for name, view, calls, position in (("a", views[0], found.a, row.a),
                                            ("b", views[1], found.b, row.b)):  # fmt: skip
            entries = {} if position is None else _entries(view, calls, [position])
            first[name] = None if position is None else _call(calls[position], entries, redaction)
    diffs = []
    for path in differing[:FILE_DIFFS]:
        told = file_diff(a.files.get(path), b.files.get(path))
        diffs.append({"path": _shown(path, redaction), **told, "hunks": value(told["hunks"])})
    return {
        "a_files": files(a),
        "b_files": files(b),
        "first_difference": first,
        "differing": [_shown(path, redaction) for path in differing],
        "diffs": diffs,
    }
