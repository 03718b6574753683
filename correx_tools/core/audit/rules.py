"""The call rules: one recorded call held to the policy.

Each rule looks at one call's effects (`effects`) and arguments, and gives the findings
of that call alone: a capability not allowed, a denied path read or written, a write
outside the workspace, a denied command, a secret in its arguments; and a call that could
not be judged whole, because the import cut its arguments to fit a store or a bound of the
audit's own was passed (a command padded past a bound must not hide its tail). A call
refused before it ran is held to them too: the agent asked for it; each finding says what
the call did, and what it asked to do (`Finding.tried`), for the one that is rejected
(`attempted`). Every value quoted in a message is masked first and cut after.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, final

from pyrsistent import thaw

from ..report.redaction import MASK, SECRET_NAMES, Redaction
from .effects import Effects
from .finding import RULES, Evidence, Finding, cut
from .paths import inside, normalised
from .policy import CompiledPolicy
from .prefilter import may_hold_secret


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One requested call as the rules see it; ``value``: its request's evidence value;
    ``text``: the JSON text its arguments were read from, when they were (`secret_in`)."""

    session: str
    sequence: int
    tool: str
    arguments: Mapping[str, Any]
    effects: Effects
    value: str
    text: str | None = None


def call_findings(
    call: Call, policy: CompiledPolicy, workspace: str | None, redaction: Redaction
) -> Iterator[Finding]:
    """Every finding of ``call`` alone, in the order of `RULES`."""
    effects = call.effects
    tool = call.tool
    not_allowed = effects.capabilities - policy.policy.allowed
    for capability in sorted(not_allowed, key=lambda c: c.value) if not_allowed else ():
        said = f" {capability.value}, which the policy does not allow"
        yield _finding(call, "capability-not-allowed", f"{tool} used{said}",
                       tried=f"{tool} asked to use{said}")  # fmt: skip
    for (did, verb), paths in ((("read", "read"), effects.reads),
                               (("wrote", "write"), effects.writes)):  # fmt: skip
        for path in paths:
            glob = policy.denied_path(normalised(path, workspace))
            if glob is not None:
                said = f" {_shown(redaction, path)} (denied by {glob!r})"
                yield _finding(call, "path-denied", f"{tool} {did}{said}",
                               tried=f"{tool} asked to {verb}{said}")  # fmt: skip
    if policy.policy.writes_outside_workspace and workspace is not None:
        for path in effects.writes:
            if inside(normalised(path, workspace), workspace) is False:
                said = (f" {_shown(redaction, path)}, outside the workspace "
                        f"{_shown(redaction, workspace)}")  # fmt: skip
                yield _finding(call, "write-outside-workspace", f"{tool} wrote{said}",
                               tried=f"{tool} asked to write{said}")  # fmt: skip
    for command in effects.commands:
        denied = policy.denied_command(command)
        if denied is not None:
            said = f" {_shown(redaction, command)} ({denied.name})"
            yield _finding(call, "command-denied", f"{tool} ran{said}",
                           tried=f"{tool} asked to run{said}")  # fmt: skip
    if policy.policy.secrets:
        where = secret_in(call.arguments, redaction, call.text)
        if where is not None:
            yield _finding(call, "secret-in-arguments", f"{tool} was given a secret: {where}")
    unread = [*(f"the import cut {note}" for note in cut_notes(call)), *effects.cut]
    if unread:
        said = "; ".join(cut(redaction.text(reason), 160) for reason in unread[:4])
        yield _finding(call, "not-audited-whole", f"{tool} could not be audited whole: {said}")


CUT_MARK = "[cut: "
"""How the import names a value it cut or replaced to fit a store: a last line
``[cut: arguments.command: 1,258,291 bytes, sha256:…]`` of a cut string, or the whole
string in place of a value too large or too deeply nested."""


def cut_notes(call: Call) -> list[str]:
    """What the import cut of ``call``'s arguments, as its marks say (the store's text is
    searched first: most calls have none)."""
    if call.text is not None and CUT_MARK not in call.text:
        return []
    notes: list[str] = []
    stack: list[Any] = [call.arguments]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            at = item.rfind(CUT_MARK)
            if at >= 0 and item.endswith("]") and (at == 0 or item[at - 1] == "\n"):
                notes.append(item[at + len(CUT_MARK) : -1])
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, Sequence):
            stack.extend(item)
    return sorted(notes)


def _finding(call: Call, rule: str, message: str, *, tried: str = "") -> Finding:
    return Finding(
        rule=rule, level=RULES[rule][0], session=call.session, tool=call.tool, message=message,
        evidence=(Evidence(sequence=call.sequence, role="call", value=call.value),),
        tried=tried,
    )  # fmt: skip


def _shown(redaction: Redaction, text: str) -> str:
    """``text`` quoted in a message: masked, then cut."""
    return repr(cut(redaction.text(text)))


def secret_in(value: Any, redaction: Redaction, text: str | None = None) -> str | None:
    """Where the first secret in a JSON value is (``key: masked text``, objects read in key
    order), or ``None``; ``text``: a JSON text that spells every string and member name of
    ``value`` (the store's text it was read from), read first by the prefilter."""
    if text is not None and not may_hold_secret(text, redaction):
        return None
    if not _may_hold_secret(value, redaction):
        return None
    plain = thaw(value)
    masked = redaction.masked(plain)
    if masked == plain:
        return None
    return _first_difference(plain, masked, "")


def _may_hold_secret(value: Any, redaction: Redaction) -> bool:
    """Whether masking could change ``value``: a member named like a secret holding
    something, or a secret's shape in its strings and names, all scanned as one text. Never
    false where `Redaction.masked` would mask; true now and then where it would not (a
    match across two strings): `secret_in` then finds nothing."""
    texts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, Mapping):
            for key, member in item.items():
                name = str(key)
                texts.append(name)
                if _secret_name(name) and not _empty(member):
                    return True
                stack.append(member)
        elif isinstance(item, Sequence):
            stack.extend(item)
    joined = "\n".join(texts)
    return bool(joined) and redaction.text(joined) != joined


def _empty(member: Any) -> bool:
    """What masking by name leaves as it is: nothing, a flag, an empty string."""
    return member is None or member is True or member is False or member == ""


@functools.lru_cache(maxsize=4_096)
def _secret_name(name: str) -> bool:
    return SECRET_NAMES.match(name) is not None


def _first_difference(plain: Any, masked: Any, path: str) -> str:
    """The first place ``masked`` differs from ``plain``, and its masked text there."""
    if isinstance(plain, dict) and isinstance(masked, dict):
        for key in sorted(plain, key=str):
            item = plain[key]
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
