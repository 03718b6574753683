"""Appending to a PostgreSQL session: the session's row lock, the sequence check, the id claims.

Run inside the append's transaction, before the events and their index are written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ....core.lifecycle.events import StoredEvent
from ..port import AppendError
from ..sql.indexing import claimed_columns
from ..writing import check_import_run, conflict, duplicate, requested_ids
from .layout import id_key

Compose = Callable[[str], Any]
"""Turns a query naming ``{schema}`` into one for the store's schema."""


class Refused(Exception):
    """An append refused inside its transaction: it is rolled back, and ``error`` returned."""

    def __init__(self, error: AppendError) -> None:
        super().__init__(error.message)
        self.error = error


def advance_session(
    connection: Any, q: Compose, session_id: str, events: list[StoredEvent], expected: int | None
) -> None:
    """Move the session's ``last_sequence`` on over ``events``, under its row lock; a stale
    ``expected`` (or an import that does not continue the session) is `Refused`."""
    key = id_key(session_id)
    connection.execute(
        q(
            "INSERT INTO {schema}.correx_sessions (session_key, session_id, last_sequence) "
            "VALUES (%s, %s, 0) ON CONFLICT DO NOTHING"
        ),
        (key, session_id.encode("utf-8")),
    )
    row = connection.execute(
        q("SELECT last_sequence FROM {schema}.correx_sessions WHERE session_key = %s FOR UPDATE"),
        (key,),
    ).fetchone()
    last = int(row[0]) if row else 0
    if expected is None:
        problem = check_import_run(session_id, last, events)
        if problem is not None:
            raise Refused(problem)
    elif last != expected:
        raise Refused(conflict(session_id, expected, last))
    connection.execute(
        q("UPDATE {schema}.correx_sessions SET last_sequence = %s WHERE session_key = %s"),
        (events[-1].sequence, key),
    )


def claim_ids(connection: Any, q: Compose, session_id: str, events: list[StoredEvent]) -> None:
    """Claim the ids ``events`` request (unique across sessions); a used one is `Refused`."""
    requested = [
        (invocation, stored.sequence, stored.recorded_at, *claimed_columns(stored.event)[:2])
        for invocation, stored in requested_ids(events)
    ]
    if not requested:
        return
    claims = {id_key(claim[0]): claim for claim in requested}
    if len(claims) != len(requested):
        ids = [claim[0] for claim in requested]
        repeated = next(i for i in ids if ids.count(i) > 1)
        raise Refused(duplicate(session_id, repeated, session_id))
    session_key = id_key(session_id)
    with connection.cursor() as cursor:
        cursor.executemany(
            q(
                "INSERT INTO {schema}.correx_invocations "
                "(invocation_key, invocation_id, session_key, sequence, status, "
                "requested_at, tool_name, tier) VALUES (%s, %s, %s, %s, 1, %s, %s, %s) "
                "ON CONFLICT (invocation_key) DO NOTHING"
            ),
            [
                (key, invocation.encode("utf-8"), session_key, sequence, at, tool.encode(), tier)
                for key, (invocation, sequence, at, tool, tier) in claims.items()
            ],
        )
        owners = cursor.execute(
            q(
                "SELECT i.invocation_key, i.session_key, i.sequence, s.session_id "
                "FROM {schema}.correx_invocations i "
                "JOIN {schema}.correx_sessions s ON s.session_key = i.session_key "
                "WHERE i.invocation_key = ANY(%s)"
            ),
            (list(claims),),
        ).fetchall()
    for key, owner_key, sequence, owner in owners:
        invocation, mine = claims[key][:2]
        if (owner_key, sequence) != (session_key, mine):
            raise Refused(duplicate(session_id, invocation, bytes(owner).decode("utf-8")))
