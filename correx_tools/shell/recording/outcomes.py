"""What an executor gave, as an outcome every store keeps: the run step's rules.

`SessionRecorder.run` must end every call it started. Whatever the executor
does (raise, return something else, fail with a message holding an undecodable
byte) becomes a `ToolSuccess` or a `ToolFailure` whose reason is text any
store keeps.
"""

from __future__ import annotations

import re

from ...core.tools.executor import ToolExecutor, ToolFailure, ToolSuccess
from ...core.tools.ids import InvocationId
from ...core.tools.request import ToolRequest

REASON_CHARS = 4_000
"""A failure's reason made from an exception or an error is cut to this many characters."""


def executed(
    executor: ToolExecutor, invocation_id: InvocationId, request: ToolRequest
) -> ToolSuccess | ToolFailure:
    """What the executor gave; any exception, or anything but a success or a failure, is a
    recoverable failure saying so (a call that started must end in the history)."""
    try:
        # Typed as anything: an executor written in haste may return None.
        outcome: object = executor.execute(invocation_id, request)
    except Exception as error:
        return ToolFailure(
            invocation_id=invocation_id,
            reason=as_reason(f"{type(error).__name__}: {error}"),
            recoverable=True,
        )
    if isinstance(outcome, ToolSuccess | ToolFailure):
        return outcome
    return ToolFailure(
        invocation_id=invocation_id,
        reason=f"the executor returned {type(outcome).__name__}, not a ToolSuccess or a "
        "ToolFailure",
        recoverable=False,
    )


_SURROGATES = re.compile("[\ud800-\udfff]")


def as_reason(text: str) -> str:
    """Text every store keeps: a lone surrogate (an undecodable byte of a command's output,
    as ``os.fsdecode`` gives it) replaced, and cut to `REASON_CHARS`."""
    kept = _SURROGATES.sub("\ufffd", text)
    if len(kept) <= REASON_CHARS:
        return kept
    return f"{kept[:REASON_CHARS]}… [cut: {len(kept):,} characters in all]"
