"""Comparing recorded runs from Python: two sessions side by side (`compare_sessions`), or
the tree of where many sessions of one task split (`split_runs`).

Each answers the document ``correx-tools compare ... --json`` prints, from repositories a
program already holds; the two sessions of `compare_sessions` may come from two
repositories (two stores, two agents' transcripts). A session that cannot be read gives
its `ReplayError`, and a name that is no session's (nor the start of exactly one) its
`UnresolvedId`: never a half-made document.

It stands above the replay and the transcripts (a transcript's description gives a
session's working directory, against which its calls' paths are compared).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, final

from returns.result import Failure, Result, Success

from ..core.replay.comparison import Calls
from ..core.replay.errors import ReplayError
from ..core.report.redaction import Redaction
from ..core.tools.ids import SessionId
from ..core.tools.short_ids import UnresolvedId
from .replay.branching import runs_tree
from .replay.comparing import Run, Side, compare_document, compared, read_calls, side_of
from .replay.repository import DefaultToolRepository
from .replay.view import StreamFailed
from .transcripts.description import session_description


def compare_sessions(
    repository: DefaultToolRepository,
    a: str,
    b: str,
    *,
    other: DefaultToolRepository | None = None,
    limit: int = 40,
    redaction: Redaction | None = None,
) -> Result[dict[str, Any], ReplayError | UnresolvedId]:
    """Sessions ``a`` and ``b`` compared (``b`` read from ``other`` when given): their calls
    aligned, the first divergence with both states there, the workspace, and ``limit``
    rows (0: all) from three before the divergence. ``redaction`` masks what is shown."""
    try:
        sides = (_side(repository, a), _side(other or repository, b))
        runs = [_read(side) for side in sides]
    except _Unread as unread:
        return Failure(unread.error)
    found = compared(runs[0], runs[1])
    return Success(compare_document(*sides, found, limit=limit, redaction=redaction))


def split_runs(
    repository: DefaultToolRepository,
    sessions: Sequence[str],
    *,
    redaction: Redaction | None = None,
) -> Result[dict[str, Any], ReplayError | UnresolvedId]:
    """The tree of where ``sessions`` (two or more runs of one task) split, each branch with
    its runs and how many of them ended with a failure."""

    def read(side: Side) -> Calls:
        return _read(side).calls

    try:
        found = [_side(repository, session) for session in sessions]
        sides = list({side.session: side for side in found}.values())
        if len(sides) < 2:
            raise ValueError(f"split_runs needs two different sessions or more; got {len(sides)}")
        return Success(runs_tree(sides, read, redaction=redaction))
    except _Unread as unread:
        return Failure(unread.error)


@final
class _Unread(Exception):
    """A session could not be named or its calls read: carries why, out of the loop."""

    def __init__(self, error: ReplayError | UnresolvedId) -> None:
        super().__init__(error.message)
        self.error = error


def _side(repository: DefaultToolRepository, name: str) -> Side:
    resolved = repository.resolve_session(name)
    if isinstance(resolved, Failure):
        raise _Unread(resolved.failure())
    session: SessionId = resolved.unwrap()
    store = repository.replayer.store
    return side_of(type(store).__name__, session, partial(repository.view, session),
                   session_description(store, session))  # fmt: skip


def _read(side: Side) -> Run:
    try:
        found = read_calls(side)
    except StreamFailed as failed:
        raise _Unread(failed.error) from None
    if isinstance(found, Failure):
        raise _Unread(found.failure())
    run: Run = found.unwrap()
    return run
