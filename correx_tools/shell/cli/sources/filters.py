"""The filters of a command about many sessions, read into a `SessionQuery`, and the time
zone its dates are read and shown in (the rules are `shell.catalog.when`'s, which the
server's page follows too).
"""

from __future__ import annotations

import argparse
from datetime import datetime, tzinfo

from ....core.catalog.listing import SessionQuery
from ...catalog import when
from ...catalog.when import local
from ..errors import CliError

__all__ = ["local", "moment_of", "query_of", "zone_of"]


def zone_of(args: argparse.Namespace) -> tzinfo | None:
    """The zone ``--tz`` names (``None``: this machine's), or a one-line error."""
    name = getattr(args, "tz", None)
    if not name:
        return None
    try:
        return when.zone_named(name)
    except when.WhenError as error:
        raise CliError(f"--tz {error}") from None


def query_of(args: argparse.Namespace) -> SessionQuery:
    """The sessions the command's filters pick."""
    zone = zone_of(args)
    return SessionQuery(
        agent=getattr(args, "agent", None),
        project=getattr(args, "project", None),
        model=getattr(args, "model", None),
        since=moment_of(args.since, zone, "--since", end=False) if args.since else None,
        until=moment_of(args.until, zone, "--until", end=True) if args.until else None,
        failed=bool(getattr(args, "failed", False)),
        machine=getattr(args, "machine", None),
        user=getattr(args, "user", None),
    )


def moment_of(text: str, zone: tzinfo | None, option: str, *, end: bool) -> datetime:
    """The UTC instant ``text`` names (a date: the start of that day, or with ``end`` the
    start of the next), or a one-line error naming what is accepted."""
    try:
        return when.moment_of(text, zone, end=end)
    except when.WhenError as error:
        raise CliError(f"{option} {error}") from None
