"""The report's document, held to the fold: the page can rebuild every state from it.

`page_at` below does in Python what the page's script does in the browser:
rebuild the event order from the invocation columns, start from the checkpoint
at or before a sequence and step to it. For every sequence of random sessions
it must give the counts, the open invocations and the changes a fold gives.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import DefaultToolRepository, EventReplayer, ToolProjector, fold_events
from correx_tools.core.replay.stored_index import entries_of
from correx_tools.core.report.page_data import STATUSES, PageLimits, page_data, plain
from correx_tools.core.report.redaction import DEFAULT, MASK, Redaction
from correx_tools.core.report.tool_views import views_of
from correx_tools.shell.replay import pages
from correx_tools.shell.report import page

from .strategies import completed, failed, requested, sessions, started, stored
from .test_questions import store_with, written


class Page:
    """The page's view of a document: absolute sequences and each event's invocation."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        columns = data["invocations"]
        self.requested, sequence = [], 0
        for delta in columns["rs"]:
            sequence += delta
            self.requested.append(sequence)
        self.events: dict[int, tuple[int, int]] = {}  # sequence -> (invocation, kind)
        for i, at in enumerate(self.requested):
            self.events[at] = (i, 1)
            if columns["ss"][i]:
                self.events[at + columns["ss"][i]] = (i, 2)
            if columns["es"][i]:
                self.events[at + columns["es"][i]] = (i, columns["status"][i])
        for at in data["refused"]["sequences"]:
            self.events[at] = (-1, 6)
        self.nonzero = set(data["exited_nonzero"])

    def status_at(self, i: int, sequence: int) -> int:
        columns, at = self.data["invocations"], self.requested[i]
        if at > sequence:
            return 0
        if columns["es"][i] and at + columns["es"][i] <= sequence:
            return int(columns["status"][i])
        return 2 if columns["ss"][i] and at + columns["ss"][i] <= sequence else 1

    def counts_at(self, sequence: int) -> list[int]:
        every = self.data["checkpoints"]["every"]
        slot = sequence // every
        counts = list(self.data["checkpoints"]["counts"][slot])
        for at in range(slot * every + 1, sequence + 1):
            i, kind = self.events.get(at, (-1, 0))
            if kind == 6:
                counts[5] += 1
            elif kind == 1:
                counts[0] += 1
            elif kind:
                counts[self.status_at(i, at - 1) - 1] -= 1
                counts[kind - 1] += 1
                counts[6] += kind == 3 and i in self.nonzero
        return counts


def document(
    events: list[Any], checkpoints: int = 3, *, times: bool = True, **limits: int
) -> dict[str, Any]:
    entries, refused = entries_of(events)
    last = events[-1].sequence if events else 0
    data = page_data(
        "s", last, entries, refused, limits=PageLimits(checkpoints=checkpoints, **limits),
        times=times,
    )  # fmt: skip
    json.dumps(data)  # a page can embed it
    return data


@given(sessions(max_size=30), st.integers(1, 6))
def test_the_page_rebuilds_every_state_the_fold_gives(events: list[Any], checkpoints: int) -> None:
    page = Page(document(events, checkpoints))
    ids = page.data["invocations"]["ids"]
    for k in range(len(events) + 1):
        prefix = fold_events(ToolProjector(), events[:k], strict=False).unwrap()
        by_status = [0] * 5
        for record in prefix.state.records():
            by_status[STATUSES.index(record.status.value)] += 1
        nonzero = sum(bool(r.receipt and r.receipt.exit_code) for r in prefix.state.records())
        assert page.counts_at(k) == [*by_status, len(prefix.quarantined), nonzero]
        statuses = {
            ids[i]: STATUSES[page.status_at(i, k) - 1]
            for i in range(len(ids))
            if page.status_at(i, k)
        }
        assert statuses == {r.invocation_id: r.status.value for r in prefix.state.records()}


@given(sessions(max_size=30))
def test_durations_and_tools_match_the_records(events: list[Any]) -> None:
    data = document(events)
    final = fold_events(ToolProjector(), events, strict=False).unwrap().state
    columns = data["invocations"]
    requested, elapsed = [], 0
    for delta in columns["rt"]:
        elapsed += delta
        requested.append(elapsed)
    for i, record in enumerate(final.records()):
        assert data["tools"][columns["tool"][i]] == record.tool_name
        origin = data["origin"]
        at = record.requested_at.timestamp() * 1e6
        assert abs((origin + requested[i]) - at) < 2
        if record.started_at is None:
            assert columns["qt"][i] == -1
        else:
            assert (
                columns["qt"][i]
                == (record.started_at - record.requested_at).total_seconds() * 1e6 // 1
            )


def test_details_keep_the_unfinished_and_failures_first_within_their_limits() -> None:
    events = stored(
        [requested("a"), started("a"), completed("a"), requested("b"), failed("b"), requested("c")]
    )
    data = document(events, details=2)
    ids = data["invocations"]["ids"]
    assert sorted(ids[int(i)] for i in data["details"]) == ["b", "c"]
    assert set(document(events, details=2, details_bytes=1)["details"]) == set()


def test_every_string_from_the_session_is_redacted() -> None:
    secret = "ghp_" + "a1B2c3D4e5" * 3
    events = stored(
        [
            requested(f"call {secret}", cmd=f"echo {secret}"),
            failed(f"call {secret}", reason=f"token {secret} refused"),
        ]
    )
    data = document(events)
    text = json.dumps(data)
    assert secret not in text and MASK in text
    custom = page_data(
        "s", 2, *entries_of(events), redaction=Redaction.with_patterns([r"echo \S+"])
    )
    assert "echo" not in json.dumps(custom["details"])


def test_an_empty_session_has_an_empty_page() -> None:
    data = document([])
    assert data["invocations"]["ids"] == [] and data["checkpoints"]["counts"] == [[0] * 7]


@settings(max_examples=25, deadline=None)
@given(written(), st.integers(1, 4), st.integers(1, 3))
def test_the_page_streamed_from_the_index_is_the_page_of_the_whole_entries(
    batches: list[Any], slice_items: int, details: int
) -> None:
    limits = PageLimits(checkpoints=3, details=details, refused=2)
    with (
        store_with(batches, interval=2) as store,
        _patched(pages, "PAGE", 2),
        _patched(page, "_SLICE", slice_items),
    ):
        for session in store.sessions():
            repository = DefaultToolRepository(EventReplayer(store), strict=False)
            last, entries, refused = repository.entries(session).unwrap()
            whole = page_data(session, last, entries, refused, limits=limits)
            whole["views"] = views_of(dict(enumerate(entries)), last, whole["details"], DEFAULT)
            with repository.view(session) as view:
                assert view.indexed
                streamed = page.page_document(view, limits=limits).unwrap()
            assert plain(streamed) == whole
            out = io.BytesIO()
            assert page.write_page(out, streamed) == len(out.getvalue())
            assert out.getvalue() == page.report_html(whole).encode("utf-8")


@contextmanager
def _patched(module: Any, name: str, value: object) -> Iterator[None]:
    before = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, before)


@given(sessions(max_size=30))
def test_a_session_that_records_no_time_is_laid_out_by_step_with_no_time_written(
    events: list[Any],
) -> None:
    timed, untimed = document(events), document(events, times=False)
    assert untimed["axis"] == "sequence" and timed["axis"] == "time"
    columns = untimed["invocations"]
    # Each "time" is its event's sequence: the first request's is the origin, and the
    # requests' deltas are the sequences' deltas.
    rs = columns["rs"]
    assert untimed["origin"] == (rs[0] if rs else None)
    assert columns["rt"] == [0, *rs[1:]][: len(rs)]
    assert all(at is None for d in untimed["details"].values() for _, at in d["versions"])
    assert all(v is None for row in untimed["stats"] for v in (*row["queued"], *row["ran"]))
    # The rest of the page is the same as for a session whose times are recorded.
    for key in ("checkpoints", "exited_nonzero", "refused", "tools"):
        assert untimed[key] == timed[key]
