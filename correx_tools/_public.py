"""The package's public names: where each lives, and the surfaces that offer it.

The one table every surface derives its ``__all__`` and its lookups from: the top level
(``correx_tools``: the contract of the specification) and the topics beside it
(`correx_tools.stores`, `.transcripts`, `.history`, `.conversation`, `.formats`). A name is
imported when it is first asked for, so a program pays only for what it uses. Every name
stays importable from the top level. What type checkers read is each surface's own block
of imports, which ``tests/test_architecture.py`` holds equal to this table: a static
checker cannot read a table, and that block is the only other place a name is written.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

TOP = ""
"""The top level's surface name."""

NAMES: dict[str, tuple[str, tuple[str, ...]]] = {
    "MAX_EVENT_BYTES": ("shell.stores.codec.envelope", ("stores",)),
    "TRANSITIONS": ("core.lifecycle.transitions", ("history",)),
    "AppendError": ("shell.stores.port", ("", "stores")),
    "AppendErrorKind": ("shell.stores.port", ("stores",)),
    "AssistantText": ("core.lifecycle.conversation", ("conversation",)),
    "CompiledSchema": ("core.tools.schema.compiled", ("formats",)),
    "ConversationEvent": ("core.lifecycle.conversation", ("conversation",)),
    "CorrexError": ("core.tools.errors", ("",)),
    "DefaultToolReducer": ("core.lifecycle.reducer", ("",)),
    "DefaultToolRepository": ("shell.replay.repository", ("", "stores")),
    "DiffSummary": ("core.replay.summary", ("history",)),
    "DuplicateInvocation": ("shell.replay.repository", ("stores",)),
    "Durations": ("core.replay.analytics", ("history",)),
    "EventDecodeError": ("core.replay.errors", ("history",)),
    "EventReplayer": ("shell.replay.replayer", ("", "stores")),
    "EventStore": ("shell.stores.port", ("", "stores")),
    "FileAffectingTool": ("core.tools.tool", ("",)),
    "FormatError": ("core.tools.formats._reader", ("formats",)),
    "ImportOptions": ("shell.transcripts.importing.options", ("transcripts",)),
    "InMemoryEventStore": ("shell.stores.memory", ("", "stores")),
    "InMemoryToolRegistry": ("core.tools.registry", ("",)),
    "Invalid": ("core.tools.validation", ("", "formats")),
    "InvocationId": ("core.tools.ids", ("",)),
    "JsonlEventLog": ("shell.stores.jsonl", ("", "stores")),
    "McpPolicy": ("core.tools.formats.mcp", ("formats",)),
    "OpaqueEvent": ("core.lifecycle.events", ("",)),
    "PathError": ("core.tools.paths", ("formats",)),
    "Percentiles": ("core.replay.analytics", ("history",)),
    "PostgresEventStore": ("shell.stores.postgres", ("", "stores")),
    "Projection": ("core.replay.projection", ("", "history")),
    "Prompt": ("core.lifecycle.conversation", ("conversation",)),
    "Reasoning": ("core.lifecycle.conversation", ("conversation",)),
    "RecordChange": ("core.replay.timeline", ("", "history")),
    "RecordError": ("shell.recording.errors", ("stores",)),
    "RecordErrorKind": ("shell.recording.errors", ("stores",)),
    "RegistryError": ("core.tools.registry", ("", "formats")),
    "RegistryErrorKind": ("core.tools.registry", ("formats",)),
    "Replay": ("core.replay.fold", ("", "history")),
    "ReplayAll": ("shell.replay.parallel", ("stores",)),
    "ReplayError": ("core.replay.errors", ("", "history")),
    "Retention": ("core.replay.retention", ("", "history")),
    "RetentionKind": ("core.replay.retention", ("history",)),
    "RunRecord": ("shell.recording.recorder", ("stores",)),
    "SQLiteEventStore": ("shell.stores.sqlite", ("", "stores")),
    "SchemaError": ("core.tools.schema.compiled", ("formats",)),
    "SequenceError": ("core.replay.errors", ("history",)),
    "SequenceErrorKind": ("core.replay.errors", ("history",)),
    "SessionId": ("core.tools.ids", ("",)),
    "SessionRecorder": ("shell.recording.recorder", ("", "stores")),
    "SessionSummary": ("core.replay.summary", ("history",)),
    "StoreLayoutError": ("shell.stores.port", ("stores",)),
    "StoreReadError": ("shell.stores.port", ("stores",)),
    "StoredEvent": ("core.lifecycle.events", ("",)),
    "Tier": ("core.tools.tier", ("",)),
    "Timeline": ("core.replay.timeline", ("", "history")),
    "TokenUsage": ("core.lifecycle.conversation", ("conversation",)),
    "Tool": ("core.tools.tool", ("",)),
    "ToolCapability": ("core.tools.capability", ("",)),
    "ToolEvent": ("core.lifecycle.events", ("",)),
    "ToolExecutionCompletedEvent": ("core.lifecycle.events", ("",)),
    "ToolExecutionFailedEvent": ("core.lifecycle.events", ("",)),
    "ToolExecutionRejectedEvent": ("core.lifecycle.events", ("",)),
    "ToolExecutionStartedEvent": ("core.lifecycle.events", ("",)),
    "ToolExecutor": ("core.tools.executor", ("",)),
    "ToolFailure": ("core.tools.executor", ("",)),
    "ToolInvocationRecord": ("core.lifecycle.record", ("",)),
    "ToolInvocationRequestedEvent": ("core.lifecycle.events", ("",)),
    "ToolInvocationStatus": ("core.lifecycle.status", ("",)),
    "ToolOutcome": ("core.tools.result_messages", ("formats",)),
    "ToolProjector": ("core.replay.projection", ("", "history")),
    "ToolReceipt": ("core.lifecycle.events", ("",)),
    "ToolReducer": ("core.lifecycle.reducer", ("",)),
    "ToolRegistry": ("core.tools.registry", ("",)),
    "ToolRequest": ("core.tools.request", ("",)),
    "ToolResult": ("core.tools.executor", ("",)),
    "ToolSpec": ("core.tools.spec", ("", "formats")),
    "ToolState": ("core.lifecycle.state", ("",)),
    "ToolStats": ("core.replay.analytics", ("history",)),
    "ToolSuccess": ("core.tools.executor", ("",)),
    "TranscriptError": ("shell.transcripts.errors", ("transcripts",)),
    "TranscriptImport": ("shell.transcripts.importing.importing", ("transcripts",)),
    "TransitionError": ("core.lifecycle.transitions", ("", "history")),
    "TransitionErrorKind": ("core.lifecycle.transitions", ("history",)),
    "UnresolvedId": ("core.tools.short_ids", ("formats",)),
    "Usage": ("core.lifecycle.conversation", ("conversation",)),
    "Valid": ("core.tools.validation", ("", "formats")),
    "ValidationLimits": ("core.tools.validation", ("formats",)),
    "ValidationResult": ("core.tools.validation", ("", "formats")),
    "Violation": ("core.tools.validation", ("formats",)),
    "Workspace": ("shell.workspace", ("transcripts",)),
    "check_relative_path": ("core.tools.paths", ("formats",)),
    "compare_sessions": ("shell.runs", ("transcripts",)),
    "compile_schema": ("core.tools.schema.compiled", ("formats",)),
    "conversation_event": ("core.lifecycle.conversation", ("conversation",)),
    "conversation_of": ("core.lifecycle.conversation", ("conversation",)),
    "durations": ("core.replay.analytics", ("", "history")),
    "fold_events": ("core.replay.fold", ("", "history")),
    "follow": ("shell.replay.follow", ("stores",)),
    "freeze_json": ("core.tools.json_values", ("formats",)),
    "import_transcript": ("shell.transcripts.importing.importing", ("", "transcripts")),
    "in_flight": ("core.replay.analytics", ("", "history")),
    "invocation_id": ("core.tools.ids", ("",)),
    "outcome_text": ("core.tools.result_messages", ("formats",)),
    "portable_name": ("core.tools.definitions", ("formats",)),
    "replay_all": ("shell.replay.parallel", ("stores",)),
    "session_id": ("core.tools.ids", ("",)),
    "short_invocation_id": ("core.tools.short_ids", ("formats",)),
    "split_runs": ("shell.runs", ("transcripts",)),
    "stuck": ("core.replay.analytics", ("", "history")),
    "thaw_json": ("core.tools.json_values", ("", "formats")),
    "to_anthropic_result": ("core.tools.result_messages", ("formats",)),
    "to_mcp_result": ("core.tools.result_messages", ("formats",)),
    "to_openai_result": ("core.tools.result_messages", ("formats",)),
    "tool_definitions": ("core.tools.definitions", ("formats",)),
    "tool_stats": ("core.replay.analytics", ("", "history")),
    "validate_request": ("core.tools.validation", ("", "formats")),
    "without_strict_nulls": ("core.tools.formats.openai_strict", ("formats",)),
}
"""Each public name: its module (under the package) and the surfaces that offer it."""


def names(surface: str) -> list[str]:
    """The names ``surface`` offers, in the order ``__all__`` lists them (constants, types,
    functions, each alphabetical)."""
    found = [name for name, (_, offered) in NAMES.items() if surface in offered]
    return sorted(found, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n))


def attach(
    package: str, surface: str
) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """What makes ``package`` the surface ``surface``: its ``__getattr__``, ``__dir__`` and
    ``__all__`` (``__getattr__, __dir__, __all__ = attach(__name__, "stores")``).

    ``__getattr__`` gives a name the surface offers (at the top level, any public name),
    imported from its module when first asked for and kept in the surface's namespace;
    ``__dir__`` lists the namespace and every name offered, imported or not."""
    namespace = importlib.import_module(package).__dict__
    offered = names(surface)

    def found(name: str) -> object:
        entry = NAMES.get(name)
        if entry is None or (surface != TOP and surface not in entry[1]):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value: object = getattr(importlib.import_module(f"correx_tools.{entry[0]}"), name)
        namespace[name] = value  # asked once: later lookups find it without this function
        return value

    def listed() -> list[str]:
        return sorted({*namespace, *offered})

    return found, listed, offered
