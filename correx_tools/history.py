"""A session's history and time travel: the fold of its events, the timeline of every
record's versions, retention, projections, the summaries and statistics of a session at any
point, and the errors a replay or a transition names.

Every name here is also importable from ``correx_tools`` itself; each is imported when first
asked for. The names and where they live are `correx_tools._public`'s table.
"""

import typing as _typing

from . import _public

if _typing.TYPE_CHECKING:
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

__getattr__, __dir__, __all__ = _public.attach(__name__, "history")
