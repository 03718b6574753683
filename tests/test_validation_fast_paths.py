"""The validator's two shortcuts, each held to the definition it shortcuts.

* `check_bounds` answers an object of scalars and arrays of scalars in one
  loop; the full walk (`_walk_bounds`) must agree on every value, and the loop
  must never pass a value the walk finds over a limit.
* `finds` asks RE2 for a yes or no directly; the binding's ``search`` must
  give the same answer for every pattern and text.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import freeze

from correx_tools.core.tools.schema.ecma import ecma_to_re2
from correx_tools.core.tools.schema.keywords import _search_by_binding, compile_pattern, finds
from correx_tools.core.tools.validation import (
    ValidationLimits,
    _flat_and_within,
    _walk_bounds,
    check_bounds,
)

# The scalars of everyday arguments, and beside them the ones a limit or JSON refuses.
common_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**17), 10**17)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
scalars = common_scalars | st.integers(-(10**30), 10**30) | st.floats()
flat_values = st.dictionaries(
    st.text(max_size=6), scalars | st.lists(scalars, max_size=6), max_size=6
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=10,
)
limits = st.builds(
    ValidationLimits,
    max_depth=st.integers(1, 5),
    max_string_length=st.integers(0, 14),
    max_items=st.integers(0, 7),
    max_total_size=st.integers(0, 200),
    max_integer_digits=st.integers(1, 40),
)


@given(flat_values | values, limits, st.booleans())
def test_bounds_agree_with_the_walk(value: Any, bounds: ValidationLimits, frozen: bool) -> None:
    subject = freeze(value) if frozen else value
    walked = _walk_bounds(subject, bounds)
    assert check_bounds(subject, bounds) == walked
    if _flat_and_within(subject, bounds):
        assert walked is None


@given(st.dictionaries(st.text(max_size=6), common_scalars | st.lists(common_scalars, max_size=6)))
def test_the_common_shape_takes_the_shortcut_under_the_default_limits(value: Any) -> None:
    assert _flat_and_within(value, ValidationLimits())
    assert _flat_and_within(freeze(value), ValidationLimits())


PATTERNS = [
    "^[^/][A-Za-z0-9_./-]*$", r"\s", r"\S+@\S+", "^$", "a|b", r"^\p{Letter}+$", r"[\s\S]",
    "^é+", r"\d{3}-\d{4}", "(?i)hello", ".", "^.{2,4}$", "",
]  # fmt: skip


@given(st.sampled_from(PATTERNS), st.text(max_size=20))
def test_finds_answers_as_the_bindings_search(pattern: str, text: str) -> None:
    compiled: dict[str, Any] = {}
    assert compile_pattern(pattern, compiled) is None, ecma_to_re2(pattern)
    regex = compiled[pattern]
    try:
        expected = _search_by_binding(regex, text)
    except UnicodeEncodeError:  # a lone surrogate: neither way can look at it
        return
    assert finds(regex, text) == expected
