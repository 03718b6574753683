"""What MCP traffic looks like: the light test recognising tries on a JSON Lines file's first
records, kept apart from the reader (`calls`), which is imported only when traffic is
read."""

from __future__ import annotations

from typing import Any

FORMAT = "mcp"
EXPECTED = (
    "MCP JSON-RPC traffic: one JSON-RPC 2.0 message a line, bare or as {ts, direction, message}"
)


def unwrapped(record: Any) -> tuple[str | None, Any, Any]:
    """``(direction, ts, message)`` of a line, bare or wrapped."""
    if isinstance(record, dict) and "message" in record and "jsonrpc" not in record:
        direction = record.get("direction")
        return (
            (direction if isinstance(direction, str) else None),
            record.get("ts"),
            record["message"],
        )
    return None, None, record


def messages_of(message: Any) -> list[Any]:
    """The messages of a line: one, or a JSON-RPC batch's."""
    return message if isinstance(message, list) else [message]


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """Whether JSON Lines records are MCP traffic: JSON-RPC 2.0 throughout, with a
    ``tools/call`` or an ``initialize``."""
    if not records:
        return False
    seen_method = False
    for _, record in records[:200]:
        for message in messages_of(unwrapped(record)[2]):
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                return False
            seen_method = seen_method or message.get("method") in ("tools/call", "initialize")
    return seen_method
