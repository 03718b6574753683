"""Building a session's report page: stream the invocations, redact, embed, write one file.

The page's data is built one invocation at a time from the view's streamed
outlines (`PageBuilder`), and written into the page a slice at a time: the
bytes are those of `report_html` for the same document, without the whole
document ever being one string.
"""

from __future__ import annotations

import base64
import hashlib
import json
from array import array
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any, BinaryIO

from returns.result import Failure, Result, Success

from ...core.replay.errors import ReplayError
from ...core.replay.stored_index import InvocationEntry
from ...core.report.page_data import LIMITS, PageBuilder, PageLimits, page_data, plain
from ...core.report.redaction import DEFAULT, Redaction
from ...core.report.tool_views import views_of
from ...core.tools.ids import InvocationId, SessionId
from ..replay.repository import DefaultToolRepository
from ..replay.view import SessionView

_PLACEHOLDER = "__DATA__"
_SLICE = 4_096
"""Items of a long column written at a time."""
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def report_data(
    repository: DefaultToolRepository,
    session_id: SessionId,
    *,
    redaction: Redaction = DEFAULT,
    limits: PageLimits = LIMITS,
    times: bool = True,
    imported: bool = False,
) -> Result[dict[str, Any], ReplayError]:
    """The page's document for ``session_id`` as plain JSON values, from the store's index
    when it keeps one (``times`` false: the session records none, see `page_document`)."""
    with repository.view(session_id) as view:
        return page_document(
            view, redaction=redaction, limits=limits, times=times, imported=imported
        ).map(plain)


def page_document(
    view: SessionView,
    *,
    redaction: Redaction = DEFAULT,
    limits: PageLimits = LIMITS,
    times: bool = True,
    imported: bool = False,
) -> Result[dict[str, Any], ReplayError]:
    """The page's document for the view's session, its columns as arrays (`write_page` and
    ``plain`` take it): the invocations streamed, the details' entries kept on the way.
    ``times`` false: the session's transcript records no time, and the page is laid out by
    step (`PageBuilder`); ``imported``: a start at its request's time is a stand-in."""
    if not view.indexed:
        # Without an index the session is one pass over its events, which gives the entries
        # whole: a stream would read the events once for the length and again for them.
        return _folded(view, redaction, limits, times, imported)
    last = view.last_sequence
    outlines = view.outlines(last)
    if not isinstance(outlines, Success):
        return Failure(outlines.failure())
    builder = PageBuilder(view.session_id, last, redaction=redaction, limits=limits, times=times,
                          imported=imported)  # fmt: skip
    for outline in outlines.unwrap():
        builder.add(outline)
    # Only the calls shown in full are read with their arguments and output (a few
    # thousand at most); every other call's outline is read and checked without them.
    wanted = builder.wanted()
    found = view.entries_by_id([InvocationId(invocation) for _, invocation in wanted])
    chosen: dict[int, InvocationEntry] = {}
    for (position, _), entry in zip(wanted, found, strict=True):
        if entry is None:  # the fold the view fell back on does not know it: fold whole
            return _folded(view, redaction, limits, times, imported)
        chosen[position] = entry
    data = builder.document(view.refused(last, None), chosen)
    return Success(_with_views(data, chosen, last, redaction))


def _folded(
    view: SessionView, redaction: Redaction, limits: PageLimits, times: bool, imported: bool
) -> Result[dict[str, Any], ReplayError]:
    """The page's document from one pass over the session's events."""
    whole = view.entries()
    if not isinstance(whole, Success):
        return Failure(whole.failure())
    last, every, refused = whole.unwrap()
    data = page_data(
        view.session_id, last, every, refused, redaction=redaction, limits=limits, times=times,
        imported=imported,
    )  # fmt: skip
    return Success(_with_views(data, dict(enumerate(every)), last, redaction))


def _with_views(
    data: dict[str, Any],
    entries: Mapping[int, InvocationEntry],
    last: int,
    redaction: Redaction,
) -> dict[str, Any]:
    """``data`` with the views per tool of the calls it holds in full (its details)."""
    data["views"] = views_of(entries, last, data["details"], redaction)
    return data


def _template() -> tuple[str, str]:
    """The page before and after its data. Its styles and its drawing script are the files
    ``correx-tools serve`` serves (``report.css``, ``page.js``), written into the page; its
    content security policy lets only those scripts run and those styles apply, named by
    their digests."""
    files = resources.files(__package__)
    template = files.joinpath("report.html").read_text(encoding="utf-8")
    template = template.replace("__STYLE__", files.joinpath("report.css").read_text("utf-8"), 1)
    template = template.replace("__PAGE_SCRIPT__", files.joinpath("page.js").read_text("utf-8"), 1)
    template = template.replace("__SCRIPT_HASHES__", " ".join(script_hashes(template)), 1)
    template = template.replace("__STYLE_HASHES__", " ".join(_hashes(template, _STYLE)), 1)
    before, placeholder, after = template.partition(_PLACEHOLDER)
    assert placeholder, "the report template has lost its data placeholder"
    return before, after


def script_hashes(page: str) -> list[str]:
    """The content security policy's source for each inline script of ``page`` that runs
    (``<script>`` with no attribute; the data's ``type="application/json"`` does not):
    ``'sha256-…'`` of its text, so the policy allows those scripts and no other."""
    return _hashes(page, _SCRIPT)


def _hashes(page: str, opening_tag: str) -> list[str]:
    """``'sha256-…'`` of the text of each element of ``page`` that opens with exactly
    ``opening_tag`` (``<script>``, ``<style>``)."""
    found, start = [], 0
    closing_tag = "</" + opening_tag[1:]
    while (opening := page.find(opening_tag, start)) >= 0:
        end = page.index(closing_tag, opening)
        text = page[opening + len(opening_tag) : end]
        found.append(
            f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"
        )
        start = end
    return found


_SCRIPT = "<script>"
_STYLE = "<style>"


def report_html(data: dict[str, Any]) -> str:
    """The page with ``data`` embedded: one file that loads nothing from elsewhere."""
    before, after = _template()
    # Inside <script> only "</" could end the element early; \u003c keeps every "<" inert.
    return before + _dumps(data).replace("<", "\\u003c") + after


def write_page(out: BinaryIO, data: dict[str, Any]) -> int:
    """Write the page with ``data`` (plain, or with array columns) to ``out`` a slice at a
    time: the bytes of `report_html` of its plain form. Its size in bytes."""
    before, after = _template()
    size = 0
    for text in (before, *(c.replace("<", "\\u003c") for c in _json_slices(data)), after):
        encoded = text.encode("utf-8")
        out.write(encoded)
        size += len(encoded)
    return size


def _json_slices(value: Any) -> Iterator[str]:
    """``json.dumps(value)`` (compact, not ASCII-escaped) in pieces: the objects that hold
    a column member by member, long arrays a slice at a time, the rest whole."""
    if isinstance(value, dict) and _holds_columns(value):
        yield "{"
        for number, (key, member) in enumerate(value.items()):
            yield ("," if number else "") + _dumps(str(key)) + ":"
            yield from _json_slices(member)
        yield "}"
    elif isinstance(value, array | list) and len(value) > _SLICE:
        yield "["
        for start in range(0, len(value), _SLICE):
            piece = value[start : start + _SLICE]
            text = ",".join(map(str, piece)) if isinstance(piece, array) else _dumps(piece)[1:-1]
            yield ("," if start else "") + text
        yield "]"
    elif isinstance(value, array):
        yield "[" + ",".join(map(str, value)) + "]"
    else:
        yield _dumps(value)


def _holds_columns(value: dict[str, Any]) -> bool:
    """Whether an object holds an array or a long list, itself or in an object it holds."""
    return any(
        isinstance(member, array)
        or (isinstance(member, list) and len(member) > _SLICE)
        or (isinstance(member, dict) and _holds_columns(member))
        for member in value.values()
    )
