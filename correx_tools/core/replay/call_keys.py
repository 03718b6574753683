"""A run's calls' keys, kept for the calls it repeats (`CallKeys`): the exact key
`comparison.call_key` gives, without hashing a repeated call's normalised arguments again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, final

from .comparison import call_key

KEPT_KEYS = 4_096
"""Flat calls whose key a run keeps (`CallKeys`)."""


@final
class CallKeys:
    """One run's calls' keys (`call_key`, against the run's ``cwd``), kept for calls whose
    arguments are flat (strings, numbers, booleans, null): runs repeat their calls, and a
    repeated call's key is then found, not hashed again from its normalised arguments.

    >>> keys = CallKeys("/repo")
    >>> keys.of("read", {"path": "/repo/a.py"}) == call_key("read", {"path": "a.py"}, None)
    True
    """

    __slots__ = ("_cwd", "_kept")

    def __init__(self, cwd: str | None) -> None:
        self._cwd = cwd
        self._kept: dict[tuple[Any, ...], int] = {}

    def of(self, tool_name: str, arguments: Mapping[str, Any]) -> int:
        """The call's key."""
        # Each value with its type: True and 1 are equal in Python, not in JSON.
        flat = (tool_name, *((k, v.__class__, v) for k, v in sorted(arguments.items())))
        try:
            found = self._kept.get(flat)
        except TypeError:  # a list or an object inside: hashed whole each time
            return call_key(tool_name, arguments, self._cwd)
        if found is None:
            found = call_key(tool_name, arguments, self._cwd)
            if len(self._kept) >= KEPT_KEYS:
                self._kept.clear()  # bounded: a run of many distinct calls keeps few
            self._kept[flat] = found
        return found
