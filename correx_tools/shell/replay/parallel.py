"""Replaying every session of a store in parallel processes, this one among them."""

from __future__ import annotations

import multiprocessing
import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from queue import SimpleQueue
from typing import Any, Generic, TypeVar, final

from returns.result import Success

from ...core.replay.errors import ReplayError
from ...core.replay.fold import Replay
from ...core.replay.projection import Projection
from ...core.tools.ids import SessionId
from ..stores.addresses import StoreAddress
from ..stores.opening import open_address
from ..stores.port import EventStore, LocatedStore
from .replayer import EventReplayer
from .shipping import pack, unpack

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


Summarize = Callable[[Replay[Any]], Any]

Outcome = tuple[bool, Any]
"""``(True, summary or shipped replay)``, or ``(False, the ReplayError)``."""


def _replay_one(
    address: StoreAddress,
    session: SessionId,
    projection: Projection[Any, Any],
    strict: bool,
    summarize: Summarize | None,
) -> Outcome:
    """One session replayed in a worker process, as it sends it back."""
    store = _worker_stores.get(address)
    if store is None:
        store = _worker_stores[address] = open_address(address, read_only=True)
    result = EventReplayer(store).replay(session, projection, strict=strict)
    if not isinstance(result, Success):
        return False, result.failure()
    replay = result.unwrap()
    return True, pack(replay) if summarize is None else summarize(replay)


@final
class _Sessions:
    """The sessions not replayed yet: worker processes take them from the front, this
    process from the back, so that whoever is free takes the next and none is taken twice."""

    def __init__(self, sessions: Iterable[SessionId]) -> None:
        self._left = deque(sessions)
        self._lock = threading.Lock()
        self._handing_out = True

    def first(self) -> SessionId | None:
        with self._lock:
            return self._left.popleft() if self._left and self._handing_out else None

    def stop_handing_out(self) -> None:
        """The workers take no more (this process failed): `first` gives ``None`` from now."""
        with self._lock:
            self._handing_out = False

    def last(self) -> SessionId | None:
        with self._lock:
            return self._left.pop() if self._left else None

    def give_back(self, session: SessionId) -> None:
        with self._lock:
            self._left.appendleft(session)


def replay_all(
    store: EventStore,
    projection: Projection[S, Any],
    *,
    workers: int = 1,
    strict: bool = True,
    summarize: Callable[[Replay[S]], Any] | None = None,
) -> ReplayAll[S]:
    """Replay every session of ``store``, ``workers`` processes at a time, this one among
    them.

    ``workers - 1`` worker processes each open the store themselves (a SQLite
    file, a JSONL log or a PostgreSQL database) and take sessions from the
    front of the list while this process replays from the back, so that no
    process waits while another has sessions left: the workers' start-up
    (importing the library) is spent replaying here. A worker sends each
    final state back as plain values (`shipping`); the projection must be
    picklable (``ToolProjector`` is). Rebuilding a large state here still
    costs a fifth of replaying it, so when only an aggregate is needed pass
    ``summarize`` (a picklable, module-level function of a ``Replay``):
    workers then send back just its result. A worker process that dies loses
    nothing: its sessions are replayed here. A store that lives only in
    memory, or ``workers=1``, replays here alone.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    sessions = store.sessions()
    address = store.address if isinstance(store, LocatedStore) else None
    outcomes: dict[SessionId, Outcome] = {}
    left = _Sessions(sessions)
    if workers > 1 and address is not None and len(sessions) > 1:
        inbox = _Inbox(left, outcomes, states=summarize is None)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers - 1, mp_context=context) as pool:

            def submit(session: SessionId) -> Future[Outcome]:
                return pool.submit(_replay_one, address, session, projection, strict, summarize)

            handing = threading.Thread(
                target=_hand_out, args=(submit, workers - 1, left, inbox.queue), daemon=True
            )
            handing.start()
            try:
                _replay_here(
                    store,
                    left,
                    projection=projection,
                    strict=strict,
                    summarize=summarize,
                    outcomes=outcomes,
                    inbox=inbox,
                )
                inbox.take_in(wait=True)
            except BaseException:
                # An error here or from a worker (or ^C): it is raised as it is, once the
                # sessions running in the workers end (the pool's exit waits for them),
                # and no other is handed out meanwhile.
                left.stop_handing_out()
                raise
        handing.join()
    # Everything, with one process; else what is left when the workers are done (the
    # sessions of a worker that died).
    _replay_here(
        store, left, projection=projection, strict=strict, summarize=summarize, outcomes=outcomes
    )
    outcome: ReplayAll[S] = ReplayAll()
    for session in sessions:  # in the store's order, whoever replayed each
        succeeded, value = outcomes[session]
        if not succeeded:
            outcome.failures[session] = value
        elif summarize is not None:
            outcome.summaries[session] = value
        else:
            outcome.replays[session] = value
    return outcome


Finished = SimpleQueue[tuple[SessionId, "Future[Outcome]"] | None]
"""The sessions the workers finished, in turn; ``None`` once they are all done."""


@final
class _Inbox:
    """What the workers send, taken in here: each state rebuilt (`shipping.unpack`); a
    session whose worker died given back, to be replayed here."""

    def __init__(self, left: _Sessions, outcomes: dict[SessionId, Outcome], *, states: bool):
        self.queue: Finished = SimpleQueue()
        self._left, self._outcomes, self._states = left, outcomes, states
        self._done = False

    def take_in(self, *, wait: bool) -> None:
        """Whatever has come (``wait``: everything, until the workers are done)."""
        while not self._done and (wait or not self.queue.empty()):
            item = self.queue.get()
            if item is None:
                self._done = True
                return
            session, future = item
            try:
                succeeded, value = future.result()
            except BrokenProcessPool:
                self._left.give_back(session)
                continue
            if succeeded and self._states:
                value = unpack(value)
            self._outcomes[session] = (succeeded, value)


def _replay_here(
    store: EventStore,
    left: _Sessions,
    *,
    projection: Projection[Any, Any],
    strict: bool,
    summarize: Summarize | None,
    outcomes: dict[SessionId, Outcome],
    inbox: _Inbox | None = None,
) -> None:
    """Sessions replayed in this process, from the back of ``left``; between two, what
    the workers sent is taken in."""
    replayer = EventReplayer(store)
    while (session := left.last()) is not None:
        result = replayer.replay(session, projection, strict=strict)
        if not isinstance(result, Success):
            outcomes[session] = (False, result.failure())
        else:
            replay = result.unwrap()
            outcomes[session] = (True, replay if summarize is None else summarize(replay))
        if inbox is not None:
            inbox.take_in(wait=False)


def _hand_out(
    submit: Callable[[SessionId], Future[Outcome]],
    processes: int,
    left: _Sessions,
    finished: Finished,
) -> None:
    """Keeps each worker process busy with the next session from the front while any is
    left, and passes each finished one on; ``None`` once the workers are done."""
    running: dict[Future[Outcome], SessionId] = {}
    broken = False

    def next_one() -> None:
        nonlocal broken
        session = None if broken else left.first()
        if session is None:
            return
        try:
            running[submit(session)] = session
        except (BrokenProcessPool, RuntimeError):
            # A worker died, or the pool is shutting down as this process failed: what is
            # left is replayed here (or not at all, the error being raised).
            broken = True
            left.give_back(session)

    try:
        for _ in range(processes):
            next_one()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                finished.put((running.pop(future), future))
                next_one()
    finally:
        finished.put(None)  # whatever happened, this process stops waiting
