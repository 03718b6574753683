"""OpenHands event histories: a JSON list of events, or an object holding one as ``history``.

* an action with ``tool_call_metadata`` is a request: the tool is its
  ``function_name``, the id its ``tool_call_id``, the arguments those of the
  matching call in the model's response (else the action's ``args``);
* the observation whose ``cause`` is that action's ``id`` ends it: rejected for
  ``user_rejected``, completed otherwise, with ``extras.metadata.exit_code`` (a
  command's; an observation without one — a file read, an edit, a thought — has
  no exit code, and neither has one whose code is OpenHands' -1, written for a
  command that had not exited when the observation was made: it timed out, or
  still runs);
* an ``edit`` observation whose content begins ``ERROR:`` and whose
  ``extras.diff`` is empty changed nothing (``No replacement was performed…``):
  it stays completed, as OpenHands recorded it (an edit observation, not an
  error one), and its receipt says the edit did not take effect, in OpenHands'
  words (`outcomes.not_applied`);
* an ``error`` observation without a cause is a call that never became an
  action (its arguments did not validate): a request and its rejection, under a
  derived id, at the error's time.

Times carry no zone; they are UTC. The repository the agent was given (the path in its
task's ``<uploaded_files>``) is the session's working directory. An evaluation's record
(an ``instance_id`` beside the ``history``) is a run's outcome (`Outcome`): its task, its
``test_result.git_patch``, the verdict of its ``report`` where the evaluation added one,
its ``metrics.accumulated_cost`` and its ``error``.

The conversation around the calls (`talk`): a user ``message`` action is a
prompt (a ``recall`` is OpenHands' own, the ``system`` action its system prompt); an
agent action's ``thought`` (an agent ``message``'s content) is the assistant's words, with
the model of its ``tool_call_metadata.model_response``; that response's
``reasoning_content``, where kept, its reasoning, and its ``usage`` its tokens, once per
response ``id`` (a response that asked for several calls is on each of their actions).
LiteLLM's ``prompt_tokens`` hold the tokens read from a cache (``cache_read_input_tokens``,
else ``prompt_tokens_details.cached_tokens``) and written to one
(``cache_creation_input_tokens``): the rest is input. An agent message written without a
model response (no ``tool_call_metadata``) has no model and no tokens here; the running
``llm_metrics`` totals are not read (the responses' own usage is each call's).
"""

from __future__ import annotations

from typing import Any

from .....core.lifecycle.description import About
from .....core.lifecycle.outcome import Outcome, with_patch
from ....stores.codec.strict_json import EnvelopeError
from ...common.lines import loads_shallow
from ...common.outcomes import completed, not_applied, rejected
from ...common.talk import Talk
from ...common.values import must_be, text_of, utc_time
from ...errors import Unreadable
from ...model import Transcript, TranscriptCall
from .signs import FORMAT, events_of
from .talk import talk_in

_UPLOADED = "<uploaded_files>"
NOT_EXITED = -1
"""The exit code OpenHands writes for a command that had not exited (CmdOutputMetadata's
default): no exit code at all."""
# What OpenHands adds to an action's args beside the tool's own arguments.
_NOT_ARGUMENTS = frozenset(
    {
        "thought",
        "impl_source",
        "translated_ipython_code",
        "confirmation_state",
        "security_risk",
        "is_confirmed",
        "blocking",
        "hidden",
    }
)


def read(document: Any, name: str) -> Transcript:
    """The calls of an OpenHands history."""
    found = events_of(document)
    assert found is not None
    events, path = found
    instance = document.get("instance_id") if isinstance(document, dict) else None
    if isinstance(instance, str) and instance:
        name = instance
    first = events[0] if events and isinstance(events[0], dict) else {}
    about = About(
        agent_session_id=instance if isinstance(instance, str) and instance else None,
        started_at=utc_time(first["timestamp"], f"{path}[0].timestamp") if first else None,
        cwd=uploaded(_prompt(document, events)),
    )
    calls: dict[str, TranscriptCall] = {}
    by_action: dict[Any, TranscriptCall] = {}
    talk, counted = Talk(), set[str]()
    for index, event in enumerate(events):
        where = f"{path}[{index}]"
        if not isinstance(event, dict):
            raise Unreadable(where, "an event must be a JSON object")
        if "action" in event:
            stamp = event.get("timestamp")
            at = utc_time(stamp, f"{where}.timestamp") if stamp else None
            talk_in(event, index, where, at, talk=talk, counted=counted)
            call = _request(event, index, where)
            if call is not None:
                if call.call_id in calls:
                    raise Unreadable(where, f"tool call {call.call_id} is requested twice")
                calls[call.call_id] = call
                by_action[_action_key(event.get("id"), f"{where}.id")] = call
        elif "observation" in event:
            _observe(event, index, where, by_action, calls)
    ordered = tuple(sorted(calls.values(), key=lambda c: c.position))
    return Transcript(FORMAT, name, ordered, about=about, talk=tuple(talk.steps),
                      outcome=_outcome(document, about.agent_session_id))  # fmt: skip


def uploaded(prompt: str) -> str | None:
    """The repository OpenHands gave the agent: the path inside the prompt's
    ``<uploaded_files>`` (the session's working directory); ``None`` without one."""
    start = prompt.find(_UPLOADED)
    if start < 0:
        return None
    inside = prompt[start + len(_UPLOADED) : start + len(_UPLOADED) + 4096]
    path = inside.partition("</uploaded_files>")[0].strip()
    return path if path.startswith("/") and "\n" not in path else None


def _prompt(document: Any, events: list[Any]) -> str:
    """The task as OpenHands gave it: the evaluation's ``instruction``, else the first user
    message."""
    if isinstance(document, dict) and isinstance(document.get("instruction"), str):
        return str(document["instruction"])
    for event in events[:50]:
        if isinstance(event, dict) and event.get("source") == "user":
            args = event.get("args")
            content = args.get("content") if isinstance(args, dict) else None
            return content if isinstance(content, str) else str(event.get("message") or "")
    return ""


def _outcome(document: Any, instance: str | None) -> Outcome | None:
    """How an evaluation's run ended: its task, its ``test_result.git_patch``, the verdict
    its ``report`` (or ``test_result.report``) holds, its ``metrics.accumulated_cost``;
    ``None`` for a history that is no evaluation's (no ``instance_id``)."""
    if instance is None or not isinstance(document, dict):
        return None
    result = document.get("test_result")
    result = result if isinstance(result, dict) else {}
    report = document.get("report")
    report = report if isinstance(report, dict) else result.get("report")
    resolved = report.get("resolved") if isinstance(report, dict) else None
    metrics = document.get("metrics")
    cost = metrics.get("accumulated_cost") if isinstance(metrics, dict) else None
    patch = result.get("git_patch")
    error = document.get("error")
    found = Outcome(
        task=instance,
        exit_status=str(error)[:200] if error else None,
        resolved=resolved if isinstance(resolved, bool) else None,
        evaluated_by="report" if isinstance(resolved, bool) else None,
        cost=float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost
        else None,
    )
    return with_patch(found, patch if isinstance(patch, str) else None)


def _request(event: dict[str, Any], index: int, where: str) -> TranscriptCall | None:
    metadata = event.get("tool_call_metadata")
    if not isinstance(metadata, dict):
        return None  # a message, a recall: not a tool call
    tool = must_be(
        metadata.get("function_name"), str, f"{where}.tool_call_metadata", "function_name"
    )
    call_id = metadata.get("tool_call_id")
    call_id = call_id if isinstance(call_id, str) and call_id else f"action-{event.get('id')}"
    arguments = _arguments_from_response(metadata, call_id, where)
    if arguments is None:
        args = event.get("args", {})
        args = must_be(args, dict, f"{where}.args", "args")
        arguments = {key: value for key, value in args.items() if key not in _NOT_ARGUMENTS}
    return TranscriptCall(
        call_id=call_id,
        tool_name=tool,
        arguments=arguments,
        requested_at=utc_time(event.get("timestamp"), f"{where}.timestamp"),
        position=(index, 0),  # after what the action says, at (index, -1, n)
        where=where,
    )


def _arguments_from_response(
    metadata: dict[str, Any], call_id: str, where: str
) -> dict[str, Any] | None:
    """The arguments the model gave the call, from the response OpenHands kept."""
    response = metadata.get("model_response")
    choices = response.get("choices") if isinstance(response, dict) else None
    for choice_number, choice in enumerate(choices if isinstance(choices, list) else []):
        message = choice.get("message") if isinstance(choice, dict) else None
        tool_calls = message.get("tool_calls") if isinstance(message, dict) else None
        for number, tool_call in enumerate(tool_calls if isinstance(tool_calls, list) else []):
            if not isinstance(tool_call, dict) or tool_call.get("id") != call_id:
                continue
            function = tool_call.get("function")
            text = function.get("arguments") if isinstance(function, dict) else None
            at = (
                f"{where}.tool_call_metadata.model_response.choices[{choice_number}]"
                f".message.tool_calls[{number}].function.arguments"
            )
            if not isinstance(text, str):
                raise Unreadable(at, "the arguments must be a JSON string")
            try:
                arguments = loads_shallow(text)
            except EnvelopeError as error:
                raise Unreadable(at, str(error)) from None
            return must_be(arguments, dict, at, "the arguments")  # type: ignore[no-any-return]
    return None


def _observe(
    event: dict[str, Any],
    index: int,
    where: str,
    by_action: dict[Any, TranscriptCall],
    calls: dict[str, TranscriptCall],
) -> None:
    kind = event.get("observation")
    at = utc_time(event.get("timestamp"), f"{where}.timestamp")
    cause = event.get("cause")
    if cause is None:
        if kind == "error":
            # A call that never became an action: asked for, and refused there and then.
            call_id = f"error-{event.get('id', index)}"
            reason = str(event.get("content") or event.get("message") or "error")
            calls[call_id] = TranscriptCall(
                call_id=call_id,
                tool_name="invalid_tool_call",
                arguments={},
                requested_at=at,
                position=(index,),
                where=where,
                end=rejected(at, (index, 1), reason, {"event_id": str(event.get("id"))}),
            )
        return
    call = by_action.get(_action_key(cause, f"{where}.cause"))
    if call is None:
        return  # the observation of a message or a recall: not a tool call's
    if call.end is not None:
        raise Unreadable(where, f"a second observation of action {cause}")
    extras = event.get("extras")
    details = extras.get("metadata") if isinstance(extras, dict) else None
    details = details if isinstance(details, dict) else {}
    metadata = {"event_id": str(event.get("id")), "observation": str(kind)}
    metadata.update(
        {
            key: str(value)
            for key, value in details.items()
            if key in {"pid", "working_dir", "hostname", "username"}
        }
    )
    if kind == "user_rejected":
        reason = str(event.get("content") or "the user rejected the action")
        call.end = rejected(at, (index,), reason, metadata)
        return
    exit_code = details.get("exit_code")
    output = text_of(event.get("content"))
    if kind == "edit" and _not_applied(output, extras):
        metadata = not_applied(metadata, output)
    code = exit_code if type(exit_code) is int and exit_code != NOT_EXITED else None
    call.end = completed(at, (index,), output, metadata, code)


def _not_applied(output: object, extras: object) -> bool:
    """Whether an edit observation says the edit changed nothing: its text is OpenHands'
    error (``ERROR:``) and it records no diff."""
    diff = extras.get("diff") if isinstance(extras, dict) else None
    return isinstance(output, str) and output.startswith("ERROR:") and not diff


def _action_key(value: object, where: str) -> object:
    """An action's ``id`` (or an observation's ``cause``): a number or a string, as
    OpenHands writes them; anything else cannot name an action."""
    if isinstance(value, (dict, list)):
        raise Unreadable(where, f"must be a number or a string, not a {type(value).__name__}")
    return value
