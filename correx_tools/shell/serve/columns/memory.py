"""Handing memory freed after a large build back to the system.

Reading a million-event session's columns, or the structures built from them,
makes and drops millions of small objects; the C allocator keeps the pages they
lived on unless asked to give them back, and a server that stays up should not
keep its largest moment's memory for ever. On glibc, ``malloc_trim`` does that;
elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

_TRIM: Callable[[int], int] | None = None
try:
    _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _TRIM = _LIBC.malloc_trim
except (OSError, AttributeError):  # not glibc: nothing to ask
    _TRIM = None


def give_back() -> None:
    """Return the allocator's free pages to the system, where it can."""
    if _TRIM is not None:
        _TRIM(0)
