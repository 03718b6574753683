"""correx_tools: tool contracts and an exact, replayable history of every tool invocation.

Everything public is importable from here:

    from correx_tools import DefaultToolReducer, ToolState, fold_events
"""

import importlib as _importlib
import typing as _typing

from ._version import __version__ as __version__

if _typing.TYPE_CHECKING:
    from .core.lifecycle.conversation import AssistantText as AssistantText
    from .core.lifecycle.conversation import ConversationEvent as ConversationEvent
    from .core.lifecycle.conversation import Prompt as Prompt
    from .core.lifecycle.conversation import Reasoning as Reasoning
    from .core.lifecycle.conversation import TokenUsage as TokenUsage
    from .core.lifecycle.conversation import Usage as Usage
    from .core.lifecycle.conversation import conversation_event as conversation_event
    from .core.lifecycle.conversation import conversation_of as conversation_of
    from .core.lifecycle.events import OpaqueEvent as OpaqueEvent
    from .core.lifecycle.events import StoredEvent as StoredEvent
    from .core.lifecycle.events import ToolEvent as ToolEvent
    from .core.lifecycle.events import ToolExecutionCompletedEvent as ToolExecutionCompletedEvent
    from .core.lifecycle.events import ToolExecutionFailedEvent as ToolExecutionFailedEvent
    from .core.lifecycle.events import ToolExecutionRejectedEvent as ToolExecutionRejectedEvent
    from .core.lifecycle.events import ToolExecutionStartedEvent as ToolExecutionStartedEvent
    from .core.lifecycle.events import ToolInvocationRequestedEvent as ToolInvocationRequestedEvent
    from .core.lifecycle.events import ToolReceipt as ToolReceipt
    from .core.lifecycle.record import ToolInvocationRecord as ToolInvocationRecord
    from .core.lifecycle.reducer import DefaultToolReducer as DefaultToolReducer
    from .core.lifecycle.reducer import ToolReducer as ToolReducer
    from .core.lifecycle.state import ToolState as ToolState
    from .core.lifecycle.status import ToolInvocationStatus as ToolInvocationStatus
    from .core.lifecycle.transitions import TRANSITIONS as TRANSITIONS
    from .core.lifecycle.transitions import TransitionError as TransitionError
    from .core.lifecycle.transitions import TransitionErrorKind as TransitionErrorKind
    from .core.replay.analytics import Durations as Durations
    from .core.replay.analytics import Percentiles as Percentiles
    from .core.replay.analytics import ToolStats as ToolStats
    from .core.replay.analytics import durations as durations
    from .core.replay.analytics import in_flight as in_flight
    from .core.replay.analytics import stuck as stuck
    from .core.replay.analytics import tool_stats as tool_stats
    from .core.replay.errors import EventDecodeError as EventDecodeError
    from .core.replay.errors import ReplayError as ReplayError
    from .core.replay.errors import SequenceError as SequenceError
    from .core.replay.errors import SequenceErrorKind as SequenceErrorKind
    from .core.replay.fold import Replay as Replay
    from .core.replay.fold import fold_events as fold_events
    from .core.replay.projection import Projection as Projection
    from .core.replay.projection import ToolProjector as ToolProjector
    from .core.replay.retention import Retention as Retention
    from .core.replay.retention import RetentionKind as RetentionKind
    from .core.replay.summary import DiffSummary as DiffSummary
    from .core.replay.summary import SessionSummary as SessionSummary
    from .core.replay.timeline import RecordChange as RecordChange
    from .core.replay.timeline import Timeline as Timeline
    from .core.tools.capability import ToolCapability as ToolCapability
    from .core.tools.definitions import portable_name as portable_name
    from .core.tools.definitions import tool_definitions as tool_definitions
    from .core.tools.errors import CorrexError as CorrexError
    from .core.tools.executor import ToolExecutor as ToolExecutor
    from .core.tools.executor import ToolFailure as ToolFailure
    from .core.tools.executor import ToolResult as ToolResult
    from .core.tools.executor import ToolSuccess as ToolSuccess
    from .core.tools.formats._reader import FormatError as FormatError
    from .core.tools.formats.mcp import McpPolicy as McpPolicy
    from .core.tools.formats.openai_strict import without_strict_nulls as without_strict_nulls
    from .core.tools.ids import InvocationId as InvocationId
    from .core.tools.ids import SessionId as SessionId
    from .core.tools.ids import invocation_id as invocation_id
    from .core.tools.ids import session_id as session_id
    from .core.tools.json_values import freeze_json as freeze_json
    from .core.tools.json_values import thaw_json as thaw_json
    from .core.tools.paths import PathError as PathError
    from .core.tools.paths import check_relative_path as check_relative_path
    from .core.tools.registry import InMemoryToolRegistry as InMemoryToolRegistry
    from .core.tools.registry import RegistryError as RegistryError
    from .core.tools.registry import RegistryErrorKind as RegistryErrorKind
    from .core.tools.registry import ToolRegistry as ToolRegistry
    from .core.tools.request import ToolRequest as ToolRequest
    from .core.tools.result_messages import ToolOutcome as ToolOutcome
    from .core.tools.result_messages import outcome_text as outcome_text
    from .core.tools.result_messages import to_anthropic_result as to_anthropic_result
    from .core.tools.result_messages import to_mcp_result as to_mcp_result
    from .core.tools.result_messages import to_openai_result as to_openai_result
    from .core.tools.schema.compiled import CompiledSchema as CompiledSchema
    from .core.tools.schema.compiled import SchemaError as SchemaError
    from .core.tools.schema.compiled import compile_schema as compile_schema
    from .core.tools.short_ids import UnresolvedId as UnresolvedId
    from .core.tools.short_ids import short_invocation_id as short_invocation_id
    from .core.tools.spec import ToolSpec as ToolSpec
    from .core.tools.tier import Tier as Tier
    from .core.tools.tool import FileAffectingTool as FileAffectingTool
    from .core.tools.tool import Tool as Tool
    from .core.tools.validation import Invalid as Invalid
    from .core.tools.validation import Valid as Valid
    from .core.tools.validation import ValidationLimits as ValidationLimits
    from .core.tools.validation import ValidationResult as ValidationResult
    from .core.tools.validation import Violation as Violation
    from .core.tools.validation import validate_request as validate_request
    from .shell.recording.errors import RecordError as RecordError
    from .shell.recording.errors import RecordErrorKind as RecordErrorKind
    from .shell.recording.recorder import RunRecord as RunRecord
    from .shell.recording.recorder import SessionRecorder as SessionRecorder
    from .shell.replay.follow import follow as follow
    from .shell.replay.parallel import ReplayAll as ReplayAll
    from .shell.replay.parallel import replay_all as replay_all
    from .shell.replay.replayer import EventReplayer as EventReplayer
    from .shell.replay.repository import DefaultToolRepository as DefaultToolRepository
    from .shell.replay.repository import DuplicateInvocation as DuplicateInvocation
    from .shell.runs import compare_sessions as compare_sessions
    from .shell.runs import split_runs as split_runs
    from .shell.stores.codec.envelope import MAX_EVENT_BYTES as MAX_EVENT_BYTES
    from .shell.stores.jsonl import JsonlEventLog as JsonlEventLog
    from .shell.stores.memory import InMemoryEventStore as InMemoryEventStore
    from .shell.stores.port import AppendError as AppendError
    from .shell.stores.port import AppendErrorKind as AppendErrorKind
    from .shell.stores.port import EventStore as EventStore
    from .shell.stores.port import StoreLayoutError as StoreLayoutError
    from .shell.stores.port import StoreReadError as StoreReadError
    from .shell.stores.postgres import PostgresEventStore as PostgresEventStore
    from .shell.stores.sqlite import SQLiteEventStore as SQLiteEventStore
    from .shell.transcripts.errors import TranscriptError as TranscriptError
    from .shell.transcripts.importing.importing import TranscriptImport as TranscriptImport
    from .shell.transcripts.importing.importing import import_transcript as import_transcript
    from .shell.transcripts.importing.options import ImportOptions as ImportOptions
    from .shell.workspace import Workspace as Workspace

# Where each public name lives. None is imported with the package: a name's module is
# imported when the name is first asked for, so the command, and any program that
# imports one part, starts without loading all of it (PostgreSQL's driver alone takes
# a third of a second). tests/test_architecture.py holds this table, the imports above
# (what type checkers read) and ``__all__`` (what the reference is generated from) equal.
_LOCATIONS = {
    "MAX_EVENT_BYTES": "shell.stores.codec.envelope",
    "TRANSITIONS": "core.lifecycle.transitions",
    "AppendError": "shell.stores.port",
    "AppendErrorKind": "shell.stores.port",
    "AssistantText": "core.lifecycle.conversation",
    "CompiledSchema": "core.tools.schema.compiled",
    "ConversationEvent": "core.lifecycle.conversation",
    "CorrexError": "core.tools.errors",
    "DefaultToolReducer": "core.lifecycle.reducer",
    "DefaultToolRepository": "shell.replay.repository",
    "DiffSummary": "core.replay.summary",
    "DuplicateInvocation": "shell.replay.repository",
    "Durations": "core.replay.analytics",
    "EventDecodeError": "core.replay.errors",
    "EventReplayer": "shell.replay.replayer",
    "EventStore": "shell.stores.port",
    "FileAffectingTool": "core.tools.tool",
    "FormatError": "core.tools.formats._reader",
    "ImportOptions": "shell.transcripts.importing.options",
    "InMemoryEventStore": "shell.stores.memory",
    "InMemoryToolRegistry": "core.tools.registry",
    "Invalid": "core.tools.validation",
    "InvocationId": "core.tools.ids",
    "JsonlEventLog": "shell.stores.jsonl",
    "McpPolicy": "core.tools.formats.mcp",
    "OpaqueEvent": "core.lifecycle.events",
    "PathError": "core.tools.paths",
    "Percentiles": "core.replay.analytics",
    "PostgresEventStore": "shell.stores.postgres",
    "Projection": "core.replay.projection",
    "Prompt": "core.lifecycle.conversation",
    "Reasoning": "core.lifecycle.conversation",
    "RecordChange": "core.replay.timeline",
    "RecordError": "shell.recording.errors",
    "RecordErrorKind": "shell.recording.errors",
    "RegistryError": "core.tools.registry",
    "RegistryErrorKind": "core.tools.registry",
    "Replay": "core.replay.fold",
    "ReplayAll": "shell.replay.parallel",
    "ReplayError": "core.replay.errors",
    "Retention": "core.replay.retention",
    "RetentionKind": "core.replay.retention",
    "RunRecord": "shell.recording.recorder",
    "SQLiteEventStore": "shell.stores.sqlite",
    "SchemaError": "core.tools.schema.compiled",
    "SequenceError": "core.replay.errors",
    "SequenceErrorKind": "core.replay.errors",
    "SessionId": "core.tools.ids",
    "SessionRecorder": "shell.recording.recorder",
    "SessionSummary": "core.replay.summary",
    "StoreLayoutError": "shell.stores.port",
    "StoreReadError": "shell.stores.port",
    "StoredEvent": "core.lifecycle.events",
    "Tier": "core.tools.tier",
    "Timeline": "core.replay.timeline",
    "TokenUsage": "core.lifecycle.conversation",
    "Tool": "core.tools.tool",
    "ToolCapability": "core.tools.capability",
    "ToolEvent": "core.lifecycle.events",
    "ToolExecutionCompletedEvent": "core.lifecycle.events",
    "ToolExecutionFailedEvent": "core.lifecycle.events",
    "ToolExecutionRejectedEvent": "core.lifecycle.events",
    "ToolExecutionStartedEvent": "core.lifecycle.events",
    "ToolExecutor": "core.tools.executor",
    "ToolFailure": "core.tools.executor",
    "ToolInvocationRecord": "core.lifecycle.record",
    "ToolInvocationRequestedEvent": "core.lifecycle.events",
    "ToolInvocationStatus": "core.lifecycle.status",
    "ToolOutcome": "core.tools.result_messages",
    "ToolProjector": "core.replay.projection",
    "ToolReceipt": "core.lifecycle.events",
    "ToolReducer": "core.lifecycle.reducer",
    "ToolRegistry": "core.tools.registry",
    "ToolRequest": "core.tools.request",
    "ToolResult": "core.tools.executor",
    "ToolSpec": "core.tools.spec",
    "ToolState": "core.lifecycle.state",
    "ToolStats": "core.replay.analytics",
    "ToolSuccess": "core.tools.executor",
    "TranscriptError": "shell.transcripts.errors",
    "TranscriptImport": "shell.transcripts.importing.importing",
    "TransitionError": "core.lifecycle.transitions",
    "TransitionErrorKind": "core.lifecycle.transitions",
    "UnresolvedId": "core.tools.short_ids",
    "Usage": "core.lifecycle.conversation",
    "Valid": "core.tools.validation",
    "ValidationLimits": "core.tools.validation",
    "ValidationResult": "core.tools.validation",
    "Violation": "core.tools.validation",
    "Workspace": "shell.workspace",
    "check_relative_path": "core.tools.paths",
    "compare_sessions": "shell.runs",
    "compile_schema": "core.tools.schema.compiled",
    "conversation_event": "core.lifecycle.conversation",
    "conversation_of": "core.lifecycle.conversation",
    "durations": "core.replay.analytics",
    "fold_events": "core.replay.fold",
    "follow": "shell.replay.follow",
    "freeze_json": "core.tools.json_values",
    "import_transcript": "shell.transcripts.importing.importing",
    "in_flight": "core.replay.analytics",
    "invocation_id": "core.tools.ids",
    "outcome_text": "core.tools.result_messages",
    "portable_name": "core.tools.definitions",
    "replay_all": "shell.replay.parallel",
    "session_id": "core.tools.ids",
    "short_invocation_id": "core.tools.short_ids",
    "split_runs": "shell.runs",
    "stuck": "core.replay.analytics",
    "thaw_json": "core.tools.json_values",
    "to_anthropic_result": "core.tools.result_messages",
    "to_mcp_result": "core.tools.result_messages",
    "to_openai_result": "core.tools.result_messages",
    "tool_definitions": "core.tools.definitions",
    "tool_stats": "core.replay.analytics",
    "validate_request": "core.tools.validation",
    "without_strict_nulls": "core.tools.formats.openai_strict",
}


def __getattr__(name: str) -> object:
    location = _LOCATIONS.get(name)
    if location is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(_importlib.import_module(f"{__name__}.{location}"), name)
    globals()[name] = value  # asked once: later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LOCATIONS})


__all__ = [
    "MAX_EVENT_BYTES",
    "TRANSITIONS",
    "AppendError",
    "AppendErrorKind",
    "AssistantText",
    "CompiledSchema",
    "ConversationEvent",
    "CorrexError",
    "DefaultToolReducer",
    "DefaultToolRepository",
    "DiffSummary",
    "DuplicateInvocation",
    "Durations",
    "EventDecodeError",
    "EventReplayer",
    "EventStore",
    "FileAffectingTool",
    "FormatError",
    "ImportOptions",
    "InMemoryEventStore",
    "InMemoryToolRegistry",
    "Invalid",
    "InvocationId",
    "JsonlEventLog",
    "McpPolicy",
    "OpaqueEvent",
    "PathError",
    "Percentiles",
    "PostgresEventStore",
    "Projection",
    "Prompt",
    "Reasoning",
    "RecordChange",
    "RecordError",
    "RecordErrorKind",
    "RegistryError",
    "RegistryErrorKind",
    "Replay",
    "ReplayAll",
    "ReplayError",
    "Retention",
    "RetentionKind",
    "RunRecord",
    "SQLiteEventStore",
    "SchemaError",
    "SequenceError",
    "SequenceErrorKind",
    "SessionId",
    "SessionRecorder",
    "SessionSummary",
    "StoreLayoutError",
    "StoreReadError",
    "StoredEvent",
    "Tier",
    "Timeline",
    "TokenUsage",
    "Tool",
    "ToolCapability",
    "ToolEvent",
    "ToolExecutionCompletedEvent",
    "ToolExecutionFailedEvent",
    "ToolExecutionRejectedEvent",
    "ToolExecutionStartedEvent",
    "ToolExecutor",
    "ToolFailure",
    "ToolInvocationRecord",
    "ToolInvocationRequestedEvent",
    "ToolInvocationStatus",
    "ToolOutcome",
    "ToolProjector",
    "ToolReceipt",
    "ToolReducer",
    "ToolRegistry",
    "ToolRequest",
    "ToolResult",
    "ToolSpec",
    "ToolState",
    "ToolStats",
    "ToolSuccess",
    "TranscriptError",
    "TranscriptImport",
    "TransitionError",
    "TransitionErrorKind",
    "UnresolvedId",
    "Usage",
    "Valid",
    "ValidationLimits",
    "ValidationResult",
    "Violation",
    "Workspace",
    "check_relative_path",
    "compare_sessions",
    "compile_schema",
    "conversation_event",
    "conversation_of",
    "durations",
    "fold_events",
    "follow",
    "freeze_json",
    "import_transcript",
    "in_flight",
    "invocation_id",
    "outcome_text",
    "portable_name",
    "replay_all",
    "session_id",
    "short_invocation_id",
    "split_runs",
    "stuck",
    "thaw_json",
    "to_anthropic_result",
    "to_mcp_result",
    "to_openai_result",
    "tool_definitions",
    "tool_stats",
    "validate_request",
    "without_strict_nulls",
]
