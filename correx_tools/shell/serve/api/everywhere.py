"""Search across every session of the source: the page's one search box over them all.

``GET /api/v1/search?q=&tool=&status=&after=&limit=`` walks the sessions in
order, searching each as a session's own search does (`search`: by tool,
status and text in the arguments, outputs and reasons, as the page shows
them, at the session's last event), and answers with what it found within
its time budget. Each hit names its session and sequence and is a deep link
into the page; ``next`` is where the following page starts (``null`` once
every session was searched), so a rare text over many sessions is many quick
pages, never a stall.

``GET /api/v1/said?q=&after=&limit=`` looks the same way for what was said (the
prompts, the assistant's words and reasoning, masked whole first: `said`), each
hit a deep link to its event.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from ....core.tools.ids import SessionId
from ...stores.port import StoreReadError
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import whole
from .said import said_in
from .search import BUDGET_SECONDS, checked_status, search

DEFAULT_LIMIT = 50
MAX_LIMIT = 200


def search_everywhere(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """One page of the calls of every session that match every filter given."""
    limit = _limit(query)
    filters = {name: query[name] for name in ("q", "tool", "status") if query.get(name)}
    checked_status(filters)  # said once, not passed by per session
    sessions = debugger.catalog.ids()
    session_at, after = _cursor(query.get("after") or "", len(sessions))
    deadline = time.monotonic() + BUDGET_SECONDS
    matches: list[dict[str, Any]] = []
    skipped: list[str] = []
    while session_at < len(sessions) and len(matches) < limit and time.monotonic() < deadline:
        session = SessionId(sessions[session_at])
        try:
            debugger.session(session)  # an index that cannot be trusted answers nothing
            found = search(
                debugger,
                session,
                {**filters, "after": str(after), "limit": str(limit - len(matches))},
            )
        except (ApiError, StoreReadError):
            # One session that cannot answer (a stale index, a damaged row) is passed by; its
            # own page says what is wrong with it.
            skipped.append(debugger.shown(session))
            session_at, after = session_at + 1, -1
            continue
        matches += [_hit(debugger, session, match) for match in found["matches"]]
        if found["next"] is None:
            session_at, after = session_at + 1, -1
        else:
            after = found["next"]
    return _page(matches, session_at=session_at, after=after, sessions=len(sessions),
                 skipped=skipped, limit=limit)  # fmt: skip


def said_everywhere(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """One page of the things said, in every session, whose masked text holds ``q``."""
    limit = _limit(query)
    text = query.get("q") or ""
    sessions = debugger.catalog.ids() if text else ()
    session_at, after = _cursor(query.get("after") or "", len(sessions))
    after = max(after, 0)
    deadline = time.monotonic() + BUDGET_SECONDS
    matches: list[dict[str, Any]] = []
    skipped: list[str] = []
    while session_at < len(sessions) and len(matches) < limit and time.monotonic() < deadline:
        session = SessionId(sessions[session_at])
        try:
            debugger.session(session)
            last = debugger.last_sequence(session)
            found, upto = said_in(debugger, session, text, at=last, after=after,
                                  limit=limit - len(matches), deadline=deadline)  # fmt: skip
        except (ApiError, StoreReadError):
            skipped.append(debugger.shown(session))  # its own page says what is wrong
            session_at, after = session_at + 1, 0
            continue
        ref = debugger.ref(session)
        for match in found:
            address = f"/sessions/{quote(ref, safe='')}?" + urlencode({"at": match["sequence"]})
            matches.append({**match, "session_id": debugger.shown(session), "session_ref": ref,
                            "href": address})  # fmt: skip
        if upto >= last:
            session_at, after = session_at + 1, 0
        else:
            after = upto
    return _page(matches, session_at=session_at, after=after, sessions=len(sessions),
                 skipped=skipped, limit=limit)  # fmt: skip


def _limit(query: Mapping[str, str]) -> int:
    """How many matches a page may hold (``limit``, 1 to `MAX_LIMIT`)."""
    limit = whole(query, "limit", DEFAULT_LIMIT)
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, f"limit={limit} is not between 1 and {MAX_LIMIT}")
    return limit


def _page(
    matches: list[dict[str, Any]],
    *,
    session_at: int,
    after: int,
    sessions: int,
    skipped: list[str],
    limit: int,
) -> dict[str, Any]:
    """A page of a walk over every session: its matches, and where the next page starts
    (``session index:position``; ``null`` once every session was looked at)."""
    return {
        "matches": matches,
        "next": None if session_at >= sessions else f"{session_at}:{after}",
        "sessions": sessions,
        "searched": session_at,
        "skipped": skipped,
        "limit": limit,
    }


def _cursor(text: str, sessions: int) -> tuple[int, int]:
    """``session index:position`` where the page starts (nothing: the beginning), within the
    ``sessions`` there are."""
    if not text:
        return 0, -1
    found = _CURSOR.fullmatch(text)
    if found is None or int(found[1]) > sessions:
        raise ApiError(400, f"after={text!r} is not where a page of the search ends")
    return int(found[1]), int(found[2])


_CURSOR = re.compile(r"([0-9]{1,9}):(-1|[0-9]{1,18})")


def _hit(debugger: Debugger, session: SessionId, match: dict[str, Any]) -> dict[str, Any]:
    """A match of a session's search, named by its session and a deep link to it."""
    at = match["ended_seq"] if match["ended_seq"] is not None else match["requested_seq"]
    session_ref = debugger.ref(session)
    address = f"/sessions/{quote(session_ref, safe='')}?" + urlencode(
        {"at": at, "invocation": match["ref"]}
    )
    return {
        **match,
        "session_id": debugger.shown(session),
        "session_ref": session_ref,
        "at": at,
        "href": address,
    }
