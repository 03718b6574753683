"""The embedded default store: one SQLite file (`SQLiteEventStore`).

Imports the codec and the SQL engine; ``stores.opening`` and the package's face import it.
"""

from .store import SQLiteEventStore as SQLiteEventStore

__all__ = ["SQLiteEventStore"]
