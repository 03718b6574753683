"""The server's routes: the page, its files, and the JSON API under ``/api/v1``.

Session and invocation ids may hold ``/`` (``run-1/call-7``), so a path is
split into segments *before* percent-decoding: ``/api/v1/sessions/run-1/
invocations/run-1%2Fcall-7/history`` names invocation ``run-1/call-7``. Every
answer is JSON; every error is ``{"error": "..."}`` with its status, never a
traceback. The store is read in worker threads, so one slow question does not
hold up the others.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ...core.tools.ids import SessionId
from ..audit.live import LiveAudits
from ..stores.port import StoreReadError
from .api import (
    audit,
    compare,
    diff,
    everywhere,
    family,
    history,
    hits,
    refused,
    said,
    scrub,
    search,
    seek,
    sessions,
    state,
    stats,
    stream,
    timeline,
    turns,
    usage,
    view,
)
from .debugger.debugger import Debugger
from .errors import VERIFY_HINT, ApiError
from .guard.middleware import TRUSTED
from .limits import STREAM

_FILES = {
    "serve.js": ("serve", "application/javascript; charset=utf-8"),
    "serve.css": ("serve", "text/css; charset=utf-8"),
    "report.css": ("report", "text/css; charset=utf-8"),
    "page.js": ("report", "application/javascript; charset=utf-8"),
    "compare.js": ("serve", "application/javascript; charset=utf-8"),
    "sessions.js": ("serve", "application/javascript; charset=utf-8"),
    # The chart library, shipped in the package (see page/vendor/PROVENANCE.md).
    "uPlot.iife.min.js": ("vendor", "application/javascript; charset=utf-8"),
    "uPlot.min.css": ("vendor", "text/css; charset=utf-8"),
}
_SESSION_QUESTIONS: dict[str, Callable[[Debugger, SessionId, Mapping[str, str]], Any]] = {
    "state": state.state,
    "diff": diff.diff,
    "stats": stats.stats,
    "scrub": scrub.scrub,
    "seek": seek.seek,
    "timeline": timeline.timeline,
    "refused": refused.refused,
    "search": search.search,
    "said": said.said,
    "turns": turns.turns,
}
ENDPOINTS = [
    "GET /api/v1/sessions?agent=&project=&model=&since=&until=&tz=&failed=&machine=&user=&q="
    "&sort=&offset=&limit= (sessions --json, the most recent first)",
    "GET /api/v1/usage?by=&stack=project|model|machine|user&agent=&project=&model=&since=&until="
    "&tz=&failed=&machine=&user= (usage --json, and each day split by project, model, machine "
    "or user)",
    "GET /api/v1/sessions/{session}",
    "GET /api/v1/sessions/{session}/state?at=&offset=&limit=",
    "GET /api/v1/sessions/{session}/invocations/{invocation}/history",
    "GET /api/v1/sessions/{session}/diff?a=&b=&offset=&limit=",
    "GET /api/v1/sessions/{session}/stats?at=&offset=&limit=",
    "GET /api/v1/sessions/{session}/scrub?at=&since=",
    "GET /api/v1/sessions/{session}/seek?from=&direction=next|previous&status=",
    "GET /api/v1/sessions/{session}/timeline?from=&to=&buckets=&through=",
    "GET /api/v1/sessions/{session}/search?q=&tool=&status=&id=&at=&after=&limit=",
    "GET /api/v1/sessions/{session}/said?q=&at=&after=&limit= (prompts, words, reasoning)",
    "GET /api/v1/sessions/{session}/turns (each turn's prompt, span, calls and tokens)",
    "GET /api/v1/sessions/{session}/refused?offset=&limit=",
    "GET /api/v1/sessions/{session}/stream (server-sent events: head)",
    "GET /api/v1/sessions/{session}/invocations/{invocation}/view",
    "GET /api/v1/sessions/{session}/family",
    "GET /api/v1/search?q=&tool=&status=&after=&limit=",
    "GET /api/v1/said?q=&after=&limit= (what was said, in every session)",
    "GET /api/v1/hits?q=&in=all|arguments|outputs|said&agent=&project=&model=&since=&until=&tz="
    "&failed=&machine=&user=&offset=&limit= (words and phrases, through the full-text index)",
    "GET /api/v1/compare?a=&b=&limit= (two sessions compared, as compare --json)",
    "GET /api/v1/compare?sessions=S1,S2,...&match= (where many sessions split)",
    "GET /api/v1/audit?session= (the session's audit so far, by --policy or the built-in one)",
    "POST /api/v1/credential {code} (a printed link's code, once: this browser's credential)",
    "POST /api/v1/codes (with the token: a fresh single-use code and its link)",
]


def _package_file(package: str, name: str) -> bytes:
    """A file of the page: this package's own, the chart library it ships, or the report's
    (whose layout it shares)."""
    if package == "serve":
        return resources.files(__package__).joinpath("page", name).read_bytes()
    if package == "vendor":
        return resources.files(__package__).joinpath("page", "vendor", name).read_bytes()
    return resources.files("correx_tools.shell.report").joinpath(name).read_bytes()


def segments(request: Request) -> list[str]:
    """The path's segments, each percent-decoded on its own."""
    raw: bytes = request.scope.get("raw_path") or request.url.path.encode("utf-8")
    parts = raw.split(b"?", 1)[0].split(b"/")[1:]
    if parts and parts[-1] == b"":
        parts.pop()
    try:
        return [unquote_to_bytes(part).decode("utf-8") for part in parts]
    except UnicodeDecodeError:
        raise ApiError(400, "the address is not UTF-8 once decoded") from None


def build_app(debugger: Debugger, stopping: threading.Event) -> Starlette:
    """The ASGI application answering about ``debugger``'s store (wrap it in a `Guard`)."""
    page = _package_file("serve", "index.html")
    shown = () if debugger.redaction is None else debugger.redaction.patterns
    audits = LiveAudits(debugger.store, debugger.policy, shown)
    files = {name: (_package_file(package, name), kind) for name, (package, kind) in _FILES.items()}

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        response = await answer(request)
        # How long the server took, for the benchmarks (and anyone curious): Server-Timing.
        spent = (time.perf_counter() - started) * 1e3
        response.headers["server-timing"] = f"answer;dur={spent:.2f}"
        return response

    async def answer(request: Request) -> Response:
        try:
            parts = segments(request)
            if parts[:2] == ["api", "v1"]:
                if parts[2:] == ["audit"]:
                    return JSONResponse(
                        await run_in_threadpool(audit.audit, debugger, audits, request.query_params)
                    )
                return await _api(debugger, request, parts[2:], stopping)
            return await _page(debugger, parts, page, files, request.scope.get(TRUSTED, True))
        except ApiError as error:
            return _error(error.status, error.message)
        except StoreReadError as error:
            # The store's data, not the server, is at fault: a conflict with what it holds.
            return _error(409, f"{debugger.source}: cannot read it: {error.error}; {VERIFY_HINT}")
        except Exception as error:
            print(f"correx-tools serve: {type(error).__name__}: {error}", file=sys.stderr)
            return _error(500, f"internal error: {type(error).__name__}: {error}")

    return Starlette(routes=[Route("/{path:path}", endpoint, methods=["GET"])])


def _error(status: int, message: str) -> Response:
    return JSONResponse({"error": message}, status_code=status)


async def _page(
    debugger: Debugger,
    parts: list[str],
    page: bytes,
    files: dict[str, tuple[bytes, str]],
    trusted: bool,
) -> Response:
    html = "text/html; charset=utf-8"
    if not parts:
        return Response(page, media_type=html)
    if parts[0] == "static" and len(parts) == 2 and parts[1] in files:
        body, kind = files[parts[1]]
        return Response(body, media_type=kind)
    if parts in (["compare"], ["usage"]):  # views whose question is in the address's query
        return Response(page, media_type=html)
    if parts[0] == "sessions" and len(parts) == 2:
        # The page asks the API for the session and says what is wrong with it; the status
        # says so too, to a client with a credential (to others it says nothing of the store).
        if not trusted:
            return Response(page, media_type=html)
        try:
            await run_in_threadpool(debugger.session, parts[1])
        except ApiError as error:
            return Response(page, status_code=error.status, media_type=html)
        return Response(page, media_type=html)
    raise ApiError(404, f"nothing at /{'/'.join(parts)}")


async def _api(
    debugger: Debugger, request: Request, parts: list[str], stopping: threading.Event
) -> Response:
    query = request.query_params
    match parts:
        case []:
            return JSONResponse({"version": 1, "endpoints": ENDPOINTS})
        case ["sessions"]:
            return JSONResponse(await run_in_threadpool(sessions.sessions, debugger, query))
        case ["usage"]:
            return JSONResponse(await run_in_threadpool(usage.usage, debugger, query))
        case ["hits"]:
            return JSONResponse(await run_in_threadpool(hits.hits, debugger, query))
        case ["search"]:
            return JSONResponse(
                await run_in_threadpool(everywhere.search_everywhere, debugger, query)
            )
        case ["said"]:
            return JSONResponse(
                await run_in_threadpool(everywhere.said_everywhere, debugger, query)
            )
        case ["compare"]:
            return JSONResponse(await run_in_threadpool(compare.compare, debugger, query))
        case ["sessions", ref]:
            session = await run_in_threadpool(debugger.session, ref)
            return JSONResponse(await run_in_threadpool(sessions.overview, debugger, session))
        case ["sessions", ref, "stream"]:
            session = await run_in_threadpool(debugger.session, ref)
            request.scope[STREAM] = True  # the first to go when the places are full
            return StreamingResponse(
                stream.heads(debugger, session, stopping), media_type="text/event-stream"
            )
        case ["sessions", ref, "invocations", invocation, "history"]:
            session = await run_in_threadpool(debugger.session, ref)
            return JSONResponse(
                await run_in_threadpool(history.history, debugger, session, invocation)
            )
        case ["sessions", ref, "invocations", invocation, "view"]:
            session = await run_in_threadpool(debugger.session, ref)
            return JSONResponse(await run_in_threadpool(view.view, debugger, session, invocation))
        case ["sessions", ref, "family"]:
            session = await run_in_threadpool(debugger.session, ref)
            return JSONResponse(await run_in_threadpool(family.family, debugger, session))
        case ["sessions", ref, question] if question in _SESSION_QUESTIONS:
            session = await run_in_threadpool(debugger.session, ref)
            answer = _SESSION_QUESTIONS[question]
            return JSONResponse(await run_in_threadpool(answer, debugger, session, query))
    raise ApiError(404, f"no such question: /api/v1/{'/'.join(parts)}")
