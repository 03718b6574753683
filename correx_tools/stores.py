"""Where sessions are kept and read back: the event stores (SQLite, the embedded default;
PostgreSQL; a JSONL log; memory), their errors, the repository and replayer that read them,
the recorder that writes them, and the whole-store replay.

Every name here is also importable from ``correx_tools`` itself; each is imported when first
asked for. The names and where they live are `correx_tools._public`'s table.
"""

import typing as _typing

from . import _public

if _typing.TYPE_CHECKING:
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

__getattr__, __dir__, __all__ = _public.attach(__name__, "stores")
