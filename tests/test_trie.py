"""The tuple trie behind ToolState behaves exactly like an immutable list."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from correx_tools.core.lifecycle._engine.trie import Trie


class TrieMachine(RuleBasedStateMachine):
    """Every operation runs on a Python list model and on the trie; all versions are kept."""

    def __init__(self) -> None:
        super().__init__()
        self.versions: list[tuple[Trie[int], list[int]]] = [(Trie.empty(), [])]

    @rule(item=st.integers(), count=st.integers(1, 70))
    def append_many(self, item: int, count: int) -> None:
        trie, model = self.versions[-1]
        for offset in range(count):
            trie = trie.append(item + offset)
            model = [*model, item + offset]
        self.versions.append((trie, model))

    @rule(item=st.integers(), count=st.sampled_from([0, 1, 5, 31, 32, 33, 64, 100, 1057]))
    def extend_many(self, item: int, count: int) -> None:
        trie, model = self.versions[-1]
        items = [item + offset for offset in range(count)]
        self.versions.append((trie.extend(items), model + items))

    @precondition(lambda self: len(self.versions[-1][1]) > 0)
    @rule(data=st.data(), item=st.integers())
    def set_one(self, data: st.DataObject, item: int) -> None:
        trie, model = self.versions[-1]
        index = data.draw(st.integers(0, len(model) - 1))
        new_model = list(model)
        new_model[index] = item
        self.versions.append((trie.set(index, item), new_model))

    @precondition(lambda self: len(self.versions[-1][1]) > 0)
    @rule(data=st.data(), item=st.integers())
    def set_many(self, data: st.DataObject, item: int) -> None:
        trie, model = self.versions[-1]
        indexes = data.draw(st.lists(st.integers(0, len(model) - 1), max_size=40))
        updates = {index: item + n for n, index in enumerate(indexes)}
        new_model = list(model)
        for index, value in updates.items():
            new_model[index] = value
        self.versions.append((trie.set_many(updates), new_model))

    @rule(data=st.data(), item=st.integers())
    def branch_from_old_version(self, data: st.DataObject, item: int) -> None:
        trie, model = data.draw(st.sampled_from(self.versions))
        self.versions.append((trie.append(item), [*model, item]))

    @invariant()
    def every_version_matches_its_model(self) -> None:
        for trie, model in self.versions:
            assert len(trie) == len(model)
            assert list(trie) == model
            if model:
                assert trie[len(model) - 1] == model[-1]
                assert trie[0] == model[0]
                assert trie[-1] == model[-1]


TestTrie = TrieMachine.TestCase


def test_large_trie_matches_list_across_tree_levels() -> None:
    # 40,000 items need a three-level tree (32 * 32 * 32 = 32,768 < 40,000).
    trie: Trie[int] = Trie.empty()
    for item in range(40_000):
        trie = trie.append(item)
    for index in (0, 31, 32, 1023, 1024, 32_767, 32_768, 39_999):
        assert trie[index] == index
        changed = trie.set(index, -1)
        assert changed[index] == -1
        assert trie[index] == index  # the old version is untouched
    assert list(trie) == list(range(40_000))


def test_out_of_range_is_an_index_error() -> None:
    trie = Trie.empty().append("a")
    with pytest.raises(IndexError, match="out of range"):
        trie[1]
    with pytest.raises(IndexError, match="out of range"):
        trie.set(5, "b")


def test_equality_is_by_content() -> None:
    left: Trie[int] = Trie.empty()
    right: Trie[int] = Trie.empty()
    for item in range(100):
        left, right = left.append(item), right.append(item)
    assert left == right
    assert hash(left) == hash(right)
    assert left != right.set(50, -1)
