"""Worker processes that check, rebuild or audit the parts of a database's sessions
(`sql.parts`, `audit.parts`), this process among them or joining them.

The workers each open the store themselves, read-only, and send back what a
part holds as plain values; this process works parts too, from the back of
the list while the workers take them from the front (as `replay_all` does),
so that the workers' start-up is spent working here. A worker never writes:
whatever is written is written by this process, once every part is in. A
worker that dies (killed, out of memory) ends the whole run with
`WorkerLost`: nothing is written, and nothing already written is lost.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar, final

from .addresses import StoreAddress
from .opening import open_address
from .port import EventStore
from .sql.store import SqlEventStore

P = TypeVar("P")
R = TypeVar("R")

_DIED = (
    "a worker process ended before its part was done (killed, or out of memory); "
    "nothing was written"
)

_LOOK = 0.25
"""Seconds between two looks at whether a worker process died (the pool itself may not say)."""


def _processes(pool: ProcessPoolExecutor) -> list[Any]:
    # The pool keeps its processes privately; they are looked at only to find a dead one
    # and to kill the rest once the run is given up.
    return list((getattr(pool, "_processes", None) or {}).values())


def _died(pool: ProcessPoolExecutor) -> bool:
    return any(process.exitcode is not None for process in _processes(pool))


_quieted: weakref.WeakSet[ProcessPoolExecutor] = weakref.WeakSet()
"""The pools whose manager thread's cleanup error is not printed (see `_quiet_manager`)."""
_quieting = threading.Lock()


def _quiet_manager(pool: ProcessPoolExecutor) -> None:
    """Print no ``RuntimeError`` of ``pool``'s own manager thread until `_loud_manager`.

    After a worker died, Python 3.11's manager counts the pool's processes while a part
    being handed out may start another, and fails ("dictionary changed size during
    iteration") as it cleans up a pool the run is already giving up with `WorkerLost`: a
    traceback on the command's standard error beside its one line. One hook, set once,
    serves every pool (any number, closed in any order); every other error of every
    thread goes to the hook that was set before it."""
    with _quieting:
        if not getattr(threading.excepthook, "_correx_pools", False):
            threading.excepthook = _unless_a_quiet_manager(threading.excepthook)
        _quieted.add(pool)


def _loud_manager(pool: ProcessPoolExecutor) -> None:
    with _quieting:
        _quieted.discard(pool)


def _unless_a_quiet_manager(
    hook: Callable[[threading.ExceptHookArgs], Any],
) -> Callable[[threading.ExceptHookArgs], Any]:
    def unless_a_quiet_manager(args: threading.ExceptHookArgs) -> Any:
        # The manager thread holds its pool by a weak reference (the pool forgets the
        # thread once shut down).
        executor = getattr(args.thread, "executor_reference", None)
        if args.exc_type is RuntimeError and callable(executor) and executor() in _quieted:
            return None
        return hook(args)

    unless_a_quiet_manager._correx_pools = True  # type: ignore[attr-defined]
    return unless_a_quiet_manager


# One open store per worker process, kept for every part it works.
_worker_stores: dict[StoreAddress, EventStore] = {}


class WorkerLost(Exception):
    """A worker process that ended before its part was done, or failed in it: the run is
    given up, and nothing of it written."""


def default_workers() -> int:
    """The machine's cores (those this process may use)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def _quiet() -> None:
    """A worker says nothing on the command's standard error (its errors come back with its
    part; one left blocked when another died is not to print a traceback there), and ends
    when the command does: one blocked for ever on the pool's queue, whose lock a killed
    worker took with it, would otherwise outlive the command and hold its output open."""
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_LOOK)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def fork_is_safe() -> bool:
    """Whether worker processes may be forked from this one: on Linux, from the main thread
    of a process that runs no other (elsewhere, or beside other threads, they are spawned)."""
    return (
        sys.platform == "linux"
        and threading.current_thread() is threading.main_thread()
        and threading.active_count() == 1
    )


Task = str | Callable[[SqlEventStore, Any], Any]
"""What a worker does with a part: the name of a store's own `work_part` task, or a
callable (picklable, as a module's function or a dataclass is) given the store and part."""


def _work(address: StoreAddress, task: Task, part: Any) -> Any:
    """One part worked in a worker process. Its errors are sent back as their text (a
    store's errors do not all survive being sent between processes)."""
    try:
        store = _worker_stores.get(address)
        if store is None:
            store = _worker_stores[address] = open_address(address, read_only=True)
        assert isinstance(store, SqlEventStore)  # only a database is split in parts
        if callable(task):
            return task(store, part)
        return store.work_part(task, part)
    except Exception as error:
        raise WorkerLost(str(error)) from None


@final
class Workers:
    """``count`` processes, this one among them, working the parts of the store at
    ``address`` (`sql.parts.Runner`), or any parts given to a plain function
    (`stream_calls`: no store); the worker processes start when first needed."""

    def __init__(self, address: StoreAddress | None, count: int, *, forked: bool = False) -> None:
        if count < 1:
            raise ValueError(f"workers must be >= 1, got {count}")
        self._address, self._count = address, count
        # A forked worker starts at once, with what this process imported; a spawned one
        # imports it again (a third of a second). Forking is safe only where no other
        # thread may hold a lock the child would inherit held: asked for, and granted then.
        self._start = "fork" if forked and fork_is_safe() else "spawn"
        self._pool: ProcessPoolExecutor | None = None

    @property
    def workers(self) -> int:
        return self._count

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes (killed: they hold no work between two runs, and one
        may be blocked for ever after another died — Python 3.11's pool would then wait
        for it as it shuts down; killed, it is waited for at once)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            for process in list(_processes(pool)):
                process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            # Its manager thread closes the pool's wake-up pipe as it ends; left to race the
            # interpreter's exit, Python 3.11's exit hook may write to the pipe as it closes
            # (a traceback on stderr). The processes are dead, so it ends at once.
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(timeout=_LOOK * 10)
            _loud_manager(pool)

    def _result(self, future: Future[Any]) -> Any:
        """A part's result, or `WorkerLost` as soon as any worker process has died."""
        while True:
            try:
                return future.result(timeout=_LOOK)
            except TimeoutError:
                if self._pool is not None and _died(self._pool):
                    raise BrokenProcessPool(_DIED) from None

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # As many processes as asked for: `stream` keeps them all busy; `run` all but
            # one (this process works too), and the pool starts only the ones it uses.
            context = multiprocessing.get_context(self._start)
            pool = self._pool = ProcessPoolExecutor(
                max_workers=self._count, mp_context=context, initializer=_quiet
            )
            _quiet_manager(pool)
        return self._pool

    def stream(
        self, task: Task, parts: Sequence[P], here: Callable[[P], Any]
    ) -> Generator[Any, None, None]:
        """Each part's result in the parts' order, as soon as it and those before it are in,
        every part worked by a worker process while this one takes them in (writes them);
        at most a few are held at a time, so memory stays bounded by a part. `WorkerLost`
        if a worker died; the parts not started are dropped when the caller stops."""
        address = self._address
        assert address is not None, "a store's parts need the store's address"
        return self._stream(lambda pool, part: pool.submit(_work, address, task, part),
                            parts, here)  # fmt: skip

    def stream_calls(
        self, work: Callable[[P], R], parts: Sequence[P], here: Callable[[P], R]
    ) -> Generator[R, None, None]:
        """`stream` of a plain function (a module's, so that it pickles) of each part: no
        store is opened. Its errors come back as they were raised (`WorkerLost` if a worker
        died)."""
        return self._stream(lambda pool, part: pool.submit(work, part), parts, here)

    def _stream(
        self,
        submit: Callable[[ProcessPoolExecutor, P], Future[Any]],
        parts: Sequence[P],
        here: Callable[[P], Any],
    ) -> Generator[Any, None, None]:
        if self._count < 2 or len(parts) < 2:
            yield from (here(part) for part in parts)
            return
        pool = self._started()
        pending: deque[Future[Any]] = deque()
        left = iter(parts)
        try:
            while True:
                try:
                    while len(pending) <= self._count and (part := next(left, None)):
                        pending.append(submit(pool, part))
                    if not pending:
                        return
                    result = self._result(pending.popleft())
                except WorkerLost as failed:
                    self.close()
                    raise WorkerLost(f"a worker process failed: {failed}") from None
                except BrokenProcessPool:
                    self.close()
                    raise WorkerLost(_DIED) from None
                yield result
        finally:
            for future in pending:
                future.cancel()

    def run(self, task: Task, parts: Sequence[P], here: Callable[[P], Any]) -> list[Any]:
        """Each part's result, in the parts' order; `WorkerLost` if a worker died."""
        if self._count < 2 or len(parts) < 2:
            return [here(part) for part in parts]
        pool, address = self._started(), self._address
        assert address is not None, "a store's parts need the store's address"
        left = deque(range(len(parts)))
        lock = threading.Lock()
        results: dict[int, Any] = {}
        failed: list[BaseException] = []

        def take(front: bool) -> int | None:
            with lock:
                if not left or failed:
                    return None
                return left.popleft() if front else left.pop()

        def hand_out() -> None:
            running: dict[Future[Any], int] = {}

            def next_one() -> None:
                index = take(front=True)
                if index is not None:
                    try:
                        running[pool.submit(_work, address, task, parts[index])] = index
                    except (BrokenProcessPool, RuntimeError) as error:
                        failed.append(error)

            for _ in range(self._count - 1):
                next_one()
            while running:
                done, _ = wait(running, timeout=_LOOK, return_when=FIRST_COMPLETED)
                if not done and _died(pool):
                    failed.append(BrokenProcessPool(_DIED))
                    return
                for future in done:
                    index = running.pop(future)
                    try:
                        results[index] = future.result()
                    except BaseException as error:
                        failed.append(error)
                    else:
                        next_one()

        handing = threading.Thread(target=hand_out, daemon=True)
        handing.start()
        try:
            while (index := take(front=False)) is not None:
                results[index] = here(parts[index])
        except BaseException as error:
            failed.append(error)
            raise
        finally:
            handing.join()
        if failed:
            self.close()
            first = failed[0]
            if isinstance(first, WorkerLost):
                raise WorkerLost(f"a worker process failed: {first}")
            raise WorkerLost(_DIED)
        return [results[index] for index in range(len(parts))]
