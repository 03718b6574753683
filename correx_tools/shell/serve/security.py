"""Who may ask the server, and what every answer carries: the token, the Host check, headers.

* Every request needs the token the command printed: in the query (the first
  page load; the server then sets an HttpOnly, SameSite=Strict cookie and
  redirects to the same address without it, so it stays out of the history),
  in that cookie, or as ``Authorization: Bearer TOKEN``. Otherwise: 401.
* The ``Host`` header must name the address the server is bound to, or
  ``localhost``: a page on another site that resolves its own name to this
  machine (DNS rebinding) is refused (403), token or not. A server bound to
  every address (``0.0.0.0``) cannot know its names, and relies on the token.
* Every answer says: load nothing from elsewhere and run no inline script
  (a strict content security policy), never sniff a type, send no referrer,
  never be framed, and never be cached.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable
from http.cookies import SimpleCookie
from typing import final
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
_NO_TOKEN = (
    "this server needs its token: open the address correx-tools serve printed, "
    "or send Authorization: Bearer TOKEN"
)
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def allowed_hosts(host: str) -> frozenset[str] | None:
    """The host names a request may use for a server bound to ``host`` (``None``: any)."""
    if host in WILDCARDS:
        return None
    names = {host.lower().strip("[]"), "localhost"}
    if host in ("127.0.0.1", "localhost"):
        names.add("127.0.0.1")
    if host in ("::1", "localhost"):
        names.add("::1")
    return frozenset(names)


def host_name(value: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8765`` gives ``::1``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


@final
class Guard:
    """ASGI middleware: the Host check, then the token, then the headers on every answer."""

    def __init__(
        self, app: ASGIApp, *, token: str | None, hosts: frozenset[str] | None, cookie: str
    ) -> None:
        self.app, self.token, self.hosts, self.cookie = app, token, hosts, cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        path: str = scope["path"]
        if self.hosts is not None and host_name(headers.get("host", "")) not in self.hosts:
            shown, names = headers.get("host", "")[:100], " or ".join(sorted(self.hosts))
            why = f"Host {shown!r} is not this server's address ({names}): refused"
            await _refuse(send, path, 403, why + ", against DNS rebinding")
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = dict(query).get("token")
        if self.token is not None:
            if not self._allowed(headers, given):
                await _refuse(send, path, 401, _NO_TOKEN)
                return
            if given is not None and not path.startswith("/api/") and scope["method"] == "GET":
                # The raw path: an id holding "/" stays one (percent-encoded) segment.
                raw = scope.get("raw_path") or path.encode("utf-8")
                await self._redirect(send, raw, [(k, v) for k, v in query if k != "token"])
                return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _allowed(self, headers: dict[str, str], given: str | None) -> bool:
        assert self.token is not None
        offered: list[str] = []
        if given is not None:
            offered.append(given)
        authorization = headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            offered.append(authorization[7:].strip())
        cookies = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except Exception:
            cookies = SimpleCookie()
        if self.cookie in cookies:
            offered.append(cookies[self.cookie].value)
        return any(hmac.compare_digest(o.encode(), self.token.encode()) for o in offered)

    async def _redirect(self, send: Send, path: bytes, query: Iterable[tuple[str, str]]) -> None:
        """The same address without the token, with the token as a cookie from now on."""
        assert self.token is not None
        rest = urlencode(list(query))
        cookie = f"{self.cookie}={self.token}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", path + (b"?" + rest.encode() if rest else b"")),
                    (b"set-cookie", cookie.encode()),
                    (b"content-length", b"0"),
                    *HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


async def _refuse(send: Send, path: str, status: int, message: str) -> None:
    if path.startswith("/api/"):
        body, kind = json.dumps({"error": message}).encode(), b"application/json"
    else:
        text = message.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
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
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
