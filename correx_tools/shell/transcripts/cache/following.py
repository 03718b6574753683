"""Following transcripts as agents write them: a cache looked at again and again, on a thread.

``serve`` over a folder or a transcript answers from the cache's store; a
`Follower` brings the cache in step with the files every ``interval``
seconds, so a running session's new calls reach the page (whose stream sees
the session's last sequence grow) and a new session file appears in the list.
A look whose files did not change costs a ``stat`` each. A look that fails
(the disk went away, the cache was deleted under it) is told once and tried
again on the next turn; it never stops the server.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .cache import TranscriptCache
from .look import Look

INTERVAL_SECONDS = 0.5
"""How often the files are looked at: a new call reaches the page well within 2 s."""


class Follower:
    """Looks at ``cache``'s files every ``interval`` seconds until stopped, telling ``told``
    what each look that changed something did, and ``failed`` why a look failed (once for
    the same reason, until a look succeeds).

    ``replaced``, when set, is told first the sessions a look replaced or removed (a file
    rewritten in place, a file gone), so that what was kept of them is dropped: a session
    rewritten may keep its length, and nothing else tells a reader it changed.
    """

    def __init__(
        self,
        cache: TranscriptCache,
        *,
        told: Callable[[Look], None],
        failed: Callable[[str], None],
        interval: float = INTERVAL_SECONDS,
    ) -> None:
        self.cache, self.told, self.failed, self.interval = cache, told, failed, interval
        self.replaced: Callable[[list[str]], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_failure = ""

    def turn(self) -> None:
        """One look (the thread's step; a test may call it directly)."""
        try:
            look = self.cache.look()
        except Exception as error:  # a look must never end the server: say it, try again
            reason = f"{type(error).__name__}: {error}" if not str(error) else str(error)
            if reason != self._last_failure:
                self._last_failure = reason
                self.failed(reason)
            return
        self._last_failure = ""
        gone = [session for _, session in (*look.rewritten, *look.removed)]
        if gone and self.replaced is not None:
            self.replaced(gone)
        if look.changed or look.skipped or look.refused:
            self.told(look)

    def start(self) -> None:
        """Follow the files from a thread of its own."""

        def follow() -> None:
            pause = self.interval
            while not self._stop.wait(pause):
                started = time.monotonic()
                self.turn()
                # A folder so large that a look takes long is looked at less often: the
                # follower never takes more than a third of a core.
                pause = max(self.interval, 2 * (time.monotonic() - started))

        self._thread = threading.Thread(target=follow, name="correx-follow", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop following (the look under way ends first) and close the cache."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.cache.close()
