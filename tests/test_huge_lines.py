"""A line of many megabytes is read where it lies: the same value, or the same refusal, as a
copy of it read alone.

`loads_strict_span` reads a span longer than `_HUGE` with the standard library's scanner
in place of a copy (the compiled path's check would write a 100 MB value back and compare
it); here the threshold is lowered so that every drawn text takes that path.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools.shell.stores.codec import strict_json
from correx_tools.shell.stores.codec.strict_json import (
    EnvelopeError,
    loads_strict,
    loads_strict_span,
)

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=12,
)  # fmt: skip
_NOISE = st.sampled_from(["", " ", "\n", "x", '{"a":1}', "NaN", '"', "]", ' {"a":1,"a":2}'])


def _read(read: Any) -> tuple[str, Any]:
    try:
        return "value", read()
    except EnvelopeError:
        return "refused", None


@settings(max_examples=200, deadline=None)
@given(_VALUES, _NOISE, _NOISE, _NOISE)
def test_a_span_read_in_place_is_the_span_read_from_a_copy(
    value: Any, before: str, after: str, beside: str
) -> None:
    text = f"{beside}\n{before}{json.dumps(value)}{after}\n{beside}"
    start = len(beside) + 1
    stop = text.rindex("\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strict_json, "_HUGE", 0)
        in_place = _read(lambda: loads_strict_span(text, start, stop))
    assert in_place == _read(lambda: loads_strict(text[start:stop]))
