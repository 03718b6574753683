"""Who may ask the server: its token, the browsers' credentials, and the codes that make them.

* The **token** is for scripts (``--json`` gives it): ``Authorization: Bearer
  TOKEN``. It never travels in an address, so no history, log or command
  line holds it.
* A **code** travels in the address a person opens (``/#code=CODE``). It is
  good once, and for `CODE_SECONDS` at most: the page's script trades it
  (``POST /api/v1/credential``) for a **credential** of its own, which it
  keeps in the origin's storage (scoped to this port, unlike a cookie) and
  sends as ``Authorization: Bearer CREDENTIAL``. A copy of the address in the
  browser's history, a terminal's scroll-back or a log is worthless once the
  page has been opened.
* The terminal always shows one link a person can open: when the last one it
  printed is used, the server prints a fresh one (for a second browser); when
  a browser brings a link that was used or is too old while none printed is
  still good, it prints a fresh one too. Nothing else prints one, so a stranger
  who sends made-up codes makes at most one line every `CODE_SECONDS`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, final

CODE_SECONDS = 300.0
"""How long a code is good for, at most: five minutes, time enough to open a printed link."""
LIVE_CODES = 32
"""Codes kept at once (the printed one and those scripts asked for); the oldest go first."""
CREDENTIALS = 1_024
"""Browsers' credentials kept at once; the oldest go first (each took a code to make)."""

Holder = Literal["token", "browser"]


@dataclass(frozen=True, slots=True)
class _Code:
    expires: float
    used: Callable[[], None] | None


@final
class Access:
    """The token, the live codes and the browsers' credentials of one server.

    ``link`` makes the address a person opens from a code; ``tell`` prints a line
    on the server's terminal; ``clock`` gives seconds (monotonic)."""

    def __init__(
        self,
        token: str,
        *,
        link: Callable[[str], str],
        tell: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._token, self._link, self._tell, self._clock = token.encode(), link, tell, clock
        self._codes: OrderedDict[str, _Code] = OrderedDict()
        # Kept as digests: a lookup's time says nothing about a credential's characters.
        self._credentials: OrderedDict[bytes, None] = OrderedDict()
        self._printed: str | None = None
        self._lock = threading.Lock()

    @property
    def token(self) -> str:
        """The token scripts send."""
        return self._token.decode()

    def code(self, *, used: Callable[[], None] | None = None) -> str:
        """A fresh single-use code; ``used`` runs once when a browser trades it."""
        code = secrets.token_urlsafe(18)
        with self._lock:
            self._forget_old()
            self._codes[code] = _Code(self._clock() + CODE_SECONDS, used)
            while len(self._codes) > LIVE_CODES:
                self._codes.popitem(last=False)
        return code

    def link(self, code: str) -> str:
        """The address a person opens with ``code``."""
        return self._link(code)

    def printed_link(self, *, used: Callable[[], None] | None = None) -> str:
        """The address with a fresh code, to print on the terminal: the link a person opens
        (and the one a used printed link is replaced by)."""
        code = self.code(used=used)
        with self._lock:
            self._printed = code
        return self._link(code)

    def trade(self, code: str) -> str | None:
        """A new browser's credential for ``code``, which is then worthless; ``None`` for a
        code that was used, is too old, or never was."""
        with self._lock:
            self._forget_old()
            found = self._codes.pop(code, None)
            if found is None:
                # Someone holds a dead link: make sure the terminal shows a live one.
                fresh = self._printed is None or self._printed not in self._codes
            else:
                credential = secrets.token_urlsafe(32)
                self._credentials[_digest(credential)] = None
                while len(self._credentials) > CREDENTIALS:
                    self._credentials.popitem(last=False)
                fresh = code == self._printed  # a script's own codes print nothing
        if found is not None and found.used is not None:
            found.used()
        if fresh:
            why = "the link was opened" if found is not None else "a browser brought a dead link"
            self._tell(f"{why}; to open the page in another browser: {self.printed_link()}")
        return None if found is None else credential

    def holder(self, authorization: str) -> Holder | None:
        """Who sends this ``Authorization`` header: the token's holder, a browser that traded
        a code, or nobody known."""
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            return None
        offered = given.strip().encode("utf-8", "replace")
        if hmac.compare_digest(offered, self._token):
            return "token"
        with self._lock:
            return "browser" if hashlib.sha256(offered).digest() in self._credentials else None

    def _forget_old(self) -> None:
        now = self._clock()
        for code in [code for code, kept in self._codes.items() if kept.expires <= now]:
            del self._codes[code]


def _digest(credential: str) -> bytes:
    return hashlib.sha256(credential.encode()).digest()
