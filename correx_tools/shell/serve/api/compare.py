"""``GET /api/v1/compare?a=&b=&limit=``: two sessions of the store compared, the document
``compare --json`` prints, masked as every answer is, each call with the ``ref`` the page
links it by, and each session with its own. ``GET /api/v1/compare?sessions=S1,S2,...``
(and/or ``match=PATTERN``): the tree of where many sessions split, as ``compare S1 S2 ...
--json`` prints it, masked, each run with its ``ref``.

The sessions are named as every question names one (its id, its ref, or the start of
exactly one shown id). Each is read in the server's lenient repository (a refused
event is shown, never a reason not to show the rest), one view at a time: one store
answers one snapshot at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from functools import partial
from typing import Any

from returns.result import Success

from ....core.tools.ids import SessionId
from ...replay.branching import runs_tree
from ...replay.comparing import Run, Side, compare_document, compared, read_calls, side_of
from ...replay.view import StreamFailed
from ...stores.addresses import redact_dsn
from ...transcripts.description import session_description
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import MAX_LIMIT, whole

DEFAULT_ROWS = 200


MAX_RUNS = 1_000
"""The most sessions one tree compares (each is read once; a folder of an evaluation's runs)."""


def compare(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """The two sessions ``a`` and ``b`` compared, ``limit`` rows (200 by default, 1,000 at
    most) from three before their first divergence; or, given ``sessions`` or ``match``,
    the tree of where those sessions split."""
    if "sessions" in query or "match" in query:
        return _tree(debugger, query)
    limit = whole(query, "limit", DEFAULT_ROWS)
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, f"limit={limit} is not between 1 and {MAX_LIMIT:,}")
    names = []
    for name in ("a", "b"):
        ref = query.get(name)
        if not ref:
            raise ApiError(400, f"{name} is required (a session)")
        names.append(debugger.session(ref))
    sides = [_side(debugger, session) for session in names]
    runs = [_read(debugger, side) for side in sides]
    document = compare_document(
        sides[0],
        sides[1],
        compared(runs[0], runs[1]),
        limit=limit,
        redaction=debugger.redaction,
        refs=debugger.ref,
    )
    for name, session in zip(("a", "b"), names, strict=True):
        document[name]["ref"] = debugger.ref(session)
    return document


def _tree(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """The tree of where the sessions named in ``sessions`` (by commas), then those whose
    id ``match`` picks (a shell-style pattern), split; each session once."""
    named = [ref for ref in query.get("sessions", "").split(",") if ref]
    chosen = [debugger.session(ref) for ref in named]
    pattern = query.get("match")
    if pattern is not None:
        matched = [s for s in debugger.store.sessions() if fnmatchcase(s, pattern)]
        if not matched:
            raise ApiError(404, f"no session matches {debugger.shown(pattern)!r}")
        chosen += matched
    sessions = list(dict.fromkeys(chosen))
    if not 2 <= len(sessions) <= MAX_RUNS:
        raise ApiError(
            400, f"a tree compares 2 to {MAX_RUNS:,} different sessions; {len(sessions):,} named"
        )
    document = runs_tree(
        [_side(debugger, session) for session in sessions],
        lambda side: _read(debugger, side).calls,
        redaction=debugger.redaction,
    )
    refs = {session: debugger.ref(session) for session in sessions}
    for run in document["runs"]:
        run["ref"] = refs[run["session_id"]]
    return {"source": redact_dsn(debugger.source), **document}


def _side(debugger: Debugger, session: SessionId) -> Side:
    return side_of(redact_dsn(debugger.source), session, partial(debugger.loose.view, session),
                   session_description(debugger.store, session),
                   times_recorded=debugger.times(session))  # fmt: skip


def _read(debugger: Debugger, side: Side) -> Run:
    """The session's calls, or a 409 saying why they cannot be read."""
    try:
        found = read_calls(side)
        if isinstance(found, Success):
            run: Run = found.unwrap()
            return run
        error = found.failure()
    except StreamFailed as failed:
        error = failed.error
    shown = debugger.shown(side.session)
    raise ApiError(409, f"session {shown!r}: {debugger.message(error.message)}")
