"""A value too large to store, cut to fit: an event's envelope is at most `MAX_EVENT_BYTES`.

A transcript may hold one output, or one argument, larger than any store keeps
(a command that printed 1.5 MiB). Rather than refuse the whole session for it,
the import cuts that one value — the largest string of the output (or of the
arguments, or a failure's reason) — to the longest prefix that fits, and says
so on the call, with the original's size in UTF-8 bytes and its SHA-256:

* an output's cut is named in the receipt's metadata, ``cut``:
  ``output: 1,572,864 bytes, sha256:<hex>`` (the string's place after
  ``output`` when it lies inside the output: ``output[0].text``);
* an argument's or a reason's cut string ends with a line that says the same,
  ``[cut: arguments.content: 1,572,864 bytes, sha256:<hex>]``: a request and a
  failure have no metadata, and the arguments are what the request shows (the
  call's receipt, when it has one, names the argument's cut in ``cut`` too).

When cutting the largest string to nothing is not enough, the next largest is cut
too; an output made of many small values is kept as its JSON text, cut
(``output (as JSON): …``); arguments made of many small values have their largest
parts each replaced by its mark (``[cut: arguments.items (as JSON): …]``), or, where no
part is large (an object of 100,000 small members), are kept as one member ``cut``
holding their JSON text, cut, and its mark. A value nested deeper than 64 levels has each
part past that depth replaced by its mark (`shallow`). An event that fits is never
touched, and nothing but the cut is changed. Cutting is the last thing an import does
to a value: masking what looks like a secret is the views' work, on what is stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from hashlib import sha256
from typing import Any, Final

from ...stores.codec.encoding import line_size
from ...stores.codec.envelope import MAX_EVENT_BYTES, event_payload
from ...stores.codec.strict_json import canonical_json
from ..common.long_text import LongText
from ..common.shallow import shallow_value, too_deep

CUT: Final = "cut"
"""The receipt's metadata key that names what the import cut, and what it was."""
LIMIT: Final = MAX_EVENT_BYTES
_WIDEST_SEQUENCE: Final = 10**19  # measured with a sequence wider than any store writes
_MARGIN: Final = 64
_ROUGH_SLACK: Final = 4096  # what the envelope's own fields can take beside the data
_MOST_CUTS: Final = 16
_WHOLE_BELOW: Final = 64 * 1024
"""An output whose largest string is shorter than this, and still too large, is many
small values: it is kept as its JSON text, cut (one cut, not thousands)."""
_PLACE_CHARS: Final = 40

Build = Callable[[Any, tuple[str, ...]], object]
"""Makes the event from the (maybe cut) value and the notes of what was cut."""


def fitted(
    value: Any,
    label: str,
    build: Build,
    session_id: str,
    *,
    inline: bool,
    beside: int = 0,
) -> tuple[object, tuple[str, ...]]:
    """The event ``build(value, notes)`` makes, with ``value`` cut so that its envelope
    fits (see the module docstring), and the notes of each cut (none when it fit).

    ``label`` names the value in a note (``output``, ``arguments``, ``reason``);
    ``inline`` marks each cut string with a last line naming the cut; ``beside`` is how
    many characters the event's other strings hold (ids, metadata), counted in the quick
    test that spares the measuring of an event that plainly fits (nearly every one). An
    event that cannot be measured (a value no store keeps) is left as it is, for the store
    to refuse by name.
    """
    notes: tuple[str, ...] = ()
    if too_deep(value):
        value, notes = shallow_value(value, label)
    cap = LIMIT - _ROUGH_SLACK - 6 * (beside + len(session_id))
    if _bound(value, cap) <= cap:
        return build(value, notes), notes
    if not (isinstance(value, str) and len(value) > LIMIT):  # one that plainly does not fit
        event = build(value, notes)  # is not written out whole to be measured
        if _size(event, session_id) <= LIMIT:
            return event, notes
    current = value
    done: set[tuple[Any, ...]] = set()
    for _ in range(_MOST_CUTS):
        spot = _largest(current, done)
        if (
            inline
            and isinstance(current, dict | list)
            and (spot is None or len(spot[1]) < _WHOLE_BELOW)
        ):
            # Many small values (no string worth cutting): the largest parts are put aside
            # whole, each as its mark, or the whole value as its JSON text, cut.
            return _parts_cut(current, label, build, notes, session_id)
        if not inline and not done and (spot is None or len(spot[1]) < _WHOLE_BELOW):
            whole = _json_text(value)
            if whole is None:
                break
            path, text, named = (), whole, f"{label} (as JSON)"
            current = whole
        elif spot is None:
            break
        else:
            path, text = spot
            named = label + _place(path)
        note = f"{named}: {_described(text)}"
        mark = f"\n[cut: {note}]" if inline else ""
        trial = (*notes, note)
        emptied = _put(current, path, mark)
        room = LIMIT - _size(build(emptied, trial), session_id) - _MARGIN
        if room < 0:  # even with nothing of it kept the event is too large: cut the next
            current, notes = emptied, trial
            done.add(path)
            continue
        current = _put(current, path, prefix_within(text, room) + mark)
        return build(current, trial), trial
    return build(current, notes), notes


def _parts_cut(
    value: dict[Any, Any] | list[Any],
    label: str,
    build: Build,
    notes: tuple[str, ...],
    session_id: str,
) -> tuple[object, tuple[str, ...]]:
    """The event with ``value``'s largest members (of `_WHOLE_BELOW` characters of JSON or
    more) each replaced by its mark, the largest first, until it fits; or, where no member
    is that large (an object of 100,000 small members), ``value`` as one member ``cut``
    holding the longest prefix of its JSON text that fits and the mark."""
    current: Any = value
    for _ in range(_MOST_CUTS):
        sizes = [
            (len(text), key, text)
            for key, member in (current.items() if isinstance(current, dict)
                                else enumerate(current))
            if isinstance(member, dict | list) and (text := _json_text(member)) is not None
        ]  # fmt: skip
        if not sizes or max(sizes)[0] < _WHOLE_BELOW:
            break
        _, key, text = max(sizes, key=lambda found: found[0])
        note = f"{label}{_place((key,))} (as JSON): {_described(text)}"
        notes = (*notes, note)
        current = _put(current, (key,), f"[cut: {note}]")
        event = build(current, notes)
        if _size(event, session_id) <= LIMIT:
            return event, notes
    whole = _json_text(value) or ""
    note = f"{label} (as JSON): {_described(whole)}"
    mark = f"\n[cut: {note}]"
    trial = (*notes, note)
    room = LIMIT - _size(build(_wrapped(value, mark), trial), session_id) - _MARGIN
    return build(_wrapped(value, prefix_within(whole, room) + mark), trial), trial


def _wrapped(value: dict[Any, Any] | list[Any], text: str) -> dict[str, str] | list[str]:
    """``text`` in place of ``value``, as a value of the same kind (arguments stay an
    object)."""
    return {CUT: text} if isinstance(value, dict) else [text]


def prefix_within(text: str, room: int) -> str:
    """The longest prefix of ``text`` whose JSON string body (escaped, in UTF-8) takes at
    most ``room`` bytes.

    >>> prefix_within('ab"cd', 4)
    'ab"'
    """
    low, high = 0, min(len(text), max(room, 0))
    while low < high:  # the largest n with the prefix of n characters fitting
        middle = (low + high + 1) // 2
        if _escaped_size(text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def _escaped_size(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


def _described(text: str) -> str:
    """``1,572,864 bytes, sha256:<hex>``: the original string's size and digest, encoded a
    piece at a time (a 100 MB output is not copied whole to be hashed), or, for a
    `LongText`, as it was found when it was read."""
    if isinstance(text, LongText):
        return text.described()
    digest, size = sha256(), 0
    for start in range(0, len(text), _PIECE):
        data = text[start : start + _PIECE].encode("utf-8", "surrogatepass")
        digest.update(data)
        size += len(data)
    return f"{size:,} bytes, sha256:{digest.hexdigest()}"


_PIECE: Final = 1 << 20
"""Characters encoded at a time to measure and hash a long string."""


def _json_text(value: Any) -> str | None:
    try:
        return canonical_json(value)
    except (TypeError, ValueError, RecursionError):
        return None


def _size(event: object, session_id: str) -> int:
    """The most bytes the event's envelope takes, as every store measures it (0 when it
    cannot be measured: the store then says what is wrong with it)."""
    try:
        type_tag, version, data = event_payload(event)
        return line_size(type_tag, version, canonical_json(data), session_id, _WIDEST_SEQUENCE)
    except (TypeError, ValueError, RecursionError):
        return 0


def _bound(value: Any, cap: int) -> int:
    """More bytes than ``value``'s JSON can take (a string's every character escaped as
    ``\\u00XX``), counted until it passes ``cap``: the quick test of an event that fits."""
    if type(value) is str or type(value) is LongText:  # most outputs and reasons: no walk
        return 6 * len(value) + 3
    total = 0
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str or kind is LongText:
            total += 6 * len(item) + 3
        elif kind is dict:
            total += 2 + 3 * len(item) + 6 * sum(map(len, item))  # its keys are strings
            pending.extend(item.values())
        elif kind is list:
            total += 2 + len(item)
            pending.extend(item)
        elif item is None or kind is bool or kind is float:
            total += 26
        elif kind is int:
            total += item.bit_length() // 3 + 2
        else:
            return cap + 1  # a value of another kind: measured exactly
        if total > cap:
            return total
    return total


def _strings(value: Any) -> Iterator[tuple[tuple[Any, ...], str]]:
    """``(path, string)`` of every string in ``value`` (not the keys), the value itself
    included: a walk with a stack of its own, whatever the nesting."""
    pending: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, str):
            yield path, item
        elif isinstance(item, dict):
            pending.extend(((*path, key), inner) for key, inner in item.items())
        elif isinstance(item, list):
            pending.extend(((*path, index), inner) for index, inner in enumerate(item))


def _largest(value: Any, done: set[tuple[Any, ...]]) -> tuple[tuple[Any, ...], str] | None:
    best: tuple[tuple[Any, ...], str] | None = None
    for path, text in _strings(value):
        if path not in done and (best is None or len(text) > len(best[1])):
            best = (path, text)
    return best


def _put(value: Any, path: tuple[Any, ...], new: str) -> Any:
    """``value`` with the string at ``path`` replaced by ``new`` (copies along the path;
    ``value`` itself is not changed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _put(value[head], rest, new)}
    changed = list(value)
    changed[head] = _put(value[head], rest, new)
    return changed


def _place(path: tuple[Any, ...]) -> str:
    """Where a string lies in its value, as a note names it: ``.content``, ``[0].text``."""
    parts = []
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        else:
            name = step if len(step) <= _PLACE_CHARS else step[: _PLACE_CHARS - 1] + "…"
            parts.append(f".{name}" if name.isidentifier() else f"[{json.dumps(name)}]")
    return "".join(parts)
