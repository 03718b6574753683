"""``correx-tools export SOURCE --to parquet|csv -o DIR``: every session SOURCE holds (or
those the filters pick) as the columnar tables `correx_tools.shell.columnar` writes,
``sessions/``, ``calls/`` and with ``--events`` ``events/``, each partitioned by day."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ....core.report.redaction import Redaction
from ...catalog.picking import catalog_of
from ...columnar.writing import WriterMissing, export
from ...stores.port import StoreReadError
from ..errors import CliError
from ..output.readable import counted
from ..output.render import emit
from ..output.terminal import Progress
from ..sources.filters import query_of
from ..sources.loading import repository_for
from ..sources.prices import prices_of
from ..sources.stores import open_store, redact


def run_tables(args: argparse.Namespace) -> int:
    """Run ``correx-tools export --to parquet|csv``; the exit status."""
    if args.session is not None:
        raise CliError(f"--to {args.to} writes every session of SOURCE (the filters pick "
                       "some); SESSION is for --to otlp-json and otlp")  # fmt: skip
    if args.output is None or args.output == "-":
        raise CliError(f"--to {args.to} writes a folder of tables: give -o DIR")
    out = Path(args.output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CliError(f"{out}: already exists and is not an empty folder; give a new one")
    if not out.resolve().parent.is_dir():
        raise CliError(f"{out}: the folder {str(out.resolve().parent)!r} does not exist")
    try:
        redaction = Redaction.with_patterns(args.redact)
    except ValueError as error:
        raise CliError(str(error)) from None
    query, prices = query_of(args), prices_of(args)
    store = open_store(args.source)
    label = redact(args.source)
    catalog = catalog_of(store, lambda: repository_for(store, label, lenient=True))
    sessions, total = catalog.listed(query)
    try:
        with Progress(f"exporting {label} (sessions)", total, sys.stderr) as bar:
            done = export(store, sessions, out, to=args.to, events=args.events, prices=prices,
                          redaction=redaction, progress=bar.advance)  # fmt: skip
    except WriterMissing as missing:
        raise CliError(str(missing)) from None
    except StoreReadError as error:
        raise CliError(f"{label}: {error.error}; nothing was written") from None
    except OSError as error:
        raise CliError(f"{out}: {error.strerror or error}; nothing was written") from None
    emit(
        args,
        {"source": label, "to": args.to, "path": str(out), "sessions": total, **done.rows,
         "files": done.files},
        lambda: f"wrote {out}: " + ", ".join(f"{counted(n, table[:-1])}" for table, n in
                                              done.rows.items()) + f" ({done.files:,} files)",
    )  # fmt: skip
    return 0
