"""How a tool call reads best, by what the tool did: an edit as a diff, a shell call as its
terminal, a subagent's call as a link to the subagent's session.

`tool_view` gives the pages plain data to draw (`core.report.edits` reads the
edits): ``{"kind": "edit", "applied": true, "files": [...]}``, ``{"kind":
"shell", "command", "output", "exit_code", "status"}`` or ``None`` for a call
read best as its arguments and output. Every string in it is masked by the
redaction the page uses, as everything else the page shows; the page sets each
as text.

A diff says what an edit changed, so an edit gets one only when it took
effect: it completed, and its receipt does not say the tool changed nothing
(``edit_applied: "false"``). Any other edit is ``{"kind": "edit", "applied":
false, "why", "status", "paths"}``: in words, why nothing changed (the tool's
own note, the failure's reason, ``refused before it ran``, ``not finished``),
and the files it was about, with no hunks.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.status import ToolInvocationStatus
from ..replay.recorded import edit_not_applied, exit_code_of
from ..replay.stored_index import InvocationEntry, record_at
from ..tools.json_values import thaw_json
from .edits import edit_of
from .redaction import Redaction

MAX_OUTPUT = 200_000
"""Characters of a shell call's output a view holds (the rest is counted)."""

SHELL_TOOLS = frozenset(
    {
        "Bash", "bash", "shell", "shell_command", "local_shell", "run_shell_command",
        "execute_bash", "execute_command", "developer__shell", "run_command", "exec_command",
        "run_terminal_cmd", "terminal",
    }
)  # fmt: skip
"""Tools that run a command in a shell, by the name each agent gives it."""

SUBAGENT_SESSION = "subagent_session"
"""The receipt metadata that names the session a call started (a subagent's)."""


def tool_view(record: ToolInvocationRecord, redaction: Redaction | None) -> dict[str, Any] | None:
    """The view of one call as it stands in ``record`` (see the module docstring)."""
    masked = _Masked(redaction)
    # Masked whole before anything is split into lines or cut: a key's lines would each
    # look like nothing, and a token across the cut would be half shown.
    arguments = masked.value(thaw_json(record.request.arguments))
    if not isinstance(arguments, Mapping):
        return None
    files = edit_of(record.tool_name, arguments)
    if files is not None:
        why = _not_applied(record, masked)
        if why is None:
            return {"kind": "edit", "applied": True, "files": files}
        return {
            "kind": "edit",
            "applied": False,
            "why": why,
            "status": record.status.value,
            "paths": [f["path"] for f in files],
        }
    if record.tool_name in SHELL_TOOLS or record.tool_name.endswith("__shell"):
        command = command_of(arguments)
        if command is not None:
            return _shell(record, command, masked)
    return None


def views_of(
    entries: Mapping[int, InvocationEntry],
    last: int,
    positions: Iterable[str],
    redaction: Redaction | None,
) -> dict[str, dict[str, Any]]:
    """The views of the calls at ``positions`` (the report's details, by position in
    ``entries``), each as it stands at ``last``: what the report adds for its views."""
    views = {}
    for key in positions:
        record = record_at(entries[int(key)], last)
        view = None if record is None else tool_view(record, redaction)
        if view is not None:
            views[key] = view
    return views


def subagent_of(record: ToolInvocationRecord) -> str | None:
    """The session a call started, when its receipt names one (a subagent's)."""
    receipt = record.receipt
    if receipt is None:
        return None
    named = receipt.metadata.get(SUBAGENT_SESSION)
    return named if isinstance(named, str) and named else None


def command_of(arguments: Mapping[str, Any]) -> str | None:
    """The command line a shell call ran, as a person would type it."""
    command = arguments.get("command", arguments.get("cmd"))
    if isinstance(command, str):
        return command
    if isinstance(command, list) and command and all(isinstance(p, str) for p in command):
        if len(command) == 3 and command[1] in ("-lc", "-c") and command[0].endswith("sh"):
            return str(command[2])  # bash -lc "…": the script is what was typed
        return shlex.join(command)
    return None


def _not_applied(record: ToolInvocationRecord, masked: _Masked) -> str | None:
    """Why an edit changed nothing, in words (masked whole, then cut); ``None`` for one that
    took effect."""
    status = record.status
    if status is ToolInvocationStatus.COMPLETED:
        note = edit_not_applied(record.receipt)
        return None if note is None else masked.short(note)
    if status is ToolInvocationStatus.FAILED:
        return masked.short(record.reason or "it failed")
    if status is ToolInvocationStatus.REJECTED:
        reason = record.reason
        return "refused before it ran" + ("" if not reason else f": {masked.short(reason)}")
    return "not finished"


def _shell(record: ToolInvocationRecord, command: str, masked: _Masked) -> dict[str, Any]:
    receipt = record.receipt
    status = record.status
    if receipt is not None:
        output: str | None = output_text(masked.value(thaw_json(receipt.output)))
        exit_code = exit_code_of(receipt)
    else:
        output = None if record.reason is None else masked.value(record.reason)
        exit_code = None
    cut = 0
    if output is not None and len(output) > MAX_OUTPUT:
        output, cut = output[:MAX_OUTPUT], len(output) - MAX_OUTPUT
    return {
        "kind": "shell",
        "command": command,
        "output": output,
        "cut": cut,
        "exit_code": exit_code,
        "status": status.value,
        "ran": status not in (ToolInvocationStatus.REQUESTED, ToolInvocationStatus.REJECTED),
    }


def output_text(output: Any) -> str | None:
    """A call's output as the terminal showed it."""
    if output is None or isinstance(output, str):
        return output
    if isinstance(output, Mapping):
        parts = [output.get(k) for k in ("output", "stdout", "stderr", "content", "text")]
        texts = [part for part in parts if isinstance(part, str) and part]
        if texts:
            return "\n".join(texts)
    if isinstance(output, list) and all(isinstance(part, str) for part in output):
        return "\n".join(output)
    return json.dumps(output, ensure_ascii=False, indent=2)


class _Masked:
    """A call's values masked as the page masks, by shape and by member name, whole (never
    cut: the view has its own limits, applied after)."""

    def __init__(self, redaction: Redaction | None) -> None:
        self.redaction = redaction

    def value(self, value: Any) -> Any:
        return value if self.redaction is None else self.redaction.masked(value)

    def short(self, text: str) -> str:
        """A sentence the view says: masked whole, then cut to `MAX_WHY` characters."""
        shown: str = self.value(text)
        return shown if len(shown) <= MAX_WHY else shown[:MAX_WHY] + "…"


MAX_WHY = 2_000
"""Characters of a reason a view says (the call's history has it whole)."""
