"""Counts, durations and long text as a person reads them: ``30,123 events``, ``1 session``,
``4 h 6 min``, ``demo-run…/call-00005``.

The command's text output goes through these; ``--json`` keeps the numbers
and the full text as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

ELLIPSIS = "…"

_SECOND = 1_000_000
_MINUTE = 60 * _SECOND
_HOUR = 60 * _MINUTE


def _two(count: int, per: int, big: str, small: str) -> str:
    whole, rest = divmod(count, per)
    return f"{whole} {big}" + (f" {rest} {small}" if rest else "")


# The ways a duration is said, shortest first: the unit it is rounded to (in microseconds),
# how many of those the way says before the next way takes over, and the words.
_WAYS: tuple[tuple[int, int | None, Callable[[int], str]], ...] = (
    (1, 1_000, lambda n: f"{n} µs"),
    (1_000, 1_000, lambda n: f"{n} ms"),
    (_SECOND // 10, 600, lambda n: f"{n // 10}.{n % 10} s"),
    (_SECOND, 3_600, lambda n: _two(n, 60, "min", "s")),
    (_MINUTE, 24 * 60, lambda n: _two(n, 60, "h", "min")),
    (_HOUR, None, lambda n: _two(n, 24, "d", "h")),
)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and the noun, singular for one, with thousands separators.

    >>> counted(30123, "event"), counted(1, "session"), counted(0, "entry", "entries")
    ('30,123 events', '1 session', '0 entries')
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def duration(span: timedelta) -> str:
    """A duration as a person says it: ``850 ms``, ``12.4 s``, ``4 min 12 s``, ``4 h 6 min``,
    ``2 d 3 h``; at most two units, the smaller one rounded.

    >>> [duration(timedelta(seconds=s)) for s in (0.00042, 0.85, 12.44, 252, 14_760, 183_600)]
    ['420 µs', '850 ms', '12.4 s', '4 min 12 s', '4 h 6 min', '2 d 3 h']
    >>> duration(timedelta(minutes=6165.9))
    '4 d 7 h'
    """
    micro = (span.days * 86_400 + span.seconds) * _SECOND + span.microseconds
    if micro == 0:
        return "0 s"
    sign, micro = ("-", -micro) if micro < 0 else ("", micro)
    for unit, limit, say in _WAYS:
        count = (micro + unit // 2) // unit  # rounded half up
        if limit is None or count < limit:
            return sign + say(count)
    raise AssertionError("the last way says any duration")


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: both ends kept, an ellipsis in the middle.

    >>> cut_middle("demo-run01-session-1/call-00005", 21)
    'demo-run01…call-00005'
    """
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    tail = (width - 1) // 2
    head = width - 1 - tail
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")
