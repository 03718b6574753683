"""``compare``: where two sessions of one task part ways, and what differed beside each call.

``correx-tools compare SOURCE A B`` compares two sessions of one source;
``--with SOURCE2`` reads B from another one (another store, another agent's
transcript). Three sessions or more (or ``--match``) are told as the tree of where
they split (`compare_many`). Each session is named as every other command takes it (its id, or
the start of exactly one). Both are read in one view each, strict unless
``--lenient``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from returns.result import Failure

from ....core.tools.ids import SessionId
from ...replay.comparing import Run, Side, compare_document, compared, read_calls
from ...replay.view import StreamFailed
from ...transcripts.description import session_description
from .. import arguments
from ..errors import CliError
from ..output.calls_table import shown_id
from ..output.readable import counted, cut_middle
from ..output.render import emit, one_line
from ..output.tables import Column, table
from ..sources.loading import answered, find_session, repository_for
from ..sources.shown import redaction_of
from ..sources.stores import open_store
from ..sources.transcripts import is_transcript_source
from .compare_many import cmd_compare_many

BRIEF = 60
"""How much of a call's arguments a row of the table shows."""


def add_arguments(compare: argparse.ArgumentParser) -> None:
    """The arguments of ``compare``."""
    arguments.add_source(compare)
    compare.add_argument(
        "sessions",
        nargs="*",
        metavar="SESSION",
        help=f"two sessions, A and B (B read from --with if given); three or more (or --match) "
        f"for the tree of where they split. Each is {arguments.SESSION_HELP}",
    )
    compare.add_argument(
        "--match",
        metavar="PATTERN",
        help="also every session whose id matches this shell-style pattern (run-*), "
        "for the tree of where they split",
    )
    compare.add_argument(
        "--tree", action="store_true", help="the tree of where they split, even for two sessions"
    )
    compare.add_argument(
        "--with",
        dest="with_source",
        metavar="SOURCE2",
        help="read B from this source instead (another store, another agent's transcript)",
    )
    compare.add_argument(
        "--limit",
        type=int,
        default=40,
        help="rows shown from a few before the first divergence (0: all; default: %(default)s)",
    )
    compare.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")
    arguments.add_shown_arguments(compare)


def _side(source: str, name: str, *, lenient: bool) -> Side:
    store = open_store(source)
    session = find_session(store, name, source)
    described = session_description(store, session)
    repository = repository_for(store, source, lenient=lenient)
    return Side(
        source=source,
        session=session,
        open=lambda: repository.view(session),
        cwd=None if described is None else described.about.cwd,
        times_recorded=described is None or described.times_recorded,
    )


def _calls(side: Side, *, lenient: bool) -> Run:
    session = SessionId(side.session)
    try:
        calls: Run = answered(read_calls(side), session, lenient=lenient)
    except StreamFailed as failed:
        answered(Failure(failed.error), session, lenient=lenient)
        raise AssertionError("a failure is always an error") from None
    return calls


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools compare``; the exit status."""
    if args.limit < 0:
        raise CliError(f"--limit={args.limit} is negative; give 0 or more")
    names: list[str] = args.sessions
    if args.match is not None or args.tree or len(names) > 2:
        return cmd_compare_many(args)
    if len(names) != 2:
        raise CliError(f"compare needs two sessions, A and B (or --match); {len(names)} given")
    if args.cache and args.with_source and is_transcript_source(args.with_source):
        # One cache file holds the transcripts of one SOURCE: a second would replace them.
        raise CliError(
            "--cache names the cache of one SOURCE, and --with reads another: leave --cache "
            "out (each is cached in a file of its own) or give --no-cache"
        )
    lenient: bool = args.lenient
    a = _side(args.source, names[0], lenient=lenient)
    b = _side(args.with_source or args.source, names[1], lenient=lenient)
    found = compared(_calls(a, lenient=lenient), _calls(b, lenient=lenient))
    document = compare_document(a, b, found, limit=args.limit)
    redaction = redaction_of(args)
    if redaction is not None:
        document = redaction.masked(document)
    emit(args, document, lambda: _text(document, wide=args.wide))
    return 0


ROWS = (
    Column("row", right=True),
    Column("a", fit="cut", least=12, ease=24, give=2),
    Column("a outcome", fit="cut", least=9, give=1),
    Column("b", fit="cut", least=12, ease=24, give=2),
    Column("b outcome", fit="cut", least=9, give=1),
    Column("differs", fit="cut", least=10, ease=16, give=3),
)


def _text(document: dict[str, Any], *, wide: bool) -> str:
    a, b = document["a"], document["b"]
    lines = [
        f"a: {one_line(a['session_id'])} of {one_line(a['source'])} "
        f"({counted(a['calls'], 'call')})",
        f"b: {one_line(b['session_id'])} of {one_line(b['source'])} "
        f"({counted(b['calls'], 'call')})",
    ]
    kinds = document["rows_by_kind"]
    lines.append(
        f"{counted(kinds['same'], 'matched call')} "
        f"({document['same_with_differences']:,} with differences), "
        f"{kinds['changed']:,} changed, {kinds['only_a']:,} only in a, "
        f"{kinds['only_b']:,} only in b"
    )
    divergence = document["first_divergence"]
    if divergence is None:
        lines.append("no divergence: the two sessions made the same calls")
    else:
        lines.append(
            f"first divergence after {counted(divergence['a']['position'], 'matched call')}:"
        )
        for name, side, about in (("a", divergence["a"], a), ("b", divergence["b"], b)):
            lines.append(f"  {name}: {_divergent(side, about['session_id'])}")
    lines += _workspace(document["workspace"], a["session_id"], b["session_id"])
    rows = document["rows"]
    if rows:
        lines.append("")
        lines.append(
            table(
                ROWS,
                [
                    (
                        str(document["rows_from"] + number),
                        _brief(row["a"], a["session_id"]),
                        _outcome(row["a"]),
                        _brief(row["b"], b["session_id"]),
                        _outcome(row["b"]),
                        _differs(row),
                    )
                    for number, row in enumerate(rows)
                ],
                wide=wide,
            )
        )
    return "\n".join(lines)


def _divergent(side: dict[str, Any], session: str) -> str:
    state = side["state"]
    before = "" if state is None else _state(state)
    call = side["call"]
    if call is None:
        return f"had no more calls (at event {side['at']:,}: {before})"
    return f"{_brief(call, session)} (before it, at event {side['at']:,}: {before})"


def _state(state: dict[str, Any]) -> str:
    statuses = state["statuses"]
    said = [f"{count:,} {status}" for status, count in statuses.items() if count]
    if state["exited_nonzero"]:
        said.append(f"{state['exited_nonzero']:,} exited non-zero")
    return ", ".join(said) or "no calls yet"


def _brief(call: dict[str, Any] | None, session: str) -> str | None:
    if call is None:
        return None
    arguments = call["arguments"]
    words = " ".join(
        str(value) if isinstance(value, str) else _compact(value)
        for value in (arguments or {}).values()
    )
    name = shown_id(session, call["invocation_id"])
    return f"{name} {call['tool_name']} {cut_middle(' '.join(words.split()), BRIEF)}".rstrip()


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _outcome(call: dict[str, Any] | None) -> str | None:
    if call is None:
        return None
    said = call["status"]
    if call["exit_code"]:
        said += f" exit {call['exit_code']}"
    if call["duration"] is not None:
        said += f" {call['duration']:.1f}s"
    return str(said)


def _differs(row: dict[str, Any]) -> str:
    if row["kind"] == "only_a":
        return "only in a"
    if row["kind"] == "only_b":
        return "only in b"
    return ", ".join(difference.replace("_", " ") for difference in row["differs"]) or "-"


def _workspace(workspace: dict[str, Any], a: str, b: str) -> list[str]:
    """The files each run changed, where they first differ, and a diff of each that ends
    differently."""
    lines = []
    for name, files in (("a", workspace["a_files"]), ("b", workspace["b_files"])):
        said = ", ".join(f"{one_line(f['path'])} ({f['edits']:,})" for f in files) or "none"
        lines.append(f"files {name} changed: {said}")
    first = workspace["first_difference"]
    if first is None:
        lines.append("the two runs' files never differ")
        return lines
    where = [f"{name}'s {_brief(call, session)}" for name, call, session
             in (("a", first["a"], a), ("b", first["b"], b)) if call is not None]  # fmt: skip
    lines.append(f"files first differ after row {first['row']:,}: {' / '.join(where)}")
    for diff in workspace["diffs"]:
        told = "its text" if diff["of"] == "text" else "what each run's edits removed and added"
        lines.append(f"--- a/{one_line(diff['path'])}  ({told})")
        lines.append(f"+++ b/{one_line(diff['path'])}")
        for hunk in diff["hunks"]:
            lines.append(f"@@ -{hunk['old']} +{hunk['new']} @@")
            lines += [op + text for op, text in hunk["lines"]]
        if diff["cut"]:
            lines.append("(cut: the file's edits are longer than the diff shows)")
    return lines
