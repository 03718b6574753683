"""A whole session's invocations read from its index a page at a time, in request order.

Nothing holds every invocation of a session: a page is read when the one
before it has been consumed, inside the view's one read snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

from returns.result import Result

from ...core.replay.errors import ReplayError
from ...core.replay.outline import InvocationOutline, outline_at, outline_of
from ...core.replay.stored_index import InvocationEntry
from ..stores.port import SessionIndex, StaleIndex

Outlines = Result[Iterator[InvocationOutline], ReplayError]
"""A session's outlines read as they are consumed, or why they cannot be."""
Entries = Result[Iterator[InvocationEntry], ReplayError]
"""A session's entries read as they are consumed, or why they cannot be."""

PAGE = 2_000
"""Invocations read at a time."""


class Requested(Protocol):
    """Something said of one invocation, which knows when it was requested."""

    @property
    def requested_seq(self) -> int:
        """The sequence of the invocation's Requested event."""
        ...


R = TypeVar("R", bound=Requested)


def paged(read: Callable[[int, int], Sequence[R]], after: int) -> Iterator[R]:
    """Everything ``read(after, count)`` gives, page after page, until a page comes short."""
    while True:
        page = read(after, PAGE)
        yield from page
        if len(page) < PAGE:
            return
        after = page[-1].requested_seq


def index_entries(index: SessionIndex, through: int, after: int) -> Iterator[InvocationEntry]:
    """The index's entries of the invocations requested in ``(after, through]``, a page at a
    time, each row's seal checked as it is read. First, at once, a `StaleIndex` unless the
    rows there are as many as the requests the counters count: a stream would not notice a
    row missing from between the others."""
    _count_rows(index, through)
    return paged(lambda a, n: index.entries_after(a, through=through, count=n), after)


def index_outlines(index: SessionIndex, through: int, after: int) -> Iterator[InvocationOutline]:
    """`index_entries`, as the outlines of the invocations as they are now."""
    _count_rows(index, through)
    return paged(lambda a, n: index.outlines_after(a, through=through, count=n), after)


def _count_rows(index: SessionIndex, through: int) -> None:
    rows, requested = index.rows_through(through), sum(index.counts_at(through)[:5])
    if rows != requested:
        raise StaleIndex(
            f"{requested} invocations were requested there, but the index has rows for {rows}"
        )


def outlines_at(
    outlines: Iterable[InvocationOutline], sequence: int
) -> Iterator[InvocationOutline]:
    """Each of ``outlines`` (of invocations requested by ``sequence``) as it stood then."""
    for outline in outlines:
        then = outline_at(outline, sequence)
        assert then is not None  # requested by ``sequence``
        yield then


def outlines_of(entries: Iterable[InvocationEntry]) -> Iterator[InvocationOutline]:
    """The outline of each of ``entries``."""
    return map(outline_of, entries)
