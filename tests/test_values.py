"""Value types: frozen, UTC, structurally equal, JSON frozen inside."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pyrsistent import PMap, PVector

from correx_tools import (
    InvocationId,
    SessionId,
    StoredEvent,
    Tier,
    ToolReceipt,
    ToolRequest,
    ToolSuccess,
    invocation_id,
    session_id,
    thaw_json,
)


def test_naive_timestamps_are_rejected() -> None:
    naive = datetime(2026, 1, 1)  # noqa: DTZ001 - the point of the test
    with pytest.raises(ValueError, match="timezone-aware"):
        StoredEvent(session_id=SessionId("s"), sequence=1, recorded_at=naive, event=None)


def test_timestamps_are_normalised_to_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    event = StoredEvent(
        session_id=SessionId("s"),
        sequence=1,
        recorded_at=datetime(2026, 1, 1, 12, tzinfo=plus_two),
        event=None,
    )
    assert event.recorded_at.tzinfo is UTC
    assert event.recorded_at.hour == 10


@pytest.mark.parametrize("sequence", [0, -1, 1.0, True])
def test_sequences_are_positive_ints(sequence: object) -> None:
    with pytest.raises(ValueError, match="sequence"):
        StoredEvent(
            session_id=SessionId("s"), sequence=sequence, recorded_at=datetime.now(UTC), event=None
        )  # type: ignore[arg-type]


def test_arguments_and_outputs_are_frozen_and_thaw_back() -> None:
    request = ToolRequest(tool_name="t", arguments={"files": ["a", {"b": 1}]})
    assert isinstance(request.arguments, PMap)
    assert isinstance(request.arguments["files"], PVector)
    assert isinstance(request.arguments["files"][1], PMap)
    assert thaw_json(request.arguments) == {"files": ["a", {"b": 1}]}
    receipt = ToolReceipt(output=[1, [2]], exit_code=0, metadata={"k": "v"})
    assert isinstance(receipt.output, PVector)
    assert (
        ToolSuccess(invocation_id=InvocationId("i"), output={"x": [1]}).output
        == ToolReceipt(output={"x": [1]}).output
    )


def test_values_are_immutable_and_equal_by_value() -> None:
    request = ToolRequest(tool_name="t", arguments={"a": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.tool_name = "u"  # type: ignore[misc]
    assert request == ToolRequest(tool_name="t", arguments={"a": 1})
    assert hash(request) == hash(ToolRequest(tool_name="t", arguments={"a": 1}))


def test_metadata_must_be_strings() -> None:
    with pytest.raises(TypeError, match="str to str"):
        ToolReceipt(metadata={"k": 1})  # type: ignore[dict-item]


def test_ids_must_be_non_empty_strings() -> None:
    assert invocation_id("x") == "x"
    with pytest.raises(ValueError, match="empty"):
        session_id("")
    with pytest.raises(TypeError):
        invocation_id(3)  # type: ignore[arg-type]


def test_tiers_are_ordered() -> None:
    assert sorted([Tier.ELEVATED, Tier.AUTO, Tier.CONFIRM]) == [
        Tier.AUTO,
        Tier.CONFIRM,
        Tier.ELEVATED,
    ]
    assert Tier.CONFIRM >= Tier.AUTO
    assert not Tier.ELEVATED <= Tier.CONFIRM


def test_a_deeply_nested_argument_freezes_without_recursion_error() -> None:
    nested: object = 1
    for _ in range(50_000):
        nested = {"n": nested}
    request = ToolRequest(tool_name="t", arguments={"deep": nested})
    node = request.arguments["deep"]
    depth = 0
    while isinstance(node, PMap):
        node = node["n"]
        depth += 1
    assert depth == 50_000
