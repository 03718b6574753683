"""Building a session's report page: ask the repository, redact, embed, write one file."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from returns.result import Failure, Result, Success

from ...core.replay.errors import ReplayError
from ...core.report.page_data import LIMITS, PageLimits, page_data
from ...core.report.redaction import DEFAULT, Redaction
from ...core.report.tool_views import views_of
from ...core.tools.ids import SessionId
from ..replay.repository import DefaultToolRepository

_PLACEHOLDER = "__DATA__"


def report_data(
    repository: DefaultToolRepository,
    session_id: SessionId,
    *,
    redaction: Redaction = DEFAULT,
    limits: PageLimits = LIMITS,
) -> Result[dict[str, Any], ReplayError]:
    """The page's document for ``session_id``, from the store's index when it keeps one."""
    answer = repository.entries(session_id)
    if not isinstance(answer, Success):
        return Failure(answer.failure())
    last, entries, refused = answer.unwrap()
    data = page_data(session_id, last, entries, refused, redaction=redaction, limits=limits)
    # The views per tool of the calls the page holds in full: their own piece of the data.
    data["views"] = views_of(entries, last, data["details"], redaction)
    return Success(data)


def report_html(data: dict[str, Any]) -> str:
    """The page with ``data`` embedded: one file that loads nothing from elsewhere.

    Its styles and its drawing script are the files ``correx-tools serve`` serves
    (``report.css``, ``page.js``), written into the page here, before the data.
    """
    files = resources.files(__package__)
    template = files.joinpath("report.html").read_text(encoding="utf-8")
    template = template.replace("__STYLE__", files.joinpath("report.css").read_text("utf-8"), 1)
    template = template.replace("__PAGE_SCRIPT__", files.joinpath("page.js").read_text("utf-8"), 1)
    # Inside <script> only "</" could end the element early; \u003c keeps every "<" inert.
    embedded = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    before, placeholder, after = template.partition(_PLACEHOLDER)
    assert placeholder, "the report template has lost its data placeholder"
    return before + embedded + after


def write_report(path: Path, data: dict[str, Any]) -> int:
    """Write the page to ``path`` whole (a reader never sees half a page); its size in bytes."""
    encoded = report_html(data).encode("utf-8")
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(encoded)
        partial.replace(path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise
    return len(encoded)
