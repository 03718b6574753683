"""A command's pass over every invocation of one session, read a page at a time.

`stats`, `report` and `export` touch every invocation of a session; they read
them through one `SessionView` (one snapshot of the store), as outlines or
entries streamed in request order, so that nothing holds the whole session.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from returns.result import Failure

from ...core.tools.ids import SessionId
from ..replay.view import SessionView, StreamFailed
from ..stores.port import EventStore
from .loading import answered, find_session, in_range, repository_for
from .sources import open_store


class Streamed(NamedTuple):
    """The store, the session, the sequence asked for (``--at``, or the last) and the view
    to stream from."""

    store: EventStore
    session: SessionId
    at: int
    view: SessionView


@contextmanager
def streamed_session(args: argparse.Namespace) -> Iterator[Streamed]:
    """``args.session`` of ``args.source`` seen in one view, strict unless ``args.lenient``;
    a one-line error for anything missing, or for a stream the fold refuses part way."""
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    repository = repository_for(store, args.source, lenient=args.lenient)
    with repository.view(session) as view:
        asked = getattr(args, "at", None)
        at = view.last_sequence if asked is None else in_range(view, asked, "--at")
        try:
            yield Streamed(store, session, at, view)
        except StreamFailed as failed:
            answered(Failure(failed.error), session, lenient=args.lenient)
