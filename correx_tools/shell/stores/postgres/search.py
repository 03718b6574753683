"""PostgreSQL's full-text index: a table of ``tsvector`` values with a GIN index.

Each value's ``tsvector`` is made from the tokenizer's words as they are
(``array_to_tsvector``: never PostgreSQL's own parser or dictionaries), without
positions (a phrase is held to its order by reading the value again, `searching`), and
a search's ``tsquery`` the same way: its words joined by ``&``. So PostgreSQL indexes
and matches exactly the words SQLite's FTS5 does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, final

from ..sql.dialect import Cursor

TABLES = (
    """CREATE TABLE IF NOT EXISTS {schema}.correx_search (
        id    BIGINT   PRIMARY KEY,
        words TSVECTOR NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS correx_search_words ON {schema}.correx_search USING GIN (words)",
    "CREATE SEQUENCE IF NOT EXISTS {schema}.correx_numbers",
)

WINDOWS = (8, 6, 4, 2)
"""The ranges of ids a search asks in turn before the rest (`PostgresSearch.windows`):
the newest 1/2**n of them for each n."""
FEWEST_SESSIONS = 64
"""Below this many sessions' numbers between the first id and the last, one range."""
SEQUENCE_BITS = 30
"""A session's own range of positions: its number, then its sequence in this many bits
(`kept_words` indexes no value past sequence 2**30)."""


def _lexeme(word: str) -> str:
    return "'" + word + "'"  # a word is letters and digits: no quote to escape


def tsvector_text(said: Sequence[str]) -> str:
    """The text of the ``tsvector`` of the tokenizer's words, as they are and without
    positions: what ``array_to_tsvector`` makes of them.

    >>> tsvector_text(["git", "push", "git"])
    "'git' 'push'"
    """
    return " ".join(_lexeme(word) for word in dict.fromkeys(said))


@final
class PostgresSearch:
    """The schema's ``correx_search`` table (see the module docstring)."""

    def __init__(self, table: str, runs: str, numbers: str) -> None:
        self._table = table
        self._runs = runs
        self._numbers = numbers

    def numbered(self, cursor: Cursor, count: int) -> list[int]:
        """The next values of the schema's sequence (no writer waits for another's)."""
        taken = cursor.execute(
            f"SELECT nextval('{self._numbers}') FROM generate_series(1, %s) ORDER BY 1",
            (count,),
        ).fetchall()
        return [int(row[0]) for row in taken]

    @staticmethod
    def positions(cursor: Cursor, runs: Sequence[tuple[int, int, int]]) -> list[int]:
        """Each session's own range (`SEQUENCE_BITS`): writers of two sessions share no
        count, so neither waits for the other's commit. PostgreSQL's GIN index keeps row
        addresses, not ids, so the ids' spread costs it nothing."""
        return [number << SEQUENCE_BITS | first for number, first, _ in runs]

    def written(self, cursor: Cursor, rows: Sequence[tuple[int, list[str]]]) -> None:
        """Index each value's words under its id: copied in, each value's ``tsvector`` as
        its text (`tsvector_text`, the same value ``array_to_tsvector`` makes of them)."""
        with cursor.copy(f"COPY {self._table} (id, words) FROM STDIN") as copy:  # type: ignore[attr-defined]
            for value, said in rows:
                copy.write_row((value, tsvector_text(said)))

    def dropped(self, cursor: Cursor, number: int, rows: int) -> None:
        """The session's values deleted, the ids of each of its runs."""
        if rows:
            cursor.execute(
                f"DELETE FROM {self._table} s USING {self._runs} r WHERE r.number = %s "
                "AND s.id >= r.first_id << 2 AND s.id < (r.last_id + 1) << 2",
                (number,),
            )

    def cleared(self, cursor: Cursor) -> None:
        """Every value deleted."""
        cursor.execute(f"DELETE FROM {self._table}")

    @staticmethod
    def wasted(cursor: Cursor) -> bool:
        """Never: a value let go of is deleted."""
        return False

    def windows(self, cursor: Cursor) -> list[int | None]:
        """The newest 1/256th of the ids, then the newest 1/64th below it, and so on
        (`WINDOWS`), then the rest.

        GIN gives a word's matches in no order, each read in the table (for its id and
        whether it is visible): a word in 40,000 of ten million values costs that many
        rows read to find the newest 30. Asked for a range of ids as well, PostgreSQL
        intersects the GIN's matches with the range's ids from the primary key before it
        reads a row (it chooses to where the word is common; a rare one's matches are read
        and the range checked on them, few either way), so a search reads about the rows
        of the range that answers it."""
        low, high = cursor.execute(f"SELECT min(id), max(id) FROM {self._table}").fetchone()
        if low is None or high - low < FEWEST_SESSIONS << SEQUENCE_BITS:
            return [None]
        span = int(high) - int(low)
        return [int(high) - (span >> shift) for shift in WINDOWS] + [None]

    def matching(self, every: Sequence[str]) -> tuple[str, str, str, tuple[Any, ...]]:
        """A ``tsquery`` of every word."""
        query = " & ".join(_lexeme(word) for word in every)
        return f"{self._table} w", "w.id", "w.words @@ ?::tsquery", (query,)
