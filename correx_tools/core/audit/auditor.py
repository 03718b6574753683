"""One pass over a session's events, in order, giving each finding as it is found.

The auditor keeps, per session, only the calls in flight (their effects, until they end;
at most `MAX_OPEN`) and the flow tracker's bounded set: nothing else of the session is
held. A requested call is held to the call rules (`rules`), and its shell commands, written
text and network arguments are looked up in the flow tracker; a completed call's output is
scanned for secrets and, when the call reached the network or read an untrusted file,
tracked as a source of values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, final

from ..lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolInvocationRequestedEvent,
    plain_receipt,
    undecoded_text,
)
from ..report.redaction import Redaction
from ..tools.capability import ToolCapability
from ..tools.capability_table import CapabilityTable, ToolEntry
from ..tools.request import plain_arguments, undecoded_request
from .effects import Effects, effects_with
from .finding import RULES, Evidence, Finding, attempted, cut
from .flows import FlowRecorder, FlowTracker, Source
from .paths import inside, normalised
from .policy import CompiledPolicy
from .prefilter import may_hold_secret
from .rules import Call, call_findings, secret_in

MAX_OPEN = 4_096
"""Calls in flight kept at once; the oldest is let go past it (its output is then not
tracked)."""
MAX_OUTPUT = 1 << 20
"""Characters of one call's output looked at."""
MAX_REPEATS = 4_096
"""Requests whose call rules' answer is kept for the same request asked again (`_repeat_key`);
the oldest is let go past it."""
MAX_REPEAT_TEXT = 1_024
"""The longest request text (its event's JSON) whose answer is kept."""
MAX_REPEAT_CHARS = 1 << 20
"""Characters of the requests whose answers are kept, all together (with their decoded
arguments, a few MiB at most a session)."""
MAX_TOOLS = 1_024
"""Tools whose capability table row is kept looked up at once (the lookups are let go
past it)."""

_SINKS = (
    ("flow-into-shell", "a shell command"),
    ("flow-into-write", "a file write"),
    ("flow-into-network", "a network call"),
)


@final
@dataclass(frozen=True, slots=True)
class InFlight:
    """A call requested and not yet ended: its tool, its request's sequence, and why its
    output is a source of untrusted values (``None``: it is not)."""

    tool: str
    request: int
    why: str | None


_Answer = tuple[Mapping[str, Any], Effects, str | None, list[Finding]]
"""The call rules' answer to a request: its arguments, effects, why its output is untrusted
(``None``: it is not) and its findings."""


class SessionAuditor:
    """Audits one session's events as they are fed, in sequence order.

    ``format`` and ``workspace`` are what the session says of itself (its description),
    the policy's workspace winning; ``evidence`` gives an event's evidence value, asked only
    of the events a finding or a tracked value needs; ``declared`` maps a tool name to the
    capabilities its registered tool or MCP annotations state.

    A part of a session audited apart from the parts before it (``recording``) looks
    nothing up in a flow tracker of its own: it keeps what it would have tracked and looked
    up (`recorder`) for the join to replay, in order, through the session's
    one auditor (`track`, `knows`, `flows_of`, `carry`), which then finds what one pass finds.
    """

    def __init__(
        self,
        session: str,
        policy: CompiledPolicy,
        table: CapabilityTable,
        *,
        evidence: Callable[[StoredEvent], str],
        redaction: Redaction,
        format: str | None = None,
        workspace: str | None = None,
        declared: Mapping[str, frozenset[ToolCapability]] | None = None,
        recording: bool = False,
    ) -> None:
        self.session = session
        self._policy = policy
        self._table = table
        self._evidence = evidence
        self._redaction = redaction
        self._format = format
        self.workspace = policy.policy.workspace or workspace
        self._declared = declared or {}
        self._open: dict[str, InFlight] = {}
        self._entries: dict[str, ToolEntry | None] = {}
        self._repeats: dict[str, _Answer] = {}
        self._repeat_chars = 0
        least = policy.policy.flow_min_chars
        self._flows = FlowRecorder(least) if recording else FlowTracker(least)
        self.calls = 0
        self.peak = 0
        """The most calls in flight at once so far."""
        self.unknown: dict[str, int] = {}
        self.rejected: dict[int, str] = {}
        """The requests (by sequence) that were rejected, with why (masked and cut): their
        findings are attempts (`as_ended`). A call let go past `MAX_OPEN` is not known
        when it ends, and its findings stay as they were."""

    def feed(self, stored: StoredEvent) -> list[Finding]:
        """The findings ``stored`` (the session's next event) gives."""
        event = stored.event
        if isinstance(event, ToolInvocationRequestedEvent):
            return self._requested(stored, event)
        if isinstance(event, ToolExecutionCompletedEvent):
            return self._completed(stored, event)
        if isinstance(event, ToolExecutionRejectedEvent):
            opened = self._open.pop(event.invocation_id, None)
            if opened is not None:
                self.rejected[opened.request] = cut(self._redaction.text(event.reason), 120)
        elif isinstance(event, ToolExecutionFailedEvent):
            self._open.pop(event.invocation_id, None)
        return []

    def _requested(self, stored: StoredEvent, event: ToolInvocationRequestedEvent) -> list[Finding]:
        self.calls += 1
        key = _repeat_key(event)
        seen = None if key is None else self._repeats.get(key)
        if seen is None:
            call = self._call(stored, event)
            why = self._why_untrusted(call.effects)
            rules = list(call_findings(call, self._policy, self.workspace, self._redaction))
            if key is not None:
                self._keep(key, (call.arguments, call.effects, why, rules))
        else:
            arguments, effects, why, rules = seen
            call = Call(
                session=self.session, sequence=stored.sequence, tool=event.tool_name,
                arguments=arguments, effects=effects, value="",
            )  # fmt: skip
        if not call.effects.known:
            self.unknown[event.tool_name] = self.unknown.get(event.tool_name, 0) + 1
        if len(self._open) >= MAX_OPEN:
            del self._open[next(iter(self._open))]
        self._open[event.invocation_id] = InFlight(event.tool_name, stored.sequence, why)
        self.peak = max(self.peak, len(self._open))
        evidence = _once(self._evidence, stored)
        return _pinned(call, [*rules, *self.flow_findings(call, evidence)], evidence)

    def _keep(self, key: str, answer: _Answer) -> None:
        """Keep the call rules' ``answer`` to the request ``key``, the oldest let go past
        `MAX_REPEATS` requests or `MAX_REPEAT_CHARS` characters of them."""
        repeats = self._repeats
        self._repeat_chars += len(key)
        repeats[key] = answer
        while len(repeats) > MAX_REPEATS or self._repeat_chars > MAX_REPEAT_CHARS:
            oldest = next(iter(repeats))
            self._repeat_chars -= len(oldest)
            del repeats[oldest]

    def _call(self, stored: StoredEvent, event: ToolInvocationRequestedEvent) -> Call:
        # Events read from a store are decoded here as plain JSON, once, and not kept: the
        # store's text is handed to the secret rule's prefilter.
        arguments, text = plain_arguments(event.request)
        effects = effects_with(
            self._entry(event.tool_name), arguments, declared=self._declared.get(event.tool_name)
        )
        return Call(
            session=self.session, sequence=stored.sequence, tool=event.tool_name,
            arguments=arguments, effects=effects, value="", text=text,
        )  # fmt: skip

    def in_flight(self, invocation_id: str) -> bool:
        """Whether the call ``invocation_id`` was requested and has not ended (so far)."""
        return invocation_id in self._open

    @property
    def open_count(self) -> int:
        """How many calls are in flight."""
        return len(self._open)

    def open_calls(self) -> list[tuple[str, InFlight]]:
        """The calls in flight, the oldest first."""
        return list(self._open.items())

    def carry(self, calls: Iterable[tuple[str, InFlight]]) -> None:
        """Take ``calls`` (a later part's `open_calls`) as in flight after those already in
        flight; the join sees to it that no more than `MAX_OPEN` are then in flight."""
        self._open.update(calls)

    @property
    def recorder(self) -> FlowRecorder:
        """What a ``recording`` auditor keeps in place of tracking and looking up values
        (the caller takes them out as it goes)."""
        flows = self._flows
        assert isinstance(flows, FlowRecorder)
        return flows

    def track(self, keys: bytes, source: Source) -> None:
        """Track the hashed units ``keys`` (a source a part's `recorder` kept) as `feed`
        would have tracked them."""
        assert isinstance(self._flows, FlowTracker)
        self._flows.add_keys(keys, source)

    def knows(self, keys: bytes) -> bool:
        """Whether any of the hashed units ``keys`` (a sink a part's `recorder` kept) is
        tracked."""
        assert isinstance(self._flows, FlowTracker)
        return self._flows.knows(keys)

    def flows_of(self, stored: StoredEvent) -> list[Finding]:
        """The flow findings of the request ``stored`` against what is tracked now: what
        `feed` gives of it but its call rules' findings, and keeping nothing of it."""
        event = stored.event
        assert isinstance(event, ToolInvocationRequestedEvent)
        call = self._call(stored, event)
        evidence = _once(self._evidence, stored)
        return _pinned(call, list(self.flow_findings(call, evidence)), evidence)

    def _entry(self, tool: str) -> ToolEntry | None:
        """The capability table's row of ``tool`` in this session's format."""
        entries = self._entries
        if tool in entries:
            return entries[tool]
        if len(entries) >= MAX_TOOLS:
            entries.clear()
        found = entries[tool] = self._table.entry(self._format, tool)
        return found

    def _why_untrusted(self, effects: Effects) -> str | None:
        if ToolCapability.NETWORK_ACCESS in effects.capabilities:
            return "the network"
        policy = self._policy
        for path in effects.reads:
            where = normalised(path, self.workspace)
            if policy.untrusted(where):
                return f"an untrusted file ({cut(self._redaction.text(path), 80)!r})"
            if (
                policy.policy.reads_outside_workspace_untrusted
                and self.workspace is not None
                and inside(where, self.workspace) is False
            ):
                return f"a file outside the workspace ({cut(self._redaction.text(path), 80)!r})"
        return None

    def _completed(self, stored: StoredEvent, event: ToolExecutionCompletedEvent) -> list[Finding]:
        opened = self._open.pop(event.invocation_id, None)
        policy = self._policy.policy
        if opened is not None and opened.why is None:
            # A trusted call's output is read by the secret rule alone, whose prefilter reads
            # the store's text first: an output it clears is never decoded.
            spelled = undecoded_text(event.receipt)
            if not policy.secrets or (
                spelled is not None and not may_hold_secret(spelled, self._redaction)
            ):
                return []
        found, metadata, text = plain_receipt(event.receipt)
        tool = metadata.get("tool_name", "?") if opened is None else opened.tool
        evidence = _once(self._evidence, stored)
        findings: list[Finding] = []
        if policy.secrets and found is not None:
            where = secret_in(found, self._redaction, text)
            if where is not None:
                findings.append(Finding(
                    rule="secret-in-output", level=RULES["secret-in-output"][0],
                    session=self.session, tool=tool,
                    message=f"{tool}'s output holds a secret: {where}",
                    evidence=(Evidence(sequence=stored.sequence, role="output", value=evidence()),),
                ))  # fmt: skip
        if opened is not None and opened.why is not None and found is not None:
            source = Source(
                tool=tool, request=opened.request, sequence=stored.sequence,
                value=evidence(), why=opened.why,
            )  # fmt: skip
            self._flows.add(text_of(found), source)
        return findings

    def flow_findings(self, call: Call, evidence: Callable[[], str]) -> Iterator[Finding]:
        """The values of earlier untrusted calls ``call`` passes on."""
        effects = call.effects
        network = ToolCapability.NETWORK_ACCESS in effects.capabilities
        if not self._flows or not (effects.commands or effects.content or network):
            return  # nothing tracked yet, or nowhere to pass a value on
        sinks = (
            "\n".join(effects.commands),
            "\n".join(effects.content),
            text_of(call.arguments) if network and not effects.commands else "",
        )
        for (rule, what), text in zip(_SINKS, sinks, strict=True):
            if not text:
                continue
            for unit, source in self._flows.found(text):
                shown = cut(self._redaction.text(unit), 120)
                said = (f" {shown!r} into {what}; it came out of {source.tool} (sequence "
                        f"{source.sequence}), from {source.why}")  # fmt: skip
                yield Finding(
                    rule=rule, level=RULES[rule][0], session=self.session, tool=call.tool,
                    message=f"{call.tool} passed{said}", tried=f"{call.tool} asked to pass{said}",
                    evidence=(
                        Evidence(sequence=call.sequence, role="call", value=evidence()),
                        Evidence(sequence=source.sequence, role="source", value=source.value),
                    ),
                )  # fmt: skip


def as_ended(findings: Iterable[Finding], rejected: Mapping[int, str]) -> list[Finding]:
    """``findings`` as their calls ended: those of a request in ``rejected`` (an auditor's
    `SessionAuditor.rejected`) are attempts (`attempted`)."""
    if not rejected:
        return list(findings)
    return [attempted(f, rejected[f.sequence]) if f.sequence in rejected else f for f in findings]


def _repeat_key(event: ToolInvocationRequestedEvent) -> str | None:
    """What makes a request the same as an earlier one for the call rules: its event's
    stored JSON after the invocation id (its arguments, tier and tool; the JSON is canonical,
    its keys sorted, so the id comes first). Agents ask the same thing again and again (a
    file read, a search, a command), and the rules' answer to the same request is the same:
    it is kept for a short text. ``None`` for a request not read from a store's text, a long
    one, or an id the text spells otherwise (escaped)."""
    text = undecoded_request(event.request)
    if text is None or len(text) > MAX_REPEAT_TEXT:
        return None
    invocation = event.invocation_id
    if '"' in invocation or "\\" in invocation:
        return None
    head = f'{{"invocation_id":"{invocation}",'
    return text[len(head) :] if text.startswith(head) else None


def _once(evidence: Callable[[StoredEvent], str], stored: StoredEvent) -> Callable[[], str]:
    """``evidence(stored)``, worked out when first asked (most events need none)."""
    value: list[str] = []

    def once() -> str:
        if not value:
            value.append(evidence(stored))
        return value[0]

    return once


def _pinned(call: Call, found: list[Finding], evidence: Callable[[], str]) -> list[Finding]:
    """``found`` (``call``'s findings) each pinned to the call's evidence value."""
    if not found:
        return found
    pinned = Evidence(sequence=call.sequence, role="call", value=evidence())
    return [replace(finding, evidence=(pinned, *finding.evidence[1:])) for finding in found]


def text_of(value: Any) -> str:
    """Every string in a JSON value (objects read in key order), one a line, to `MAX_OUTPUT`
    characters."""
    parts: list[str] = []
    size = 0
    stack = [value]
    while stack and size < MAX_OUTPUT:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item[: MAX_OUTPUT - size])
            size += len(parts[-1]) + 1
        elif isinstance(item, Mapping):
            stack.extend(reversed([item[key] for key in sorted(item, key=str)]))
        elif isinstance(item, Sequence):
            stack.extend(reversed(list(item)))
    return "\n".join(parts)
