"""One machine's session sent to the team's store, whole or from where it was pushed, in the
transaction of an import (`append.write_groups`, which writes a `PushedSession` as a
session it writes whole).

In that one transaction: the session's events after ``after`` are written as an import
writes them (the session held, each run checked to continue it exactly: a run that does
not is `Refused`, and nothing of the session is written), its catalog row labelled with
the machine and the user, and its row of ``correx_pushed`` moved from ``(after,
digest_after)`` to ``(through, digest)`` *only if* it still holds the former: a push
that raced another, or a session replaced meanwhile, is refused whole. So a push killed at
any point leaves the session as it was or pushed through a whole run of the sending
store's, and what a push records always describes the events the team's store holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, final

from ....core.lifecycle.events import StoredEvent
from ..port import AppendError, AppendErrorKind
from ..sql.append import Group, write_run
from ..sql.catalog import drop_catalog, kept_catalog
from ..sql.dialect import Cursor, Dialect
from ..writing import Refused
from .layout import id_key


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PushedSession:
    """A session of ``machine``'s to write (``session_id``: as the team's store names it)."""

    session_id: str
    schema: str
    machine: str
    user: str
    after: int
    digest_after: int | None
    through: int
    digest: int
    runs: Iterable[list[StoredEvent]] = field(repr=False)
    replace: bool = False

    def write(self, d: Dialect, cursor: Cursor, interval: int) -> int:
        """The session written (see the module docstring); how many events."""
        if self.replace:
            remove_session(d, cursor, self.session_id, self.schema)
        written = 0
        for run in self.runs:
            written += write_run(d, cursor, self.session_id, run, expected=None, interval=interval)
        if written:
            self._record(d, cursor)
        return written

    def groups(self) -> Iterator[Group]:
        """None: `write` writes the session whole."""
        return iter(())

    def _record(self, d: Dialect, cursor: Cursor) -> None:
        """The push recorded (`correx_pushed` moved on, see the module docstring) and the
        catalog row labelled, in one statement."""
        key = id_key(self.session_id)
        table = f'"{self.schema}".correx_pushed'
        labelled = d.sql(
            "UPDATE {catalog} SET machine = ?, user_name = COALESCE(user_name, ?) "
            "WHERE {session} = ?"
        )
        moved = cursor.execute(
            f"WITH moved AS (INSERT INTO {table} (session_key, machine, user_name, through, "
            "digest) VALUES (%s, %s, %s, %s, %s) ON CONFLICT (session_key) DO UPDATE SET "
            "through = EXCLUDED.through, digest = EXCLUDED.digest, pushed_at = now() "
            f"WHERE {table}.through = %s AND {table}.digest = %s RETURNING 1), "
            f"labelled AS ({labelled}) SELECT count(*) FROM moved",
            (key, self.machine, self.user, self.through, self.digest, self.after,
             self.digest_after, d.text_value(self.machine), d.text_value(self.user), key),
        ).fetchone()  # fmt: skip
        if moved[0] != 1:
            raise Refused(
                AppendError(
                    kind=AppendErrorKind.CONFLICT,
                    session_id=self.session_id,
                    message=f"session {self.session_id!r} was pushed by another push meanwhile",
                )
            )


def remove_session(d: Dialect, cursor: Cursor, session_id: str, schema: str) -> None:
    """Every row of the session in the team's store deleted, in the caller's transaction
    (`push --replace`: the role needs DELETE on the events)."""
    drop_catalog(d, cursor, session_id, kept_catalog(d, cursor, session_id))
    key = d.session_key(session_id)
    for table in ("events", "invocations", "checkpoints", "heads", "sessions"):
        cursor.execute(d.sql(f"DELETE FROM {{{table}}} WHERE {{session}} = ?"), (key,))
    cursor.execute(f'DELETE FROM "{schema}".correx_pushed WHERE session_key = %s', (key,))


def pushed_rows(cursor: Any, schema: str, machine: str) -> dict[bytes, tuple[int, int, str]]:
    """What the team's store records of ``machine``'s pushes: by session key, the sequence
    pushed through, the digest there and the user."""
    rows = cursor.execute(
        f'SELECT session_key, through, digest, user_name FROM "{schema}".correx_pushed '
        "WHERE machine = %s",
        (machine,),
    ).fetchall()
    return {bytes(key): (int(through), int(digest), user) for key, through, digest, user in rows}
