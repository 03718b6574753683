"""The evidence value of an event, and a saved finding's evidence checked again.

An event's evidence value is ``sha256:`` and the SHA-256 of its canonical JSON Lines
envelope (`encode_line`: its session, sequence, time, type, version and data, in the one
spelling every store writes and its chain or checksum covers). Every store gives the same
value for the same event, so a finding reads the same whichever store it came from; an
event edited after it was audited gives another value. A checked read (a SQL store's
chain, a log's per-line CRC) refuses an edit that did not recompute those; an edit that
did is still caught here, by the value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, final

from ...core.lifecycle.events import StoredEvent
from ...core.tools.ids import SessionId
from ..stores.codec.encoding import encode_line
from ..stores.port import EventStore, StoreReadError

PREFIX = "sha256:"


def evidence_value(stored: StoredEvent) -> str:
    """The evidence value of ``stored`` (see the module docstring)."""
    return PREFIX + hashlib.sha256(encode_line(stored)).hexdigest()


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Rechecked:
    """One saved evidence value checked against the store: ``state`` is ``intact``,
    ``edited`` (the event's value changed), ``missing`` (no such event now) or
    ``unreadable`` (the store refuses to read it: ``detail`` says why)."""

    session: str
    sequence: int
    saved: str
    state: str
    detail: str = ""


def recheck(store: EventStore, findings: Iterable[Mapping[str, Any]]) -> Iterator[Rechecked]:
    """Each evidence of saved ``findings`` (as ``audit --json`` writes them) checked against
    ``store``: each session is read once, up to its last sequence needed."""
    wanted: dict[str, dict[int, str]] = {}
    for finding in findings:
        for evidence in finding["evidence"]:
            wanted.setdefault(finding["session"], {})[evidence["sequence"]] = evidence["value"]
    known = set(store.sessions())
    for session, values in wanted.items():
        if session not in known:
            for sequence, saved in sorted(values.items()):
                yield Rechecked(session=session, sequence=sequence, saved=saved, state="missing")
            continue
        yield from _session(store, session, values)


def _session(store: EventStore, session: str, values: dict[int, str]) -> Iterator[Rechecked]:
    now: dict[int, str] = {}
    last = max(values)
    refused: StoreReadError | None = None
    try:
        for stored in store.read(SessionId(session)):
            if stored.sequence in values:
                now[stored.sequence] = evidence_value(stored)
            if stored.sequence >= last:
                break
    except StoreReadError as error:
        refused = error
    for sequence, saved in sorted(values.items()):
        found = now.get(sequence)
        if found is not None:
            state = "intact" if found == saved else "edited"
            yield Rechecked(session=session, sequence=sequence, saved=saved, state=state)
        elif refused is not None and sequence >= refused.sequence:
            yield Rechecked(
                session=session, sequence=sequence, saved=saved, state="unreadable",
                detail=str(refused.error),
            )  # fmt: skip
        else:
            yield Rechecked(session=session, sequence=sequence, saved=saved, state="missing")
