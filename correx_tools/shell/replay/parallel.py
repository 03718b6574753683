"""Replaying every session of a store in parallel processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, final

from returns.result import Success

from ...core.lifecycle._engine.rows import record_from_fields
from ...core.lifecycle.events import ToolReceipt
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.errors import ReplayError
from ...core.replay.fold import Replay
from ...core.replay.projection import Projection
from ...core.tools.ids import SessionId
from ...core.tools.json_values import thaw_json
from ...core.tools.request import ToolRequest
from ...core.tools.tier import Tier
from ..stores.addresses import StoreAddress
from ..stores.opening import open_address
from ..stores.port import EventStore, LocatedStore
from .replayer import EventReplayer

S = TypeVar("S")

# One open store per worker process, reused for every session it replays.
_worker_stores: dict[StoreAddress, EventStore] = {}


@final
@dataclass(frozen=True, slots=True)
class ReplayAll(Generic[S]):
    """The outcome of `replay_all`: each session's replay, or why it failed.

    With ``summarize``, ``summaries`` holds what it returned for each session
    and ``replays`` stays empty.
    """

    replays: dict[SessionId, Replay[S]] = field(default_factory=dict)
    failures: dict[SessionId, ReplayError] = field(default_factory=dict)
    summaries: dict[SessionId, Any] = field(default_factory=dict)


Packed = tuple[Any, ...]


def _pack_record(record: ToolInvocationRecord) -> Packed:
    receipt = record.receipt
    return (
        record.invocation_id,
        record.tool_name,
        record.tier.value,
        record.request.tool_name,
        thaw_json(record.request.arguments),
        record.status.value,
        None
        if receipt is None
        else (thaw_json(receipt.output), receipt.exit_code, dict(receipt.metadata)),
        record.requested_at,
        record.completed_at,
        record.started_at,
        record.reason,
        record.recoverable,
    )


def _unpack_record(packed: Packed) -> ToolInvocationRecord:
    invocation, tool, tier, request_tool, arguments, status, receipt = packed[:7]
    requested, completed, started, reason, recoverable = packed[7:]
    return record_from_fields(
        (
            invocation,
            tool,
            Tier(tier),
            ToolRequest(tool_name=request_tool, arguments=arguments),
            ToolInvocationStatus(status),
            None
            if receipt is None
            else ToolReceipt(output=receipt[0], exit_code=receipt[1], metadata=receipt[2]),
            requested,
            completed,
            started,
            reason,
            recoverable,
        )
    )


def _pack(replay: Replay[Any]) -> Replay[Any] | tuple[list[Packed], int, tuple[Any, ...]]:
    """A ToolState replay as plain tuples, which pickle at C speed; any other as it is.

    Shipping the frozen values themselves cost more than the replay: every
    record's request, receipt and maps go through Python-level reducers.
    """
    if not isinstance(replay.state, ToolState):
        return replay
    return (
        [_pack_record(r) for r in replay.state.records()],
        replay.last_sequence,
        replay.quarantined,
    )


def _unpack(packed: Replay[Any] | tuple[list[Packed], int, tuple[Any, ...]]) -> Replay[Any]:
    if isinstance(packed, Replay):
        return packed
    rows, last_sequence, quarantined = packed
    records = [_unpack_record(row) for row in rows]
    # One batch: the records are known, so no intermediate state is built.
    state = ToolState.empty().with_batch(
        {}, records, {record.invocation_id: position for position, record in enumerate(records)}
    )
    return Replay(state=state, last_sequence=last_sequence, quarantined=quarantined)


Summarize = Callable[[Replay[Any]], Any]


def _replay_one(
    address: StoreAddress,
    session: SessionId,
    projection: Projection[Any, Any],
    strict: bool,
    summarize: Summarize | None,
) -> tuple[SessionId, Any, ReplayError | None]:
    store = _worker_stores.get(address)
    if store is None:
        store = _worker_stores[address] = open_address(address, read_only=True)
    result = EventReplayer(store).replay(session, projection, strict=strict)
    if not isinstance(result, Success):
        return session, None, result.failure()
    replay = result.unwrap()
    return session, _pack(replay) if summarize is None else summarize(replay), None


def replay_all(
    store: EventStore,
    projection: Projection[S, Any],
    *,
    workers: int = 1,
    strict: bool = True,
    summarize: Callable[[Replay[S]], Any] | None = None,
) -> ReplayAll[S]:
    """Replay every session of ``store``, ``workers`` processes at a time.

    Each worker opens the store itself (a SQLite file, a JSONL log or a
    PostgreSQL database) and sends each final state back; the projection
    must be picklable (``ToolProjector`` is). Rebuilding a large state in
    this process costs about as much as replaying it, so when only an
    aggregate is needed pass ``summarize`` (a picklable, module-level
    function of a ``Replay``): workers then send back just its result. A
    store that lives only in memory, or ``workers=1``, replays here.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    sessions = store.sessions()
    outcome: ReplayAll[S] = ReplayAll()
    address = store.address if isinstance(store, LocatedStore) else None
    if workers == 1 or address is None or len(sessions) <= 1:
        replayer = EventReplayer(store)
        for session in sessions:
            result = replayer.replay(session, projection, strict=strict)
            if not isinstance(result, Success):
                outcome.failures[session] = result.failure()
            elif summarize is None:
                outcome.replays[session] = result.unwrap()
            else:
                outcome.summaries[session] = summarize(result.unwrap())
        return outcome
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [
            pool.submit(_replay_one, address, session, projection, strict, summarize)
            for session in sessions
        ]
        for future in futures:
            session, packed, error = future.result()
            if packed is not None and summarize is not None:
                outcome.summaries[session] = packed
            elif packed is not None:
                outcome.replays[session] = _unpack(packed)
            elif error is not None:
                outcome.failures[session] = error
    return outcome
