"""One connection to a PostgreSQL server: calls serialised, opened again after it was lost."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, final

try:
    import psycopg
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]


def require_psycopg() -> None:
    """Refuse, saying what to install, when the optional driver is missing."""
    if psycopg is None:
        raise RuntimeError(
            "PostgresEventStore needs psycopg 3: pip install 'correx-tools[postgres]'"
        )


class Unavailable(Exception):
    """The server could not be reached, or the connection was lost mid-call."""

    def __init__(self, error: Exception) -> None:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        super().__init__(reason)
        self.reason = reason


@final
class Link:
    """The store's connection and the lock that serialises its calls.

    A lost server (a restart, a network cut) is an `Unavailable`; the
    broken connection is replaced on the next call, so the store recovers on
    its own once the server is back.
    """

    __slots__ = ("_connection", "_dsn", "_read_only", "_timeout", "lock")

    def __init__(self, dsn: str, *, timeout: int, read_only: bool) -> None:
        self._dsn = dsn
        self._timeout = timeout
        self._read_only = read_only
        # Re-entrant: a read inside a snapshot runs in the snapshot's own transaction.
        self.lock = threading.RLock()
        self._connection = self._connect()

    def _connect(self) -> Any:
        connection = psycopg.connect(self._dsn, autocommit=True, connect_timeout=self._timeout)
        if self._read_only:
            # The server itself then refuses any write this connection might attempt.
            connection.execute("SET default_transaction_read_only = on")
        return connection

    @property
    def current(self) -> Any:
        """The connection as it is (for calls made while the store is being opened)."""
        return self._connection

    @contextmanager
    def using(self) -> Iterator[Any]:
        """The lock and a live connection: one lost earlier is opened again first."""
        with self.lock:
            try:
                if self._connection.closed or self._connection.broken:
                    self._connection.close()
                    self._connection = self._connect()
                yield self._connection
            except (psycopg.OperationalError, psycopg.InterfaceError) as error:
                raise Unavailable(error) from None

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self._connection.close()
