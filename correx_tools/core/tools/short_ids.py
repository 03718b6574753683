"""Naming a session or an invocation by less than its whole id, as git names a commit.

An id may be given whole, as any prefix no other id shares, and an
invocation also without its session's own prefix: in session
``demo-run01-session-1``, ``call-00005`` names
``demo-run01-session-1/call-00005``. A session's own prefix is its id followed
by one of `SEPARATORS`. The rules, in order:

1. an id given whole wins, even when it also begins longer ids;
2. then the one id that the session's own prefix completes it to;
3. then the one id that begins with it, or with it so completed;
4. several: it is ambiguous, and the first few are named; none: it is unknown.

`resolve_name` applies them to any set of ids through one question,
``starting(prefixes, n)``: for each prefix, the first ``n`` ids that begin
with it, in code point order. A store answers it from its index; `starting_in`
answers it for a sorted list.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence
from typing import Literal, final

from returns.result import Failure, Result, Success

from .errors import CorrexError, error_value
from .json_values import lone_surrogate_at

SEPARATORS = "/:-_.#"
"""What may follow a session's id at the start of its invocations' ids."""
SHOWN = 5
"""How many candidates an ambiguous name lists."""

Starting = Callable[[Sequence[str], int], Sequence[Sequence[str]]]
"""``starting(prefixes, n)``: for each prefix, the first ``n`` ids beginning with it, in code
point order."""
Present = Callable[[Sequence[str]], Collection[str]]
"""``present(ids)``: those of ``ids`` that are ids."""


@final
@error_value
class UnresolvedId(CorrexError):
    """A name that is no session's or invocation's id, nor the prefix of exactly one.

    ``candidates`` holds the first few ids it could mean, in order (none when
    it is unknown, two or more when it is ambiguous); ``more`` says that other
    ids match too. ``session_id`` is the session an invocation was looked for in.
    """

    kind: Literal["session", "invocation"]
    given: str
    session_id: str | None
    candidates: tuple[str, ...]
    more: bool
    message: str

    @property
    def ambiguous(self) -> bool:
        """Whether several ids begin with the name (else none does)."""
        return len(self.candidates) > 1


def short_invocation_id(session_id: str, invocation_id: str) -> str:
    """The invocation's id without its session's own prefix, or whole if it has none.

    >>> short_invocation_id("run-1", "run-1/call-7")
    'call-7'
    >>> short_invocation_id("run-1", "toolu_01")
    'toolu_01'
    """
    n = len(session_id)
    if (
        len(invocation_id) > n + 1
        and invocation_id[n] in SEPARATORS
        and invocation_id.startswith(session_id)
    ):
        return invocation_id[n + 1 :]
    return invocation_id


def spellings(given: str, session_id: str | None = None) -> tuple[str, ...]:
    """``given``, then (in a session) each way the session's own prefix completes it."""
    if session_id is None:
        return (given,)
    return (given, *(f"{session_id}{separator}{given}" for separator in SEPARATORS))


def resolve_name(
    given: str,
    starting: Starting,
    *,
    kind: Literal["session", "invocation"] = "session",
    session_id: str | None = None,
    present: Present | None = None,
) -> Result[str, UnresolvedId]:
    """The one id ``given`` names among those ``starting`` knows (see the module's rules).

    ``present``, where a store looks whole ids up faster than prefixes, answers the
    first two rules; ``starting`` is then asked only when they name nothing.

    >>> ids = ["run-1/call-1", "run-1/call-10", "run-1/call-2"]
    >>> find = lambda name: resolve_name(
    ...     name, starting_in(ids), kind="invocation", session_id="run-1"
    ... )
    >>> find("call-1").unwrap(), find("call-2").unwrap(), find("run-1/call-10").unwrap()
    ('run-1/call-1', 'run-1/call-2', 'run-1/call-10')
    >>> print(find("call").failure())
    invocation 'call' is ambiguous in session 'run-1': call-1, call-10, call-2
    """
    # No id is empty or holds a lone surrogate (an argument's undecodable bytes).
    forms = spellings(given, session_id) if given and lone_surrogate_at(given) is None else ()
    if present is not None and forms:
        there = set(present(forms))
        whole = sorted(form for form in forms[1:] if form in there)
        if given in there or len(whole) == 1:
            return Success(given if given in there else whole[0])
        if whole:
            return Failure(_unresolved(given, kind, session_id, whole))
    found = [list(ids) for ids in starting(forms, SHOWN + 1)] if forms else []
    if found and found[0][:1] == [given]:
        return Success(given)
    whole = [form for form, ids in zip(forms[1:], found[1:], strict=True) if ids[:1] == [form]]
    if len(whole) == 1:
        return Success(whole[0])
    matches = sorted(whole) if whole else sorted({i for ids in found for i in ids})
    if len(matches) == 1:
        return Success(matches[0])
    return Failure(_unresolved(given, kind, session_id, matches))


def _unresolved(
    given: str,
    kind: Literal["session", "invocation"],
    session_id: str | None,
    matches: list[str],
) -> UnresolvedId:
    shown, more = tuple(matches[:SHOWN]), len(matches) > SHOWN
    where = "" if session_id is None else f" in session {session_id!r}"
    if not shown:
        message = (
            f"no {kind} {given!r}"
            if session_id is None
            else f"{kind} {given!r} was never requested{where}"
        )
    else:
        names = [i if session_id is None else short_invocation_id(session_id, i) for i in shown]
        if len(set(names)) < len(names):  # a short form that stands for two: say them whole
            names = list(shown)
        listed = ", ".join(names) + (" and more" if more else "")
        message = f"{kind} {given!r} is ambiguous{where}: {listed}"
    return UnresolvedId(
        kind=kind, given=given, session_id=session_id, candidates=shown, more=more, message=message
    )


def starting_in(ids: Sequence[str]) -> Starting:
    """``starting`` over a sorted sequence of ids (by bisection)."""

    def starting(prefixes: Sequence[str], count: int) -> list[list[str]]:
        return [_first(ids, prefix, count) for prefix in prefixes]

    return starting


def _first(ids: Sequence[str], prefix: str, count: int) -> list[str]:
    found: list[str] = []
    for index in range(bisect_left(ids, prefix), len(ids)):
        if len(found) == count or not ids[index].startswith(prefix):
            break
        found.append(ids[index])
    return found


def prefix_end(prefix: str) -> str | None:
    """The least text after every text that begins with ``prefix``, in code point order
    (which is the order of their UTF-8 bytes, so of both databases' keys); ``None`` when
    nothing is (a prefix of U+10FFFF only)."""
    chars = list(prefix)
    while chars:
        last = ord(chars.pop())
        if last < 0x10FFFF:
            after = 0xE000 if last + 1 == 0xD800 else last + 1  # no text holds a surrogate
            return "".join(chars) + chr(after)
    return None
