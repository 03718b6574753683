"""The server's own troubles on stderr: each cause said once, then how often it came back.

An attack, or a process out of file descriptors, repeats one error thousands of
times a second, and a line (or a traceback) for each buries the terminal: 68 MB
in 13 seconds once. `Said` says a cause the first time it happens; after that
it counts, and says how many more times it happened at most once a minute
(only while it keeps happening) and when the server stops. uvicorn's and
asyncio's own log records and the event loop's errors all go through it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, final

EVERY_SECONDS = 60.0
"""At most this often, a cause that keeps coming back is counted in a line."""
LOGGERS = ("uvicorn.error", "asyncio")
"""The loggers whose records are said once per cause instead of each printed."""
_LONGEST = 300
"""Characters of a cause shown (an error's text may hold what a client sent)."""


@final
class Said:
    """Causes said once, then counted; ``write`` prints a line."""

    def __init__(
        self, write: Callable[[str], None], *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._write, self._clock = write, clock
        self._pending: dict[str, int] = {}
        self._seen: set[str] = set()
        self._last = clock()
        self._lock = threading.Lock()

    def say(self, cause: str) -> None:
        """Say ``cause`` if it is new, else count it (and say the counts when it is time)."""
        cause = cause[:_LONGEST]
        with self._lock:
            first = cause not in self._seen
            if first:
                self._seen.add(cause)
            else:
                self._pending[cause] = self._pending.get(cause, 0) + 1
            due = self._clock() - self._last >= EVERY_SECONDS
        if first:
            self._write(f"{cause} (said once; how often it recurs is counted)")
        if due:
            self.flush()

    def flush(self) -> None:
        """Say how many more times each cause happened since it was last said."""
        with self._lock:
            pending, self._pending, self._last = self._pending, {}, self._clock()
        for cause, times in pending.items():
            self._write(f"{cause}: {times:,} more time{'' if times == 1 else 's'}")

    def loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """An event loop's exception handler: the error's message and kind, no traceback."""
        error = context.get("exception")
        self.say(str(context.get("message")) + ("" if error is None else f": {_kind(error)}"))

    def filter(self, record: logging.LogRecord) -> bool:
        """A logging filter: the record is said once per cause here, never printed as is."""
        error = record.exc_info[1] if record.exc_info else None
        self.say(record.getMessage() + ("" if error is None else f": {_kind(error)}"))
        return False


def _kind(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
