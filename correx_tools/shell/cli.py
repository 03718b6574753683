"""The ``correx-tools`` command: a thin shell that parses, calls the library, renders.

Every subcommand prints a readable table, or with ``--json`` one JSON document
on stdout. Errors are one line on stderr and exit status 1 (2 for a usage
error), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from returns.result import Success

from ..core.capability import ToolCapability
from ..core.events import StoredEvent, ToolRequest
from ..core.fold import Replay
from ..core.ids import InvocationId, SessionId
from ..core.json_values import thaw_json
from ..core.projection import ToolProjector
from ..core.record import ToolInvocationRecord
from ..core.registry import InMemoryToolRegistry
from ..core.retention import Retention
from ..core.state import ToolState
from ..core.status import ToolInvocationStatus
from ..core.tier import Tier
from ..core.timeline import RecordChange, Timeline
from ..core.tool import ToolSpec
from ..core.validation import Invalid
from .demo_session import Step, agent_session
from .envelope import EnvelopeError, format_timestamp, loads_strict
from .jsonl_log import JsonlEventLog
from .parallel import replay_all
from .replayer import EventReplayer
from .sources import StoreAddress, address_of
from .sqlite_store import SQLiteEventStore
from .store import EventStore, StoreReadError

PROGRESS_THRESHOLD = 5_000
TIMELINE_STRIDE = 256


class CliError(Exception):
    """A failure to report as one line on stderr."""


# -- opening sources -----------------------------------------------------------


def open_store(source: str, *, create: bool = False) -> EventStore:
    """The store a SOURCE or DEST argument names: a ``.jsonl`` file, a SQLite file or a URL."""
    address = address_of(source)
    if address.kind == "postgres":
        return _open_postgres(address)
    path = Path(source)
    if not create and not path.exists():
        raise CliError(f"{source}: no such file")
    if path.exists() and path.is_dir():
        raise CliError(f"{source}: is a directory, not an event store")
    if path.suffix == ".jsonl":
        return JsonlEventLog(path)
    try:
        store = SQLiteEventStore(path)
        store.sessions()
    except sqlite3.DatabaseError as error:
        raise CliError(f"{source}: not a SQLite event store ({error})") from None
    return store


def _open_postgres(address: StoreAddress) -> EventStore:
    try:
        import psycopg  # noqa: PLC0415 - the optional extra
    except ImportError:
        raise CliError(
            "PostgreSQL sources need psycopg: pip install 'correx-tools[postgres]'"
        ) from None
    try:
        return address.open()
    except psycopg.Error as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CliError(f"{_redact(address.location)}: cannot use the database: {reason}") from None


def _redact(url: str) -> str:
    head, _, tail = url.partition("@")
    return url if not tail else head.split("//")[0] + "//***@" + tail


def _session(store: EventStore, name: str, source: str) -> SessionId:
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


def _replayer(store: EventStore) -> EventReplayer:
    return EventReplayer(_ProgressStore(store, sys.stderr))


# -- rendering -----------------------------------------------------------------


def _time(moment: datetime | None) -> str | None:
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
        "requested_at": _time(record.requested_at),
        "started_at": _time(record.started_at),
        "completed_at": _time(record.completed_at),
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


def _status_counts(state: ToolState) -> dict[str, int]:
    counts = Counter(record.status.value for record in state.records())
    return {status.value: counts.get(status.value, 0) for status in ToolInvocationStatus}


def _records_table(records: Sequence[ToolInvocationRecord]) -> str:
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


def _changes_table(changes: Sequence[RecordChange]) -> str:
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


def _emit(args: argparse.Namespace, document: object, text: Callable[[], str]) -> None:
    if args.json:
        print(json.dumps(document, ensure_ascii=False, sort_keys=False))
    else:
        print(text())


# -- loading -------------------------------------------------------------------


def _replay(
    store: EventStore,
    session: SessionId,
    *,
    lenient: bool,
    until: int | None = None,
    retention: Retention | None = None,
) -> Replay[ToolState]:
    result = _replayer(store).replay(
        session, ToolProjector(), strict=not lenient, retention=retention, until=until
    )
    if not isinstance(result, Success):
        hint = "" if lenient else " (--lenient skips events the lifecycle refuses)"
        raise CliError(f"session {session!r}: {result.failure().message}{hint}")
    replay: Replay[ToolState] = result.unwrap()
    return replay


def _timeline(store: EventStore, session: SessionId) -> Timeline[ToolState]:
    # Lenient: time travel through a session that holds an illegal event still works.
    timeline = _replay(
        store, session, lenient=True, retention=Retention.every(TIMELINE_STRIDE)
    ).timeline
    assert timeline is not None
    return timeline


def _sequence(timeline: Timeline[ToolState], value: int, name: str) -> int:
    if not 0 <= value <= len(timeline):
        raise CliError(f"{name}={value} is outside the session (sequences 0..{len(timeline)})")
    return value


# -- subcommands ---------------------------------------------------------------


def cmd_sessions(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    rows: list[dict[str, Any]] = []
    for session in store.sessions():
        replay = _replay(store, session, lenient=True)
        counts = _status_counts(replay.state)
        rows.append(
            {
                "session_id": session,
                "events": replay.last_sequence,
                "invocations": len(replay.state),
                "statuses": counts,
                "refused_events": len(replay.quarantined),
            }
        )
    _emit(
        args,
        {"source": args.source, "sessions": rows},
        lambda: table(
            [
                "session",
                "events",
                "invocations",
                "completed",
                "failed",
                "rejected",
                "open",
                "refused",
            ],
            [
                (
                    r["session_id"],
                    r["events"],
                    r["invocations"],
                    r["statuses"]["completed"],
                    r["statuses"]["failed"],
                    r["statuses"]["rejected"],
                    r["statuses"]["requested"] + r["statuses"]["started"],
                    r["refused_events"],
                )
                for r in rows
            ],
        ),
    )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = _session(store, args.session, args.source)
    if args.at is not None and args.at < 0:
        raise CliError(f"--at {args.at}: a sequence is 0 or more")
    replay = _replay(store, session, lenient=args.lenient, until=args.at)
    if args.at is not None and args.at > replay.last_sequence:
        raise CliError(
            f"--at {args.at} is beyond the end of session {session!r} "
            f"(last sequence {replay.last_sequence})"
        )
    records = list(replay.state.records())
    document = {
        "session_id": session,
        "at": replay.last_sequence,
        "invocations": [record_json(r) for r in records],
        "statuses": _status_counts(replay.state),
        "quarantined": [
            {"sequence": e.sequence, "error": str(err)} for e, err in replay.quarantined
        ],
    }

    def text() -> str:
        counts = ", ".join(f"{n} {s}" for s, n in document["statuses"].items() if n)  # type: ignore[attr-defined]
        lines = [
            f"session {session} at sequence {replay.last_sequence}: "
            f"{len(records)} invocations ({counts or 'none'})"
        ]
        if replay.quarantined:
            lines.append(
                f"{len(replay.quarantined)} events refused by the lifecycle "
                "and skipped (--lenient):"
            )
            lines.extend(f"  {err}" for _, err in replay.quarantined[:10])
        shown = records[-args.limit :] if args.limit else records
        if len(shown) < len(records):
            lines.append(
                f"the last {len(shown)} of {len(records)} invocations (--limit 0 shows all):"
            )
        lines.append(_records_table(shown))
        return "\n".join(lines)

    _emit(args, document, text)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = _session(store, args.session, args.source)
    timeline = _timeline(store, session)
    history = timeline.history(InvocationId(args.invocation))
    if not history:
        raise CliError(f"invocation {args.invocation!r} was never requested in session {session!r}")
    rows = [
        (
            sequence,
            format_timestamp(timeline.event(sequence).recorded_at),
            record.status.name,
            _detail(record),
        )
        for sequence, record in history
    ]
    _emit(
        args,
        {
            "session_id": session,
            "invocation_id": args.invocation,
            "versions": [{"sequence": s, "record": record_json(r)} for s, r in history],
        },
        lambda: (
            f"{args.invocation} ({history[0][1].tool_name}, tier {history[0][1].tier.value}) "
            f"in session {session}\n" + table(["sequence", "recorded at", "status", "detail"], rows)
        ),
    )
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = _session(store, args.session, args.source)
    timeline = _timeline(store, session)
    a, b = _sequence(timeline, args.a, "A"), _sequence(timeline, args.b, "B")
    if a > b:
        raise CliError(f"A={a} is after B={b}: diff goes forward in time")
    changes = timeline.diff(a, b)
    _emit(
        args,
        {
            "session_id": session,
            "a": a,
            "b": b,
            "changes": [
                {
                    "invocation_id": c.invocation_id,
                    "before": None if c.before is None else record_json(c.before),
                    "after": record_json(c.after),
                }
                for c in changes
            ],
        },
        lambda: (
            f"{len(changes)} invocations added or changed from sequence {a} to {b}\n"
            + _changes_table(changes)
        ),
    )
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    source = open_store(args.source)
    destination = open_store(args.dest, create=True)
    copied: dict[str, int] = {}
    for session in source.sessions():
        try:
            events = list(source.read(session))
        except StoreReadError as error:
            raise CliError(f"{args.source}: {error.error}") from None
        result = destination.import_events(events)
        if not isinstance(result, Success):
            raise CliError(f"{args.dest}: session {session!r}: {result.failure().message}")
        copied[session] = result.unwrap()
    total = sum(copied.values())
    _emit(
        args,
        {"source": args.source, "dest": args.dest, "sessions": copied, "events": total},
        lambda: (
            f"copied {total} events in {len(copied)} sessions from {args.source} to {args.dest}"
        ),
    )
    return 0


def _read_json(argument: str, what: str) -> Any:
    text = argument if argument.lstrip().startswith(("{", "[")) else None
    if text is None:
        path = Path(argument)
        if not path.exists():
            raise CliError(f"{argument}: no such file")
        text = path.read_text(encoding="utf-8")
    try:
        return loads_strict(text)
    except EnvelopeError as error:
        raise CliError(f"{argument}: {what}: {error}") from None


def tool_from_json(definition: object, where: str) -> ToolSpec:
    """A ``ToolSpec`` from a JSON tool definition.

    The object has ``name``, ``description``, ``parameters`` (or MCP's
    ``inputSchema``), ``tier`` and ``capabilities``.
    """
    if not isinstance(definition, dict) or not isinstance(definition.get("name"), str):
        raise CliError(f"{where}: a tool definition is an object with a string name")
    try:
        return ToolSpec(
            name=definition["name"],
            description=str(definition.get("description", "")),
            parameters=_schema_of(definition),
            tier=Tier(definition.get("tier", "auto")),
            capabilities=frozenset(ToolCapability(c) for c in definition.get("capabilities", [])),
        )
    except (ValueError, TypeError) as error:
        raise CliError(f"{where}: {error}") from None


def _schema_of(definition: dict[str, Any]) -> dict[str, Any]:
    for key in ("parameters", "inputSchema", "input_schema"):
        if key in definition:
            schema = definition[key]
            if not isinstance(schema, dict):
                raise ValueError(f"{key} must be a JSON Schema object")
            return schema
    return {}


def cmd_validate(args: argparse.Namespace) -> int:
    definitions = _read_json(args.tools, "tool definitions")
    if isinstance(definitions, dict):
        definitions = definitions.get("tools", [definitions])
    if not isinstance(definitions, list):
        raise CliError(f"{args.tools}: expected a list of tool definitions")
    tools = [tool_from_json(d, f"{args.tools}: tool {i}") for i, d in enumerate(definitions)]
    registry = InMemoryToolRegistry.of(*tools)
    if not isinstance(registry, Success):
        raise CliError(f"{args.tools}: {registry.failure().message}")
    raw = _read_json(args.request, "request")
    name = raw.get("tool_name", raw.get("name")) if isinstance(raw, dict) else None
    arguments = raw.get("arguments", raw.get("input", {})) if isinstance(raw, dict) else None
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise CliError(
            f"{args.request}: a request is an object with tool_name and an arguments object"
        )
    request = ToolRequest(tool_name=name, arguments=arguments)
    result = registry.unwrap().validate(request)
    if isinstance(result, Invalid):
        _emit(
            args,
            {
                "valid": False,
                "reason": result.reason,
                "violations": [{"path": v.path, "message": v.message} for v in result.violations],
            },
            lambda: (
                f"invalid: {result.reason}\n"
                + table(["path", "problem"], [(v.path, v.message) for v in result.violations])
            ),
        )
        return 1
    _emit(
        args,
        {"valid": True, "violations": []},
        lambda: f"valid: {request.tool_name} request fits its schema",
    )
    return 0


def cmd_init_db(args: argparse.Namespace) -> int:
    store = open_store(args.source, create=True)
    if isinstance(store, JsonlEventLog):
        store.path.touch()
    _emit(
        args,
        {"source": _redact(args.source), "ready": True},
        lambda: f"{_redact(args.source)}: ready",
    )
    return 0


def session_summary(replay: Replay[ToolState]) -> dict[str, int]:
    """What ``replay-all`` reports of a session (computed in the worker process)."""
    return {
        "events": replay.last_sequence,
        "invocations": len(replay.state),
        "refused_events": len(replay.quarantined),
    }


def cmd_replay_all(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    started = time.perf_counter()
    outcome = replay_all(
        store,
        ToolProjector(),
        workers=args.workers,
        strict=not args.lenient,
        summarize=session_summary,
    )
    seconds = time.perf_counter() - started
    rows: list[dict[str, Any]] = [
        {"session_id": session, **summary, "error": None}
        for session, summary in outcome.summaries.items()
    ]
    rows += [
        {
            "session_id": s,
            "events": None,
            "invocations": None,
            "refused_events": None,
            "error": e.message,
        }
        for s, e in outcome.failures.items()
    ]
    rows.sort(key=lambda row: str(row["session_id"]))
    events = sum(int(r["events"] or 0) for r in rows)
    document = {
        "workers": args.workers,
        "seconds": round(seconds, 3),
        "events": events,
        "sessions": rows,
    }
    _emit(
        args,
        document,
        lambda: (
            f"replayed {len(rows)} sessions ({events:,} events) with {args.workers} workers "
            f"in {seconds:.2f} s\n"
            + table(
                ["session", "events", "invocations", "refused", "error"],
                [
                    (
                        r["session_id"],
                        r["events"],
                        r["invocations"],
                        r["refused_events"],
                        r["error"],
                    )
                    for r in rows
                ],
            )
        ),
    )
    return 1 if outcome.failures else 0


def cmd_demo(args: argparse.Namespace) -> int:
    path = Path(args.db)
    store = open_store(str(path), create=True)
    if not isinstance(store, SQLiteEventStore):
        raise CliError(
            f"{args.db}: the demo writes a SQLite file; give a path that does not end in .jsonl"
        )
    # Each demo adds a new run to the file: its ids never clash with earlier ones.
    runs = {s.split("-session-")[0] for s in store.sessions() if s.startswith("demo-run")}
    run = len(runs) + 1
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC) + timedelta(days=run - 1)
    started = time.perf_counter()
    written: dict[str, int] = {}
    for number in range(args.sessions):
        session = SessionId(f"demo-run{run:02d}-session-{number + 1}")
        last = 0
        steps = agent_session(
            session,
            args.invocations,
            seed=run * 1000 + number,
            start=start + timedelta(hours=number),
        )
        for turn in _turns(steps):
            # One transaction per agent turn; each event keeps its own time.
            result = store.import_events(
                StoredEvent(session_id=session, sequence=last + offset, recorded_at=at, event=event)
                for offset, (at, event) in enumerate(turn, start=1)
            )
            if not isinstance(result, Success):
                raise CliError(f"{args.db}: {result.failure().message}")
            last += len(turn)
        written[session] = last
    write_seconds = time.perf_counter() - started
    focus = SessionId(next(iter(written)))
    started = time.perf_counter()
    replay = _replay(store, focus, lenient=True, retention=Retention.every(TIMELINE_STRIDE))
    replay_seconds = time.perf_counter() - started
    timeline = replay.timeline
    assert timeline is not None
    failed = timeline.first(
        lambda state: any(r.status is ToolInvocationStatus.FAILED for r in state.records())
    ).value_or(None)
    document: dict[str, Any] = {
        "db": str(path),
        "sessions": written,
        "events": sum(written.values()),
        "write_seconds": round(write_seconds, 3),
        "replayed_session": focus,
        "replay_seconds": round(replay_seconds, 3),
        "statuses": _status_counts(replay.state),
        "refused_events": [
            {"sequence": e.sequence, "error": str(err)} for e, err in replay.quarantined
        ],
        "first_failure": failed,
    }
    lines = [
        f"wrote {document['events']:,} events in {len(written)} sessions to {path} "
        f"in {write_seconds:.1f} s",
        table(["session", "events"], list(written.items())),
        "",
        f"replayed {focus}: {replay.last_sequence:,} events in {replay_seconds:.2f} s "
        f"({replay.last_sequence / max(replay_seconds, 1e-9):,.0f} events/s)",
        "invocations by status: " + ", ".join(f"{n} {s}" for s, n in document["statuses"].items()),
        f"{len(replay.quarantined)} illegal events refused by the lifecycle and skipped:",
        *(f"  {err}" for _, err in replay.quarantined[:5]),
    ]
    if failed is not None:
        event = timeline.event(failed)
        record = timeline.at(failed).find(getattr(event.event, "invocation_id", ""))
        before = timeline.at(failed - 1)
        lines += [
            "",
            f"time travel: the first failure is at sequence {failed} "
            f"({format_timestamp(event.recorded_at)})",
        ]
        if record is not None:
            lines.append(f"  {record.invocation_id} ({record.tool_name}): {record.reason}")
            document["failure_history"] = [
                {"sequence": s, "status": r.status.value}
                for s, r in timeline.history(record.invocation_id)
            ]
            lines.append(
                "  its history: "
                + ", ".join(
                    f"{r.status.name} at {s}" for s, r in timeline.history(record.invocation_id)
                )
            )
        lines.append(
            f"  just before it (sequence {failed - 1}): {len(before)} invocations, "
            + ", ".join(f"{n} {s}" for s, n in _status_counts(before).items() if n)
        )
        end = min(failed + 20, len(timeline))
        changes = timeline.diff(failed - 1, end)
        document["diff"] = {"a": failed - 1, "b": end, "changes": len(changes)}
        lines.append(
            f"  from sequence {failed - 1} to {end}, {len(changes)} invocations "
            "were added or changed:"
        )
        lines.append("    " + _changes_table(changes).replace("\n", "\n    "))
    lines += [
        "",
        "explore it yourself:",
        f"  correx-tools sessions {path}",
        f"  correx-tools replay {path} {focus} --at 100 --lenient",
        f"  correx-tools diff {path} {focus} 100 200",
    ]
    _emit(args, document, lambda: "\n".join(lines))
    return 0


def _turns(steps: Iterator[Step], size: int = 24) -> Iterator[list[tuple[datetime, object]]]:
    turn: list[tuple[datetime, object]] = []
    for step in steps:
        turn.extend((step.at, event) for event in step.events)
        if len(turn) >= size:
            yield turn
            turn = []
    if turn:
        yield turn


# -- the parser ----------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``correx-tools``."""
    parser = argparse.ArgumentParser(
        prog="correx-tools",
        description="Inspect, replay and travel through recorded agent tool sessions.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(
        name: str, handler: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        sub.set_defaults(handler=handler)
        return sub

    source_help = "a SQLite file, a .jsonl log or a postgresql:// URL"
    demo = command(
        "demo",
        cmd_demo,
        "write a realistic multi-session agent run to SQLite, then replay and inspect it",
    )
    demo.add_argument(
        "--db", default="correx-demo.sqlite", help="the SQLite file to write (default: %(default)s)"
    )
    demo.add_argument(
        "--sessions", type=_positive, default=4, help="sessions to write (default: %(default)s)"
    )
    demo.add_argument(
        "--invocations",
        type=_positive,
        default=2_500,
        help="tool calls per session (default: %(default)s)",
    )
    sessions = command(
        "sessions", cmd_sessions, "list the sessions of a store with their invocation counts"
    )
    sessions.add_argument("source", metavar="SOURCE", help=source_help)
    replay = command("replay", cmd_replay, "replay a session and show its invocations")
    replay.add_argument("source", metavar="SOURCE", help=source_help)
    replay.add_argument("session", metavar="SESSION")
    replay.add_argument(
        "--at",
        type=int,
        metavar="SEQ",
        help="the state right after this sequence (0: before any event)",
    )
    replay.add_argument(
        "--lenient",
        action="store_true",
        help="skip events the lifecycle refuses instead of stopping",
    )
    replay.add_argument(
        "--limit",
        type=int,
        default=20,
        help="show the last N invocations (0: all; default: %(default)s)",
    )
    history = command("history", cmd_history, "every version of one invocation's record")
    history.add_argument("source", metavar="SOURCE", help=source_help)
    history.add_argument("session", metavar="SESSION")
    history.add_argument("invocation", metavar="INVOCATION")
    diff = command("diff", cmd_diff, "the invocations added or changed between two sequences")
    diff.add_argument("source", metavar="SOURCE", help=source_help)
    diff.add_argument("session", metavar="SESSION")
    diff.add_argument("a", type=int, metavar="A")
    diff.add_argument("b", type=int, metavar="B")
    copy = command(
        "import", cmd_import, "copy every session of SOURCE into DEST (created if missing)"
    )
    copy.add_argument("source", metavar="SOURCE", help=source_help)
    copy.add_argument("dest", metavar="DEST", help=source_help)
    init_db = command("init-db", cmd_init_db, "create the tables of a store (idempotent)")
    init_db.add_argument("source", metavar="SOURCE", help=source_help)
    everything = command(
        "replay-all", cmd_replay_all, "replay every session of a store in parallel processes"
    )
    everything.add_argument("source", metavar="SOURCE", help=source_help)
    everything.add_argument(
        "--workers", type=_positive, default=2, help="processes (default: %(default)s)"
    )
    everything.add_argument(
        "--lenient", action="store_true", help="skip events the lifecycle refuses"
    )
    validate = command(
        "validate", cmd_validate, "validate a tool request against a file of tool definitions"
    )
    validate.add_argument(
        "tools",
        metavar="TOOLS",
        help="a JSON file: a list of {name, description, parameters, tier, capabilities}",
    )
    validate.add_argument(
        "request",
        metavar="REQUEST",
        help='a JSON file or inline JSON: {"tool_name": ..., "arguments": {...}}',
    )
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.handler(args)
    except CliError as error:
        print(f"correx-tools {args.command}: error: {error}", file=sys.stderr)
        return 1
    except StoreReadError as error:
        print(f"correx-tools {args.command}: error: {error.error}", file=sys.stderr)
        return 1
    except (OSError, sqlite3.Error) as error:
        print(f"correx-tools {args.command}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"correx-tools {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return status
