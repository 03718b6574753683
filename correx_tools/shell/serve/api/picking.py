"""The filters of a question about many sessions, as the commands take them: ``agent``,
``project``, ``model``, ``since``, ``until`` (in ``tz``'s zone, else the server's), ``failed``,
``machine`` and ``user``, read into a `SessionQuery` by the commands' rules
(`shell.catalog.when`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, tzinfo

from ....core.catalog.listing import SessionQuery
from ...catalog.when import WhenError, moment_of, zone_named
from ..errors import ApiError

FILTERS = ("agent", "project", "model", "since", "until", "tz", "failed", "machine", "user")
"""The parameters that pick sessions."""
_YES = ("1", "true", "yes", "on")
_NO = ("", "0", "false", "no", "off")


def zone_of(query: Mapping[str, str]) -> tzinfo | None:
    """The zone ``tz`` names (``None``: the server's own)."""
    name = query.get("tz") or ""
    if not name:
        return None
    try:
        return zone_named(name)
    except WhenError as error:
        raise ApiError(400, f"tz={error}") from None


def picked(query: Mapping[str, str]) -> tuple[SessionQuery, tzinfo | None]:
    """The sessions the filters pick, and the zone their dates are read (and days counted)
    in."""
    zone = zone_of(query)

    def when(name: str, *, end: bool) -> datetime | None:
        text = query.get(name) or ""
        try:
            return moment_of(text, zone, end=end) if text else None
        except WhenError as error:
            raise ApiError(400, f"{name}={error}") from None

    failed = (query.get("failed") or "").lower()
    if failed not in _YES + _NO:
        raise ApiError(400, f"failed={failed!r} is not one of 1, 0, true, false")
    since, until = when("since", end=False), when("until", end=True)
    return SessionQuery(
        agent=query.get("agent") or None,
        project=query.get("project") or None,
        model=query.get("model") or None,
        since=since,
        until=until,
        failed=failed in _YES,
        machine=query.get("machine") or None,
        user=query.get("user") or None,
    ), zone
