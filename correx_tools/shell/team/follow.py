"""Pushing again and again while agents write (`push --follow`): each pass looks at the
transcripts (a ``stat`` of each unchanged file) and pushes what is new, then waits
`INTERVAL` seconds, so an event an agent writes is in the team's store within a pass and a
wait.

A lost server stops no one: the pass that finds it gone says so in one line, and the
passes after it wait longer each time (`backoff`: 1, 2, 4 ... up to `LONGEST_WAIT`
seconds) and say nothing until one gets through, which says so in one line too. Nothing
is lost meanwhile: what was not pushed is still in the sending store, and the next pass
that reaches the server sends it. Each pass holds one run of events at a time, so memory
stays bounded however long it follows.
"""

from __future__ import annotations

from collections.abc import Callable

from .push import Pushed, PushFailed

INTERVAL = 1.0
"""Seconds between two passes that reached the server."""

LONGEST_WAIT = 30.0
"""The longest wait between two tries while the server is gone."""


def backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` passes in a row that could not reach the server.

    >>> [backoff(n) for n in (1, 2, 3, 6, 20)]
    [1.0, 2.0, 4.0, 30.0, 30.0]
    """
    return min(LONGEST_WAIT, float(2 ** min(failures - 1, 16)))


def follow(
    step: Callable[[], Pushed],
    *,
    say: Callable[[str], None],
    sleep: Callable[[float], None],
    passes: int | None = None,
) -> int:
    """Run ``step`` (one look and push) until stopped (or ``passes`` times), saying what each
    pass sent, and one line when the server is lost and one when it is back; the events
    sent in all."""
    sent, failures, done = 0, 0, 0
    told: set[str] = set()  # refusals said once, not on every pass
    while passes is None or done < passes:
        done += 1
        try:
            pushed = step()
        except PushFailed as failed:
            failures += 1
            if failures == 1:
                say(f"{failed}; retrying, nothing is lost meanwhile")
            sleep(backoff(failures))
            continue
        if failures:
            say(f"the team's store is back after {failures:,} tries; pushing")
            failures = 0
        sent += pushed.events
        if pushed.sent:
            say(f"pushed {pushed.events:,} events of {len(pushed.sent):,} sessions")
        for _, reason in pushed.refused:
            if reason not in told:
                told.add(reason)
                say(reason)
        sleep(INTERVAL)
    return sent
