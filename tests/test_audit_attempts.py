"""A call the user rejected is an attempt, never a call that ran; and a finding points at the
transcript file and line code scanning can link to.

On the real transcripts the project ships, every finding (a forced push) is a call the
user turned down: the audit, its SARIF and the debugger's panel all say it was asked for
and rejected, one level below the rule's. The planted corpus holds calls that ran: those
keep their words and level.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from correx_tools import SQLiteEventStore
from correx_tools.core.audit.finding import Finding, Level, attempted
from correx_tools.core.tools.ids import SessionId
from correx_tools.shell.audit.live import LiveAudits
from correx_tools.shell.audit.policy_file import read_policy

from .commands import Ran, correx
from .strategies import rejected, requested, stored

DATA = Path(__file__).parent / "data"
TRANSCRIPTS = DATA / "transcripts"
CORPUS = DATA / "audit"


def run(*argv: str, columns: int | None = None) -> Ran:
    """The command in this process, piped, ``COLUMNS`` set to ``columns`` (none: unset)."""
    return correx(*argv, env={"COLUMNS": None if columns is None else str(columns)})


def answer(*argv: str) -> Any:
    """The ``--json`` (or SARIF) document the command prints."""
    return json.loads(run(*argv).stdout)


def test_a_rejected_call_is_an_attempt_in_every_form() -> None:
    said = run("audit", str(TRANSCRIPTS), "--json")
    assert said.returncode == 1
    findings = json.loads(said.stdout)["findings"]
    # Nine forced pushes the user turned down; and the real OpenHands run's write, which ran.
    [ran] = [finding for finding in findings if not finding["attempt"]]
    assert ran["level"] == "error" and " wrote '/workspace/test.c'" in ran["message"]
    attempts = [finding for finding in findings if finding["attempt"]]
    assert len(attempts) == 9
    for finding in attempts:
        assert finding["attempt"] is True and finding["level"] == "warning"
        assert " asked to run 'git push --force origin main'" in finding["message"]
        assert " ran " not in finding["message"].split(";")[0]
        assert "; rejected before it ran" in finding["message"]
    table = run("audit", str(TRANSCRIPTS), columns=200).stdout
    assert " ran 'git push" not in table and "asked to run 'git push" in table
    assert ("10 findings (1 error, 9 warning), 9 of them attempts (calls rejected before they "
            "ran)") in table  # fmt: skip
    sarif = answer("audit", str(TRANSCRIPTS), "--format", "sarif")
    results = [r for r in sarif["runs"][0]["results"] if r["properties"]["attempt"]]
    assert len(results) == 9
    for result in results:
        assert result["level"] == "warning" and result["properties"]["attempt"] is True
        assert "asked to run" in result["message"]["text"]


def test_a_call_that_ran_keeps_its_words_and_level() -> None:
    findings = answer("audit", str(CORPUS / "denied_commands.jsonl"), "--json")["findings"]
    denied = [f for f in findings if f["rule"] == "command-denied"]
    assert len(denied) == 4
    assert all(f["level"] == "error" and not f["attempt"] for f in denied)
    assert all(" ran " in f["message"] and "asked to" not in f["message"] for f in denied)


def test_an_attempt_is_one_level_below_and_what_a_call_holds_keeps_its_level() -> None:
    ran = Finding(
        rule="path-denied",
        level=Level.WARNING,
        session="s",
        tool="Read",
        message="Read read '.env'",
        evidence=(),
        tried="Read asked to read '.env'",
    )
    held = Finding(rule="secret-in-arguments", level=Level.ERROR, session="s", tool="Bash",
                   message="Bash was given a secret: command: 'x'", evidence=())  # fmt: skip
    tried, kept = attempted(ran, "the user said no"), attempted(held, "")
    assert (tried.level, tried.message) == (
        Level.NOTE,
        "Read asked to read '.env'; rejected before it ran: the user said no",
    )
    assert (kept.level, kept.attempt) == (Level.ERROR, True)
    assert kept.message.endswith("; rejected before it ran")
    assert attempted(tried, "again") == tried


def test_the_debuggers_panel_says_it_was_an_attempt_once_it_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(
            stored([requested("p", tool="Bash", command="git push --force origin main")])
        ).unwrap()
        audits = LiveAudits(store, read_policy(None))
        [before] = audits.audit(SessionId("session-1"))["findings"]
        assert " ran 'git push" in before["message"] and not before["attempt"]
        store.append(SessionId("session-1"), [rejected("p", reason="the user said no")],
                     expected_sequence=1).unwrap()  # fmt: skip
        [after] = audits.audit(SessionId("session-1"))["findings"]
    assert after["attempt"] and after["level"] == "warning"
    assert "asked to run 'git push --force origin main'" in after["message"]
    assert after["message"].endswith("rejected before it ran: the user said no")


# -- where a finding is written down ---------------------------------------------------------


def test_sarif_points_at_the_transcript_file_and_its_line() -> None:
    schema = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    log = answer("audit", str(CORPUS), "--format", "sarif")
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    found = log["runs"][0]
    assert found["originalUriBaseIds"]["SOURCE"]["uri"] == CORPUS.resolve().as_uri() + "/"
    for result in found["results"]:
        where = result["locations"][0]["physicalLocation"]
        file = where["artifactLocation"]
        assert file["uriBaseId"] == "SOURCE" and not file["uri"].startswith("/")
        session = result["properties"]["session"]  # audit-<name>: the file <name>.jsonl
        assert file["uri"] == session.removeprefix("audit-") + ".jsonl"
        assert found["artifacts"][file["index"]]["location"]["uri"] == file["uri"]
        # The line the call's result is on: a tool_result record of the file.
        line = where["region"]["startLine"]
        record = json.loads((CORPUS / file["uri"]).read_text("utf-8").splitlines()[line - 1])
        assert record["type"] == "user" and "tool_result" in json.dumps(record)


def test_sarif_of_a_rejected_call_names_its_file_and_no_line_it_does_not_know() -> None:
    log = answer("audit", str(TRANSCRIPTS), "--format", "sarif")
    for result in log["runs"][0]["results"]:
        where = result["locations"][0]["physicalLocation"]
        assert (TRANSCRIPTS / where["artifactLocation"]["uri"]).is_file()
        assert "region" not in where  # a rejection's receipt records no line
