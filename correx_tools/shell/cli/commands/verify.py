"""``correx-tools verify``: check a store end to end, and repair a damaged index."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ....core.tools.ids import SessionId
from ...stores.port import IndexedStore, SessionCheck
from ...stores.verifying import verify_store
from .. import arguments
from ..errors import CliError
from ..output.render import emit
from ..output.terminal import Progress
from ..sources.loading import find_session
from ..sources.options import files_not_shown
from ..sources.stores import open_store, reading_whole, redact


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools verify``."""
    arguments.add_source(parser)
    parser.add_argument("session", metavar="SESSION", nargs="?", help="check only this session")
    parser.add_argument(
        "--repair",
        action="store_true",
        help="rebuild the index of each session whose index (not its events) is damaged",
    )
    arguments.add_workers_argument(parser, "check")


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools verify``; the exit status."""
    store = open_store(args.source, upgrade=args.repair)
    with reading_whole(store, redact(args.source)):
        sessions = (find_session(store, args.session, args.source),) if args.session else None
        total = None if sessions is None else len(sessions)
        with Progress("verifying sessions", total, sys.stderr) as bar:
            checking = verify_store(store, sessions, workers=arguments.workers_of(args))
            checks = list(bar.wrap(checking, every=1))
        repaired: list[str] = []
        if args.repair:
            checks, repaired = _repair(store, checks)
    faults = [fault for check in checks for fault in check.faults]
    # Of a transcript SOURCE checked whole: the files its sessions do not show as they are.
    unshown = [] if args.session else files_not_shown()
    document: dict[str, Any] = {
        "source": redact(args.source),
        "intact": not faults and not unshown,
        "sessions": [_check_json(check) for check in checks],
        "repaired": repaired,
        "not_shown": [{"file": file, "reason": reason} for file, reason in unshown],
    }
    emit(args, document, lambda: _text(checks, repaired, unshown, repair=args.repair))
    return 0 if not faults and not unshown else 1


def _repair(store: object, checks: list[SessionCheck]) -> tuple[list[SessionCheck], list[str]]:
    """Rebuild each damaged index whose events are intact; check those sessions again."""
    if not isinstance(store, IndexedStore):
        raise CliError("this store keeps no index to repair, and events are never repaired")
    repaired: list[str] = []
    after: list[SessionCheck] = []
    for check in checks:
        if check.intact or not check.repairable:
            after.append(check)
            continue
        session = SessionId(check.session_id)
        if store.repair_index(session) is None:
            repaired.append(session)
        after.append(store.verify_session(session))  # says what still is wrong, if anything
    return after, repaired


def _check_json(check: SessionCheck) -> dict[str, Any]:
    return {
        "session_id": check.session_id,
        "events": check.events,
        "invocations": check.invocations,
        "faults": [
            {"sequence": f.sequence, "in_events": f.in_events, "message": f.message}
            for f in check.faults
        ],
    }


def _text(
    checks: list[SessionCheck],
    repaired: list[str],
    unshown: list[tuple[str, str]],
    *,
    repair: bool,
) -> str:
    lines = [f"rebuilt the index of session {session!r} from its events" for session in repaired]
    faults = [fault for check in checks for fault in check.faults]
    lines += [str(fault) for fault in faults]
    lines += [f"not shown: {file}: {reason}" for file, reason in unshown]
    events = sum(check.events for check in checks)
    invocations = sum(check.invocations for check in checks)
    sessions = sum(1 for check in checks if check.session_id)
    counted = (
        f"{sessions:,} session{'' if sessions == 1 else 's'}, {events:,} event"
        f"{'' if events == 1 else 's'}, {invocations:,} invocation{'' if invocations == 1 else 's'}"
    )
    files = f"{len(unshown):,} file{'' if len(unshown) == 1 else 's'} not shown (above)"
    if not faults:
        lines.append(
            f"checked {counted}: " + (f"{files}, the rest intact" if unshown else "intact")
        )
        return "\n".join(lines)
    if unshown:
        lines.append(files)
    damaged = {fault.session_id for fault in faults if fault.session_id}
    where = [f"{len(damaged):,} session{'' if len(damaged) == 1 else 's'}"] if damaged else []
    if any(not fault.session_id for fault in faults):
        where.append("the store itself")
    lines.append(
        f"checked {counted}: {len(faults):,} fault{'' if len(faults) == 1 else 's'} "
        f"in {' and '.join(where)}"
    )
    if any(fault.in_events for fault in faults):
        lines.append(
            "the events themselves are damaged where marked above: nothing repairs events "
            "(their index is left as it was, as evidence)"
            if repair
            else "where the events themselves are damaged, nothing repairs them"
        )
    elif not repair:
        lines.append("only the index is damaged: correx-tools verify SOURCE --repair rebuilds it")
    return "\n".join(lines)
