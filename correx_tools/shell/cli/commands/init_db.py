"""``correx-tools init-db``: create the tables of a store (idempotent).

A PostgreSQL store is made a team's store too: its events partitioned by session (those of
a store made before moved over, in one transaction), and ``--pusher`` and ``--reader``
roles granted what pushing and reading need (`correx_tools.shell.stores.postgres.team`).
"""

from __future__ import annotations

import argparse

from ...stores.addresses import POSTGRES_SCHEMES
from ...stores.jsonl import JsonlEventLog
from ...stores.port import EventStore, StoreReadError
from .. import arguments
from ..errors import CliError
from ..output.render import emit
from ..sources.stores import open_store, redact


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools init-db``."""
    arguments.add_source(parser, transcripts=False)
    parser.add_argument(
        "--pusher", metavar="ROLE", action="append", default=[],
        help="a PostgreSQL role to grant what push needs: it may add events, never change or "
        "delete one (again for more roles)",
    )  # fmt: skip
    parser.add_argument(
        "--reader", metavar="ROLE", action="append", default=[],
        help="a PostgreSQL role to grant reading alone, for serve and the reading commands "
        "(again for more roles)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools init-db``; the exit status."""
    store = open_store(args.source, create=True)
    if isinstance(store, JsonlEventLog):
        try:
            next(iter(store.events()), None)  # its first line says whether it is a log
        except StoreReadError as error:
            raise CliError(
                f"{redact(args.source)}: holds something other than an event log "
                f"({error.error.message}); init-db leaves it as it is"
            ) from None
        store.path.touch()
    team: dict[str, object] = {}
    if args.source.startswith(POSTGRES_SCHEMES):
        team = _team(store, args)
    elif args.pusher or args.reader:
        raise CliError(f"{redact(args.source)}: --pusher and --reader grant roles of a "
                       "PostgreSQL store")  # fmt: skip
    said = ""
    if team.get("moved") is not None:
        said = f"; its events partitioned ({team['moved']:,} moved)"
    if args.pusher or args.reader:
        said += f"; granted {', '.join([*args.pusher, *args.reader])}"
    emit(
        args,
        {"source": redact(args.source), "ready": True, **team},
        lambda: f"{redact(args.source)}: ready{said}",
    )
    return 0


def _team(store: EventStore, args: argparse.Namespace) -> dict[str, object]:
    """The store made a team's store (`PostgresEventStore.prepare_team`); a role that does
    not exist, or this role may not grant to, is one line."""
    import psycopg  # noqa: PLC0415 - present wherever a PostgreSQL store opened

    from ...stores.postgres.store import PostgresEventStore  # noqa: PLC0415 - as psycopg

    assert isinstance(store, PostgresEventStore)  # a postgresql:// URL opens one

    try:
        moved = store.prepare_team(pushers=args.pusher, readers=args.reader)
    except psycopg.Error as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CliError(f"{redact(args.source)}: {reason}; nothing was changed") from None
    return {"moved": moved, "pushers": args.pusher, "readers": args.reader}
