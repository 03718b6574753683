"""A pool of worker processes whose manager thread fails as it cleans up after a killed
worker (Python 3.11's race: it counts the pool's processes while another is started) prints
no traceback beside the command's one line, for as long as its workers run, whatever other
pools start and close meanwhile; any other error of any thread is printed as before."""

from __future__ import annotations

import threading
from typing import Any

from correx_tools.shell.stores.fanout import Workers


def _double(number: int) -> int:
    return 2 * number


class _Manager(threading.Thread):
    """A thread that stands for a pool's manager (its weak reference to the pool)."""

    def __init__(self, pool: Any) -> None:
        super().__init__()
        self.executor_reference = lambda: pool


def _failed(thread: threading.Thread, kind: type[Exception] = RuntimeError) -> Any:
    error = kind("dictionary changed size during iteration")
    return threading.ExceptHookArgs((kind, error, None, thread))


def _started() -> tuple[Workers, Any]:
    workers = Workers(None, 2)
    assert list(workers.stream_calls(_double, [1, 2, 3], _double)) == [2, 4, 6]
    return workers, workers._pool  # the pool whose manager is quieted


def test_only_a_running_pools_manager_is_quiet_whatever_order_pools_close_in() -> None:
    before = threading.excepthook
    said: list[str] = []
    threading.excepthook = lambda args: said.append(args.thread.name if args.thread else "")
    try:
        first, first_pool = _started()
        second, second_pool = _started()
        for pool in (first_pool, second_pool):
            threading.excepthook(_failed(_Manager(pool)))  # quiet
        threading.excepthook(_failed(_Manager(first_pool), ValueError))  # not the race's
        threading.excepthook(_failed(_Manager(object())))  # no pool of ours
        threading.excepthook(_failed(threading.Thread(name="other")))
        assert len(said) == 3 and said[-1] == "other"
        first.close()  # closed first, though started first
        threading.excepthook(_failed(_Manager(first_pool)))  # printed again
        threading.excepthook(_failed(_Manager(second_pool)))  # still quiet
        assert len(said) == 4
        second.close()
        threading.excepthook(_failed(_Manager(second_pool)))
        assert len(said) == 5
    finally:
        threading.excepthook = before
