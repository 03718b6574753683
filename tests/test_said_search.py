"""A search of what was said that runs out of its time budget resumes where it got to.

The server's search walks each session's events and stops at its deadline (a busy
machine reaches it; a quiet one, with these samples, never does), saying how far it got;
the next step starts there. Run here with a clock that is always past the deadline, the
walk is cut every few dozen events, and finds what one uncut walk finds.
"""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from correx_tools import SQLiteEventStore
from correx_tools.core.report.redaction import Redaction
from correx_tools.shell.serve.api import everywhere
from correx_tools.shell.serve.api import said as said_search
from correx_tools.shell.serve.debugger.debugger import Debugger
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .transcript_samples import DATA

CLAUDE = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"


def test_a_walk_cut_by_its_deadline_finds_what_a_whole_walk_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SQLiteEventStore(tmp_path / "s.sqlite") as store:
        assert all(done.unwrap() for done in import_transcripts(CLAUDE, store))
        assert store.count() > 64  # cut at least once (every 64 events looked at)
        debugger = Debugger(store, "s.sqlite", lenient=True, redaction=Redaction())
        whole = everywhere.said_everywhere(debugger, {"q": "the"})
        assert whole["matches"] and whole["next"] is None
        monkeypatch.setattr(said_search, "time", types.SimpleNamespace(monotonic=lambda: 1e18))
        assert everywhere.said_everywhere(debugger, {"q": "the"}) == whole
