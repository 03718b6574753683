"""Two runs of a task side by side: which calls are the same call, where they part, what
differed.

A call of one run is *the same call* as one of the other when its tool is the
same and its arguments are equal once each is normalised against its own
session's working directory: in every string, whitespace runs become one space
and the working directory's own path (``/repo/src/a.py`` under ``/repo``)
becomes relative (``src/a.py``; the directory itself, ``.``). That key is a
64-bit BLAKE2b digest of the normalised call, so each call costs the alignment
eight bytes. The calls are aligned by their keys (`alignment.align`); the
*first divergence* is the first call unmatched on either side, and every
aligned row says what differed between its two calls:

* ``arguments``: a *changed* row's (two calls of the same tool left unmatched at
  the same point); matched calls' arguments are equal once normalised, and
  where they were written under another directory or with other whitespace
  that is no difference anyone acts on;
* ``outcome``: their statuses differ (completed, failed, rejected, still open);
* ``exit_code``: both recorded an exit code, and the codes differ;
* ``duration``: both runs recorded times, both calls ended, and one took at
  least twice as long as the other and a second more (noise below that is not
  a difference anyone acts on). A run imported from a transcript that records
  no time has no durations (see `recorded`).
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Iterator, Mapping, Sequence
from hashlib import blake2b
from itertools import chain
from typing import Any, Literal, NamedTuple, TypeAlias, final

from ..lifecycle.status import ToolInvocationStatus
from .alignment import Alignment

Difference: TypeAlias = Literal["arguments", "outcome", "exit_code", "duration"]
RowKind: TypeAlias = Literal["same", "changed", "only_a", "only_b"]

_STATUSES = tuple(ToolInvocationStatus)
_NO_EXIT = -(2**63)
SLOWER = 2.0
"""How many times as long one matched call must take for its duration to be a difference."""
SLOWER_BY = 1.0
"""And by how many seconds at least."""


def normalised(value: Any, cwd: str | None) -> Any:
    """``value`` (a JSON value) with each string's whitespace runs made one space and
    ``cwd``'s path made relative, inside lists and objects too.

    >>> normalised({"path": "/repo/a.py", "cmd": "cd  /repo &&\\n ls"}, "/repo")
    {'path': 'a.py', 'cmd': 'cd . && ls'}
    """
    if isinstance(value, str):
        return _normalised_text(value, cwd)
    if isinstance(value, Mapping):
        return {key: normalised(item, cwd) for key, item in value.items()}
    if isinstance(value, Sequence):  # a list, or a frozen one
        return [normalised(item, cwd) for item in value]
    return value


def _normalised_text(text: str, cwd: str | None) -> str:
    words = text.split()
    if cwd:
        root = cwd.rstrip("/") or "/"
        inside = root + "/" if root != "/" else "/"
        words = ["." if word == root else word.replace(inside, "") for word in words]
    return " ".join(words)


def call_key(tool_name: str, arguments: Mapping[str, Any], cwd: str | None) -> int:
    """The key two calls share when they are the same call: their tool, and their
    arguments (plain JSON values, or frozen ones) normalised against their session's
    working directory (``cwd``)."""
    return _digest([tool_name, normalised(arguments, cwd)])


def _digest(value: Any) -> int:
    text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return int.from_bytes(blake2b(text.encode("ascii"), digest_size=8).digest(), signed=True)


@final
class CallFacts(NamedTuple):
    """What a comparison knows of one call: its id, tool and request's sequence,
    its key, how it stands at the session's end, its exit code where one was recorded, and its
    duration in seconds where the session records times and the call ended."""

    tool_name: str
    requested_seq: int
    key: int
    status: ToolInvocationStatus
    exit_code: int | None
    duration: float | None


@final
class Calls:
    """One run's calls in request order, kept in columns (41 bytes a call: not even its
    id) so that two runs of a million events fit in memory together."""

    __slots__ = ("_durations", "_exits", "_keys", "_names", "_seqs", "_statuses", "_tools",
                 "tool_names")  # fmt: skip

    def __init__(self) -> None:
        self._tools: array[int] = array("i")
        self.tool_names: dict[str, int] = {}
        self._names: list[str] = []
        self._seqs: array[int] = array("q")
        self._keys: array[int] = array("q")
        self._statuses: array[int] = array("b")
        self._exits: array[int] = array("q")
        self._durations: array[float] = array("d")

    def append(self, call: CallFacts) -> None:
        """Add the next call."""
        number = self.tool_names.setdefault(call.tool_name, len(self.tool_names))
        if number == len(self._names):
            self._names.append(call.tool_name)
        self._tools.append(number)
        self._seqs.append(call.requested_seq)
        self._keys.append(call.key)
        self._statuses.append(_STATUSES.index(call.status))
        self._exits.append(_NO_EXIT if call.exit_code is None else call.exit_code)
        self._durations.append(math.nan if call.duration is None else call.duration)

    def __len__(self) -> int:
        return len(self._seqs)

    def __getitem__(self, position: int) -> CallFacts:
        exit_code = self._exits[position]
        duration = self._durations[position]
        return CallFacts(
            self._names[self._tools[position]],
            self._seqs[position],
            self._keys[position],
            _STATUSES[self._statuses[position]],
            None if exit_code == _NO_EXIT else exit_code,
            None if math.isnan(duration) else duration,
        )

    @property
    def keys(self) -> array[int]:
        """Each call's key, in order (what the alignment compares)."""
        return self._keys

    def went_as(self, position: int, other: Calls, at: int) -> bool:
        """Whether the call at ``position`` ended as ``other``'s at ``at`` did, to the
        second: then `differences` has nothing to say of them (a quick look first)."""
        return (
            self._statuses[position] == other._statuses[at]
            and self._exits[position] == other._exits[at]
            and (
                self._durations[position] == other._durations[at]
                or (math.isnan(self._durations[position]) and math.isnan(other._durations[at]))
            )
        )

    def tool_of(self, position: int) -> str:
        """The call's tool."""
        return self._names[self._tools[position]]


def differences(a: CallFacts, b: CallFacts) -> tuple[Difference, ...]:
    """What differed in how two calls put side by side went (see the module's docstring;
    ``arguments`` is a changed row's own)."""
    found: list[Difference] = []
    if a.status is not b.status:
        found.append("outcome")
    if a.exit_code is not None and b.exit_code is not None and a.exit_code != b.exit_code:
        found.append("exit_code")
    if a.duration is not None and b.duration is not None:
        short, long = sorted((a.duration, b.duration))
        if long >= SLOWER * short and long - short >= SLOWER_BY:
            found.append("duration")
    return tuple(found)


@final
class Row(NamedTuple):
    """One line of two runs side by side: the call of each (its position in its run, or
    ``None``) and what differed. ``same``: matched calls; ``changed``: two calls of
    one tool left unmatched at the same point; ``only_a``/``only_b``: a call of one run
    that the other has nothing beside."""

    kind: RowKind
    a: int | None
    b: int | None
    differs: tuple[Difference, ...]


def side_by_side(alignment: Alignment, a: Calls, b: Calls) -> Iterator[Row]:
    """Every call of both runs, in order, as rows: the matched ones beside each other, and
    between two matches what each run did instead (paired where the tools agree)."""
    i = j = 0
    ends = ((alignment.length_a, alignment.length_b),)
    for next_i, next_j in chain(alignment.pairs(), ends):
        if next_i > i or next_j > j:
            yield from _gap(a, b, i, next_i, j=j, j_end=next_j)
        if next_i < alignment.length_a:
            same = a.went_as(next_i, b, next_j)
            yield Row("same", next_i, next_j, () if same else differences(a[next_i], b[next_j]))
        i, j = next_i + 1, next_j + 1


def _gap(a: Calls, b: Calls, i: int, i_end: int, *, j: int, j_end: int) -> Iterator[Row]:
    """The unmatched calls between two matches: pairs of one tool beside each other."""
    while i < i_end or j < j_end:
        if i < i_end and j < j_end and a.tool_of(i) == b.tool_of(j):
            yield Row("changed", i, j, ("arguments", *differences(a[i], b[j])))
            i, j = i + 1, j + 1
        elif i < i_end:
            yield Row("only_a", i, None, ())
            i += 1
        else:
            yield Row("only_b", None, j, ())
            j += 1
