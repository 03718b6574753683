"""What the server answers from: one store opened read-only, its repositories, and how it shows.

Two repositories ask the same store. One is strict unless the server runs with
``--lenient``: it answers the questions the command answers that way
(``replay --at`` and ``stats``). The other is lenient, as the command's
``sessions``, ``history`` and ``diff`` are, and the columns are read through
it: a refused event is shown, never a reason not to show the rest.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import Literal, final

from returns.result import Failure, Result, Success

from ....core.audit.policy import CompiledPolicy
from ....core.lifecycle.description import described
from ....core.replay.errors import ReplayError
from ....core.replay.pricing import PriceTable
from ....core.report.redaction import Redaction
from ....core.report.refs import is_digest, ref_of, resolve
from ....core.tools.ids import InvocationId, SessionId
from ....core.tools.short_ids import resolve_name, starting_in
from ...audit.policy_file import read_policy
from ...replay.prices import shipped_prices
from ...replay.replayer import EventReplayer
from ...replay.repository import DefaultToolRepository
from ...stores.port import ClosableStore, EventStore, IndexedStore, SequencedStore, first_event
from ..columns.columns import SessionColumns
from ..columns.shelf import ColumnShelf
from ..errors import ApiError
from .catalog import Catalog
from .relations import Relations
from .talk_shelf import TalkShelf


@final
class Debugger:
    """One store, and everything the server keeps to answer about it quickly."""

    def __init__(
        self,
        store: EventStore,
        source: str,
        *,
        lenient: bool,
        redaction: Redaction | None,
        prices: PriceTable | None = None,
        policy: CompiledPolicy | None = None,
    ) -> None:
        self.store, self.source, self.lenient, self.redaction = store, source, lenient, redaction
        self.prices = shipped_prices() if prices is None else prices
        self.policy = read_policy(None) if policy is None else policy
        """What the audit panel holds the sessions to: ``--policy``, else the built-in one."""
        # One invocation opened is shown whole: masked as everything is, never cut (a list
        # of many cuts each long value, to keep its answer small).
        self.whole = (
            None
            if redaction is None
            else dataclasses.replace(redaction, max_chars=sys.maxsize, max_items=sys.maxsize)
        )
        replayer = EventReplayer(store)
        self.answers = DefaultToolRepository(replayer, strict=not lenient)
        self.loose = DefaultToolRepository(replayer, strict=False)
        self.shelf = ColumnShelf(self.loose, times=self.times)
        self.catalog = Catalog(store, self.loose, redaction, self.prices)
        self.relations = Relations(store, self.loose)
        self.talk = TalkShelf(store)
        self.keeps_index = isinstance(store, IndexedStore)
        self._lock = threading.Lock()
        self._counted: dict[str, tuple[tuple[int, int], int]] = {}
        self._times: dict[str, bool] = {}

    def times(self, session: SessionId) -> bool:
        """Whether the session's times are real: false for one imported from a transcript that
        records no time. Its description, the session's first event, says so; it is read once
        per session (until the session is replaced, see `forget`)."""
        with self._lock:
            known = self._times.get(session)
        if known is None:
            first = first_event(self.store, session)
            found = described(() if first is None else (first,))
            known = found is None or found.times_recorded
            if first is not None:  # a session not written yet may still be described
                with self._lock:
                    self._times[session] = known
        return known

    def forget(self, sessions: Iterable[str]) -> None:
        """Drop everything kept of ``sessions``, whose events were replaced or removed (a
        transcript rewritten in place, imported again whole; a file gone): what is kept
        is keyed by a session's length, which a rewrite need not change."""
        for session in map(SessionId, sessions):
            self.answers.forget(session)
            self.loose.forget(session)
            self.shelf.forget(session)
            self.catalog.forget(session)
            self.relations.forget(session)
            self.talk.forget(session)
            with self._lock:
                self._counted.pop(session, None)
                self._times.pop(session, None)

    def shown(self, value: str) -> str:
        """A name or id as the page may show it."""
        return value if self.redaction is None else self.redaction.text(value)

    def message(self, value: str) -> str:
        """A reason or an error as the page may show it (masked, a long one cut)."""
        return value if self.redaction is None else self.redaction.short_text(value)

    def ref(self, value: str) -> str:
        """What the page names an id by (see `refs`)."""
        return ref_of(value, self.redaction)

    def session(self, ref: str) -> SessionId:
        """The session a ref names (its id, its digest, or the start of exactly one shown id);
        404 for none, or several, 409 for one whose index cannot be used."""
        found = resolve(ref, self.catalog.ids(), self.redaction) if is_digest(ref) else ref
        session = SessionId(found) if found else None
        if session is not None and not is_digest(ref) and not self._exists(session):
            named = self._named(ref, self._shown_ids(self.catalog.ids(fresh=True)), None)
            session = None if named is None else SessionId(named)
        if session is None or not self._exists(session):
            raise ApiError(404, f"{self.source}: no session {self.shown(ref)!r}")
        if self.keeps_index and not self.loose.indexed(session):
            index = f"the time-travel index of session {self.shown(session)!r}"
            if isinstance(self.store, IndexedStore) and self.store.needs_upgrade:
                why = f"{index} was written by an older release"
                fix = f"correx-tools reindex {self.source} upgrades it"
            else:
                # Not reindex at once: over events changed after they were written, it would
                # build a new index that vouches for them, and the evidence would be gone.
                why = f"{index} does not match its events"
                fix = f"correx-tools verify {self.source} says what is wrong and what mends it"
            raise ApiError(
                409, f"{self.source}: {why}, and the server does not fold a session on every "
                f"question: {fix}",
            )  # fmt: skip
        return session

    def _exists(self, session: SessionId) -> bool:
        if isinstance(self.store, SequencedStore):
            return bool(self.store.last_sequence(session))
        return session in self.catalog.ids() or session in self.catalog.ids(fresh=True)

    def last_sequence(self, session: SessionId) -> int:
        """The session's last sequence, now.

        A store that keeps none (a JSONL log) is counted through; the count is kept until
        the file changes (its size or time), so polling a log that does not grow is free.
        """
        if isinstance(self.store, SequencedStore):
            return self.loose.last_sequence(session)
        path = getattr(self.store, "path", None)
        if path is None:
            return self.loose.last_sequence(session)
        try:
            stat = os.stat(path)
        except OSError:
            return self.loose.last_sequence(session)
        key = (stat.st_size, stat.st_mtime_ns)
        with self._lock:
            kept = self._counted.get(session)
        if kept is not None and kept[0] == key:
            return kept[1]
        last = self.loose.last_sequence(session)
        with self._lock:
            self._counted[session] = (key, last)
        return last

    def columns(self, session: SessionId, through: int | None = None) -> SessionColumns:
        """The session's columns, reaching ``through`` (its last event if not given)."""
        try:
            return self.shelf.columns(session, through)
        except ValueError as error:  # the index does not add up: only a rebuild helps
            raise ApiError(409, f"{self.source}: {error}") from None

    def invocation(self, columns: SessionColumns, ref: str) -> InvocationId:
        """The invocation a ref names: its id, its digest (looked up among the session's ids),
        or a shorter name of exactly one id the page shows as it is (see `short_ids`)."""
        if not is_digest(ref):
            if columns.position_of(ref) >= 0:
                return InvocationId(ref)
            ids = columns.derived("shown ids", lambda c: self._shown_ids(i for _, i in c.ids()))
            named = self._named(ref, ids, columns.session_id)
            return InvocationId(ref if named is None else named)
        found = columns.derived("refs", self._digests).get(ref)
        if found is None:
            shown = self.shown(columns.session_id)
            raise ApiError(404, f"no invocation {ref!r} in session {shown!r}")
        return InvocationId(found)

    def _shown_ids(self, ids: Iterable[str]) -> list[str]:
        """The ids the page shows as they are, sorted: a shorter name is looked up among
        these only, so that no prefix finds out what the redaction masks."""
        return sorted(i for i in ids if self.redaction is None or self.ref(i) == i)

    def _named(self, name: str, shown: Sequence[str], session: str | None) -> str | None:
        """The one id of ``shown`` that ``name`` is short for; ``None`` for none, a 404
        naming the first few when several."""
        kind: Literal["session", "invocation"] = "session" if session is None else "invocation"
        found = resolve_name(name, starting_in(shown), kind=kind, session_id=session)
        if isinstance(found, Success):
            named: str = found.unwrap()
            return named
        error = found.failure()
        if error.ambiguous:
            raise ApiError(404, f"{self.source}: {error}" if session is None else str(error))
        return None

    def _digests(self, columns: SessionColumns) -> dict[str, str]:
        """The ids the redaction masks, by their refs (looked through once per columns)."""
        return {
            ref: invocation
            for _, invocation in columns.ids()
            if (ref := self.ref(invocation)) != invocation
        }

    def strictly(self, session: SessionId, answer: Result[object, ReplayError]) -> None:
        """Nothing for an answer; a 409 saying why a strict server cannot give it."""
        if isinstance(answer, Failure):
            raise ApiError(
                409,
                f"session {self.shown(session)!r}: {self.shown(answer.failure().message)} "
                "(serve --lenient skips events the lifecycle refuses)",
            )
        assert isinstance(answer, Success)

    def start(self) -> None:
        """Start reading the sessions' rows in the background."""
        self.catalog.start()

    def close(self) -> None:
        """Stop the background reading and close the store."""
        self.catalog.stop()
        if isinstance(self.store, ClosableStore):
            self.store.close()
