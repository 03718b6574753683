"""A pool of worker processes whose manager thread fails as it cleans up after a killed
worker (Python 3.11's race: it counts the pool's processes while another is started) prints
no traceback beside the command's one line; any other thread's error is printed as before,
and the hook is put back when the workers are closed."""

from __future__ import annotations

import threading
from typing import Any

from correx_tools.shell.stores.fanout import Workers


def _double(number: int) -> int:
    return 2 * number


class _Thread(threading.Thread):
    """A thread that stands for a pool's manager (its weak reference to the pool)."""

    def __init__(self, pool: Any) -> None:
        super().__init__()
        self.executor_reference = lambda: pool


def _args(thread: threading.Thread) -> Any:
    error = RuntimeError("dictionary changed size during iteration")
    return threading.ExceptHookArgs((RuntimeError, error, None, thread))


def test_only_the_pools_own_manager_is_quiet_and_the_hook_is_put_back() -> None:
    before = threading.excepthook
    said: list[threading.Thread | None] = []
    threading.excepthook = lambda args: said.append(args.thread)
    try:
        workers = Workers(None, 2)
        assert list(workers.stream_calls(_double, [1, 2, 3], _double)) == [2, 4, 6]
        pool = workers._pool  # the pool whose manager is quieted
        other = threading.Thread()
        threading.excepthook(_args(_Thread(pool)))
        threading.excepthook(_args(_Thread(object())))
        threading.excepthook(_args(other))
        assert [thread.__class__ for thread in said] == [_Thread, threading.Thread]
        workers.close()
        threading.excepthook(_args(_Thread(pool)))  # closed: the hook before is back
        assert len(said) == 3
    finally:
        threading.excepthook = before
