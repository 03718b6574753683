"""The full-text index's upkeep: importing sessions into a store that keeps it, against
the same import into one whose index keeps nothing."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any
from unittest import mock

from correx_tools.shell.stores.sql import catalog as kept_catalog
from correx_tools.shell.stores.sql.store import SqlEventStore

from .generated import many_sessions
from .table import Row


class _NoWords:
    """A full-text index that keeps nothing (the upkeep's baseline), numbering as the
    store's own does."""

    def __init__(self, kept: Any) -> None:
        self.numbered = kept.numbered
        self.positions = kept.positions

    def written(self, cursor: Any, rows: Any) -> None:
        """Nothing kept."""

    def dropped(self, cursor: Any, number: int, rows: int) -> None:
        """Nothing kept."""

    def cleared(self, cursor: Any) -> None:
        """Nothing kept."""

    @staticmethod
    def wasted(cursor: Any) -> bool:
        """Never."""
        return False


def upkeep(name: str, make: Callable[[], SqlEventStore], sessions: int = 200) -> Row:
    """Importing ``sessions`` sessions of 100 events with the full-text index against
    without it, each into a fresh store made by ``make``: three of each, in turns (a
    shared machine's load moves between runs), their medians."""
    made = list(many_sessions(sessions, sessions * 100, seed=3))

    def load(store: SqlEventStore) -> float:
        started = time.perf_counter()
        for session in made:
            store.import_events(session).unwrap()
        return time.perf_counter() - started

    withs, withouts = [], []
    for _ in range(3):
        withs.append(load(make()))
        plain = make()
        dialect: Any = plain._database.dialect  # the baseline swaps its index out
        dialect.search = _NoWords(dialect.search)
        with mock.patch.object(kept_catalog, "write_words", return_value=0):
            withouts.append(load(plain))
    with_words, without = statistics.median(withs), statistics.median(withouts)
    ratio = with_words / without
    return Row(name, f"{sessions:,} sessions x 100 events", f"{with_words:.2f} s",
               f"{without:.2f} s without the index", ratio, "<= 1.5x",
               ratio <= 1.5)  # fmt: skip
