"""What the terminal says of a session's calls, on real transcripts: what each did, how it
ended (a non-zero exit never a plain COMPLETED), what it said back, what it added to the
tokens; and never a secret the debugger's page would mask, unless asked for raw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .commands import Ran, correx

DATA = Path(__file__).parent / "data"
TRANSCRIPTS = DATA / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CODEX = next((TRANSCRIPTS / "codex").glob("rollout-*.jsonl"))
GOOSE = TRANSCRIPTS / "goose" / "20251118_154210.jsonl"
SECRETS = DATA / "audit" / "secrets.jsonl"
TOKEN = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"


def run(*argv: str, columns: int = 120) -> Ran:
    """The command in this process, piped, ``columns`` wide."""
    return correx(*argv, env={"COLUMNS": str(columns)})


def answer(*argv: str) -> Any:
    return json.loads(run(*argv, "--json").stdout)


# -- what each call did, and how it ended ----------------------------------------------------


def test_replay_and_diff_say_what_each_call_did() -> None:
    replayed = run("replay", str(CODEX), "019a").stdout
    rows = {line.split()[0]: line for line in replayed.splitlines()[3:]}
    assert "make test" in rows["call_k3Mk"] and "exit 2" in rows["call_k3Mk"]
    assert "git push --force origin main" in rows["call_kDPs"]
    claude = run("replay", str(CLAUDE), "4d", "--limit", "0", columns=160).stdout
    # A path inside the session's directory is said relative to it; a search, its pattern.
    assert " priv/static/assets/spotter.css\n" in claude
    assert "'**/components/**/*.ex'" in claude
    diffed = run("diff", str(CODEX), "019a", "0", "40").stdout
    assert "make test" in diffed and "rg -n TODO src" in diffed
    # An editor's one-word command is said of its path, never alone.
    edited = run("replay", str(GOOSE), "2025", "--limit", "0").stdout
    assert "write docs/使い方.md" in edited


def test_diff_never_hides_a_non_zero_exit() -> None:
    diffed = run("diff", str(CODEX), "019a", "0", "40").stdout
    [row] = [line for line in diffed.splitlines() if line.startswith("call_k3Mk")]
    assert "COMPLETED" in row and row.rstrip().endswith("exit 2")
    assert "1 call exited non-zero in between" in diffed
    summary = run("diff", str(CODEX), "019a", "0", "40", "--summary").stdout
    assert "completed, 1 of them exited non-zero," in summary
    assert answer("diff", str(CODEX), "019a", "0", "40", "--summary")["exited_nonzero"] == 1
    assert answer("diff", str(CODEX), "019a", "0", "40")["exited_nonzero"] == 1
    assert answer("diff", str(CODEX), "019a", "0", "5")["exited_nonzero"] == 0


def test_history_prints_the_end_of_what_a_call_said_back() -> None:
    read = "toolu_01HaEX6WGRyK8yccb6knr31H"  # a Read of a long file
    whole = answer("history", str(CLAUDE), "4d", read)["versions"][-1]["record"]["receipt"]
    lines = whole["output"].splitlines()
    said = run("history", str(CLAUDE), "4d", read).stdout.splitlines()
    [head] = [n for n, line in enumerate(said) if line.startswith("output, its end (")]
    assert f"({len(lines) - 20:,} lines before it left out: --full shows all):" in said[head]
    assert said[head + 1 : head + 21] == ["  " + line for line in lines[-20:]]
    full = run("history", str(CLAUDE), "4d", read, "--full").stdout.splitlines()
    assert full[full.index("output:") + 1 :][: len(lines)] == ["  " + line for line in lines]
    failed = run("history", str(CLAUDE), "4d", "toolu_01TfDS8U").stdout
    assert "reason:\n  <tool_use_error>File does not exist.</tool_use_error>" in failed
    exited = run("history", str(CODEX), "019a", "call_k3Mk").stdout
    assert "\noutput (exit 2), its end (10 lines before it left out" in exited


# -- the tokens a call added -------------------------------------------------------------------


def test_the_calls_that_spent_most_are_those_that_added_most() -> None:
    said = run("stats", str(CLAUDE), "4d").stdout
    assert "calls by tokens added (new input and output, not the cached context):" in said
    tokens = answer("stats", str(CLAUDE), "4d")["tokens"]["calls"]

    def added(call: dict[str, Any]) -> int:
        t = call["tokens"]
        return t["input"] + t["output"] + t["cache_write"]

    top = sorted(tokens, key=lambda call: -added(call))[0]["invocation_id"].split("/")[-1]
    most = sorted(tokens, key=lambda call: -call["tokens"]["total"])[0]["invocation_id"]
    assert not most.endswith(top)  # the most context re-read is not what a call added
    header, _, first = said.split("not the cached context):\n")[1].splitlines()[:3]
    assert header.split() == ["call", "tool", "added", "tokens", "cost"]
    assert first.startswith(top)


def test_a_model_with_no_price_is_named_once() -> None:
    said = run("stats", str(GOOSE), "2025").stdout
    assert said.count("no price for (model not recorded) (--prices FILE gives one)") == 1
    table = said.split("turn  prompt")[1].split("?:")[0]
    assert "no price" not in table and "?" in table


# -- masked as the page masks -------------------------------------------------------------------


def test_the_terminal_masks_what_the_page_masks() -> None:
    for argv in (["history", str(SECRETS), "audit", "toolu_secrets_01"],
                 ["history", str(SECRETS), "audit", "toolu_secrets_02"],
                 ["replay", str(SECRETS), "audit"], ["diff", str(SECRETS), "audit", "0", "8"],
                 ["stats", str(SECRETS), "audit"]):  # fmt: skip
        for form in ((), ("--json",), ("--wide",)):
            said = run(*argv, *form)
            assert said.returncode == 0, said.stderr
            assert TOKEN not in said.stdout and KEY not in said.stdout
    shown = run("history", str(SECRETS), "audit", "toolu_secrets_01").stdout
    assert "gh auth login --with-token [REDACTED]" in shown


def test_unmasked_shows_ones_own_terminal_raw() -> None:
    raw = run("history", str(SECRETS), "audit", "toolu_secrets_01", "--unmasked").stdout
    assert TOKEN in raw
    document = json.loads(run("replay", str(SECRETS), "audit", "--json", "--unmasked").stdout)
    assert KEY in json.dumps(document)
    # Never the page, the report or an export: they take no such option.
    for command in ("serve", "report", "export"):
        assert "--unmasked" not in run(command, "--help").stdout
