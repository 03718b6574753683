"""``GET /api/v1/compare?a=&b=&limit=``: two sessions of the store compared, the document
``compare --json`` prints, masked as every answer is, each call with the ``ref`` the page
links it by, and each session with its own.

The sessions are named as every question names one (its id, its ref, or the start of
exactly one shown id). Each is read in the server's lenient repository (a refused
event is shown, never a reason not to show the rest), one view at a time: one store
answers one snapshot at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from returns.result import Success

from ..replay.comparing import Run, Side, compare_document, compared, read_calls
from ..replay.view import StreamFailed
from ..stores.addresses import redact_dsn
from ..transcripts.description import session_description
from .debugger import Debugger
from .params import MAX_LIMIT, ApiError, whole

DEFAULT_ROWS = 200


def compare(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """The two sessions ``a`` and ``b`` compared, ``limit`` rows (200 by default, 1,000 at
    most) from three before their first divergence."""
    limit = whole(query, "limit", DEFAULT_ROWS)
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, f"limit={limit} is not between 1 and {MAX_LIMIT:,}")
    names = []
    for name in ("a", "b"):
        ref = query.get(name)
        if not ref:
            raise ApiError(400, f"{name} is required (a session)")
        names.append(debugger.session(ref))
    sides = []
    for session in names:
        described = session_description(debugger.store, session)
        sides.append(
            Side(
                source=redact_dsn(debugger.source),
                session=session,
                open=partial(debugger.loose.view, session),
                cwd=None if described is None else described.about.cwd,
                times_recorded=debugger.times(session),
            )
        )
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
