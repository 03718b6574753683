"""A realistic, reproducible agent run for the ``demo`` command and the benchmarks.

Several sessions of an agent fixing bugs in a repository: reading and
searching code, editing files, running tests and shell commands, fetching
documentation. Most calls succeed; some fail (tests, commands, timeouts),
some are rejected by approval (elevated shell commands, network access), and
a few events are illegal, as a buggy orchestrator would write them: a second
Started, a Completed after a rejection, a Failed for an id never requested.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from ....core.lifecycle.events import (
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ....core.tools.ids import InvocationId
from ....core.tools.request import ToolRequest
from ....core.tools.tier import Tier

FILES = ["src/app.py", "src/models.py", "src/api/routes.py", "src/db.py", "tests/test_app.py",
         "tests/test_api.py", "README.md", "pyproject.toml", "src/util/strings.py"]  # fmt: skip
TOOLS: dict[str, Tier] = {
    "read_file": Tier.AUTO,
    "search_code": Tier.AUTO,
    "write_file": Tier.CONFIRM,
    "run_tests": Tier.CONFIRM,
    "shell": Tier.ELEVATED,
    "web_fetch": Tier.CONFIRM,
}
WEIGHTS = [30, 18, 16, 14, 14, 8]


@dataclass(frozen=True, slots=True)
class Step:
    """One batch of events the orchestrator appends at ``at``."""

    at: datetime
    events: tuple[object, ...]
    planted: bool = False
    """Whether the step is a planted orchestrator bug (an event the lifecycle refuses)."""


def _arguments(rng: random.Random, tool: str) -> dict[str, object]:
    match tool:
        case "read_file":
            return {"path": rng.choice(FILES)}
        case "search_code":
            return {
                "query": rng.choice(["def handle", "TODO", "session.commit", "raise ValueError"]),
                "max_results": 20,
            }
        case "write_file":
            return {"path": rng.choice(FILES), "content": f"# edited {rng.randrange(10**6)}\n"}
        case "run_tests":
            return {
                "target": rng.choice(
                    ["tests/", "tests/test_app.py", "tests/test_api.py::test_login"]
                )
            }
        case "shell":
            return {
                "command": rng.choice(
                    ["git status", "pip install -e .", "rm -rf build", "make lint"]
                )
            }
        case _:
            return {
                "url": rng.choice(
                    [
                        "https://docs.python.org/3/library/sqlite3.html",
                        "https://peps.python.org/pep-0621/",
                    ]
                )
            }


def _outcome(rng: random.Random, invocation: InvocationId, tool: str, tier: Tier) -> list[object]:
    roll = rng.random()
    if tier is not Tier.AUTO and roll < 0.04:
        return [
            ToolExecutionRejectedEvent(
                invocation_id=invocation, reason="the user declined approval"
            )
        ]
    started = ToolExecutionStartedEvent(invocation_id=invocation)
    if tool == "run_tests" and roll < 0.30:
        failures = rng.randrange(1, 6)
        return [
            started,
            ToolExecutionFailedEvent(
                invocation_id=invocation, reason=f"{failures} tests failed", recoverable=True
            ),
        ]
    if roll > 0.96:
        reason = rng.choice(["timed out after 120 s", "exit status 2", "permission denied"])
        return [
            started,
            ToolExecutionFailedEvent(
                invocation_id=invocation, reason=reason, recoverable=reason != "permission denied"
            ),
        ]
    output: object = {"bytes": rng.randrange(100, 20_000)} if tool == "read_file" else "ok"
    if tool == "run_tests":
        output = {"passed": rng.randrange(40, 400), "failed": 0}
    return [
        started,
        ToolExecutionCompletedEvent(
            invocation_id=invocation,
            receipt=ToolReceipt(output=output, exit_code=0, metadata={"tool": tool}),
        ),
    ]


def agent_session(
    session_name: str, invocations: int, *, seed: int, start: datetime, faults: bool = True
) -> Iterator[Step]:
    """The steps of one session: ``invocations`` tool calls, a few of them mishandled
    unless ``faults`` is false (the same calls and outcomes, without the illegal events)."""
    rng = random.Random(seed)
    now = start
    for number in range(invocations):
        tool = rng.choices(list(TOOLS), weights=WEIGHTS)[0]
        tier = TOOLS[tool]
        invocation = InvocationId(f"{session_name}/call-{number:05d}")
        now += timedelta(milliseconds=rng.randrange(200, 4000))
        yield Step(
            now,
            (
                ToolInvocationRequestedEvent(
                    invocation_id=invocation,
                    tool_name=tool,
                    tier=tier,
                    request=ToolRequest(tool_name=tool, arguments=_arguments(rng, tool)),
                ),
            ),
        )
        *first, last = _outcome(rng, invocation, tool, tier)
        for early in first:  # Started follows the request within a few milliseconds
            now += timedelta(milliseconds=rng.randrange(2, 40))
            yield Step(now, (early,))
        now += timedelta(milliseconds=rng.randrange(50, 30_000 if tool == "run_tests" else 3000))
        yield Step(now, (last,))
        if rng.random() < 0.002:
            # An orchestrator bug: an event that breaks the lifecycle.
            bug = rng.choice(["restart", "complete-after-end", "ghost"])
            if bug == "restart":
                event: object = ToolExecutionStartedEvent(invocation_id=invocation)
            elif bug == "complete-after-end":
                event = ToolExecutionCompletedEvent(
                    invocation_id=invocation, receipt=ToolReceipt(output="late")
                )
            else:
                event = ToolExecutionFailedEvent(
                    invocation_id=InvocationId(f"{invocation}-ghost"),
                    reason="lost",
                    recoverable=False,
                )
            now += timedelta(milliseconds=10)
            if faults:
                yield Step(now, (event,), planted=True)
