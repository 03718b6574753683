"""Tool outcomes as the messages MCP, Anthropic and OpenAI expect back from a tool call.

An executor that validates a request before running it can hand an
`Invalid` back to the model in the same shape as a tool's
own failure, so the model reads what was wrong (each JSON path and problem)
and calls the tool again with corrected arguments. A
`ToolFailure` says whether retrying may help. Errors are
flagged where the format has a flag (MCP ``isError``, Anthropic
``is_error``); OpenAI's tool message has none, so its text starts with
``Error:``.
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias, assert_never

from .executor import ToolFailure, ToolSuccess
from .formats.openai import OpenAiApi
from .json_values import thaw_json
from .validation import Invalid

ToolOutcome: TypeAlias = ToolSuccess | ToolFailure | Invalid
"""What a tool call came to: it ran, it failed, or its arguments were refused."""


def outcome_text(outcome: ToolOutcome) -> str:
    """The text the model reads for ``outcome``.

    >>> from correx_tools.core.tools.validation import Violation
    >>> print(outcome_text(Invalid(reason="1 violation",
    ...                            violations=(Violation(path="$.path", message="required"),))))
    Error: the arguments do not match the tool's input schema.
    - $.path: required
    Correct the arguments and call the tool again.
    """
    match outcome:
        case ToolSuccess():
            output = thaw_json(outcome.output)
            text = output if isinstance(output, str) else _json(output)
            return text if outcome.exit_code == 0 else f"exit code {outcome.exit_code}\n{text}"
        case ToolFailure():
            advice = (
                "It may succeed if called again."
                if outcome.recoverable
                else "Calling it again with the same arguments will fail the same way."
            )
            return f"Error: the tool failed: {outcome.reason}\n{advice}"
        case Invalid():
            problems = [f"- {v.path}: {v.message}" for v in outcome.violations] or [
                f"- {outcome.reason}"
            ]
            return "\n".join(
                [
                    "Error: the arguments do not match the tool's input schema.",
                    *problems,
                    "Correct the arguments and call the tool again.",
                ]
            )
        case _:
            assert_never(outcome)


def to_mcp_result(outcome: ToolOutcome) -> dict[str, Any]:
    """An MCP ``CallToolResult``: text content, ``isError``, and ``structuredContent``.

    ``structuredContent`` is set when a successful output is a JSON object.

    >>> from correx_tools.core.tools.ids import InvocationId
    >>> to_mcp_result(ToolFailure(invocation_id=InvocationId("c1"), reason="timeout",
    ...                           recoverable=True))["isError"]
    True
    """
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": outcome_text(outcome)}],
        "isError": not isinstance(outcome, ToolSuccess),
    }
    if isinstance(outcome, ToolSuccess):
        output = thaw_json(outcome.output)
        if isinstance(output, dict):
            result["structuredContent"] = output
    return result


def to_anthropic_result(outcome: ToolOutcome, *, tool_use_id: str | None = None) -> dict[str, Any]:
    """An Anthropic ``tool_result`` content block, ``is_error`` set for failures.

    ``tool_use_id`` defaults to the outcome's invocation id; an `Invalid`
    has none, so it must be given.
    """
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": _call_id(outcome, tool_use_id, "tool_use_id"),
        "content": outcome_text(outcome),
    }
    if not isinstance(outcome, ToolSuccess):
        block["is_error"] = True
    return block


def to_openai_result(
    outcome: ToolOutcome, *, tool_call_id: str | None = None, api: OpenAiApi = "chat"
) -> dict[str, Any]:
    """An OpenAI tool message (Chat Completions) or ``function_call_output`` (Responses).

    ``tool_call_id`` defaults to the outcome's invocation id; an `Invalid`
    has none, so it must be given.
    """
    call_id = _call_id(outcome, tool_call_id, "tool_call_id")
    text = outcome_text(outcome)
    if api == "responses":
        return {"type": "function_call_output", "call_id": call_id, "output": text}
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def _call_id(outcome: ToolOutcome, given: str | None, name: str) -> str:
    if given is not None:
        return given
    if isinstance(outcome, Invalid):
        raise ValueError(f"an Invalid carries no invocation id: pass {name}")
    return outcome.invocation_id


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
