"""A transcript's values read strictly: a time, a value of the kind expected, a tool
result's content as the receipt keeps it. Each wrong value is an `Unreadable` naming
where it is."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ..errors import Unreadable
from .long_text import joined


def utc_time(value: object, where: str) -> datetime:
    """An ISO 8601 time of a transcript; one without a zone is UTC (OpenHands writes them so)."""
    if not isinstance(value, str):
        raise Unreadable(where, f"a time must be an ISO 8601 string, not {type(value).__name__}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise Unreadable(where, f"{value[:40]!r} is not an ISO 8601 time") from None
    try:
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59-05:00 is past the last moment in UTC
        raise Unreadable(where, f"{value[:40]!r} lies outside the years 1 to 9999 in UTC") from None


def must_be(value: object, kind: type, where: str, what: str) -> Any:
    """``value`` if it is a ``kind``; otherwise an `Unreadable` naming ``where``."""
    if not isinstance(value, kind) or (kind is str and not value):
        raise Unreadable(
            where, f"{what} must be a {'non-empty string' if kind is str else kind.__name__}"
        )
    return value


def text_of(content: object) -> Any:
    """A tool result's content as the receipt's output: text stays text; a list of text
    blocks becomes their text; anything else is kept as the JSON it is."""
    if (
        isinstance(content, list)
        and content
        and all(
            isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            for block in content
        )
    ):
        return joined("\n", (block["text"] for block in content))
    return content


def plain_text(content: object) -> str:
    """A result's content as one line of text, for a reason or a test of its wording."""
    value = text_of(content)
    return value if isinstance(value, str) else "" if value is None else str(value)
