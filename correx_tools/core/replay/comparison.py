"""Two runs of a task side by side: which calls are the same call, where they part, what
differed.

Calls are matched by three keys in turn (`alignment.align_in_turn`), each only where
the one before found nothing:

1. *exactly*: the same tool, and arguments equal once each is normalised against its
   own session's working directory: in every string, whitespace runs become one space
   and the working directory's own path (``/repo/src/a.py`` under ``/repo``) becomes
   relative (``src/a.py``; the directory itself, ``.``). That key is a 64-bit BLAKE2b
   digest of the normalised call;
2. *by meaning*: the same kind of thing (`kinds`: read, edit, run, search, list,
   submit) to the same target (a path relative to the run's workspace root, or a
   command's words: quoting and whitespace do not count) with the same content (an
   edit's lines); so ``find_file "x.py"`` and ``find_file x.py``, or ``cat src/a.py``
   and an editor's ``view /repo/src/a.py``, are the same call, spelled otherwise;
3. *by target*: the same kind of thing to the same target, with other arguments: two
   edits of one file with other lines. Such a pair is a ``changed`` row.

Matched by the first two, a pair is a ``same`` row (the row says ``by``: ``exact`` or
``meaning``, the spellings shown beside); the *first divergence* is the first call not
in a ``same`` row on either side. Each call costs the alignment three keys (24 bytes),
and every aligned row says what differed between its two calls:

* ``arguments``: a *changed* row's (two calls matched by target, or two calls of the
  same tool or kind left unmatched at the same point); matched calls' arguments are
  equal once normalised, and where they were written under another directory or with
  other whitespace or quoting that is no difference anyone acts on;
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
from typing import Any, Literal, NamedTuple, TypeAlias, final, overload

from ..lifecycle.status import ToolInvocationStatus
from .alignment import Alignment
from .kinds import KINDS, Kind, common_root, rooted

Difference: TypeAlias = Literal["arguments", "outcome", "exit_code", "duration"]
RowKind: TypeAlias = Literal["same", "changed", "only_a", "only_b"]
MatchedBy: TypeAlias = Literal["exact", "meaning", "target", "tool", "kind"]
BY_LEVEL: tuple[MatchedBy, ...] = ("exact", "meaning", "target")
"""What each key of `align_in_turn` matches by, in its order."""
ALIKE = 2
"""The first key whose matches are likenesses (``changed`` rows), not the same call."""

_STATUSES = tuple(ToolInvocationStatus)
_STATUS_NUMBERS = {status: number for number, status in enumerate(_STATUSES)}
_KIND_NUMBERS = {kind: number for number, kind in enumerate(KINDS)}
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
    its key, how it stands at the session's end, its exit code where one was recorded, its
    duration in seconds where the session records times and the call ended, its kind and
    its target (relative to the run's workspace once `Calls.settle` found it)."""

    tool_name: str
    requested_seq: int
    key: int
    status: ToolInvocationStatus
    exit_code: int | None
    duration: float | None
    kind: Kind = "other"
    target: str = ""


@final
class Calls:
    """One run's calls in request order, kept in columns (54 bytes a call: not even its
    id) so that two runs of a million events fit in memory together. Each target is kept
    once, for every call that shares it."""

    __slots__ = ("_contents", "_digests", "_durations", "_exits", "_keys", "_kinds", "_names",
                 "_paths", "_seqs", "_statuses", "_target_ids", "_target_of", "_targets",
                 "_tools", "root", "tool_names")  # fmt: skip

    def __init__(self) -> None:
        self._tools: array[int] = array("i")
        self.tool_names: dict[str, int] = {}
        self._names: list[str] = []
        self._seqs: array[int] = array("q")
        self._keys: array[int] = array("q")
        self._statuses: array[int] = array("b")
        self._exits: array[int] = array("q")
        self._durations: array[float] = array("d")
        self._kinds: array[int] = array("b")
        self._target_of: array[int] = array("i")
        self._target_ids: dict[str, int] = {}
        self._targets: list[str] = []
        self._paths: set[int] = set()
        self._contents: array[int] = array("q")
        self.root: str | None = None
        """The run's workspace root, its targets' paths relative to it (`settle`)."""
        self._digests: list[int] = []

    def append(self, call: CallFacts, content: str = "") -> None:
        """Add the next call (its kind and target in ``call``, as the call wrote it;
        ``content``: what else it said, `core.report.meaning`)."""
        self.add(*call, content)

    def add(  # noqa: PLR0917 - a call's columns, one by one: a million calls, no tuple
        self,
        tool_name: str,
        requested_seq: int,
        key: int,
        status: ToolInvocationStatus,
        exit_code: int | None,
        duration: float | None,
        kind: Kind,
        target: str,
        content: str = "",
    ) -> None:
        """`append`, the call's facts given one by one (read a million times: no tuple)."""
        number = self.tool_names.get(tool_name)
        if number is None:
            number = self.tool_names[tool_name] = len(self._names)
            self._names.append(tool_name)
        self._tools.append(number)
        self._seqs.append(requested_seq)
        self._keys.append(key)
        self._statuses.append(_STATUS_NUMBERS[status])
        self._exits.append(_NO_EXIT if exit_code is None else exit_code)
        self._durations.append(math.nan if duration is None else duration)
        self._kinds.append(_KIND_NUMBERS[kind])
        said = self._target_ids.get(target)
        if said is None:
            said = self._target_ids[target] = len(self._targets)
            self._targets.append(target)
            if kind in _PATH_KINDS:
                self._paths.add(said)
        elif kind in _PATH_KINDS:
            self._paths.add(said)
        self._target_of.append(said)
        # A call no rule reads (kind other), or an edit that does not say its lines, means
        # what its exact key says; a read, a run, a submit say nothing beside their target.
        if content:
            self._contents.append(_digest_text(content))
        else:
            self._contents.append(key if kind in _KEYED else 0)

    def settle(self, root: str | None) -> None:
        """Make the targets relative to ``root`` (the run's working directory; ``None``: the
        deepest folder holding every path the run read or edited), each once. Once, after
        the last call."""
        if root is None:
            root = common_root(self._targets[number] for number in self._paths)
        self.root = root
        self._targets = [rooted(target, root) for target in self._targets]
        self._digests = [_digest_text(target) for target in self._targets]

    @property
    def by_meaning(self) -> Sequence[int]:
        """Each call's key by meaning (kind, target, content), once `settle`d: made only
        for the calls asked for (`align_in_turn` asks for those the exact keys left)."""
        return _Keys(self, target=False)

    @property
    def by_target(self) -> Sequence[int]:
        """Each call's key by target (kind and target; a call of no known kind, its exact
        key), made as `by_meaning`'s are."""
        return _Keys(self, target=True)

    def keys_of(self, start: int, stop: int, *, target: bool) -> list[int]:
        """The keys by meaning (or by ``target``) of the calls ``start`` to ``stop``."""
        digests = self._digests
        said = zip(self._kinds[start:stop], self._target_of[start:stop],
                   self._contents[start:stop], strict=True)  # fmt: skip
        if target:
            return [hash((k, digests[t])) if k != _OTHER else hash((k, c)) for k, t, c in said]
        return [hash((k, digests[t], c)) for k, t, c in said]

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
            KINDS[self._kinds[position]],
            self._targets[self._target_of[position]],
        )

    @property
    def keys(self) -> array[int]:
        """Each call's key, in order (what the alignment compares first)."""
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

    def kind_of(self, position: int) -> Kind:
        """The call's kind."""
        return KINDS[self._kinds[position]]


@final
class _Keys(Sequence[int]):
    """A run's keys by meaning or by target, made for the calls asked for: one, or a slice
    (a list)."""

    __slots__ = ("calls", "target")

    def __init__(self, calls: Calls, *, target: bool) -> None:
        self.calls, self.target = calls, target

    def __len__(self) -> int:
        return len(self.calls)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            assert step == 1, "keys are asked for in runs"
            return self.calls.keys_of(start, stop, target=self.target)
        at = index if index >= 0 else len(self) + index
        return self.calls.keys_of(at, at + 1, target=self.target)[0]


_PATH_KINDS = frozenset({"read", "edit"})
_KEYED = frozenset({"other", "edit"})
_OTHER = KINDS.index("other")


def _digest_text(text: str) -> int:
    digest = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, signed=True)


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
    ``None``), what differed, and what matched them (``by``). ``same``: the same call
    (matched exactly, or by meaning); ``changed``: the same kind of thing to the same
    target, or two calls of one tool or kind left unmatched at the same point;
    ``only_a``/``only_b``: a call of one run that the other has nothing beside."""

    kind: RowKind
    a: int | None
    b: int | None
    differs: tuple[Difference, ...]
    by: MatchedBy | None = None


def side_by_side(alignment: Alignment, a: Calls, b: Calls) -> Iterator[Row]:
    """Every call of both runs, in order, as rows: the matched ones beside each other, and
    between two matches what each run did instead (paired where the tools or kinds
    agree)."""
    i = j = 0
    ends = ((alignment.length_a, alignment.length_b),)
    levels = alignment.levels
    for number, (next_i, next_j) in enumerate(chain(alignment.pairs(), ends)):
        if next_i > i or next_j > j:
            yield from _gap(a, b, i, next_i, j=j, j_end=next_j)
        if next_i < alignment.length_a:
            by = BY_LEVEL[levels[number]] if levels else "exact"
            if by == "target":
                yield Row("changed", next_i, next_j,
                          ("arguments", *differences(a[next_i], b[next_j])), by)  # fmt: skip
            else:
                same = a.went_as(next_i, b, next_j)
                differs = () if same else differences(a[next_i], b[next_j])
                yield Row("same", next_i, next_j, differs, by)
        i, j = next_i + 1, next_j + 1


def _gap(a: Calls, b: Calls, i: int, i_end: int, *, j: int, j_end: int) -> Iterator[Row]:
    """The unmatched calls between two matches: pairs of one tool, or of one kind, beside
    each other."""
    while i < i_end or j < j_end:
        if i < i_end and j < j_end and (by := _paired(a, i, b, j)) is not None:
            yield Row("changed", i, j, ("arguments", *differences(a[i], b[j])), by)
            i, j = i + 1, j + 1
        elif i < i_end:
            yield Row("only_a", i, None, ())
            i += 1
        else:
            yield Row("only_b", None, j, ())
            j += 1


def _paired(a: Calls, i: int, b: Calls, j: int) -> MatchedBy | None:
    """Whether two calls left unmatched at one point are one changed call: of one tool, or
    of one kind that is not ``other``."""
    if a.tool_of(i) == b.tool_of(j):
        return "tool"
    kind = a.kind_of(i)
    return "kind" if kind != "other" and kind == b.kind_of(j) else None
