"""Whether a stored event is handed on: its row held to the chain stored with it.

A row's chain covers the event's content (sequence, time, type, version, JSON) and its
index columns (kind, invocation id, label, code, effect), continuing the chain of the event
before it (`indexing.chain_of`). A row that makes its stored chain from the chain before it
is as it was written. One that does not is damaged in one of three places, told apart here
from the row, the next one and the session's sealed head, without a fold:

* **its index columns** (a typed column, the effect): its content, with the columns its
  JSON makes and an effect a store writes, makes the stored chain;
* **its stored chain value**: the next event goes on from the chain its content makes
  (for the session's last event, its sealed head holds that chain);
* **its content**, changed after it was written (in the file, behind the triggers, or by
  hand with the triggers firing): the chain goes on from other content.

The first two are the index's damage, derived data: the event is read from its own JSON
and the index rebuilt. The third is the events': nothing of the event is handed on, and
the read stops with a `StoreReadError` naming the session and the sequence, as a JSON Lines
log refuses a line whose checksum fails. So no read that hands a payload on (a replay, the
audit, a report, an export, the debugger) shows an edited event as if it had been
recorded. ``correx-tools verify`` names every such event, and ``reindex --accept-edits``
takes them as meant.

A row without a chain (written by an older release, before its index) is read unchecked,
only at the end of a session, where such a release appends; a chained row after one, or
after a missing event, cannot be vouched for and is refused too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....core.replay.errors import EventDecodeError
from ....core.replay.stored_index import REFUSAL_CODES, STATUS_CODES
from ....core.tools.ids import SessionId
from ..codec.columns import typed_columns
from ..codec.envelope import format_timestamp
from ..codec.rows import decode_row
from ..port import StoreReadError
from .chains import continues
from .dialect import Dialect
from .indexing import chain_of

Row = tuple[Any, ...]
"""An event row in `chains.CHAINED_COLUMNS` order."""

EFFECTS = frozenset(
    {0, *REFUSAL_CODES.values()}
    | {
        10 * before + after
        for before in (0, *STATUS_CODES.values())
        for after in STATUS_CODES.values()
    }
)
"""Every effect a store writes, and some it never does (``10 * before + after`` over every
pair of statuses): what an effect column damaged may have held."""

CHANGED = (
    "the event changed after it was written (its chain vouches for other content; "
    "`correx-tools reindex --accept-edits` takes such edits as meant)"
)


def refused(where: str, session_id: str, sequence: int, why: str = CHANGED) -> StoreReadError:
    """The error a read stops with at an event it cannot hand on."""
    place = f"{where} (session {session_id!r}, sequence {sequence})"
    return StoreReadError(EventDecodeError(source=place, line=None, message=why), sequence=sequence)


def vouched_chain(
    d: Dialect,
    session_id: str,
    row: Row,
    previous: int,
    *,
    following: Callable[[], Row | None],
    head: Callable[[], tuple[int, int] | None],
) -> int:
    """The chain the next event goes on from, after ``row``, which does not make its stored
    chain from ``previous``, once its content is shown to be what was written (see the
    module docstring); else the `StoreReadError` the read stops with. ``following`` gives
    the next row (``None`` at the end), ``head`` the sealed head's last sequence and chain.
    A row whose JSON cannot be read is named by the strict reader's own words."""
    sequence, stored = row[0], row[10]
    event = decode_row(d.where, SessionId(session_id), row[:5]).event
    at = row[1] if type(row[1]) is str else format_timestamp(row[1])
    content = (sequence, at, row[2], row[3], row[4])
    as_stored = tuple(row[5:9])
    if d.texts_as_bytes:
        as_stored = (as_stored[0], d.text(as_stored[1]), d.text(as_stored[2]), as_stored[3])
    made = {tuple(typed_columns(event)), as_stored}
    effects = {row[9], *EFFECTS}
    candidates = {
        chain_of(previous, (*content, *columns, effect)) for columns in made for effect in effects
    }
    if stored in candidates:
        return int(stored)  # the index columns' damage: the content made the stored chain
    after = following()
    if after is not None:
        for chain in candidates:
            if continues(d, chain, after):
                return chain  # the chain value's damage: the next event goes on from it
    else:
        sealed = head()
        if sealed is not None and sealed[0] == sequence and sealed[1] in candidates:
            return sealed[1]
    raise refused(d.where, session_id, sequence)
