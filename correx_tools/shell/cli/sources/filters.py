"""The filters of a command about many sessions, read into a `SessionQuery`, and the time
zone its dates are read and shown in.

A date or time given without a zone is in ``--tz``'s zone (this machine's by default);
``--since`` a date means from the start of that day, ``--until`` a date up to the end of
it (as ccusage reads them); a date and time is that instant.
"""

from __future__ import annotations

import argparse
from datetime import UTC, date, datetime, timedelta, tzinfo

from ....core.catalog.listing import SessionQuery
from ..errors import CliError

WHEN = (
    "a date (2026-12-01 or 20261201) or a date and time (2026-12-01T14:30, "
    "2026-12-01 14:30:05, with Z or +01:00 for another zone)"
)


def zone_of(args: argparse.Namespace) -> tzinfo | None:
    """The zone ``--tz`` names (``None``: this machine's), or a one-line error."""
    name = getattr(args, "tz", None)
    if not name:
        return None
    if name.upper() == "UTC":
        return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # noqa: PLC0415 - only with --tz

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise CliError(
            f"--tz {name!r}: no such time zone; give a name from the time zone database, such "
            "as UTC, Europe/Paris or America/New_York"
        ) from None


def local(moment: datetime, zone: tzinfo | None) -> datetime:
    """A UTC time as the wall clock of ``zone`` (``None``: this machine's) shows it."""
    return moment.astimezone(zone)


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
    given = text.strip()
    day = _date(given)
    if day is not None:
        if end:
            day += timedelta(days=1)
        return _in_utc(datetime.combine(day, datetime.min.time()), zone)
    try:
        moment = datetime.fromisoformat(given.replace("z", "Z"))
    except ValueError:
        raise CliError(f"{option} {text!r}: not a date or a time; give {WHEN}") from None
    if moment.tzinfo is not None:
        return moment.astimezone(UTC)
    return _in_utc(moment, zone)


def _date(text: str) -> date | None:
    if len(text) == 8 and text.isdigit():
        text = f"{text[:4]}-{text[4:6]}-{text[6:]}"
    if len(text) != 10:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _in_utc(wall: datetime, zone: tzinfo | None) -> datetime:
    """A wall-clock time of ``zone`` (``None``: this machine's) as a UTC instant."""
    placed = wall.astimezone() if zone is None else wall.replace(tzinfo=zone)
    return placed.astimezone(UTC)
