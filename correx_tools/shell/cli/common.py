"""What the ``correx-tools`` subcommands share: opening sources, progress, tables, errors."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from returns.result import Success

from ..core.events import StoredEvent
from ..core.fold import Replay
from ..core.ids import SessionId
from ..core.json_values import thaw_json
from ..core.projection import ToolProjector
from ..core.record import ToolInvocationRecord
from ..core.retention import Retention
from ..core.state import ToolState
from ..core.status import ToolInvocationStatus
from ..core.timeline import RecordChange, Timeline
from .envelope import EnvelopeError, format_timestamp, loads_strict
from .jsonl_log import JsonlEventLog
from .replayer import EventReplayer
from .sources import StoreAddress, address_of, redact_dsn
from .sqlite_store import SQLiteEventStore
from .store import EventStore, StoreLayoutError

PROGRESS_THRESHOLD = 5_000
TIMELINE_STRIDE = 256


class CliError(Exception):
    """A failure to report as one line on stderr."""


# -- opening sources -----------------------------------------------------------


def open_store(source: str, *, create: bool = False) -> EventStore:
    """The store a SOURCE or DEST argument names: a ``.jsonl`` file, a SQLite file or a URL.

    Without ``create`` the store is opened read-only: reading commands write
    nothing and create nothing (no file, no table).
    """
    address = address_of(source)
    if address.kind == "postgres":
        return _open_postgres(address, read_only=not create)
    path = Path(source)
    if path.is_dir():
        raise CliError(f"{source}: is a directory, not an event store")
    if not create and not path.exists():
        raise CliError(f"{source}: no such file")
    if create and not path.parent.is_dir():
        raise CliError(f"{source}: the directory {str(path.parent)!r} does not exist")
    if path.suffix == ".jsonl":
        return JsonlEventLog(path)
    try:
        return SQLiteEventStore(path, read_only=not create)
    except StoreLayoutError as error:
        raise CliError(str(error)) from None
    except sqlite3.DatabaseError as error:
        raise CliError(f"{source}: not a SQLite event store ({error})") from None


def remove_new_store(path: Path) -> None:
    """Delete a store file this command created and failed to fill (SQLite's side files too)."""
    for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)


def _open_postgres(address: StoreAddress, *, read_only: bool) -> EventStore:
    try:
        import psycopg  # noqa: PLC0415 - the optional extra
    except ImportError:
        raise CliError(
            "PostgreSQL sources need psycopg: pip install 'correx-tools[postgres]'"
        ) from None
    try:
        return address.open(read_only=read_only)
    except StoreLayoutError as error:
        raise CliError(str(error)) from None
    except psycopg.Error as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CliError(f"{redact(address.location)}: cannot use the database: {reason}") from None


def redact(url: str) -> str:
    """A database URL fit to print: its password masked."""
    return redact_dsn(url)


def find_session(store: EventStore, name: str, source: str) -> SessionId:
    session = SessionId(name)
    if session not in store.sessions():
        known = ", ".join(store.sessions()[:5]) or "none"
        raise CliError(f"{source}: no session {name!r} (sessions: {known})")
    return session


# -- progress ------------------------------------------------------------------


class _Progress:
    """A progress bar on stderr, shown only on a terminal and for long replays."""

    def __init__(self, label: str, total: int | None, stream: TextIO) -> None:
        self.label, self.total, self.stream = label, total, stream
        self.active = stream.isatty() and (total is None or total > PROGRESS_THRESHOLD)
        self.started = time.monotonic()

    def wrap(self, events: Iterator[StoredEvent]) -> Iterator[StoredEvent]:
        count = 0
        for count, event in enumerate(events, start=1):
            if self.active and count % 2000 == 0:
                self._draw(count)
            yield event
        if self.active and count:
            self._draw(count)
            self.stream.write("\n")

    def _draw(self, count: int) -> None:
        rate = count / max(time.monotonic() - self.started, 1e-6)
        if self.total:
            filled = int(30 * min(count / self.total, 1.0))
            bar = f"[{'#' * filled}{'.' * (30 - filled)}] {count:,}/{self.total:,}"
        else:
            bar = f"{count:,} events"
        self.stream.write(f"\r{self.label} {bar} ({rate:,.0f}/s)")
        self.stream.flush()


class _ProgressStore:
    """A store whose ``read`` reports progress (the CLI's wrapper around the real one)."""

    def __init__(self, inner: EventStore, stream: TextIO) -> None:
        self.inner, self.stream = inner, stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        total = None
        last_sequence = getattr(self.inner, "last_sequence", None)
        if self.stream.isatty() and last_sequence is not None:
            total = last_sequence(session_id)
        return _Progress(f"replaying {session_id}", total, self.stream).wrap(
            self.inner.read(session_id, after=after)
        )


def replayer_for(store: EventStore) -> EventReplayer:
    return EventReplayer(_ProgressStore(store, sys.stderr))


# -- rendering -----------------------------------------------------------------


def iso_time(moment: datetime | None) -> str | None:
    return None if moment is None else format_timestamp(moment)


def record_json(record: ToolInvocationRecord) -> dict[str, Any]:
    """A record as plain JSON."""
    receipt = record.receipt
    return {
        "invocation_id": record.invocation_id,
        "tool_name": record.tool_name,
        "tier": record.tier.value,
        "status": record.status.value,
        "arguments": thaw_json(record.request.arguments),
        "requested_at": iso_time(record.requested_at),
        "started_at": iso_time(record.started_at),
        "completed_at": iso_time(record.completed_at),
        "reason": record.reason,
        "recoverable": record.recoverable,
        "receipt": None
        if receipt is None
        else {
            "output": thaw_json(receipt.output),
            "exit_code": receipt.exit_code,
            "metadata": dict(receipt.metadata),
        },
    }


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain text table, columns padded to fit."""
    cells = [[str(h) for h in headers]] + [
        ["-" if c is None else str(c) for c in row] for row in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _short_time(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%H:%M:%S.%f")[:-3]


def _detail(record: ToolInvocationRecord) -> str:
    if record.reason is not None:
        return record.reason
    if record.receipt is not None:
        return f"exit {record.receipt.exit_code}"
    return ""


def status_counts(state: ToolState) -> dict[str, int]:
    counts = Counter(record.status.value for record in state.records())
    return {status.value: counts.get(status.value, 0) for status in ToolInvocationStatus}


def records_table(records: Sequence[ToolInvocationRecord]) -> str:
    return table(
        ["invocation", "tool", "status", "requested", "completed", "detail"],
        [
            (
                r.invocation_id,
                r.tool_name,
                r.status.name,
                _short_time(r.requested_at),
                _short_time(r.completed_at),
                _detail(r),
            )
            for r in records
        ],
    )


def changes_table(changes: Sequence[RecordChange]) -> str:
    return table(
        ["invocation", "tool", "before", "after"],
        [
            (
                c.invocation_id,
                c.after.tool_name,
                "(new)" if c.before is None else c.before.status.name,
                c.after.status.name,
            )
            for c in changes
        ],
    )


def emit(args: argparse.Namespace, document: object, text: Callable[[], str]) -> None:
    if args.json:
        print(json.dumps(document, ensure_ascii=False, sort_keys=False))
    else:
        print(text())


# -- loading -------------------------------------------------------------------


def replay_session(
    store: EventStore,
    session: SessionId,
    *,
    lenient: bool,
    until: int | None = None,
    retention: Retention | None = None,
) -> Replay[ToolState]:
    result = replayer_for(store).replay(
        session, ToolProjector(), strict=not lenient, retention=retention, until=until
    )
    if not isinstance(result, Success):
        hint = "" if lenient else " (--lenient skips events the lifecycle refuses)"
        raise CliError(f"session {session!r}: {result.failure().message}{hint}")
    replay: Replay[ToolState] = result.unwrap()
    return replay


def session_timeline(store: EventStore, session: SessionId) -> Timeline[ToolState]:
    # Lenient: time travel through a session that holds an illegal event still works.
    timeline = replay_session(
        store, session, lenient=True, retention=Retention.every(TIMELINE_STRIDE)
    ).timeline
    assert timeline is not None
    return timeline


def check_sequence(timeline: Timeline[ToolState], value: int, name: str) -> int:
    if not 0 <= value <= len(timeline):
        raise CliError(f"{name}={value} is outside the session (sequences 0..{len(timeline)})")
    return value


def read_json(argument: str, what: str) -> Any:
    """Inline JSON, or the JSON file ``argument`` names; any problem is one clear line."""
    text: str | bytes | None = argument if argument.lstrip().startswith(("{", "[")) else None
    if text is None:
        text = read_file(argument)
    try:
        return loads_strict(text)
    except EnvelopeError as error:
        raise CliError(f"{argument}: {what}: {error}") from None


def read_file(argument: str) -> bytes:
    """The bytes of the file ``argument`` names; a missing file or a directory is a CliError."""
    path = Path(argument)
    if path.is_dir():
        raise CliError(f"{argument}: is a directory, not a file")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{argument}: no such file") from None
    except OSError as error:
        raise CliError(f"{argument}: cannot read it ({error.strerror})") from None
