"""An agent loop that records every tool call, then a look back through the session.

A scripted "model" asks for tool calls (in the shape Anthropic's API gives
them); the loop validates each against the registry, checks the paths of the
tools that touch files against a workspace, runs what may run, records every
step through a ``SessionRecorder`` in a SQLite file, and answers the model
with each result. Afterwards it travels back through the recorded session.

Run it with ``python docs/examples/agent_loop.py`` (it works in a temporary
directory and removes it).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from returns.result import Failure

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryToolRegistry,
    InvocationId,
    RecordError,
    RecordErrorKind,
    SessionId,
    SessionRecorder,
    SQLiteEventStore,
    Tier,
    ToolFailure,
    ToolInvocationStatus,
    ToolRequest,
    ToolResult,
    ToolSpec,
    ToolSuccess,
    Workspace,
    to_anthropic_result,
)

PATH_ONLY = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}},
    "required": ["path"],
    "additionalProperties": False,
}
WRITE = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class FileTool:
    """A tool that touches the file its ``path`` argument names (a ``FileAffectingTool``)."""

    spec: ToolSpec

    name = property(lambda self: self.spec.name)
    description = property(lambda self: self.spec.description)
    parameters = property(lambda self: self.spec.parameters)
    tier = property(lambda self: self.spec.tier)
    capabilities = property(lambda self: self.spec.capabilities)

    def affected_paths(self, request: ToolRequest) -> frozenset[PurePosixPath]:
        return frozenset({PurePosixPath(request.arguments["path"])})


READ_FILE = FileTool(ToolSpec(name="read_file", description="Read a file.", parameters=PATH_ONLY))
WRITE_FILE = FileTool(
    ToolSpec(name="write_file", description="Write a file.", parameters=WRITE, tier=Tier.CONFIRM)
)
WORD_COUNT = ToolSpec(
    name="word_count",
    description="Count the words of a text.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)
REGISTRY = InMemoryToolRegistry.of(READ_FILE, WRITE_FILE, WORD_COUNT).unwrap()

# What the model asks for, turn by turn: Anthropic's tool_use blocks.
MODEL_CALLS: list[dict[str, Any]] = [
    {
        "id": "toolu_01",
        "name": "write_file",
        "input": {"path": "notes.md", "content": "hello agent"},
    },
    {"id": "toolu_02", "name": "read_file", "input": {"path": "notes.md"}},
    {"id": "toolu_03", "name": "read_file", "input": {"file": "notes.md"}},  # invalid arguments
    {"id": "toolu_04", "name": "read_file", "input": {"path": "../../etc/passwd"}},  # outside
    {"id": "toolu_05", "name": "read_file", "input": {"path": "missing.md"}},  # fails when run
    {"id": "toolu_06", "name": "word_count", "input": {"text": "hello agent"}},
    {"id": "toolu_07", "name": "delete_everything", "input": {}},  # no such tool
]


class WorkspaceExecutor:
    """Runs the three tools for real, inside the workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolResult:
        arguments = request.arguments
        if request.tool_name == "word_count":
            return ToolSuccess(invocation_id=invocation_id, output=len(arguments["text"].split()))
        target = self.workspace.check(arguments["path"]).unwrap()  # checked before: cannot fail
        if request.tool_name == "write_file":
            target.write_text(arguments["content"], encoding="utf-8")
            return ToolSuccess(invocation_id=invocation_id, output={"written": arguments["path"]})
        if not target.is_file():
            return ToolFailure(
                invocation_id=invocation_id, reason=f"no file {arguments['path']}", recoverable=True
            )
        return ToolSuccess(invocation_id=invocation_id, output=target.read_text(encoding="utf-8"))


def step(recorder: SessionRecorder, workspace: Workspace, call: dict[str, Any]) -> dict[str, Any]:
    """One tool call of the model, recorded; returns the tool_result block for the model."""
    invocation = InvocationId(call["id"])
    request = ToolRequest(tool_name=call["name"], arguments=call["input"])
    tool = REGISTRY.resolve(request.tool_name).value_or(None)
    if isinstance(tool, FileTool) and REGISTRY.validate(request):
        # A policy check before anything runs: every path must stay in the workspace.
        checked = workspace.check_all(tool.affected_paths(request))
        if isinstance(checked, Failure):
            recorder.request(invocation, request).unwrap()
            recorder.reject(invocation, str(checked.failure())).unwrap()
            return {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                    "content": f"refused: {checked.failure()}"}  # fmt: skip
    ran = recorder.run(invocation, request, WorkspaceExecutor(workspace))
    if isinstance(ran, Failure):
        error: RecordError = ran.failure()
        if error.kind is RecordErrorKind.INVALID_REQUEST and error.invalid is not None:
            # Recorded as rejected; the model gets the violations, to correct its arguments.
            return to_anthropic_result(error.invalid, tool_use_id=call["id"])
        return {"type": "tool_result", "tool_use_id": call["id"], "is_error": True,
                "content": str(error)}  # fmt: skip
    return to_anthropic_result(ran.unwrap().outcome, tool_use_id=call["id"])


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "workspace"
        root.mkdir()
        workspace = Workspace(root)
        session = SessionId("example-loop")
        with SQLiteEventStore(Path(directory) / "agent.sqlite") as store:
            recorder = SessionRecorder(store, session, registry=REGISTRY)
            print("The loop:")
            for call in MODEL_CALLS:
                answer = step(recorder, workspace, call)
                flag = "error" if answer.get("is_error") else "ok"
                shown = " ".join(str(answer["content"]).split())[:58]
                print(f"  {call['id']} {call['name']:<17} {flag:<5} {shown}")

            # A step the lifecycle forbids is refused, and nothing is written.
            again = recorder.start(InvocationId("toolu_02"))
            print(f"Starting toolu_02 again: {again.failure()}")

            print("Looking back:")
            repository = DefaultToolRepository(EventReplayer(store))
            summary = repository.summary(session).unwrap()
            counts = {s.value: summary.counts[s] for s in ToolInvocationStatus if summary.counts[s]}
            print(f"  {summary.sequence} events, {summary.invocations} invocations: {counts}")
            before_read = repository.at(session, 3).unwrap()
            print(f"  right after event 3: {[r.invocation_id for r in before_read.records()]}")
            for sequence, record in repository.history(session, InvocationId("toolu_05")).unwrap():
                print(f"  toolu_05 at {sequence}: {record.status.value} {record.reason or ''}")
            for change in repository.diff(session, 6, 12).unwrap():
                before = change.before.status.value if change.before else "new"
                after = change.after.status.value
                print(f"  from 6 to 12: {change.after.invocation_id} {before} -> {after}")
            rejected = repository.get(session).unwrap().find("toolu_04")
            assert rejected is not None
            print(f"  why toolu_04 was rejected: {rejected.reason}")


if __name__ == "__main__":
    main()
