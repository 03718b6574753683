"""PostgreSQL's full-text index: a table of ``tsvector`` values with a GIN index.

Each value's ``tsvector`` is made from the tokenizer's words as they are (a literal of
quoted lexemes and their positions, never PostgreSQL's own parser or dictionaries), and
a search's ``tsquery`` the same way: each term's words joined by ``<->`` (one after the
other), the terms by ``&``. So PostgreSQL indexes and matches exactly the words SQLite's
FTS5 does. Limits of the type: a lexeme keeps at most 256 positions, so a phrase whose
words come more than 256 times in one value may be missed past them.
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

    def __init__(self, table: str) -> None:
        self._table = table

    def written(self, cursor: Cursor, rows: Sequence[tuple[int, list[str]]]) -> None:
        """Index each value's words under its id."""
        cursor.executemany(
            f"INSERT INTO {self._table} (id, words) VALUES (%s, %s::tsvector)",
            [
                (value, " ".join(f"{_lexeme(word)}:{at}" for at, word in enumerate(said, 1)))
                for value, said in rows
            ],
        )

    def dropped(self, cursor: Cursor, number: int, rows: int) -> None:
        """The session's values deleted (their ids are a range of their own)."""
        cursor.execute(
            f"DELETE FROM {self._table} WHERE id >= %s AND id < %s",
            (number << 32, (number + 1) << 32),
        )

    def cleared(self, cursor: Cursor) -> None:
        """Every value deleted."""
        cursor.execute(f"DELETE FROM {self._table}")

    @staticmethod
    def wasted(cursor: Cursor) -> bool:
        """Never: a value let go of is deleted."""
        return False

    def matching(self, asked: Sequence[tuple[str, ...]]) -> tuple[str, str, str, tuple[Any, ...]]:
        """A ``tsquery`` of every term, each a phrase of its words."""
        query = " & ".join(
            "(" + " <-> ".join(_lexeme(word) for word in term) + ")" for term in asked
        )
        return f"{self._table} w", "w.id", "w.words @@ ?::tsquery", (query,)
