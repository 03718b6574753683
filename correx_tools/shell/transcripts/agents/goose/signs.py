"""What a Goose session looks like (an export, an older session file; its database is told
by its tables): the light tests recognising tries, kept apart from the readers (`calls`,
`database`), which are imported only when a session is read."""

from __future__ import annotations

from typing import Any

from ...common.lines import first_record_has

FORMAT = "goose"
EXPECTED = (
    "a Goose session: an export object with working_dir and conversation, JSON Lines whose "
    "first record has working_dir and description, or a sessions.db"
)


def looks_like_export(document: Any) -> bool:
    """Whether a JSON document is a ``goose session export`` of one session."""
    return (
        isinstance(document, dict)
        and "working_dir" in document
        and isinstance(document.get("conversation"), (list, dict))
    )


def looks_like_legacy(records: list[tuple[int, Any]]) -> bool:
    """Whether JSON Lines records are an older Goose session file."""
    return first_record_has(records, "working_dir", "description", lacking="role")
