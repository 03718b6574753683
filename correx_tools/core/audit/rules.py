"""The call rules: one recorded call held to the policy.

Each rule looks at one call's effects (`effects`) and arguments, and gives the findings
of that call alone: a capability not allowed, a denied path read or written, a write
outside the workspace, a denied command, a secret in its arguments. A call refused before
it ran is held to them too: the agent asked for it. Every value quoted in a message is
masked first and cut after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, final

from pyrsistent import thaw

from ..report.redaction import MASK, Redaction
from .effects import Effects
from .finding import RULES, Evidence, Finding, cut
from .policy import CompiledPolicy, inside, normalised


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One requested call as the rules see it; ``value``: its request's evidence value."""

    session: str
    sequence: int
    tool: str
    arguments: Mapping[str, Any]
    effects: Effects
    value: str


def call_findings(
    call: Call, policy: CompiledPolicy, workspace: str | None, redaction: Redaction
) -> Iterator[Finding]:
    """Every finding of ``call`` alone, in the order of `RULES`."""
    shown = _shower(redaction)

    def finding(rule: str, message: str) -> Finding:
        return Finding(
            rule=rule, level=RULES[rule][0], session=call.session, tool=call.tool,
            message=message,
            evidence=(Evidence(sequence=call.sequence, role="call", value=call.value),),
        )  # fmt: skip

    effects = call.effects
    for capability in sorted(effects.capabilities - policy.policy.allowed, key=lambda c: c.value):
        yield finding(
            "capability-not-allowed",
            f"{call.tool} used {capability.value}, which the policy does not allow",
        )
    for verb, paths in (("read", effects.reads), ("wrote", effects.writes)):
        for path in paths:
            glob = policy.denied_path(normalised(path, workspace))
            if glob is not None:
                yield finding(
                    "path-denied", f"{call.tool} {verb} {shown(path)} (denied by {glob!r})"
                )
    if policy.policy.writes_outside_workspace and workspace is not None:
        for path in effects.writes:
            if inside(normalised(path, workspace), workspace) is False:
                yield finding(
                    "write-outside-workspace",
                    f"{call.tool} wrote {shown(path)}, outside the workspace {shown(workspace)}",
                )
    for command in effects.commands:
        denied = policy.denied_command(command)
        if denied is not None:
            yield finding("command-denied", f"{call.tool} ran {shown(command)} ({denied.name})")
    if policy.policy.secrets:
        where = secret_in(call.arguments, redaction)
        if where is not None:
            yield finding("secret-in-arguments", f"{call.tool} was given a secret: {where}")


def _shower(redaction: Redaction) -> Callable[[str], str]:
    def shown(text: str) -> str:
        return repr(cut(redaction.text(text)))

    return shown


def secret_in(value: Any, redaction: Redaction) -> str | None:
    """Where the first secret in a frozen JSON value is (``key: masked text``), or ``None``."""
    plain = thaw(value)
    masked = redaction.masked(plain)
    if masked == plain:
        return None
    return _first_difference(plain, masked, "")


def _first_difference(plain: Any, masked: Any, path: str) -> str:
    """The first place ``masked`` differs from ``plain``, and its masked text there."""
    if isinstance(plain, dict) and isinstance(masked, dict):
        for key, item in plain.items():
            if masked.get(key) != item:
                return _first_difference(item, masked.get(key), f"{path}.{key}" if path else key)
    if isinstance(plain, list) and isinstance(masked, list):
        for n, (item, other) in enumerate(zip(plain, masked, strict=False)):
            if item != other:
                return _first_difference(item, other, f"{path}[{n}]")
    text = masked if isinstance(masked, str) else MASK
    return f"{path or 'value'}: {cut(_around_mask(text))!r}"


def _around_mask(text: str) -> str:
    """The masked text near its first mask (a long text: the line that holds it)."""
    at = text.find(MASK)
    if at < 0 or len(text) <= 120:
        return text
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end >= 0 else len(text)]
