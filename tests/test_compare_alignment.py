"""The alignment ``compare`` rests on: a common subsequence, the first divergence exact."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from correx_tools.core.lifecycle.status import ToolInvocationStatus
from correx_tools.core.replay.alignment import align
from correx_tools.core.replay.call_keys import CallKeys
from correx_tools.core.replay.comparison import (
    CallFacts,
    Calls,
    call_key,
    differences,
    normalised,
    side_by_side,
)

# Few distinct keys: runs of one task repeat their calls (``ls``, ``pytest``), and
# repeated keys are what makes an alignment hard.
keys = st.lists(st.integers(0, 5), max_size=40)


def longest(a: list[int], b: list[int]) -> int:
    """The length of a longest common subsequence, by the textbook table."""
    row = [0] * (len(b) + 1)
    for x in a:
        before = 0
        for j, y in enumerate(b):
            before, row[j + 1] = row[j + 1], before + 1 if x == y else max(row[j + 1], row[j])
    return row[-1]


def calls(key_list: list[int], tools: int = 2) -> Calls:
    found = Calls()
    for number, key in enumerate(key_list):
        found.append(
            CallFacts(f"tool-{key % tools}", number + 1, key,
                      ToolInvocationStatus.COMPLETED, 0, 1.0)
        )  # fmt: skip
    return found


@given(keys)
def test_a_run_compared_with_itself_does_not_diverge(a: list[int]) -> None:
    found = align(a, list(a))
    assert found.first_divergence is None
    assert list(found.pairs()) == [(i, i) for i in range(len(a))]


@given(keys, keys, st.sampled_from([2, 3, 64]))
def test_the_alignment_is_a_common_subsequence_and_a_longest_when_cheap(
    a: list[int], b: list[int], max_cost: int
) -> None:
    pairs = list(align(a, b, max_cost=max_cost).pairs())
    assert all(a[i] == b[j] for i, j in pairs)
    assert all(i < k and j < m for (i, j), (k, m) in itertools.pairwise(pairs))
    if max_cost >= len(a) + len(b):
        assert len(pairs) == longest(a, b)


@given(keys, st.data())
def test_one_call_inserted_into_a_copy_is_the_first_divergence(
    a: list[int], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(a)))
    b = [*a[:at], 99, *a[at:]]
    found = align(a, b)
    assert found.first_divergence == (at, at)
    assert list(found.pairs()) == [(i, i if i < at else i + 1) for i in range(len(a))]
    rows = list(side_by_side(found, calls(a), calls(b)))
    assert [row.kind for row in rows].count("only_b") == 1
    assert rows[at] == ("only_b", None, at, (), None)


@given(keys, keys)
def test_every_call_of_both_runs_is_in_exactly_one_row_in_order(a: list[int], b: list[int]) -> None:
    rows = list(side_by_side(align(a, b), calls(a), calls(b)))
    assert [row.a for row in rows if row.a is not None] == list(range(len(a)))
    assert [row.b for row in rows if row.b is not None] == list(range(len(b)))
    for row in rows:
        if row.kind == "same":
            assert a[row.a] == b[row.b]  # type: ignore[index]
        if row.kind == "changed":
            assert row.differs[0] == "arguments"
            assert a[row.a] % 2 == b[row.b] % 2  # type: ignore[index]  # one tool


def test_two_runs_that_share_nothing_diverge_at_once() -> None:
    found = align(list(range(10_000)), list(range(10_000, 20_000)))
    assert found.first_divergence == (0, 0)
    assert len(found.matched_a) == 0


def test_calls_are_the_same_under_each_own_working_directory_and_any_whitespace() -> None:
    a = call_key("Bash", {"command": "cd /w/a &&  pytest\n-q /w/a/tests"}, "/w/a")
    b = call_key("Bash", {"command": "cd /w/b && pytest -q /w/b/tests"}, "/w/b/")
    assert a == b
    assert a != call_key("Bash", {"command": "cd /w/b && pytest -q /w/b/tests"}, "/w/a")
    assert a != call_key("Shell", {"command": "cd . && pytest -q tests"}, None)
    # Only the directory itself and paths under it: a sibling that starts alike stays.
    assert normalised(["/w/ab/x", "/w/a", "x=/w/a/y"], "/w/a") == ["/w/ab/x", ".", "x=y"]


def test_what_differed_beside_a_matched_call() -> None:
    done = CallFacts("Bash", 1, 7, ToolInvocationStatus.COMPLETED, 0, 1.0)
    assert differences(done, done) == ()
    failed = done._replace(status=ToolInvocationStatus.FAILED, exit_code=None)
    assert differences(done, failed) == ("outcome",)
    assert differences(done, done._replace(exit_code=2)) == ("exit_code",)
    assert differences(done, done._replace(duration=1.9)) == ()  # not twice as long
    assert differences(done, done._replace(duration=2.5)) == ("duration",)
    # No duration where a run recorded no time, no exit code where none was recorded.
    assert differences(done, done._replace(duration=None, exit_code=None)) == ()


_FLAT = (
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.floats(-2, 2)
    | st.sampled_from(["/repo/a.py", "a.py", "cd  /repo && ls", "1", "true"])
)
_VALUES = _FLAT | st.lists(_FLAT, max_size=2) | st.dictionaries(st.just("k"), _FLAT, max_size=1)


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["read", "bash"]),
            st.dictionaries(st.sampled_from(["path", "command", "n"]), _VALUES, max_size=3),
        ),
        max_size=30,
    ),
    st.sampled_from([None, "/repo"]),
)
def test_a_runs_kept_keys_are_the_keys_hashed_anew(
    calls: list[tuple[str, dict[str, object]]], cwd: str | None
) -> None:
    # Answered two ways: kept for flat calls (True and 1 kept apart), hashed for each call.
    keys = CallKeys(cwd)
    for tool_name, arguments in calls * 2:
        assert keys.of(tool_name, arguments) == call_key(tool_name, arguments, cwd)
