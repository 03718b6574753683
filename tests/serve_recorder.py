"""An agent recording a session while a test watches it through ``correx-tools serve``.

``python tests/serve_recorder.py SOURCE SESSION CALLS [PAUSE]`` opens the store
SOURCE names (a SQLite file, a .jsonl log or a postgresql:// URL) and records
CALLS invocations through a `SessionRecorder`: each requested, started, then
completed (one in three fails), PAUSE seconds apart. It prints ``recorded N``
(flushed) after each call, N being the session's last sequence.
"""

from __future__ import annotations

import sys
import time

from correx_tools import InvocationId, SessionId, SessionRecorder, Tier, ToolReceipt, ToolRequest
from correx_tools.shell.stores.addresses import address_of
from correx_tools.shell.stores.opening import open_address
from correx_tools.shell.stores.port import ClosableStore


def main(source: str, session: str, calls: int, pause: float) -> None:
    store = open_address(address_of(source))
    recorder = SessionRecorder(store, SessionId(session))  # reads the session on first use
    for number in range(calls):
        call = InvocationId(f"{session}-live-{number}-{time.time_ns()}")
        request = ToolRequest(tool_name="run_tests", arguments={"n": number})
        recorder.request(call, request, tier=Tier.AUTO).unwrap()
        recorder.start(call).unwrap()
        if number % 3 == 2:
            recorder.fail(call, "1 test failed", recoverable=True).unwrap()
        else:
            recorder.complete(call, ToolReceipt(output={"passed": number}, exit_code=0)).unwrap()
        print(f"recorded {recorder.last_sequence}", flush=True)
        time.sleep(pause)
    if isinstance(store, ClosableStore):
        store.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 0)
