"""``correx-tools audit``: every recorded call held to a policy, findings pinned to events.

Exit status: 0 no finding (or, with ``--recheck``, every evidence intact), 1 findings (or
evidence edited, missing or unreadable), 2 the audit could not run (a bad policy, an
unreadable source or findings file, an event changed after it was written) or could not
read the whole SOURCE (a transcript file refused), with one line saying why.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ....core.audit.effects import declared_by
from ....core.audit.finding import Finding, Level
from ....core.catalog.short_names import short_names
from ....core.tools.capability import ToolCapability
from ....core.tools.formats._reader import tool_list
from ...audit.documents import finding_json
from ...audit.evidence import Rechecked, recheck
from ...audit.policy_file import PolicyFileError, default_policy_text, read_policy
from ...audit.running import Audited, audit_store
from ...audit.sarif import sarif_log
from ...stores.codec.strict_json import EnvelopeError, loads_strict
from ...stores.fanout import WorkerLost
from ...stores.port import StoreLayoutError, StoreReadError
from .. import arguments
from ..errors import CliError
from ..output.render import emit, in_line
from ..output.tables import Column, table
from ..sources.loading import find_session
from ..sources.options import current_options, refused_files
from ..sources.places import finding_places
from ..sources.stores import close_store, open_store, read_file, read_json, redact
from ..sources.tool_files import read_tools

COULD_NOT_RUN = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools audit``."""
    parser.add_argument("source", metavar="SOURCE", nargs="?", help=arguments.SOURCE_HELP)
    arguments.add_cache_arguments(parser)
    parser.add_argument("session", metavar="SESSION", nargs="?", help="audit only this session")
    parser.add_argument(
        "--policy", metavar="FILE", help="the policy (TOML; default: the built-in one)"
    )
    parser.add_argument(
        "--format",
        choices=("table", "json", "sarif"),
        default=None,
        help="table (default), json (as --json) or sarif (SARIF 2.1.0)",
    )
    parser.add_argument(
        "--tools",
        metavar="FILE",
        help="tool definitions (this library's, or an MCP tools/list with annotations) whose "
        "declared capabilities win over the capability table",
    )
    parser.add_argument(
        "--print-policy", action="store_true", help="print the built-in policy and stop"
    )
    arguments.add_workers_argument(parser, "audit", among="this one joining them")
    arguments.add_shown_arguments(parser, masked=False)
    parser.add_argument(
        "--recheck",
        metavar="FILE",
        help="check the evidence of saved findings (--json or SARIF) against SOURCE again",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools audit``; the exit status."""
    if args.print_policy:
        print(default_policy_text(), end="")
        return 0
    try:
        if args.source is None:
            raise CliError("give SOURCE (a store, or an agent's transcript or folder)")
        if args.recheck is not None:
            return _recheck(args)
        return _audit(args)
    except (CliError, PolicyFileError) as error:
        return _could_not_run(str(error))
    except StoreReadError as error:
        return _could_not_run(str(error.error))  # it names the store, session and sequence
    except (OSError, sqlite3.Error, StoreLayoutError, WorkerLost) as error:
        return _could_not_run(str(error))


def _could_not_run(message: str) -> int:
    print(f"correx-tools audit: error: {in_line(message)}", file=sys.stderr)
    return COULD_NOT_RUN


def _audit(args: argparse.Namespace) -> int:
    policy = read_policy(args.policy)
    declared = None if args.tools is None else _declared(args.tools)
    shown_as = args.format or ("json" if args.json else "table")
    if shown_as == "sarif":
        current_options().files = {}  # where each session was read from, for its locations
    store = open_store(args.source)
    audited = Audited()
    try:
        sessions = (find_session(store, args.session, args.source),) if args.session else None
        store_sessions = list(store.sessions())
        findings = list(
            audit_store(
                store, policy, sessions, audited=audited, declared=declared,
                workers=arguments.workers_of(args),
            )
        )  # fmt: skip
        files = current_options().files or {}
        places = finding_places(store, findings, files, args.source) if files else {}
    finally:
        close_store(store)
    source = redact(args.source)
    unread = refused_files()  # each named on stderr as its look found it
    if shown_as == "sarif":
        args.json = True
        folder = Path(args.source).is_dir()
        emit(args, sarif_log(findings, source, places, folder=folder), str)
    else:
        args.json = shown_as == "json"
        document = {
            "source": source,
            "policy": args.policy or "built-in",
            "sessions": audited.sessions,
            "events": audited.events,
            "calls": audited.calls,
            "unknown_tools": dict(sorted(audited.unknown.items())),
            "unread_files": unread,
            "findings": [finding_json(f) for f in findings],
        }
        shortest = short_names(store_sessions) if not args.wide else {}
        emit(args, document, lambda: _text(findings, audited, shortest, wide=args.wide))
    if unread:
        # What could not be read was not audited: no exit status may say it was clean.
        return _could_not_run(
            f"{unread:,} transcript file{_s(unread)} of {source} could not be read (named "
            "above), so the audit is not of the whole SOURCE"
        )
    return 1 if findings else 0


def _declared(path: str) -> dict[str, frozenset[ToolCapability]]:
    """The capabilities the tools of a definitions file declare: a library definition's
    own ``capabilities``; an MCP tool's annotations (a tool with neither is left out, and
    looked up in the table)."""
    specs = read_tools(path)
    items, _ = tool_list(read_json(path, "tool definitions"))
    raw = {
        item["name"]: item for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    }  # fmt: skip
    annotations = {
        spec.name: raw[spec.mcp_name]["annotations"]
        for spec in specs
        if isinstance(raw.get(spec.mcp_name, {}).get("annotations"), dict)
    }
    said = [spec for spec in specs if spec.capabilities or spec.name in annotations]
    return declared_by(said, annotations)


def _text(
    findings: list[Finding], audited: Audited, shortest: dict[str, str], *, wide: bool
) -> str:
    lines = []
    if findings:
        least = max(len(shortest.get(f.session, f.session)) for f in findings)
        columns = (
            Column("session", fit="id", least=least),
            Column("seq", right=True),
            Column("level"),
            Column("rule", fit="cut", least=12, ease=16, give=1, drop=2),
            Column("tool", fit="cut", least=6, ease=12, give=4, drop=3),  # the message names it
            Column("message", fit="cut", least=20, ease=50, give=3),
        )
        rows = [(f.session, f.sequence, f.level.value, f.rule, f.tool, f.message)
                for f in findings]  # fmt: skip
        lines.append(table(columns, rows, wide=wide))
    levels = {level: sum(1 for f in findings if f.level is level) for level in Level}
    said = ", ".join(f"{n:,} {level.value}" for level, n in levels.items() if n)
    summary = (
        f"audited {audited.sessions:,} session{_s(audited.sessions)}, "
        f"{audited.events:,} event{_s(audited.events)}, {audited.calls:,} call{_s(audited.calls)}: "
        + (f"{len(findings):,} finding{_s(len(findings))} ({said})" if findings else "no finding")
    )
    tried = sum(1 for f in findings if f.attempt)
    if tried:
        summary += f", {tried:,} of them attempts (calls rejected before they ran)"
    lines.append(summary)
    if audited.unknown:
        count = sum(audited.unknown.values())
        names = ", ".join(sorted(audited.unknown)[:10])
        more = "" if len(audited.unknown) <= 10 else f" and {len(audited.unknown) - 10:,} more"
        lines.append(
            f"{count:,} call{_s(count)} of tools the capability table does not know "
            f"(not judged but for secrets): {names}{more}"
        )
    return "\n".join(lines)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _recheck(args: argparse.Namespace) -> int:
    saved = list(_saved_findings(args.recheck))
    store = open_store(args.source)
    try:
        checked = list(recheck(store, saved))
    finally:
        close_store(store)
    bad = [c for c in checked if c.state != "intact"]
    document = {
        "source": redact(args.source),
        "findings": args.recheck,
        "intact": not bad,
        "evidence": [
            {"session": c.session, "sequence": c.sequence, "value": c.saved, "state": c.state,
             "detail": c.detail}
            for c in checked
        ],
    }  # fmt: skip
    args.json = args.json or args.format == "json"
    emit(args, document, lambda: _recheck_text(checked, bad))
    return 1 if bad else 0


def _recheck_text(checked: list[Rechecked], bad: list[Rechecked]) -> str:
    lines = [
        f"session {c.session!r} sequence {c.sequence}: "
        + {
            "edited": "edited since it was audited (its evidence value differs)",
            "missing": "no longer in the store",
            "unreadable": f"cannot be read: {c.detail}",
        }[c.state]
        for c in bad
    ]
    lines.append(
        f"rechecked {len(checked):,} event{_s(len(checked))}: "
        + ("all intact" if not bad else f"{len(bad):,} not as audited")
    )
    return "\n".join(lines)


def _saved_findings(path: str) -> Iterator[dict[str, Any]]:
    """The findings of a file ``audit --json`` or ``--format sarif`` wrote."""
    try:
        document = loads_strict(read_file(path))
    except EnvelopeError as error:
        raise CliError(f"{path}: not JSON: {error}") from None
    if isinstance(document, dict) and isinstance(document.get("findings"), list):
        found: list[Any] = document["findings"]
    elif isinstance(document, dict) and isinstance(document.get("runs"), list):
        found = [
            result.get("properties") if isinstance(result, dict) else None
            for run in document["runs"] if isinstance(run, dict)
            for result in run.get("results", [])
        ]  # fmt: skip
    else:
        raise CliError(f"{path}: not the findings of correx-tools audit (--json or --format sarif)")
    for n, finding in enumerate(found):
        if not _well_formed(finding):
            raise CliError(f"{path}: finding {n} has no session and evidence to check")
        yield finding


def _well_formed(finding: object) -> bool:
    return (
        isinstance(finding, dict)
        and isinstance(finding.get("session"), str)
        and isinstance(finding.get("evidence"), list)
        and all(
            isinstance(e, dict)
            and type(e.get("sequence")) is int
            and isinstance(e.get("value"), str)
            for e in finding["evidence"]
        )
    )
