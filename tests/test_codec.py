"""The compiled codec gives exactly the answers of the rules it stands in for.

`strict_json` reads and writes with msgspec only where it can show the result is the
standard library's (`canonical_json`, and `loads_strict`'s path by the rules); these
properties hold it to that on arbitrary values and on texts spelled every way JSON
allows, the hostile ones included (duplicate keys, lone surrogates, ``NaN``, huge
integers, floats Python spells otherwise than msgspec, deep nesting).
"""

from __future__ import annotations

import json
import math
import sys
from datetime import UTC, datetime
from enum import IntEnum
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from correx_tools import OpaqueEvent, SessionId, StoredEvent
from correx_tools.shell.stores.codec.encoding import encode_event
from correx_tools.shell.stores.codec.envelope import event_payload
from correx_tools.shell.stores.codec.strict_json import (
    SHALLOW,
    EnvelopeError,
    _loads_by_the_rules,
    _may_nest_deep,
    canonical_and_read_back,
    canonical_bytes,
    canonical_json,
    is_canonical,
    loads_strict,
    loads_vouched,
)


def same(a: object, b: object) -> bool:
    """Equal, and of the same types in the same key order (``-0.0`` is not ``0.0``); a walk
    with a stack of its own, for values nested as deep as a parser goes."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            assert isinstance(y, dict)
            if list(x) != list(y):
                return False
            pending.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            assert isinstance(y, list)
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, float):
            if repr(x) != repr(y):
                return False
        elif x != y:
            return False
    return True


EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class Level(IntEnum):
    LOW = 1


# Every character, lone surrogates and controls among them; the ones JSON escapes often.
characters = st.characters(codec=None) | st.sampled_from('"\\/\b\f\n\r\t\x00\x1f\x7f\u2028é😀')
strings = st.text(characters, max_size=6)
numbers = (
    st.integers()
    | st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**40, 10**4299, Level.LOW])
    | st.floats()  # NaN, infinities, subnormals, 1e16 and 1e-05 (spelled otherwise by msgspec)
    | st.sampled_from([1e16, 1e-05, 1.5e-07, 1e22, -0.0, 0.1, 5e-324, 1.7976931348623157e308])
)
scalars = st.none() | st.booleans() | numbers | strings
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner)
        | st.dictionaries(strings, inner, max_size=4)
        | st.dictionaries(st.integers(0, 20), inner, min_size=1, max_size=3)
    ),
    max_leaves=12,
)


def reference_bytes(value: object) -> bytes | type[BaseException]:
    try:
        return canonical_json(value).encode("utf-8")
    except (TypeError, ValueError, RecursionError) as error:
        return type(error)


@given(values)
@example({"b": [1.5, 1e16, 1e-05], "a": "é"})
@example({"a": 10**5000})
@example({"a": (1, 2)})
@example({"a": float("nan")})
@example({1: "a", 10: "b", 9: "c"})
@example({"\ud800": 1})
def test_canonical_bytes_are_the_bytes_json_dumps_writes(value: object) -> None:
    expected = reference_bytes(value)
    try:
        got: bytes | type[BaseException] = canonical_bytes(value)
    except (TypeError, ValueError, RecursionError) as error:
        got = type(error)
    assert got == expected
    proven = canonical_and_read_back(value)
    if proven is not None:
        written, read = proven
        assert written == expected
        assert same(read, json.loads(written))
        assert read == value


@given(st.dictionaries(strings, values, max_size=4))
@example({"f": [1e16, 0.5], "s": "\u2028é"})
def test_a_store_writes_an_events_data_as_json_dumps_writes_it(data: dict[str, Any]) -> None:
    try:
        event = OpaqueEvent(type="note", version=1, data=data)
    except (TypeError, ValueError):
        return  # not an event at all
    stored = StoredEvent(session_id=SessionId("s"), sequence=1, recorded_at=EPOCH, event=event)
    try:
        encoded = encode_event(stored)
    except ValueError:
        return  # refused by the write rule, by the same code as before the codec
    assert encoded.data == canonical_json(event_payload(event)[2])


def spellings(value: object) -> st.SearchStrategy[str]:
    """Texts of ``value`` in JSON's other spellings: spaces, escapes, key order."""
    return st.builds(
        lambda indent, ascii_only, sort: json.dumps(
            value, indent=indent, ensure_ascii=ascii_only, sort_keys=sort
        ),
        st.sampled_from([None, 0, 1]),
        st.booleans(),
        st.booleans(),
    )


plain = st.recursive(
    scalars.filter(lambda x: not (isinstance(x, float) and math.isnan(x))),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(strings, inner, max_size=3),
    max_leaves=8,
)
texts = (
    plain.map(lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")))
    | plain.flatmap(spellings)
    | st.text(st.sampled_from('{}[]":,0123456789.eE+- \ntrufalsnNIy\\ud8dc0a'), max_size=30)
    | st.sampled_from(
        [
            '{"a":1,"a":2}',
            '{"a":{"b":1,"b":1}}',
            '{"a":NaN}',
            '{"a":-Infinity}',
            '"\\ud800"',
            '"\\udc00\\ud800"',
            '"\\ud83d\\ude00"',
            "-0",
            "1E5",
            "1e400",
            "9" * 5000,
            "[" * 3000 + "]" * 3000,
            '{"a":1}\n',
            '{"a":1} ',
            '{"a":1}x',
            "",
            " ",
            "\u00a0",
        ]
    )
)


def reference_read(text: str | bytes) -> object:
    try:
        return _loads_by_the_rules(text)
    except EnvelopeError as error:
        return ("refused", str(error))


@given(texts, st.booleans())
def test_a_text_reads_strictly_as_the_rules_read_it(text: str, as_bytes: bool) -> None:
    given_text: str | bytes = text
    if as_bytes:
        try:
            given_text = text.encode("utf-8")
        except UnicodeEncodeError:
            given_text = text.encode("utf-8", "surrogatepass")  # bytes no UTF-8 allows
    try:
        got = loads_strict(given_text)
    except EnvelopeError as error:
        got = ("refused", str(error))
    assert same(got, reference_read(given_text))


@given(texts)
def test_canonical_is_what_json_dumps_writes_back_as_itself(text: str) -> None:
    try:
        expected = canonical_json(json.loads(text)) == text
    except (ValueError, RecursionError):
        expected = False
    assert is_canonical(text) == expected


def plain_outcome(read: Any, text: str) -> object:
    try:
        return read(text)
    except (ValueError, RecursionError) as error:
        return ("refused", type(error))


@given(texts)
@example('{"a":NaN}')
@example('"\\ud800"')
@example("1e400")
def test_a_vouched_text_reads_exactly_as_json_loads_reads_it(text: str) -> None:
    # A row the chain vouches for is read plainly, as json.loads reads it (NaN and all);
    # what json.loads refuses, the caller then reads by the rules, which word it.
    assert same(plain_outcome(loads_vouched, text), plain_outcome(plain_loads, text))


def test_the_digit_limit_is_pythons_own_both_ways() -> None:
    limit = sys.get_int_max_str_digits()
    assert loads_strict("9" * limit) == int("9" * limit)
    with pytest.raises(EnvelopeError, match=f"longer than {limit} digits"):
        loads_strict("9" * (limit + 1))
    with pytest.raises(ValueError, match="digits"):
        canonical_bytes([10**limit])


def test_json_dumps_and_msgspec_spell_some_floats_apart_and_the_written_bytes_follow_python() -> (
    None
):
    # The cases the float check exists for: a store's bytes never change with the codec.
    for value, text in [(1e16, "1e+16"), (1e-05, "1e-05"), (1.5e-07, "1.5e-07")]:
        assert canonical_bytes([value]) == f"[{text}]".encode()
        assert same(loads_strict(f"[{text}]"), [value])
        assert is_canonical(f"[{text}]")


def test_a_text_with_a_duplicate_key_is_refused_however_it_is_given() -> None:
    cases: list[Any] = ['{"a":1,"a":1}', b'{"a":1,"a":1}\n', '[{"b":{"c":0,"c":0}}]']
    for text in cases:
        with pytest.raises(EnvelopeError, match="duplicate key"):
            loads_strict(text)
        assert not is_canonical(text if isinstance(text, str) else text.decode())


def nested(depth: int, *, as_object: bool) -> str:
    return ('{"a":' * depth + "1" + "}" * depth) if as_object else "[" * depth + "]" * depth


def plain_loads(text: str) -> object:
    """``json.loads`` one call down, as `loads_vouched` calls it (the stack decides how deep
    a parse can go, so both are asked from the same depth)."""
    return json.loads(text)


def plain_or_refused(text: str) -> object:
    """``json.loads``, one call down as `loads_vouched` calls it, or ``"refused"``."""
    try:
        return json.loads(text)
    except RecursionError:
        return "refused"


def reference_canonical(text: str) -> bool:
    """`is_canonical` by the rules alone, its parse and its write one call down as there."""
    try:
        return canonical_json(json.loads(text)) == text
    except (ValueError, RecursionError):
        return False


def test_nesting_near_the_interpreters_limit_is_refused_where_the_rules_refuse_it() -> None:
    # msgspec gives up a few levels deeper than the standard library does; a text that
    # deep must be refused, or read, exactly as the rules do, from wherever it is asked.
    limit = sys.getrecursionlimit()
    deepest = {}
    for as_object in (False, True):
        for depth in range(limit - 60, limit + 10):
            text = nested(depth, as_object=as_object)
            try:
                got: object = loads_strict(text)
            except EnvelopeError as error:
                got = ("refused", str(error))
            assert same(got, reference_read(text)), depth
            try:
                vouched: object = loads_vouched(text)
            except RecursionError:
                vouched = "refused"
            assert same(vouched, plain_or_refused(text)), depth
            assert is_canonical(text) == reference_canonical(text), depth
            if got != ("refused", "JSON nested too deeply"):
                deepest[as_object] = depth
    assert set(deepest) == {False, True}  # the limit was inside the range tried


def test_a_value_nested_near_the_interpreters_limit_is_written_as_json_dumps_writes_it() -> None:
    limit = sys.getrecursionlimit()
    for depth in range(limit - 60, limit + 10):
        value: object = 1
        for _ in range(depth):
            value = [value]
        assert (canonical_and_read_back(value) or (reference_bytes(value),))[0] == (
            reference_bytes(value)
        ), depth
        try:
            got: bytes | type[BaseException] = canonical_bytes(value)
        except (TypeError, ValueError, RecursionError) as error:
            got = type(error)
        assert got == reference_bytes(value), depth


def test_a_long_text_with_few_brackets_still_takes_the_compiled_path() -> None:
    # The guard counts brackets only; a long payload of ordinary text is not sent to the
    # rules for its length (the fast path is the common one).
    text = json.dumps({"output": "x" * 10_000, "list": [[1]] * 50}, separators=(",", ":"))
    assert loads_strict(text) == json.loads(text)
    assert not _may_nest_deep(text.encode())
    assert not _may_nest_deep(text)
    assert _may_nest_deep(nested(SHALLOW, as_object=False).encode())
    assert _may_nest_deep(nested(SHALLOW, as_object=True))
    assert not _may_nest_deep(nested(SHALLOW - 1, as_object=False).encode())
