"""correx_tools: tool contracts and an exact, replayable history of every tool invocation.

The contract (the tools, the lifecycle, the stores, the fold) is importable from here:

    from correx_tools import DefaultToolReducer, ToolState, fold_events

The rest is offered by topic: `correx_tools.stores`, `.transcripts`, `.history`,
`.conversation` and `.formats` (every public name is still importable from here too).
`correx_tools._public` is the one table of them all. Nothing is imported with the
package: a name's module is imported when the name is first asked for, so the command,
and a program that uses one part, starts without loading the rest.
"""

import typing as _typing

from . import _public
from ._version import __version__ as __version__

if _typing.TYPE_CHECKING:
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
    from .core.lifecycle.transitions import TransitionError as TransitionError
    from .core.replay.analytics import durations as durations
    from .core.replay.analytics import in_flight as in_flight
    from .core.replay.analytics import stuck as stuck
    from .core.replay.analytics import tool_stats as tool_stats
    from .core.replay.errors import ReplayError as ReplayError
    from .core.replay.fold import Replay as Replay
    from .core.replay.fold import fold_events as fold_events
    from .core.replay.projection import Projection as Projection
    from .core.replay.projection import ToolProjector as ToolProjector
    from .core.replay.retention import Retention as Retention
    from .core.replay.timeline import RecordChange as RecordChange
    from .core.replay.timeline import Timeline as Timeline
    from .core.tools.capability import ToolCapability as ToolCapability
    from .core.tools.errors import CorrexError as CorrexError
    from .core.tools.executor import ToolExecutor as ToolExecutor
    from .core.tools.executor import ToolFailure as ToolFailure
    from .core.tools.executor import ToolResult as ToolResult
    from .core.tools.executor import ToolSuccess as ToolSuccess
    from .core.tools.ids import InvocationId as InvocationId
    from .core.tools.ids import SessionId as SessionId
    from .core.tools.ids import invocation_id as invocation_id
    from .core.tools.ids import session_id as session_id
    from .core.tools.json_values import thaw_json as thaw_json
    from .core.tools.registry import InMemoryToolRegistry as InMemoryToolRegistry
    from .core.tools.registry import RegistryError as RegistryError
    from .core.tools.registry import ToolRegistry as ToolRegistry
    from .core.tools.request import ToolRequest as ToolRequest
    from .core.tools.spec import ToolSpec as ToolSpec
    from .core.tools.tier import Tier as Tier
    from .core.tools.tool import FileAffectingTool as FileAffectingTool
    from .core.tools.tool import Tool as Tool
    from .core.tools.validation import Invalid as Invalid
    from .core.tools.validation import Valid as Valid
    from .core.tools.validation import ValidationResult as ValidationResult
    from .core.tools.validation import validate_request as validate_request
    from .shell.recording.recorder import SessionRecorder as SessionRecorder
    from .shell.replay.replayer import EventReplayer as EventReplayer
    from .shell.replay.repository import DefaultToolRepository as DefaultToolRepository
    from .shell.stores.jsonl import JsonlEventLog as JsonlEventLog
    from .shell.stores.memory import InMemoryEventStore as InMemoryEventStore
    from .shell.stores.port import AppendError as AppendError
    from .shell.stores.port import EventStore as EventStore
    from .shell.stores.postgres import PostgresEventStore as PostgresEventStore
    from .shell.stores.sqlite import SQLiteEventStore as SQLiteEventStore
    from .shell.transcripts.importing.importing import import_transcript as import_transcript

__getattr__, __dir__, __all__ = _public.attach(__name__, _public.TOP)
