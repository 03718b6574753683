"""Writing the tables (`tables`) as Parquet or CSV files, a day's partition at a time, in
bounded memory, whole or not at all.

The sessions are taken in the order of the day they began, so each day's partition of each
table is written by one writer, opened, filled and closed before the next day's: a writer
holds at most `BATCH` rows before it writes them out (a Parquet row group, or CSV lines),
and a session's events are read a batch at a time (twice for its calls: once for their
token shares, once for the rows). The files are written in a folder beside ``-o DIR`` and
moved into place when all are written: a killed export leaves no half-written table.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC
from itertools import groupby
from pathlib import Path
from typing import Any, Literal, final

from ...core.catalog.listing import Listed
from ...core.replay.pricing import PriceTable
from ...core.report.redaction import Redaction
from ...core.tools.ids import SessionId
from ..stores.port import EventStore
from . import rows as made
from .tables import SCHEMA_VERSION, TABLES, Kind, described

Format = Literal["parquet", "csv"]

BATCH = 10_000
"""Rows a table's writer holds before it writes them out."""


class WriterMissing(Exception):
    """pyarrow, the optional extra the tables are written with, is not installed."""


def require_pyarrow() -> None:
    """Refuse, saying what to install, when the optional writer is missing."""
    try:
        import pyarrow  # noqa: F401, PLC0415 - only asked whether it is there
    except ImportError:
        raise WriterMissing(
            "export --to parquet|csv needs pyarrow: pip install 'correx-tools[parquet]'"
        ) from None


@final
@dataclass(slots=True)
class Exported:
    """What an export wrote: rows by table, and the files."""

    rows: dict[str, int] = field(default_factory=dict)
    files: int = 0


def day_of(listed: Listed) -> str:
    """The partition of a session's rows: the day (UTC) it began, or ``none``."""
    started = listed.facts.started
    return "none" if started is None else started.astimezone(UTC).date().isoformat()


def export(
    store: EventStore,
    sessions: Iterable[Listed],
    out: Path,
    *,
    to: Format,
    events: bool,
    prices: PriceTable,
    redaction: Redaction,
    progress: Callable[[int], None] | None = None,
) -> Exported:
    """Write ``sessions`` of ``store`` as the tables under ``out`` (see the module
    docstring); ``progress`` is told of each session written."""
    require_pyarrow()
    ordered = sorted(sessions, key=lambda listed: (day_of(listed), listed.session_id))
    parent = out.resolve().parent
    building = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=parent))
    done = Exported()
    try:
        for day, grouped in groupby(ordered, key=day_of):
            day_sessions = list(grouped)
            _write_day(store, day_sessions, building, day, to=to, events=events, prices=prices,
                       redaction=redaction, done=done)  # fmt: skip
            if progress is not None:
                progress(len(day_sessions))
        (building / "schema.json").write_text(json.dumps(described(), indent=2) + "\n")
        if out.exists():
            out.rmdir()  # an empty folder, as the command checked
        os.replace(building, out)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return done


def _write_day(
    store: EventStore,
    sessions: list[Listed],
    folder: Path,
    day: str,
    *,
    to: Format,
    events: bool,
    prices: PriceTable,
    redaction: Redaction,
    done: Exported,
) -> None:
    def read(listed: Listed) -> Iterator[Any]:
        return iter(store.read(SessionId(listed.session_id)))

    tables: dict[str, Iterator[made.Row]] = {
        "sessions": (made.session_row(listed, redaction, prices) for listed in sessions),
        "calls": (
            row
            for listed in sessions
            for row in made.call_rows(
                listed, read(listed), made.call_shares(read(listed)), redaction, prices
            )
        ),
    }
    if events:
        tables["events"] = (
            made.event_row(made.identity(listed, redaction), stored, redaction)
            for listed in sessions
            for stored in read(listed)
        )
    for table, produced in tables.items():
        count = _write_table(produced, folder / table / f"day={day}", table, to)
        done.rows[table] = done.rows.get(table, 0) + count
        done.files += 1 if count else 0


def _write_table(produced: Iterator[made.Row], folder: Path, table: str, to: Format) -> int:
    """The rows into one file of ``folder`` (none when there are none), `BATCH` at a time."""
    import pyarrow as pa  # noqa: PLC0415 - the optional extra

    schema = arrow_schema(table)
    writer: Any = None
    count = 0
    try:
        while batch := _take(produced, BATCH):
            if writer is None:
                folder.mkdir(parents=True)
                writer = _writer(folder / f"part-0.{to}", schema, to)
            columns = {name: [row[name] for row in batch] for name in schema.names}
            writer.write_table(pa.table(columns, schema=schema))
            count += len(batch)
    finally:
        if writer is not None:
            writer.close()
    return count


def _take(rows: Iterator[made.Row], size: int) -> list[made.Row]:
    batch: list[made.Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            break
    return batch


def _writer(path: Path, schema: Any, to: Format) -> Any:
    if to == "parquet":
        import pyarrow.parquet as pq  # noqa: PLC0415 - the optional extra

        return pq.ParquetWriter(path, schema, compression="zstd")
    import pyarrow.csv as pcsv  # noqa: PLC0415 - the optional extra

    return pcsv.CSVWriter(path, schema)


def arrow_schema(table: str) -> Any:
    """A table's columns as pyarrow's schema, its version in the schema's metadata."""
    import pyarrow as pa  # noqa: PLC0415 - the optional extra

    types: dict[Kind, Any] = {
        "text": pa.string(),
        "integer": pa.int64(),
        "time": pa.timestamp("us", tz="UTC"),
        "number": pa.float64(),
        "flag": pa.bool_(),
    }
    return pa.schema(
        [pa.field(name, types[kind]) for name, kind, _ in TABLES[table]],
        metadata={"correx_schema_version": str(SCHEMA_VERSION), "correx_table": table},
    )
