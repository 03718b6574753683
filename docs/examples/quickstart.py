"""Build a short agent session in memory, replay it, and travel back through it.

Run it with ``python docs/examples/quickstart.py``.
"""

from datetime import UTC, datetime, timedelta

from correx_tools import (
    InvocationId,
    Retention,
    SessionId,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolInvocationStatus,
    ToolProjector,
    ToolReceipt,
    ToolRequest,
    fold_events,
)

SESSION = SessionId("quickstart")
START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def request(invocation: str, tool: str, **arguments: object) -> ToolInvocationRequestedEvent:
    return ToolInvocationRequestedEvent(
        invocation_id=InvocationId(invocation),
        tool_name=tool,
        tier=Tier.CONFIRM if tool == "run_tests" else Tier.AUTO,
        request=ToolRequest(tool_name=tool, arguments=arguments),
    )


def session() -> list[StoredEvent]:
    """An agent reads a file, runs the tests (they fail), edits, and runs them again."""
    events = [
        request("read-1", "read_file", path="src/app.py"),
        ToolExecutionStartedEvent(invocation_id=InvocationId("read-1")),
        ToolExecutionCompletedEvent(
            invocation_id=InvocationId("read-1"),
            receipt=ToolReceipt(output={"bytes": 1834}, exit_code=0),
        ),
        request("test-1", "run_tests", target="tests/"),
        ToolExecutionStartedEvent(invocation_id=InvocationId("test-1")),
        ToolExecutionFailedEvent(
            invocation_id=InvocationId("test-1"), reason="2 tests failed", recoverable=True
        ),
        request("edit-1", "write_file", path="src/app.py"),
        ToolExecutionStartedEvent(invocation_id=InvocationId("edit-1")),
        ToolExecutionCompletedEvent(
            invocation_id=InvocationId("edit-1"), receipt=ToolReceipt(output="ok", exit_code=0)
        ),
        request("test-2", "run_tests", target="tests/"),
        ToolExecutionStartedEvent(invocation_id=InvocationId("test-2")),
        ToolExecutionCompletedEvent(
            invocation_id=InvocationId("test-2"),
            receipt=ToolReceipt(output={"passed": 42}, exit_code=0),
        ),
    ]
    return [
        StoredEvent(
            session_id=SESSION,
            sequence=number,
            recorded_at=START + timedelta(seconds=3 * number),
            event=event,
        )
        for number, event in enumerate(events, start=1)
    ]


def main() -> None:
    replay = fold_events(ToolProjector(), session(), retention=Retention.all()).unwrap()
    print(f"replayed {replay.last_sequence} events of session {SESSION!r}")
    print(f"{'invocation':<10} {'tool':<11} {'status':<10} completed at")
    for record in replay.state.invocations:
        done = record.completed_at.time().isoformat() if record.completed_at else "-"
        print(f"{record.invocation_id:<10} {record.tool_name:<11} {record.status.name:<10} {done}")

    timeline = replay.timeline
    assert timeline is not None
    first_failure = timeline.first(
        lambda state: any(r.status is ToolInvocationStatus.FAILED for r in state.records())
    ).unwrap()
    print(f"\nthe first failure appears at sequence {first_failure}")
    before = timeline.at(first_failure - 1)
    print(f"just before it, {len(before)} invocations were known:")
    for record in before.records():
        print(f"  {record.invocation_id}: {record.status.name}")

    print("\nwhat changed from then to the end:")
    for change in timeline.diff(first_failure - 1, len(timeline)):
        was = change.before.status.name if change.before else "(new)"
        print(f"  {change.invocation_id}: {was} -> {change.after.status.name}")

    print("\nhistory of test-1:")
    for sequence, record in timeline.history(InvocationId("test-1")):
        print(f"  sequence {sequence}: {record.status.name}")


if __name__ == "__main__":
    main()
