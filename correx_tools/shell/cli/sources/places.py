"""Where an audit's findings are written down, for code scanning to link them: the transcript
file each session was read from (relative to the SOURCE folder) and the line the call's
receipt records, where it records one (Claude Code's, Codex's and Aider's results do)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from returns.result import Success

from ....core.audit.finding import Finding
from ....core.lifecycle.events import (
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ....core.tools.ids import InvocationId, SessionId
from ...audit.sarif import Place
from ...replay.replayer import EventReplayer
from ...replay.repository import DefaultToolRepository
from ...stores.port import EventStore, first_event

LINE = "line"
"""The receipt's metadata key an import writes the line of the call's result under
(``line 12``, or ``12``)."""


def finding_places(
    store: EventStore, findings: Iterable[Finding], files: Mapping[str, str], source: str
) -> dict[tuple[str, int], Place]:
    """Where each finding's call is written down (by session and sequence); a session read
    from no file (a store's) has none."""
    root = Path(source)
    folder = root.is_dir()
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    places: dict[tuple[str, int], Place] = {}
    for finding in findings:
        key = (finding.session, finding.sequence)
        file = files.get(finding.session)
        if file is None or key in places:
            continue
        shown = Path(os.path.relpath(file, root)).as_posix() if folder else source
        places[key] = Place(shown, _line(store, repository, *key))
    return places


def _line(store: EventStore, repository: DefaultToolRepository, session: str,
          sequence: int) -> int | None:  # fmt: skip
    """The line the receipt of the call at ``sequence`` records, if any: the call requested
    there, or the one whose output is there (a secret in an output)."""
    stored = first_event(store, SessionId(session), after=sequence - 1)
    event = None if stored is None else stored.event
    if isinstance(event, ToolExecutionCompletedEvent):
        receipt: ToolReceipt | None = event.receipt
    elif isinstance(event, ToolInvocationRequestedEvent):
        found = repository.history(SessionId(session), InvocationId(event.invocation_id))
        if not isinstance(found, Success) or not found.unwrap():
            return None
        receipt = found.unwrap()[-1][1].receipt
    else:
        return None
    said = None if receipt is None else receipt.metadata.get(LINE)
    digits = "" if said is None else said.removeprefix("line ").strip()
    return int(digits) if digits.isascii() and digits.isdigit() and int(digits) > 0 else None
