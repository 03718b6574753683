"""Who may ask the server, and what every answer carries: the Host check, credentials, headers.

* The ``Host`` header must name the address the server is bound to, or
  ``localhost`` (`hosts`): a page on another site that resolves its own name to
  this machine (DNS rebinding) is refused (403). A server bound to every address
  (``0.0.0.0``) cannot know its names, and relies on the credentials.
* The page's own files (``/``, ``/usage``, ``/sessions/ID``, ``/compare``, ``/static/NAME``:
  the HTML, script and styles shipped in the package, no session data) are served to
  anyone; everything else, every answer under ``/api/v1`` first, needs
  ``Authorization: Bearer`` with the token or a browser's credential
  (`access`), otherwise 401. No cookie and no address carries one: a cookie
  for 127.0.0.1 goes to every port of it.
* ``POST /api/v1/credential`` with ``{"code": CODE}`` trades a printed link's
  code for a browser's credential; ``POST /api/v1/codes`` gives the token's
  holder a fresh code (a script that opens a browser).
* Past the server's cap of connections (`limits`), a request without a credential is
  answered 503 and its connection closed: the places left are the credential's.
* Every answer says: load nothing from elsewhere and run no inline script
  (a strict content security policy), never sniff a type, send no referrer,
  never be framed, and never be cached.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, final

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from .access import CODE_SECONDS, Access, Holder
from .hosts import host_name

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
NO_CREDENTIAL = (
    "this server needs its link or its token: open the newest link correx-tools serve "
    "printed (each opens one browser), or send Authorization: Bearer TOKEN (--json gives it)"
)
DEAD_LINK = (
    f"this link was used already or is older than {CODE_SECONDS / 60:.0f} minutes: open the "
    "newest link correx-tools serve printed on its terminal"
)
TRUSTED = "correx.trusted"
"""The scope's key saying whether the request carries a credential (the page's status for a
session is said only then)."""
CROWDED = (
    "the server has as many connections open as it takes; the places left are for the page's "
    "own requests, which carry its credential: try again in a moment"
)
BODY_BYTES = 4_096
BODY_SECONDS = 5.0


def is_page(raw_path: bytes) -> bool:
    """Whether a path (as sent, not decoded) names one of the page's own files, which anyone
    may load: ``/``, ``/usage``, ``/sessions/ID``, ``/compare`` or ``/static/NAME``."""
    if raw_path in {b"/", b"/usage", b"/compare"}:
        return True
    parts = raw_path.split(b"/")
    if len(parts) != 3 or parts[0]:
        return False
    return parts[1] in (b"sessions", b"static") and parts[2] != b""


@final
class Guard:
    """ASGI middleware: the Host check, then the credentials, then the headers on every answer
    (``access`` ``None``: a server without a token)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        access: Access | None,
        hosts: frozenset[str] | None,
        crowded: Callable[[], bool] = lambda: False,
    ):
        self.app, self.access, self.hosts, self.crowded = app, access, hosts, crowded

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        if self.hosts is not None and host_name(headers.get("host", "")) not in self.hosts:
            shown, names = headers.get("host", "")[:100], " or ".join(sorted(self.hosts))
            why = f"Host {shown!r} is not this server's address ({names}): refused"
            await answer(send, path, 403, why + ", against DNS rebinding")
            return
        holder: Holder | None = None
        if self.access is not None:
            holder = self.access.holder(headers.get("authorization", ""))
            if scope["method"] == "POST" and path in ("/api/v1/credential", "/api/v1/codes"):
                await self._post(path, holder, receive, send)
                return
            raw: bytes = scope.get("raw_path") or path.encode("utf-8")
            if holder is None and not is_page(raw):
                await answer(send, path, 401, NO_CREDENTIAL)
                return
            if holder is None and self.crowded():
                # Past the cap, the places left are for requests that carry the credential.
                await answer(send, path, 503, CROWDED, close=True)
                return
        scope[TRUSTED] = self.access is None or holder is not None

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _post(self, path: str, holder: Holder | None, receive: Receive, send: Send) -> None:
        assert self.access is not None
        if path == "/api/v1/codes":
            if holder != "token":
                await answer(send, path, 401, "a fresh code needs Authorization: Bearer TOKEN")
                return
            fresh = self.access.code()
            await answer(send, path, 200, {"code": fresh, "link": self.access.link(fresh)})
            return
        code = await _code(receive)
        if code is None:
            await answer(send, path, 400, 'send {"code": CODE}, CODE from the link printed')
            return
        credential = await anyio.to_thread.run_sync(self.access.trade, code)
        if credential is None:
            await answer(send, path, 401, DEAD_LINK)
            return
        await answer(send, path, 200, {"credential": credential})


async def _code(receive: Receive) -> str | None:
    """The code in a request's small JSON body (``None``: too big, too slow, or no code)."""
    body = b""
    with anyio.move_on_after(BODY_SECONDS):
        while len(body) <= BODY_BYTES:
            message = await receive()
            body += message.get("body", b"")
            if message["type"] != "http.request" or not message.get("more_body", False):
                break
    try:
        code = json.loads(body)["code"] if len(body) <= BODY_BYTES else None
    except (ValueError, TypeError, KeyError, RecursionError):  # 4,000 "[" nest too deep
        return None
    return code if isinstance(code, str) and 0 < len(code) <= 100 else None


async def answer(
    send: Send, path: str, status: int, said: str | dict[str, str], *, close: bool = False
) -> None:
    """Answer without the application: JSON under ``/api/``, a line of HTML elsewhere; a string
    is an error; ``close``: the connection is closed after it."""
    if path.startswith("/api/"):
        body = json.dumps({"error": said} if isinstance(said, str) else said).encode()
        kind = b"application/json"
    else:
        text = str(said).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        body = (
            f"<!doctype html><meta charset=utf-8><title>correx-tools serve</title><p>{text}</p>"
        ).encode()
        kind = b"text/html; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", kind),
                (b"content-length", str(len(body)).encode()),
                *([(b"connection", b"close")] if close else []),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
