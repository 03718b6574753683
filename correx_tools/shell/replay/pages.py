"""A whole session's invocations read from its index a page at a time, in request order.

Nothing holds every invocation of a session: a page is read when the one
before it has been consumed, inside the view's one read snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

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


def paged(
    read: Callable[[int, int], Sequence[InvocationEntry]], after: int
) -> Iterator[InvocationEntry]:
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
    rows, requested = index.rows_through(through), sum(index.counts_at(through)[:5])
    if rows != requested:
        raise StaleIndex(
            f"{requested} invocations were requested there, but the index has rows for {rows}"
        )
    return paged(lambda a, n: index.entries_after(a, through=through, count=n), after)


def outlines_at(entries: Iterable[InvocationEntry], sequence: int) -> Iterator[InvocationOutline]:
    """The outline of each of ``entries`` (requested by ``sequence``) as it stood then."""
    for entry in entries:
        then = outline_at(outline_of(entry), sequence)
        assert then is not None  # requested by ``sequence``
        yield then
