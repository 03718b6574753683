"""``correx-tools search``: what agents did, found across every session of a SOURCE (every
agent's folder found when none is given): calls' arguments, their outputs, and what was
said, through the store's full-text index (a scan of the events for a store that keeps
none, by the same rules).

Every word of TEXT must be in a value, a "quoted phrase" as it is written; case does not
count. Each hit names its session, call and sequence, with a snippet masked before it was
cut, the command that opens it (with no SOURCE when none was given: such a command reads
every agent's folder too), and the path that opens it in ``correx-tools serve``'s page
(after the address the server prints).
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from ....core.catalog.searched import FIELDS, Field, SearchHit
from ....core.catalog.short_names import short_names
from ....core.report.redaction import Redaction
from ....core.tools.short_ids import short_invocation_id
from ...catalog.rows import hit_json
from .. import arguments
from ..output.render import emit, in_line
from ..output.tables import Column, table
from ..sources.catalogs import searchable_for
from ..sources.filters import query_of
from ..sources.stores import open_source_or_agents

ON_A_TERMINAL = 20
"""How many hits a terminal shows unless ``--limit`` says otherwise."""
EVERYWHERE = "all"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools search``."""
    arguments.add_source(parser, optional=True)
    parser.add_argument(
        "text",
        metavar="TEXT",
        help='the words to find, all of them (any case); a "quoted phrase" as it is written',
    )
    parser.add_argument(
        "--in",
        dest="fields",
        choices=(*FIELDS, EVERYWHERE),
        default=EVERYWHERE,
        help="where to look: a call's arguments, its outputs, what was said (prompts, the "
        "assistant's words and reasoning), or all (default: %(default)s)",
    )
    arguments.add_session_filters(parser)
    # A snippet is masked in the index itself: there is nothing raw to show.
    arguments.add_shown_arguments(parser, masked=False)
    arguments.add_terminal_limit(parser, "N newest hits", ON_A_TERMINAL)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools search``; the exit status."""
    query = query_of(args)
    fields: tuple[Field, ...] = FIELDS if args.fields == EVERYWHERE else (args.fields,)
    store, label = open_source_or_agents(args.source)
    searchable = searchable_for(store, label)
    limit = arguments.terminal_limit(args, ON_A_TERMINAL)
    redaction = Redaction()
    # One more than shown: whether there are more is said without counting them all.
    asked = None if limit is None else limit + 1
    found = searchable.search(args.text, fields=fields, query=query, limit=asked,
                              redaction=redaction)  # fmt: skip
    more = limit is not None and len(found) > limit
    hits = found[:limit] if limit is not None else found
    source = args.source
    rows = [_json(hit, source, redaction) for hit in hits]
    document = {"source": label, "text": args.text, "fields": list(fields), "hits": rows,
                "more": more}  # fmt: skip

    def text() -> str:
        if not hits:
            return f"nothing found for {in_line(args.text)}"
        # Each a start no session of the store shares, so any command takes it.
        names = {} if args.wide else short_names(store.sessions())
        cells = [
            [
                names.get(hit.session_id, hit.session_id),
                hit.sequence,
                hit.field,
                _call(hit),
                " ".join(hit.snippet.split()),
            ]
            for hit in hits
        ]
        lines = [table(COLUMNS, cells, wide=args.wide)]
        lines.append("open one: " + rows[0]["open"])
        if more:
            lines.append("more hits: --limit 0 shows all")
        return "\n".join(lines)

    emit(args, document, text)
    return 0 if hits else 1


COLUMNS = (
    Column("session"),  # each a start no other session's id shares: never cut
    Column("seq", right=True),
    Column("field"),
    # A call's id whole, or not at all: a cut one might name no call (``open one`` does).
    Column("call", drop=1),
    Column("found", fit="cut", least=12, ease=30, give=1),
)


def _call(hit: SearchHit) -> str:
    if hit.invocation_id is None:
        return "-"
    return short_invocation_id(hit.session_id, hit.invocation_id)


def _json(hit: SearchHit, source: str | None, redaction: Redaction) -> dict[str, Any]:
    """A hit as ``--json`` gives it: where it is, its snippet, and how to open it."""
    where = [] if source is None else [source]
    if hit.invocation_id is not None:
        opened = ["correx-tools", "history", *where, hit.session_id, hit.invocation_id]
    else:
        opened = ["correx-tools", "replay", *where, hit.session_id, "--at", str(hit.sequence)]
    row = hit_json(hit, redaction)
    page = row.pop("page")
    return {**row, "open": shlex.join(opened), "page": page}
