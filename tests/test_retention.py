"""Retention policies are checked values."""

from __future__ import annotations

import pytest

from correx_tools import Retention, RetentionKind


def test_constructors_build_each_kind() -> None:
    assert Retention.all().kind is RetentionKind.ALL
    assert Retention.every(10) == Retention(RetentionKind.EVERY, 10)
    assert Retention.last(3).size == 3


@pytest.mark.parametrize("size", [0, -1, 1.5, True])
def test_sizes_must_be_positive_ints(size: object) -> None:
    with pytest.raises(ValueError, match="retention size"):
        Retention.every(size)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retention size"):
        Retention.last(size)  # type: ignore[arg-type]
