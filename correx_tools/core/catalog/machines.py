"""Sessions of many machines in one store: each named by its machine and its own id.

A team's store holds the sessions every machine pushes to it (`push`). Two machines may
hold sessions of the same id (a copied folder, a subagent's short id, a recorded run named
``run-1`` on each), and an invocation id is unique only within its machine's store; so in
the team's store a session is named ``MACHINE/ID`` and every id its events hold is
qualified the same way (`on_machine`): its invocations' ids, the parent a subagent's
session names, the session a call started. Nothing else of an event changes, so the
session replays, links and answers as it did on its machine.

A machine's name is what a person calls it (the host's name by default): text of at most
`LONGEST` characters with no ``/`` (which ends it in a session's name), no space and no
control character (`name_problem`); a user's the same.

>>> from datetime import UTC, datetime
>>> from correx_tools.core.lifecycle.events import StoredEvent, ToolExecutionStartedEvent
>>> at = datetime(2026, 12, 1, tzinfo=UTC)
>>> event = StoredEvent(session_id="s1", sequence=1, recorded_at=at,
...                     event=ToolExecutionStartedEvent(invocation_id="s1/call-1"))
>>> moved = on_machine(event, "laptop")
>>> moved.session_id, moved.event.invocation_id
('laptop/s1', 'laptop/s1/call-1')
>>> name_problem("my laptop", "machine")
"machine 'my laptop': a name holds no space, '/' or control character"
"""

from __future__ import annotations

from dataclasses import replace
from json.encoder import encode_basestring

from ..lifecycle.description import DESCRIBED
from ..lifecycle.events import (
    TOOL_EVENT_TYPES,
    OpaqueEvent,
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    lazy_receipt,
    undecoded_text,
)
from ..report.tool_views import SUBAGENT_SESSION
from ..tools.ids import InvocationId, SessionId
from ..tools.request import ToolRequest, lazy_request, undecoded_source

LONGEST = 100
"""The longest name of a machine or a user, in characters."""

SEPARATOR = "/"
"""What stands between a machine's name and a session's own id."""


def name_problem(name: str, what: str) -> str | None:
    """Why ``name`` cannot name a machine (or a user: ``what`` says which), if it cannot."""
    shown = f"{what} {name[:LONGEST]!r}"
    if not name:
        return f"{what}: the name is empty"
    if len(name) > LONGEST:
        return f"{shown}...: a name is at most {LONGEST} characters"
    if any(c == SEPARATOR or c.isspace() or not c.isprintable() for c in name):
        return f"{shown}: a name holds no space, '/' or control character"
    return None


def qualified(machine: str, identifier: str) -> str:
    """An id of ``machine``'s as the team's store names it."""
    return f"{machine}{SEPARATOR}{identifier}"


def split_name(name: str) -> tuple[str, str] | None:
    """The machine and the own id of a session the team's store names, if it is one."""
    machine, separator, own = name.partition(SEPARATOR)
    return (machine, own) if separator and machine and own else None


def on_machine(stored: StoredEvent, machine: str) -> StoredEvent:
    """``stored`` as the team's store keeps it for ``machine`` (see the module docstring)."""
    event = stored.event
    if isinstance(event, TOOL_EVENT_TYPES):
        moved = InvocationId(qualified(machine, event.invocation_id))
        if isinstance(event, ToolInvocationRequestedEvent):
            request = _request(event.request, event.invocation_id, moved)
            event = replace(event, invocation_id=moved, request=request)
        elif isinstance(event, ToolExecutionCompletedEvent):
            receipt = _renamed_receipt(event.receipt, event.invocation_id, moved)
            if receipt is None:
                receipt = _receipt(event.receipt, machine)
            event = replace(event, invocation_id=moved, receipt=receipt)
        else:
            event = replace(event, invocation_id=moved)
    elif isinstance(event, OpaqueEvent) and event.type == DESCRIBED:
        parent = event.data.get("parent_session_id")
        if isinstance(parent, str) and parent:
            data = {**event.data, "parent_session_id": qualified(machine, parent)}
            event = OpaqueEvent(type=event.type, version=event.version, data=data)
    return StoredEvent(
        session_id=SessionId(qualified(machine, stored.session_id)),
        sequence=stored.sequence,
        recorded_at=stored.recorded_at,
        event=event,
    )


# A tool event read from a store keeps its arguments or output undecoded, in the event's
# text (`lazy_request`, `lazy_receipt`), which a store then writes as it is when it still
# spells the event. Renamed, the text is given the new id in place of the old: what the
# event's encoding would write, had its values been decoded, renamed and encoded again.
# Stores check such a text before they trust it; one that does not begin with the old id's
# spelling (text not written by a store) is decoded as before.


def _respelled(text: str, old: str, new: str) -> str | None:
    """``text`` (an event's data, beginning with its invocation id) with ``new`` for ``old``."""
    head = '{"invocation_id":' + encode_basestring(old) + ","
    if not text.startswith(head):
        return None
    return '{"invocation_id":' + encode_basestring(new) + "," + text[len(head) :]


def _request(request: ToolRequest, old: str, new: str) -> ToolRequest:
    """The request of a Requested event renamed from ``old`` to ``new``: its undecoded text
    given the new id (the arguments stay undecoded), or the request itself."""
    source = undecoded_source(request)
    if source is None:
        return request
    text = _respelled(source[0], old, new)
    return request if text is None else lazy_request(request.tool_name, text, source[1])


def _renamed_receipt(receipt: ToolReceipt, old: str, new: str) -> ToolReceipt | None:
    """The receipt of a Completed event renamed from ``old`` to ``new``, still undecoded,
    when its text cannot name a session it started (it does not spell the key, nor escape
    any character); ``None`` when it must be decoded to look."""
    text = undecoded_text(receipt)
    if text is None or f'"{SUBAGENT_SESSION}"' in text or "\\u" in text:
        return None
    renamed = _respelled(text, old, new)
    return None if renamed is None else lazy_receipt(receipt.exit_code, renamed)


def _receipt(receipt: ToolReceipt, machine: str) -> ToolReceipt:
    """The receipt with the session it names as started qualified (it is decoded only to
    look; one that names none is kept as it is)."""
    started = receipt.metadata.get(SUBAGENT_SESSION)
    if not isinstance(started, str) or not started:
        return receipt
    metadata = {**receipt.metadata, SUBAGENT_SESSION: qualified(machine, started)}
    return ToolReceipt(output=receipt.output, exit_code=receipt.exit_code, metadata=metadata)
