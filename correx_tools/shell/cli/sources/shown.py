"""What a command needs to show a session's calls to a person: whether to mask what they
quote (``--unmasked``), each call's short name in the session, the session's working
directory."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

from returns.result import Success

from ....core.catalog.short_names import short_invocations
from ....core.report.redaction import Redaction
from ....core.tools.ids import SessionId
from ...replay.view import SessionView
from ...stores.port import EventStore
from ...transcripts.description import session_description
from ..output.calls_table import Shown, shown_ids

WHOLE = sys.maxsize
"""The terminal's masking cuts nothing: ``--json`` has every value whole, secrets masked."""


def redaction_of(args: argparse.Namespace) -> Redaction | None:
    """What the command masks: the rules the page masks by, unless ``--unmasked``."""
    if getattr(args, "unmasked", False):
        return None
    return Redaction(max_chars=WHOLE, max_items=WHOLE)


def calls_shown(
    args: argparse.Namespace,
    store: EventStore,
    session: SessionId,
    view: SessionView,
    invocations: Iterable[str],
) -> Shown:
    """How a table shows ``invocations`` of ``session``: their short names in the session
    (looked up only for a table that may cut them: not ``--wide``, not ``--json``), the
    session's working directory, and the masking ``args`` ask for."""
    described = session_description(store, session)
    names: dict[str, str] = {}
    if not args.json and not getattr(args, "wide", False):

        def resolve(name: str) -> str | None:
            found = view.resolve(name)
            return found.unwrap() if isinstance(found, Success) else None

        names = short_invocations(resolve, shown_ids(session, list(invocations)))
    return Shown(
        session,
        names=names,
        cwd=None if described is None else described.about.cwd,
        redaction=redaction_of(args),
        imported=described is not None,
    )
