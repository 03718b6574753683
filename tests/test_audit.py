"""``correx-tools audit``: the planted corpus, real transcripts, SARIF, evidence, errors.

The command runs (in this process) on the hand-written sessions of ``data/audit``
(each with one planted problem, or none: see its PROVENANCE) and on the real transcripts
of ``data/transcripts``.
"""

from __future__ import annotations

import json
import sqlite3
import string
import tomllib
import urllib.parse
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from .commands import Ran, correx

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "audit"

# Every finding the corpus must give, and nothing else: (session, sequence, rule).
PLANTED = {
    ("audit-denied_commands", 3, "command-denied"),
    ("audit-denied_commands", 3, "write-outside-workspace"),  # rm -rf / removes /
    ("audit-denied_commands", 6, "command-denied"),
    ("audit-denied_commands", 9, "command-denied"),
    ("audit-denied_commands", 12, "command-denied"),
    ("audit-denied_paths", 3, "path-denied"),
    ("audit-denied_paths", 6, "path-denied"),
    ("audit-denied_paths", 9, "path-denied"),
    ("audit-denied_paths", 9, "write-outside-workspace"),
    ("audit-outside_write", 3, "write-outside-workspace"),
    ("audit-outside_write", 6, "write-outside-workspace"),
    ("audit-secrets", 3, "secret-in-arguments"),
    ("audit-secrets", 8, "secret-in-output"),
    ("audit-flow_shell", 6, "flow-into-shell"),
    ("audit-flow_write", 6, "flow-into-write"),
    ("audit-flow_network", 6, "flow-into-network"),
}


def audit(*args: str, status: int) -> Ran:
    result = correx("audit", *args)
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture(scope="module")
def corpus_json(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cache = tmp_path_factory.mktemp("cache") / "cache.sqlite"
    said: dict[str, Any] = json.loads(
        audit(str(CORPUS), "--json", "--cache", str(cache), status=1).stdout
    )
    return said


def test_the_corpus_gives_every_planted_finding_and_nothing_else(
    corpus_json: dict[str, Any],
) -> None:
    found = {(f["session"], f["sequence"], f["rule"]) for f in corpus_json["findings"]}
    assert found == PLANTED
    assert corpus_json["sessions"] == 9
    assert not {"audit-clean", "audit-clean_fetch"} & {s for s, _, _ in found}


def test_flow_findings_name_both_calls(corpus_json: dict[str, Any]) -> None:
    flows = [f for f in corpus_json["findings"] if f["rule"].startswith("flow-")]
    assert len(flows) == 3
    for finding in flows:
        assert [e["sequence"] for e in finding["evidence"]] == [6, 5]
        assert [e["role"] for e in finding["evidence"]] == ["call", "source"]
        assert "sequence 5" in finding["message"]


def test_secrets_are_found_and_shown_masked(corpus_json: dict[str, Any]) -> None:
    text = json.dumps(corpus_json)
    assert "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5" not in text
    assert "sk_live_4eC39HqLyjWDarjtT1zdp7dc" not in text
    secrets = [f for f in corpus_json["findings"] if f["rule"].startswith("secret-")]
    assert all("[REDACTED]" in f["message"] for f in secrets)


def test_real_transcripts_give_the_findings_read_in_them(tmp_path: Path) -> None:
    # Read in the files: each synthetic session of the formats ends its task with a forced
    # push (aider's synth, cline's two tasks, codex, gemini-cli, goose's three, opencode);
    # the real OpenHands run writes a scratch file beside the repository it was given (its
    # workspace); the real Claude Code, SWE-agent and chat sessions do nothing the policy
    # denies, and no secret or untrusted value is in them.
    said = json.loads(
        audit(str(DATA / "transcripts"), "--json", "--cache", str(tmp_path / "c.sqlite"),
              status=1).stdout
    )  # fmt: skip
    found = sorted((f["rule"], f["tool"], f["message"].split(" (")[-1]) for f in said["findings"])
    assert len(found) == 10
    assert set(found) == {
        ("command-denied", tool, "git push --force)")
        for tool in ("shell", "execute_command", "shell_command", "run_shell_command",
                     "developer__shell", "bash")
    } | {("write-outside-workspace", "execute_bash",
          "execute_bash wrote '/workspace/test.c', outside the workspace "
          "'/workspace/ponylang__ponyc__0.1'")}  # fmt: skip
    assert said["unknown_tools"] == {"cargo": 1, "cargo_check": 4, "unknown": 3}


def test_sarif_validates_against_the_published_schema(tmp_path: Path) -> None:
    schema = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))
    log = json.loads(
        audit(str(CORPUS), "--format", "sarif", "--cache", str(tmp_path / "c.sqlite"),
              status=1).stdout
    )  # fmt: skip
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    results = log["runs"][0]["results"]
    assert {(r["properties"]["session"], r["ruleId"]) for r in results} == {
        (s, rule) for s, _, rule in PLANTED
    }
    assert all(r["properties"]["evidence"][0]["value"].startswith("sha256:") for r in results)


def test_sarif_names_a_source_whose_path_a_uri_cannot_hold_as_is_escaped(tmp_path: Path) -> None:
    # artifactLocation.uri is a URI reference (RFC 3986): a space is not one, and a folder
    # named "run #1" would read as the path "run " and the fragment "1".
    store = tmp_path / "run #1 at 50%" / "s.sqlite"
    store.parent.mkdir()
    correx("import-transcript", str(CORPUS / "denied_commands.jsonl"), str(store), check=True)
    log = json.loads(audit(str(store), "--format", "sarif", status=1).stdout)
    uris = {log["runs"][0]["artifacts"][0]["location"]["uri"]} | {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert len(uris) == 1
    uri = uris.pop()
    allowed = set(string.ascii_letters + string.digits + "-._~:/@!$&'()*+,;=%")
    assert set(uri) <= allowed, uri
    assert urllib.parse.unquote(uri) == str(store)


def test_sarif_gives_a_braces_in_a_finding_as_sarif_writes_them(tmp_path: Path) -> None:
    # SARIF reads "{0}" in a message as its first argument's place, and "{{" and "}}" as
    # the braces themselves: a command quoted in a finding is the agent's text.
    transcript = tmp_path / "t.jsonl"
    text = (CORPUS / "denied_commands.jsonl").read_text("utf-8")
    transcript.write_text(text.replace("origin main", "origin {0}"), "utf-8")
    store = tmp_path / "s.sqlite"
    correx("import-transcript", str(transcript), str(store), check=True)
    said = json.loads(audit(str(store), "--json", status=1).stdout)
    (quoted,) = [f["message"] for f in said["findings"] if "{0}" in f["message"]]
    log = json.loads(audit(str(store), "--format", "sarif", status=1).stdout)
    texts = [r["message"]["text"] for r in log["runs"][0]["results"]]
    assert quoted.replace("{", "{{").replace("}", "}}") in texts, texts


def test_a_finding_about_an_event_edited_afterwards_says_so(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    correx("import-transcript", str(CORPUS / "denied_commands.jsonl"), str(store), check=True)
    saved = tmp_path / "findings.json"
    saved.write_text(audit(str(store), "--json", status=1).stdout, encoding="utf-8")
    sarif = tmp_path / "findings.sarif"
    sarif.write_text(audit(str(store), "--format", "sarif", status=1).stdout, encoding="utf-8")
    intact = json.loads(audit("--recheck", str(saved), str(store), "--json", status=0).stdout)
    assert intact["intact"] and len(intact["evidence"]) == 4
    with sqlite3.connect(store) as db:
        changed = db.execute(
            "UPDATE events SET data = replace(data, '--force', '--quiet') WHERE sequence = 6"
        ).rowcount
    assert changed == 1
    for findings in (saved, sarif):
        after = audit("--recheck", str(findings), str(store), status=1).stdout
        assert "sequence 6:" in after and "not as audited" in after
        assert "sequence 3:" not in after


def test_print_policy_is_the_built_in_policy_and_reads_as_toml() -> None:
    text = audit("--print-policy", status=0).stdout
    policy = tomllib.loads(text)
    assert "~/.ssh/**" in policy["paths"]["deny"]
    assert {d["name"] for d in policy["commands"]["deny"]} >= {"git push --force"}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[paths]\n\ndeny = nope\n", "not TOML: Invalid value (at line 3"),
        ("[paths]\n\ndeny = '~/.ssh'\n", "paths.deny: must be a list of strings (line 3)"),
        ("[[commands.deny]]\nname = 'x'\npattern = '(?<=a)b'\n", "commands.deny[0].pattern"),
        ("[capabilities]\nallowed = ['teleport']\n", "'teleport' is not a capability"),
        ("colour = 'red'\n", "colour: is not a policy key (line 1)"),
    ],
)
def test_a_bad_policy_is_one_line_naming_file_key_and_line(
    tmp_path: Path, text: str, words: str
) -> None:
    policy = tmp_path / "bad.toml"
    policy.write_text(text, encoding="utf-8")
    result = audit(str(CORPUS / "clean.jsonl"), "--no-cache", "--policy", str(policy), status=2)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "bad.toml" in lines[0] and words in lines[0], lines[0]


def test_an_unreadable_source_could_not_run(tmp_path: Path) -> None:
    result = audit(str(tmp_path / "missing.sqlite"), status=2)
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_clean_session_exits_zero(tmp_path: Path) -> None:
    result = audit(str(CORPUS / "clean.jsonl"), "--no-cache", status=0)
    assert "no finding" in result.stdout


def _library_session(path: Path) -> None:
    """A session recorded through the library (no description, no working directory)."""
    from correx_tools import SQLiteEventStore  # noqa: PLC0415

    from .strategies import completed, requested, stored  # noqa: PLC0415

    store = SQLiteEventStore(path)
    try:
        store.import_events(
            stored(
                [
                    requested("a", tool="deploy", target="prod"),
                    completed("a"),
                    requested("b", tool="query_db", sql="select 1"),
                    completed("b"),
                    requested("c", tool="write_file", path="/srv/other/x.txt", content="x"),
                    completed("c"),
                ]
            )
        )
    finally:
        store.close()


def test_declared_capabilities_and_mcp_annotations_win_over_the_table(tmp_path: Path) -> None:
    store = tmp_path / "lib.sqlite"
    _library_session(store)
    policy = tmp_path / "p.toml"
    policy.write_text(
        'workspace = "/srv/app"\n[capabilities]\nallowed = ["file_read", "file_write"]\n',
        encoding="utf-8",
    )
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps([
            {"name": "deploy", "description": "ship it", "parameters": {"type": "object"},
             "tier": "elevated", "capabilities": ["network_access", "shell_exec"]},
            {"name": "query_db", "description": "ask", "inputSchema": {"type": "object"},
             "annotations": {"readOnlyHint": True, "openWorldHint": True}},
        ]),
        encoding="utf-8",
    )  # fmt: skip
    before = json.loads(audit(str(store), "--json", "--policy", str(policy), status=1).stdout)
    # Without the definitions, deploy and query_db are unknown: only the write is judged.
    assert [(f["tool"], f["rule"]) for f in before["findings"]] == [
        ("write_file", "write-outside-workspace")
    ]
    assert before["unknown_tools"] == {"deploy": 1, "query_db": 1}
    said = json.loads(
        audit(str(store), "--json", "--policy", str(policy), "--tools", str(tools),
              status=1).stdout
    )  # fmt: skip
    assert [(f["tool"], f["rule"], f["message"].split(" used ")[-1]) for f in said["findings"]] == [
        ("deploy", "capability-not-allowed", "network_access, which the policy does not allow"),
        ("deploy", "capability-not-allowed", "shell_exec, which the policy does not allow"),
        ("query_db", "capability-not-allowed", "network_access, which the policy does not allow"),
        ("write_file", "write-outside-workspace", "write_file wrote '/srv/other/x.txt', "
         "outside the workspace '/srv/app'"),
    ]  # fmt: skip
    assert said["unknown_tools"] == {}
