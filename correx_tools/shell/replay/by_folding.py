"""Questions about a session's past answered by folding its events: `ByFolding`.

What a store without an index to trust (JSONL, memory, a damaged or older
index) answers with: the `Questions` of `questions`, each from a fold of the
events, exactly as `FromIndex` answers them from an index.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.replay.errors import ReplayError
from ...core.replay.fold import Replay
from ...core.replay.projection import ToolProjector
from ...core.replay.retention import Retention
from ...core.replay.stored_index import (
    InvocationEntry,
    changed_between,
    entries_of,
)
from ...core.replay.summary import DiffSummary, SessionSummary, summarize, summarize_changes
from ...core.replay.timeline import Timeline
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.short_ids import starting_in
from .pages import Entries, Outlines, outlines_of
from .questions import Changes, History, Refusals, SessionEntries, refusal_error
from .replayer import EventReplayer, unanswered


@final
class ByFolding:
    """Answers from a fold of the session's events (one fold per answer, nothing kept)."""

    __slots__ = ("_replayer", "_session", "_strict", "_whole")

    STRIDE = 256
    """The checkpoint stride of the timelines folded for history and diff."""

    def __init__(self, session_id: SessionId, replayer: EventReplayer, *, strict: bool) -> None:
        self._session = session_id
        self._replayer = replayer
        self._strict = strict
        self._whole: tuple[list[InvocationEntry], Refusals] | None = None

    def _fold(
        self, until: int | None, retention: Retention | None = None
    ) -> Result[Replay[ToolState], ReplayError]:
        return self._replayer.replay(
            self._session, ToolProjector(), strict=self._strict, retention=retention, until=until
        )

    def last_sequence(self) -> int:
        """The session's last sequence (read from the store, or counted)."""
        return self._replayer.last_sequence(self._session)

    def at(self, sequence: int) -> Result[ToolState, ReplayError]:
        """The final state of a fold of the first ``sequence`` events."""
        return self._fold(sequence).map(lambda replay: replay.state)

    def _timeline(self, until: int | None) -> Result[Timeline[ToolState], ReplayError]:
        folded = self._fold(until, Retention.every(self.STRIDE))
        return folded.map(_timeline_of)

    def history(self, invocation_id: InvocationId) -> Result[History, ReplayError]:
        """``Timeline.history`` of a fold of the session."""
        return self._timeline(None).map(lambda timeline: timeline.history(invocation_id))

    def diff(
        self, a: int, b: int, limit: int | None = None, offset: int = 0
    ) -> Result[Changes, ReplayError]:
        """``Timeline.diff`` of a fold of the first ``b`` events (``limit`` of its changes from
        the ``offset``-th)."""
        end = None if limit is None else offset + limit
        return self._timeline(b).map(lambda timeline: timeline.diff(a, b)[offset:end])

    def diff_summary(self, a: int, b: int) -> Result[DiffSummary, ReplayError]:
        """The changes of a fold of the first ``b`` events, counted."""
        return self.diff(a, b).map(lambda changes: summarize_changes(a, b, changes))

    def summary(self, sequence: int) -> Result[SessionSummary, ReplayError]:
        """The summary of a fold of the first ``sequence`` events."""
        return self._fold(sequence).map(
            lambda replay: summarize(
                self._session, replay.last_sequence, replay.state, len(replay.quarantined)
            )
        )

    def latest(
        self, count: int, sequence: int
    ) -> Result[tuple[ToolInvocationRecord, ...], ReplayError]:
        """The last ``count`` records of a fold of the first ``sequence`` events."""
        return self._fold(sequence).map(
            lambda replay: tuple(replay.state.records())[-count:] if count else ()
        )

    def refused(self, sequence: int, limit: int | None) -> Refusals:
        """The quarantined events of a lenient fold of the first ``sequence`` events."""
        folded = self._replayer.replay(self._session, ToolProjector(), strict=False, until=sequence)
        if not isinstance(folded, Success):
            # A lenient fold fails only on events it cannot read: no answer, not "none".
            raise unanswered(folded.failure())
        quarantined: Any = folded.unwrap().quarantined
        return tuple(quarantined[:limit] if limit is not None else quarantined)

    def entries(self) -> Result[SessionEntries, ReplayError]:
        """The entries an index would keep, computed from one pass over the events."""
        last = 0

        def counted(events: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
            nonlocal last
            for stored in events:
                last = stored.sequence
                yield stored

        entries, refused = entries_of(counted(self._replayer.events(self._session)))
        if self._strict and refused:
            return Failure(refusal_error(*refused[0]))
        return Success(SessionEntries(last, tuple(entries), tuple(refused)))

    def _all_entries(self) -> list[InvocationEntry]:
        return entries_of(self._replayer.events(self._session))[0]

    def _whole_session(self) -> tuple[list[InvocationEntry], Refusals]:
        # One pass over the events, kept for the view's life (a stream, then some by id).
        if self._whole is None:
            entries, refused = entries_of(self._replayer.events(self._session))
            self._whole = (entries, tuple(refused))
        return self._whole

    def entries_through(self, sequence: int, after: int) -> Entries:
        """From one pass over the events (`entries_of`)."""
        entries, refused = self._whole_session()
        if self._strict and refused and refused[0][0].sequence <= sequence:
            return Failure(refusal_error(*refused[0]))
        return Success(e for e in entries if after < e.requested_seq <= sequence)

    def outlines_through(self, sequence: int, after: int) -> Outlines:
        """The outlines of `entries_through`'s entries."""
        return self.entries_through(sequence, after).map(outlines_of)

    def entries_before(self, through: int, count: int) -> list[InvocationEntry]:
        """From one pass over the events."""
        found = [entry for entry in self._all_entries() if entry.requested_seq <= through]
        return found[-count:] if count > 0 else []

    def entries_by_id(self, ids: Sequence[str]) -> list[InvocationEntry | None]:
        """From one pass over the events."""
        known: dict[str, InvocationEntry] = {e.invocation_id: e for e in self._whole_session()[0]}
        return [known.get(invocation) for invocation in ids]

    def changed_entries(self, a: int, b: int) -> list[InvocationEntry]:
        """From one pass over the events."""
        return [entry for entry in self._all_entries() if changed_between(entry, a, b)]

    def ids_present(self, ids: Sequence[str]) -> set[str]:
        """From one pass over the events."""
        return {str(entry.invocation_id) for entry in self._all_entries()} & set(ids)

    def ids_starting(self, prefixes: Sequence[str], count: int) -> list[list[str]]:
        """From one pass over the events, every prefix at once."""
        ids = sorted(entry.invocation_id for entry in self._all_entries())
        return [list(found) for found in starting_in(ids)(prefixes, count)]


def _timeline_of(replay: Replay[ToolState]) -> Timeline[ToolState]:
    timeline = replay.timeline
    assert timeline is not None  # a retention policy was given
    return timeline
