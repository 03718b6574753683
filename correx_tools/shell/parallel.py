"""Replaying every session of a store in parallel processes."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, final

from returns.result import Success

from ..core.fold import Replay
from ..core.ids import SessionId
from ..core.projection import Projection
from ..core.replay_error import ReplayError
from .replayer import EventReplayer
from .sources import StoreAddress, address_of_store
from .store import EventStore

S = TypeVar("S")

# One open store per worker process, reused for every session it replays.
_worker_stores: dict[StoreAddress, EventStore] = {}


@final
@dataclass(frozen=True, slots=True)
class ReplayAll(Generic[S]):
    """The outcome of :func:`replay_all`: each session's replay, or why it failed."""

    replays: dict[SessionId, Replay[S]] = field(default_factory=dict)
    failures: dict[SessionId, ReplayError] = field(default_factory=dict)


def _replay_one(
    address: StoreAddress, session: SessionId, projection: Projection[Any, Any], strict: bool
) -> tuple[SessionId, Replay[Any] | None, ReplayError | None]:
    store = _worker_stores.get(address)
    if store is None:
        store = _worker_stores[address] = address.open()
    result = EventReplayer(store).replay(session, projection, strict=strict)
    if isinstance(result, Success):
        return session, result.unwrap(), None
    return session, None, result.failure()


def replay_all(
    store: EventStore, projection: Projection[S, Any], *, workers: int = 1, strict: bool = True
) -> ReplayAll[S]:
    """Replay every session of ``store``, ``workers`` processes at a time.

    Each worker opens the store itself (a SQLite file, a JSONL log or a
    PostgreSQL database) and sends the final states back; the projection
    must be picklable (``ToolProjector`` is). A store that lives only in
    memory, or ``workers=1``, replays in this process.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    sessions = store.sessions()
    outcome: ReplayAll[S] = ReplayAll()
    address = address_of_store(store)
    if workers == 1 or address is None or len(sessions) <= 1:
        replayer = EventReplayer(store)
        for session in sessions:
            result = replayer.replay(session, projection, strict=strict)
            if isinstance(result, Success):
                outcome.replays[session] = result.unwrap()
            else:
                outcome.failures[session] = result.failure()
        return outcome
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = [
            pool.submit(_replay_one, address, session, projection, strict) for session in sessions
        ]
        for future in futures:
            session, replay, error = future.result()
            if replay is not None:
                outcome.replays[session] = replay
            elif error is not None:
                outcome.failures[session] = error
    return outcome
