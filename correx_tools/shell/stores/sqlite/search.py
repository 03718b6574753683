"""SQLite's full-text index: an FTS5 table in the store's file, so the transcript cache (a
SQLite store) searches as any store does.

The table is *contentless* (``content=''``: only the index is kept, not the text, which
the events hold already) and keeps no positions (``detail=none``: a phrase is held to its
order by reading the value again, `searching`), its column the tokenizer's words joined
by spaces, read by FTS5's ``ascii`` tokenizer, which splits at those spaces only (every
character of a word is a letter or a digit; a non-ASCII one is a word's character to
it), so FTS5 indexes exactly our words. A contentless table cannot forget a value unless told its
words again, and a value whose event changed cannot be told: so a value let go of is
left in the table, unreachable (its session's number is used no more, `catalog`), and
counted; when those outnumber the live ones the table is made again from the events
(`catalog.rewrite_words`), which costs, spread over the values that made it needed, a
constant per value.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, final

from ..sql.dialect import Cursor

TABLES = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_words USING fts5("
    "words, content='', columnsize=0, detail=none, tokenize='ascii')",
    "INSERT OR IGNORE INTO store_settings (name, value) VALUES ('search_live', 0)",
    "INSERT OR IGNORE INTO store_settings (name, value) VALUES ('search_dead', 0)",
    "INSERT OR IGNORE INTO store_settings (name, value) VALUES ('search_next', 1)",
    "INSERT OR IGNORE INTO store_settings (name, value) VALUES ('catalog_numbers', 0)",
)
"""The index's table and its counts of live and unreachable values."""

SMALLEST_REWRITE = 10_000
"""Unreachable values below this many never make the table be made again."""


@final
class SQLiteSearch:
    """The store's FTS5 table (see the module docstring)."""

    @staticmethod
    def numbered(cursor: Cursor, count: int) -> list[int]:
        """The store's count of numbers, moved on (a write holds the whole file)."""
        first = _taken(cursor, "catalog_numbers", count) + 1
        return list(range(first, first + count))

    @staticmethod
    def positions(cursor: Cursor, runs: Sequence[tuple[int, int, int]]) -> list[int]:
        """The next positions of the store's one count, each run's after the one before:
        the values written one after the other have ids close together, which FTS5 keeps
        in a few bits each."""
        start = _taken(cursor, "search_next", sum(count for _, _, count in runs))
        firsts = []
        for _, _, count in runs:
            firsts.append(start)
            start += count
        return firsts

    @staticmethod
    def written(cursor: Cursor, rows: Sequence[tuple[int, list[str]]]) -> None:
        """Index each value's words under its id."""
        cursor.executemany(
            "INSERT INTO search_words (rowid, words) VALUES (?, ?)",
            [(value, " ".join(said)) for value, said in rows],
        )
        _count(cursor, "search_live", len(rows))

    @staticmethod
    def dropped(cursor: Cursor, number: int, rows: int) -> None:
        """Counted as unreachable: left in the table (see the module docstring)."""
        if rows:
            _count(cursor, "search_live", -rows)
            _count(cursor, "search_dead", rows)

    @staticmethod
    def cleared(cursor: Cursor) -> None:
        """Every value let go of, the counts with them."""
        cursor.execute("INSERT INTO search_words (search_words) VALUES ('delete-all')")
        cursor.execute(
            "UPDATE store_settings SET value = 0 WHERE name IN ('search_live', 'search_dead')"
        )

    @staticmethod
    def wasted(cursor: Cursor) -> bool:
        """Whether the unreachable values outnumber the live ones (and are many)."""
        counts = dict(
            cursor.execute(
                "SELECT name, value FROM store_settings "
                "WHERE name IN ('search_live', 'search_dead')"
            ).fetchall()
        )
        dead = counts.get("search_dead", 0)
        return bool(dead >= SMALLEST_REWRITE and dead > counts.get("search_live", 0))

    @staticmethod
    def windows(cursor: Cursor) -> list[int | None]:
        """One range of every id: FTS5 gives a word's ids in order, so a page of the newest
        reads no more of the index than the page."""
        return [None]

    @staticmethod
    def matching(every: Sequence[str]) -> tuple[str, str, str, tuple[Any, ...]]:
        """An FTS5 query of each word quoted (FTS5 ANDs them)."""
        expression = " ".join(f'"{word}"' for word in every)
        return "search_words", "search_words.rowid", "search_words MATCH ?", (expression,)


def _taken(cursor: Cursor, name: str, count: int) -> int:
    """A count's value before it was moved on by ``count``."""
    value = int(
        cursor.execute("SELECT value FROM store_settings WHERE name = ?", (name,)).fetchone()[0]
    )
    _count(cursor, name, count)
    return value


def _count(cursor: Cursor, name: str, change: int) -> None:
    cursor.execute("UPDATE store_settings SET value = value + ? WHERE name = ?", (change, name))
