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
)


def _lexeme(word: str) -> str:
    return "'" + word + "'"  # a word is letters and digits: no quote to escape


@final
class PostgresSearch:
    """The schema's ``correx_search`` table (see the module docstring)."""

    def __init__(self, table: str, runs: str) -> None:
        self._table = table
        self._runs = runs

    def written(self, cursor: Cursor, rows: Sequence[tuple[int, list[str]]]) -> None:
        """Index each value's words under its id."""
        cursor.executemany(
            f"INSERT INTO {self._table} (id, words) VALUES (%s, array_to_tsvector(%s))",
            [(value, list(dict.fromkeys(said))) for value, said in rows],
        )

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

    def matching(self, every: Sequence[str]) -> tuple[str, str, str, tuple[Any, ...]]:
        """A ``tsquery`` of every word."""
        query = " & ".join(_lexeme(word) for word in every)
        return f"{self._table} w", "w.id", "w.words @@ ?::tsquery", (query,)
