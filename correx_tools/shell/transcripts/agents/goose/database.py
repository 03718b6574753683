"""Goose's own database, ``~/.local/share/goose/sessions/sessions.db``: every session in it.

The file is Goose's, and Goose may be running: it is opened read-only and
immutable (nothing is written beside it, no lock is taken). Goose keeps it in
WAL mode; while its write-ahead log holds what is not yet in the file, the
two are copied to a temporary folder and the copy is read, so the newest
messages are there too. The ``sessions`` table describes each session, the
``messages`` table holds its messages in order (`calls.read_messages` reads
their calls).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import re2

from .....core.lifecycle.description import About
from ...common.lines import strict_value
from ...common.values import utc_time
from ...errors import Unreadable, Unrecognised
from ...model import Transcript
from .calls import read_messages

_TOKENS = ("accumulated_input_tokens", "accumulated_output_tokens", "input_tokens",
           "output_tokens")  # fmt: skip
"""The ``sessions`` columns that count its tokens (`talk.session_usage`)."""
# Spaces before a trailing zone offset (``2025-01-02 10:00:00 +01:00``), which ISO 8601 has not.
_ZONE = re2.compile(r"\s+([+-][0-9]{2}:?[0-9]{2})\z")


def read_database(path: Path, session: str | None = None) -> list[Transcript]:
    """The calls of every session in a Goose database (or of the one named ``session``)."""
    with _opened(path) as connection:
        try:
            return _read(connection, session)
        except sqlite3.DatabaseError as error:
            raise Unreadable("", f"cannot read it as a Goose database: {error}") from None


@contextmanager
def _opened(path: Path) -> Iterator[sqlite3.Connection]:
    wal = path.with_name(path.name + "-wal")
    try:
        pending = wal.exists() and wal.stat().st_size > 0
    except OSError:
        pending = False
    if not pending:
        connection = _connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1")
        try:
            yield connection
        finally:
            connection.close()
        return
    with tempfile.TemporaryDirectory(prefix="correx-goose-") as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        connection = _connect(f"{copy.as_uri()}?mode=ro")
        try:
            yield connection
        finally:
            connection.close()


def _connect(uri: str) -> sqlite3.Connection:
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise Unreadable("", f"cannot open it: {error}") from None


def _read(connection: sqlite3.Connection, session: str | None) -> list[Transcript]:
    tables = {
        table: {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        for table in ("sessions", "messages")
    }
    if (
        not {"id", "working_dir"} <= tables["sessions"]
        or not {"session_id", "role", "content_json", "created_timestamp"} <= tables["messages"]
    ):
        raise Unrecognised("a SQLite file, but not a Goose sessions.db")
    title = "name" if "name" in tables["sessions"] else "description"
    counted = [column for column in _TOKENS if column in tables["sessions"]]
    rows = connection.execute(
        f"SELECT id, working_dir, {title}, created_at{''.join(', ' + c for c in counted)} "
        "FROM sessions ORDER BY created_at, id"
    ).fetchall()
    if session is not None:
        rows = [row for row in rows if row[0] == session]
        if not rows:
            known = connection.execute("SELECT id FROM sessions ORDER BY id LIMIT 5").fetchall()
            names = ", ".join(str(row[0]) for row in known) or "none"
            raise Unreadable("", f"no session {session!r} in it (sessions: {names})")
    order = "timestamp, id" if "timestamp" in tables["messages"] else "id"
    return [_session(connection, order, row[:4], dict(zip(counted, row[4:], strict=True)))
            for row in rows]  # fmt: skip


def _session(
    connection: sqlite3.Connection, order: str, row: tuple[Any, ...], tokens: dict[str, Any]
) -> Transcript:
    session, cwd, title, created = row
    # Each message decoded as its calls are read from it, not all of them first: what is
    # kept is the calls, and the collector is not made to walk every message's JSON.
    messages = (
        (
            f"session {session}, message row {row_id}",
            {
                "role": role,
                "created": stamp,
                "content": strict_value(text, f"session {session}, message row {row_id}"),
            },
        )
        for row_id, role, text, stamp in connection.execute(
            "SELECT id, role, content_json, created_timestamp FROM messages "
            f"WHERE session_id = ? ORDER BY {order}",
            (session,),
        )
    )
    about = About(
        agent_session_id=str(session),
        started_at=_time(created),
        cwd=cwd if isinstance(cwd, str) and cwd else None,
        title=title if isinstance(title, str) and title else None,
    )
    return read_messages(messages, str(session), about,
                         tokens=(tokens, f"session {session}"))  # fmt: skip


def _time(value: object) -> Any:
    """A time as SQLite or Goose wrote it (``2025-11-18 06:42:10``, with or without a zone)."""
    if not isinstance(value, str):
        return None
    try:
        return utc_time(_ZONE.sub(r"\1", value.strip()).replace(" ", "T", 1), "created_at")
    except Unreadable:
        return None
