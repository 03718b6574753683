"""A machine's events renamed for the team's store (`on_machine`): read from a store, their
undecoded text given the new ids, they encode as the same events decoded and renamed do."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from correx_tools import SessionId, SQLiteEventStore, ToolReceipt
from correx_tools.core.catalog.machines import on_machine
from correx_tools.core.lifecycle.events import (
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
    undecoded_text,
)
from correx_tools.core.report.tool_views import SUBAGENT_SESSION
from correx_tools.core.tools.ids import InvocationId
from correx_tools.core.tools.request import undecoded_source
from correx_tools.shell.stores.codec.encoding import encode_event

from .strategies import json_values, requested, started, stored

ids = st.text(st.sampled_from(list('ab/"\\é\x01\u2028 ')), min_size=1, max_size=8)
metadata = st.dictionaries(st.sampled_from([SUBAGENT_SESSION, "cwd"]), st.text(max_size=5))


@st.composite
def calls(draw: st.DrawFn) -> list[object]:
    """Calls of any ids, each requested, started and completed with any output and metadata."""
    events: list[object] = []
    for invocation in draw(st.lists(ids, max_size=4, unique=True)):
        receipt = ToolReceipt(output=draw(json_values), exit_code=draw(st.sampled_from([0, 2])),
                              metadata=draw(metadata))  # fmt: skip
        events += [requested(invocation, path=draw(json_values)), started(invocation),
                   ToolExecutionCompletedEvent(invocation_id=InvocationId(invocation),
                                               receipt=receipt)]  # fmt: skip
    return events


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls())
def test_events_read_from_a_store_rename_as_their_decoded_values_do(
    tmp_path_factory: object, events: list[object]
) -> None:
    written = stored(events, session="s")
    path = Path(tmp_path_factory.mktemp("machine")) / "m.sqlite"  # type: ignore[attr-defined]
    with SQLiteEventStore(path) as store:
        store.import_events(written).unwrap()
        read = list(store.read(SessionId("s")))
    for lazy, plain in zip(read, written, strict=True):
        read_as = str(undecoded_text(lazy.event.receipt)) if isinstance(
            lazy.event, ToolExecutionCompletedEvent) else ""  # fmt: skip
        moved, expected = on_machine(lazy, "laptop"), on_machine(plain, "laptop")
        if isinstance(lazy.event, ToolInvocationRequestedEvent):
            # The arguments were not decoded to be renamed: the text was given the new id.
            assert isinstance(moved.event, ToolInvocationRequestedEvent)
            assert undecoded_source(moved.event.request) is not None
        if isinstance(lazy.event, ToolExecutionCompletedEvent):
            # Nor was an output whose text could name no session started.
            assert isinstance(moved.event, ToolExecutionCompletedEvent)
            assert isinstance(plain.event, ToolExecutionCompletedEvent)
            if not plain.event.receipt.metadata and "\\u" not in read_as:
                assert undecoded_text(moved.event.receipt) is not None
        assert encode_event(moved) == encode_event(expected)
        assert moved == expected
