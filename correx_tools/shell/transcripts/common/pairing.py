"""Pairing a format's results with the calls they answer, by the id both carry."""

from __future__ import annotations

from ..errors import Unreadable
from ..model import TranscriptCall


class Pairing:
    """The calls read so far, by unique id, and the latest call of each id the transcript uses.

    A transcript may use an id again once its call has ended (a replayed run's
    repeated command): the later call gets ``<id>#2``, and a result goes to the
    latest call of its id.
    """

    def __init__(self) -> None:
        self.by_id: dict[str, TranscriptCall] = {}
        self.latest: dict[str, TranscriptCall] = {}
        self.taken: dict[str, int] = {}

    def request(self, call: TranscriptCall) -> TranscriptCall:
        """Add ``call`` (its id made unique); an error if its id is still open."""
        earlier = self.latest.get(call.call_id)
        if earlier is not None and earlier.end is None:
            raise Unreadable(
                call.where, f"tool call {call.call_id} is asked for again before it ended"
            )
        self.latest[call.call_id] = call
        call.call_id = unique_id(call.call_id, self.taken)
        self.by_id[call.call_id] = call
        return call

    def ended(self, call_id: str, where: str) -> TranscriptCall:
        """The open call a result for ``call_id`` ends; an error if there is none."""
        call = self.latest.get(call_id)
        if call is None:
            raise Unreadable(where, f"a result for {call_id}, which no call before it asked for")
        if call.end is not None:
            raise Unreadable(where, f"a second result for {call_id}")
        return call

    def open(self, call_id: str) -> TranscriptCall | None:
        """The call of ``call_id`` if it has not ended yet."""
        call = self.latest.get(call_id)
        return call if call is not None and call.end is None else None

    def calls(self) -> tuple[TranscriptCall, ...]:
        """Every call, in the order they were asked for."""
        return tuple(self.by_id.values())


def unique_id(call_id: str, taken: dict[str, int]) -> str:
    """``call_id`` the first time it is used, then ``call_id#2``, ``call_id#3``, ...: some
    transcripts reuse an id for a later call (a replayed run's repeated command)."""
    count = taken.get(call_id, 0) + 1
    taken[call_id] = count
    return call_id if count == 1 else f"{call_id}#{count}"
