"""Dates and time zones as a person gives them to pick sessions (``--since``, ``--until``,
``--tz``; the page's ``since``, ``until`` and ``tz``): read the same way by the commands
and the server.

A date or time given without a zone is in the zone asked for (this machine's by
default); a date as a start (``since``) means the start of that day, as an end
(``until``) up to the end of it (as ccusage reads them); a date and time is that instant.
Each problem is a `WhenError` whose message names what is accepted.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo

WHEN = (
    "a date (2026-12-01 or 20261201) or a date and time (2026-12-01T14:30, "
    "2026-12-01 14:30:05, with Z or +01:00 for another zone)"
)


class WhenError(ValueError):
    """A date or a zone that cannot be read (its message is the line to show)."""


def zone_named(name: str) -> tzinfo:
    """The zone of the time zone database ``name`` names (``UTC`` in any case)."""
    if name.upper() == "UTC":
        return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # noqa: PLC0415 - only when asked

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise WhenError(
            f"{name!r}: no such time zone; give a name from the time zone database, such "
            "as UTC, Europe/Paris or America/New_York"
        ) from None


def moment_of(text: str, zone: tzinfo | None, *, end: bool) -> datetime:
    """The UTC instant ``text`` names in ``zone`` (``None``: this machine's): a date is the
    start of that day, or with ``end`` the start of the next."""
    given = text.strip()
    day = _date(given)
    if day is not None:
        if end:
            day += timedelta(days=1)
        return _in_utc(datetime.combine(day, datetime.min.time()), zone)
    try:
        moment = datetime.fromisoformat(given.replace("z", "Z"))
    except ValueError:
        raise WhenError(f"{text!r}: not a date or a time; give {WHEN}") from None
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


def local(moment: datetime, zone: tzinfo | None) -> datetime:
    """A UTC time as the wall clock of ``zone`` (``None``: this machine's) shows it."""
    return moment.astimezone(zone)
