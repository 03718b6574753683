"""A call's view is masked whole before it is split or cut: an edit's diff, a shell call's
terminal, an output object's members named as secrets, in the server's view and the report's.

The calls are a real Claude Code transcript's, with secrets planted in added calls
(`planted`); the output objects are those an MCP server or an agent's own tool returns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from correx_tools import InMemoryEventStore, SessionId
from correx_tools.core.lifecycle.record import ToolInvocationRecord
from correx_tools.core.replay.fold import fold_events
from correx_tools.core.replay.projection import ToolProjector
from correx_tools.core.report.redaction import DEFAULT, MASK
from correx_tools.core.report.tool_views import MAX_OUTPUT, tool_view
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .planted import CUT_AT, GITHUB, PGP_BODY, RSA_BODY, planted_transcript
from .strategies import completed, requested, started, stored


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ToolInvocationRecord]:
    """The planted calls of the real transcript, by id."""
    store = InMemoryEventStore()
    [result] = import_transcripts(planted_transcript(tmp_path_factory.mktemp("t")), store)
    session = SessionId(result.unwrap().session_id)
    state = fold_events(ToolProjector(), list(store.read(session))).unwrap().state
    return {r.invocation_id.rsplit("/", 1)[-1]: r for r in state.records()}


def view(record: ToolInvocationRecord) -> dict[str, Any]:
    shown = tool_view(record, DEFAULT)
    assert shown is not None
    return shown


def lines(shown: dict[str, Any]) -> list[str]:
    return [text for f in shown["files"] for h in f["hunks"] for _, text in h["lines"]]


def test_a_private_key_written_whole_shows_none_of_its_lines(
    records: dict[str, ToolInvocationRecord],
) -> None:
    for call, body in (("toolu_planted00", RSA_BODY), ("toolu_planted01", PGP_BODY)):
        written = lines(view(records[call]))
        assert MASK in written and not any(body in line or body[::-1] in line for line in
                                            written), written  # fmt: skip


def test_an_edit_masks_each_whole_text_before_the_diff_splits_it(
    records: dict[str, ToolInvocationRecord],
) -> None:
    env = lines(view(records["toolu_planted03"]))
    assert "DB_PASS=[REDACTED]" in env and "MYSQL_PWD=[REDACTED]" in env, env
    key = lines(view(records["toolu_planted04"]))
    assert not any(RSA_BODY[::-1] in line for line in key) and MASK in key


def test_a_token_across_the_terminal_views_cut_is_masked_before_the_cut(
    records: dict[str, ToolInvocationRecord],
) -> None:
    shown = view(records["toolu_planted11"])
    assert GITHUB[:8] not in shown["output"] and shown["output"].endswith(MASK + "\n")
    # masked first, then cut: the count is of the masked output, which is shorter
    assert len(shown["output"]) == CUT_AT - 16 + len(MASK) + 1 <= MAX_OUTPUT
    assert shown["cut"] == 0


def test_a_long_output_is_cut_after_masking() -> None:
    token = GITHUB
    output = "x " * ((MAX_OUTPUT - 6) // 2) + token + " y" * 250
    record = _record("Bash", {"command": "cat big"}, output)
    shown = view(record)
    assert "ghp_" not in shown["output"] and shown["output"].endswith(MASK[:6])
    assert shown["cut"] == len(output) - len(token) + len(MASK) - MAX_OUTPUT > 0


def _record(tool: str, arguments: dict[str, Any], output: object) -> ToolInvocationRecord:
    events = [requested("a", tool=tool, **arguments), started("a"), completed("a", output)]
    state = fold_events(ToolProjector(), stored(events)).unwrap().state
    [record] = state.records()
    return record


@pytest.mark.parametrize("name", ["auth", "cookie", "passphrase", "credentials", "password"])
def test_an_output_objects_members_named_as_secrets_are_masked_in_its_terminal(
    name: str,
) -> None:
    output = {"stdout": "", "exit": 0, name: "hunter2-plain"}
    shown = view(_record("shell", {"command": "login"}, output))
    assert "hunter2-plain" not in shown["output"], shown["output"]
    assert json.loads(shown["output"])[name] == MASK


def test_without_a_redaction_nothing_is_masked(tmp_path: Path) -> None:
    record = _record("Bash", {"command": "echo DB_PASS=x9"}, {"password": "hunter2-plain"})
    shown = tool_view(record, None)
    assert shown is not None
    assert shown["command"] == "echo DB_PASS=x9" and "hunter2-plain" in shown["output"]
