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

from ....core.tools.ids import SessionId
from ...replay.view import SessionView, StreamFailed
from ...stores.port import EventStore
from .loading import answered, asked_at, opened_session


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
    with opened_session(args, lenient=args.lenient) as (store, session, view):
        at = asked_at(args, view)
        try:
            yield Streamed(store, session, at, view)
        except StreamFailed as failed:
            answered(Failure(failed.error), session, lenient=args.lenient)
