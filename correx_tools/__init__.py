"""correx_tools: tool contracts and an exact, replayable history of every tool invocation.

Everything public is importable from here::

    from correx_tools import DefaultToolReducer, ToolState, fold_events
"""

from ._version import __version__ as __version__
from .core.capability import ToolCapability as ToolCapability
from .core.events import OpaqueEvent as OpaqueEvent
from .core.events import StoredEvent as StoredEvent
from .core.events import ToolEvent as ToolEvent
from .core.events import ToolExecutionCompletedEvent as ToolExecutionCompletedEvent
from .core.events import ToolExecutionFailedEvent as ToolExecutionFailedEvent
from .core.events import ToolExecutionRejectedEvent as ToolExecutionRejectedEvent
from .core.events import ToolExecutionStartedEvent as ToolExecutionStartedEvent
from .core.events import ToolInvocationRequestedEvent as ToolInvocationRequestedEvent
from .core.events import ToolReceipt as ToolReceipt
from .core.events import ToolRequest as ToolRequest
from .core.executor import ToolExecutor as ToolExecutor
from .core.executor import ToolFailure as ToolFailure
from .core.executor import ToolResult as ToolResult
from .core.executor import ToolSuccess as ToolSuccess
from .core.fold import Replay as Replay
from .core.fold import fold_events as fold_events
from .core.ids import InvocationId as InvocationId
from .core.ids import SessionId as SessionId
from .core.ids import invocation_id as invocation_id
from .core.ids import session_id as session_id
from .core.json_values import freeze_json as freeze_json
from .core.json_values import thaw_json as thaw_json
from .core.paths import PathError as PathError
from .core.paths import check_relative_path as check_relative_path
from .core.projection import Projection as Projection
from .core.projection import ToolProjector as ToolProjector
from .core.record import ToolInvocationRecord as ToolInvocationRecord
from .core.reducer import DefaultToolReducer as DefaultToolReducer
from .core.reducer import ToolReducer as ToolReducer
from .core.registry import InMemoryToolRegistry as InMemoryToolRegistry
from .core.registry import RegistryError as RegistryError
from .core.registry import RegistryErrorKind as RegistryErrorKind
from .core.registry import ToolRegistry as ToolRegistry
from .core.replay_error import EventDecodeError as EventDecodeError
from .core.replay_error import ReplayError as ReplayError
from .core.replay_error import SequenceError as SequenceError
from .core.replay_error import SequenceErrorKind as SequenceErrorKind
from .core.result_messages import ToolOutcome as ToolOutcome
from .core.result_messages import outcome_text as outcome_text
from .core.result_messages import to_anthropic_result as to_anthropic_result
from .core.result_messages import to_mcp_result as to_mcp_result
from .core.result_messages import to_openai_result as to_openai_result
from .core.retention import Retention as Retention
from .core.retention import RetentionKind as RetentionKind
from .core.schema import CompiledSchema as CompiledSchema
from .core.schema import SchemaError as SchemaError
from .core.schema import compile_schema as compile_schema
from .core.state import ToolState as ToolState
from .core.status import ToolInvocationStatus as ToolInvocationStatus
from .core.tier import Tier as Tier
from .core.timeline import RecordChange as RecordChange
from .core.timeline import Timeline as Timeline
from .core.tool import FileAffectingTool as FileAffectingTool
from .core.tool import Tool as Tool
from .core.tool import ToolSpec as ToolSpec
from .core.tool_formats import FormatError as FormatError
from .core.tool_formats import McpPolicy as McpPolicy
from .core.tool_formats import tool_definitions as tool_definitions
from .core.transitions import TRANSITIONS as TRANSITIONS
from .core.transitions import TransitionError as TransitionError
from .core.transitions import TransitionErrorKind as TransitionErrorKind
from .core.validation import Invalid as Invalid
from .core.validation import Valid as Valid
from .core.validation import ValidationLimits as ValidationLimits
from .core.validation import ValidationResult as ValidationResult
from .core.validation import Violation as Violation
from .core.validation import validate_request as validate_request
from .shell.envelope import MAX_EVENT_BYTES as MAX_EVENT_BYTES
from .shell.follow import follow as follow
from .shell.jsonl_log import JsonlEventLog as JsonlEventLog
from .shell.parallel import ReplayAll as ReplayAll
from .shell.parallel import replay_all as replay_all
from .shell.postgres_store import PostgresEventStore as PostgresEventStore
from .shell.replayer import DefaultToolRepository as DefaultToolRepository
from .shell.replayer import DuplicateInvocation as DuplicateInvocation
from .shell.replayer import EventReplayer as EventReplayer
from .shell.sqlite_store import SQLiteEventStore as SQLiteEventStore
from .shell.store import AppendError as AppendError
from .shell.store import AppendErrorKind as AppendErrorKind
from .shell.store import EventStore as EventStore
from .shell.store import InMemoryEventStore as InMemoryEventStore
from .shell.store import StoreReadError as StoreReadError
from .shell.workspace import Workspace as Workspace

__all__ = [
    "MAX_EVENT_BYTES",
    "TRANSITIONS",
    "AppendError",
    "AppendErrorKind",
    "CompiledSchema",
    "DefaultToolReducer",
    "DefaultToolRepository",
    "DuplicateInvocation",
    "EventDecodeError",
    "EventReplayer",
    "EventStore",
    "FileAffectingTool",
    "FormatError",
    "InMemoryEventStore",
    "InMemoryToolRegistry",
    "Invalid",
    "InvocationId",
    "JsonlEventLog",
    "McpPolicy",
    "OpaqueEvent",
    "PathError",
    "PostgresEventStore",
    "Projection",
    "RecordChange",
    "RegistryError",
    "RegistryErrorKind",
    "Replay",
    "ReplayAll",
    "ReplayError",
    "Retention",
    "RetentionKind",
    "SQLiteEventStore",
    "SchemaError",
    "SequenceError",
    "SequenceErrorKind",
    "SessionId",
    "StoreReadError",
    "StoredEvent",
    "Tier",
    "Timeline",
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
    "ToolSuccess",
    "TransitionError",
    "TransitionErrorKind",
    "Valid",
    "ValidationLimits",
    "ValidationResult",
    "Violation",
    "Workspace",
    "check_relative_path",
    "compile_schema",
    "fold_events",
    "follow",
    "freeze_json",
    "invocation_id",
    "outcome_text",
    "replay_all",
    "session_id",
    "thaw_json",
    "to_anthropic_result",
    "to_mcp_result",
    "to_openai_result",
    "tool_definitions",
    "validate_request",
]
