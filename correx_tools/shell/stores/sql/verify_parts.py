"""Checking a database session a part at a time, the parts at once (`parts`), then joined.

Each part is checked as the one-process check (`verifying.Checking`) checks
its events, from the checkpoint at its start; the join takes the parts in
order, holds each to what the parts before it made, moves on the invocations
requested before a part by the changes it sent back, and then checks the
checkpoints, the head and every invocation row here, as the one-process
check does. A part held to something else than it took sends the session
back to the one-process check: the answer (each fault, its sequence, its
order, the counts) is the one-process check's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

from ....core.replay.stored_index import STATUS_CODES
from ..port import Fault, SessionCheck
from .dialect import Cursor, Dialect
from .images import Image
from .indexing import Head
from .parts import LONG_AGO, Assumed, Outside, Part, Runner, held, plan
from .rebuilding import REBUILD_BATCH
from .verifying import Checking, verify_session


@final
@dataclass(frozen=True, slots=True)
class CheckedPart:
    """What checking one part found, as a worker sends it back."""

    faults: tuple[Fault, ...]
    stopped: bool
    """Whether the events themselves are damaged in it: nothing after it is checked."""
    seen: int
    head: Head
    previous: int
    checkpoints: dict[int, tuple[tuple[int, ...], int]]
    requested: int
    open: dict[str, Image]
    ended: dict[str, tuple[int, int, int, int]]
    """Each invocation requested and ended in the part: its request's and its end's
    sequence, its expected seal and its status."""
    foreign: list[tuple[Any, Any, Any, int]]
    assumed: dict[str, Assumed]
    layout: int
    """The layout the part's snapshot saw: its expected seals follow that layout's rule."""


def check_part(d: Dialect, cursor: Cursor, part: Part) -> CheckedPart:
    """Check one part of a session, in the caller's read snapshot."""
    outside = Outside(d, cursor, part, ended_long_ago=True)
    check = Checking(d, cursor, part.session_id, part.interval, batch=part.batch, outside=outside)
    start = Head(part.start, list(part.counts), part.chain)
    head = check.events(start, part.previous, part.end)
    ended = {}
    for invocation, (seal, status) in check.ended.items():
        image = check.ended_images[invocation]
        ended[invocation] = (image[0], image[1], seal, status)
    return CheckedPart(
        faults=tuple(check.faults),
        stopped=head is None,
        seen=check.seen,
        head=head or start,
        previous=check.previous,
        checkpoints=check.checkpoints,
        requested=len(check.requested),
        open=check.open,
        ended=ended,
        foreign=check.foreign,
        assumed=outside.assumed,
        layout=d.layout,
    )


def verify_in_parts(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    interval: int,
    runner: Runner,
    *,
    batch: int = REBUILD_BATCH,
    smallest: int | None = None,
) -> SessionCheck:
    """Check one session as `verifying.verify_session` does, its parts worked by
    ``runner``; a session too small to split is checked here, whole."""
    extra = {} if smallest is None else {"smallest": smallest}
    parts = plan(d, cursor, session_id, interval, 4 * runner.workers, batch=batch, **extra)
    if parts is not None:
        results = runner.run("verify", parts, lambda part: check_part(d, cursor, part))
        joined = _join(Checking(d, cursor, session_id, interval, batch=batch), parts, results)
        del results  # a session checked again whole below does not hold its parts' results
        if joined is not None:
            return joined
    return verify_session(d, cursor, session_id, interval, batch=batch)


def _join(check: Checking, parts: list[Part], results: list[CheckedPart]) -> SessionCheck | None:
    """The parts' results joined into the session's ``check`` (``None``: a part took a
    start the parts before it did not make). ``results`` is emptied once all are joined, and
    the join's own record of them let go once the expected rows are made: every call of the
    session is held once while the rows are read, as in the one-process check."""
    session_id, batch = check.session, check.batch
    head: Head | None = Head()
    previous, requested = 0, 0
    images: dict[str, Image] = {}
    ended: dict[str, tuple[int, int, int, int]] = {}

    def truth(invocation: str) -> Assumed:
        image = images.get(invocation)
        if image is not None:
            if image.ended_seq is not None:
                return image.status, LONG_AGO
            return image.status, image.requested_at
        if invocation in ended:
            return ended[invocation][3], LONG_AGO
        return None

    if any(result.layout != check.d.layout for result in results):
        return None  # the store was upgraded while the parts were read: checked whole here
    for part, result in zip(parts, results, strict=True):
        assert head is not None
        start = (head.indexed_through, list(head.counts), head.chain, previous)
        if start != (part.start, list(part.counts), part.chain, part.previous):
            return None
        if not held(result.assumed, truth):
            return None
        for change, columns, encoded, chain in result.foreign:
            images[change.invocation_id].advance(
                change, STATUS_CODES[change.status], columns, encoded, chain
            )
        check.faults += result.faults
        check.seen, requested = result.seen, requested + result.requested
        images.update(result.open)
        ended.update(result.ended)
        check.checkpoints.update(result.checkpoints)
        if result.stopped:
            head = None
            break
        head, previous = result.head, result.previous
    results.clear()
    check.requested = [""] * requested
    # The rows expected, in the order the one-process check holds them (which orders the
    # faults of missing rows): those still open by request, then the ended ones by the
    # batch that ended them, then by request.
    for invocation, image in images.items():
        if image.ended_seq is None:
            continue
        ended[invocation] = (image.sequence, image.ended_seq, image.seal(session_id), image.status)
    still = sorted((i for i in images.values() if i.ended_seq is None), key=lambda i: i.sequence)
    check.open = {image.invocation_id: image for image in still}
    order = sorted(ended, key=lambda i: ((ended[i][1] - 1) // batch, ended[i][0]))
    check.ended = {invocation: ended[invocation][2:] for invocation in order}
    del order
    ended.clear()
    images.clear()
    if head is not None:
        check.head(head)
        check.rows()
    return check.outcome()
