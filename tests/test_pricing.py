"""What tokens cost: the shipped price table (its sources and date), a file put over it,
a model without a price said as such, and a bad file said in one line."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools.core.lifecycle.conversation import TokenUsage
from correx_tools.core.replay.pricing import PricesError, cost_of, prices_from
from correx_tools.core.replay.spending import Spent, _split
from correx_tools.shell.replay.prices import shipped_prices

from .test_cli import fails, run, run_json
from .test_talk_views import CODEX, SESSION, SHORT

counts = st.integers(min_value=0, max_value=10**9)
usages = st.builds(TokenUsage, input=counts, output=counts, cache_read=counts, cache_write=counts)


def test_the_shipped_table_says_where_and_when_its_prices_were_read() -> None:
    table = shipped_prices()
    assert table.read == "2026-12-05"
    assert all(source.startswith("https://") for source in table.sources)
    opus = table.price("claude-opus-4-6")
    assert opus is not None and (opus.input, opus.output) == (Decimal(5), Decimal(25))
    # A name with a date at its end is priced as the model without it.
    assert table.price("claude-sonnet-4-5-20250929") == table.price("claude-sonnet-4-5")
    assert table.price("no-such-model") is None


@given(usages, st.integers(min_value=1, max_value=12))
def test_the_calls_shares_cost_what_their_message_costs(usage: TokenUsage, parts: int) -> None:
    table = shipped_prices()
    whole = cost_of(Spent(by_model=(("claude-opus-4-6", usage),)), table)
    shares = [
        cost_of(Spent(by_model=(("claude-opus-4-6", s),)), table) for s in _split(usage, parts)
    ]
    assert whole is not None and whole.amount is not None
    assert sum(s.amount for s in shares if s is not None and s.amount is not None) == whole.amount


def test_stats_gives_the_cost_of_the_session_each_turn_and_each_call(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    tokens = run_json("stats", str(store), SESSION)["tokens"]
    # claude-opus-4-6 at $5 / $25 / $0.50 / $6.25 per million: 3, 13, 11,515 and 13,835.
    assert tokens["total"]["cost"] == {"usd": 0.092566, "unpriced": [], "note": None}
    assert tokens["turns"][0]["tokens"]["cost"]["usd"] == 0.092566
    assert sorted(c["tokens"]["cost"]["usd"] for c in tokens["calls"]) == [0.046265, 0.046302]
    assert tokens["prices"]["read"] == "2026-12-05"
    text = run("stats", str(store), SESSION).stdout
    assert "cost: $0.0926 (prices read 2026-12-05 from https://" in text


def test_a_prices_file_is_put_over_the_shipped_table(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    run("import-transcript", str(CODEX), str(store))
    toml = tmp_path / "prices.toml"
    toml.write_text('read = "2027-01-01"\n[models.claude-opus-4-6]\ninput = 1\noutput = 1\n'
                    'cache_read = 0\ncache_write = 0\n', encoding="utf-8")  # fmt: skip
    tokens = run_json("stats", str(store), SESSION, "--prices", str(toml))["tokens"]
    assert tokens["total"]["cost"]["usd"] == 0.000016 and tokens["prices"]["read"] == "2027-01-01"
    # A model the table does not price says so: no number is made up.
    json_file = tmp_path / "prices.json"
    json_file.write_text('{"models": {"gpt-5.1-codex": {"input": 1, "output": 2}}}', "utf-8")
    codex = run_json("stats", str(store), "019a95d1", "--prices", str(json_file))["tokens"]
    assert codex["total"]["cost"]["usd"] == round((5210 * 1 + 2210 * 2) / 1e6, 6)
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text(SHORT.read_text("utf-8").replace("claude-opus-4-6", "claude-imaginary-9"),
                       "utf-8")  # fmt: skip
    odd = tmp_path / "odd.sqlite"
    run("import-transcript", str(renamed), str(odd))
    cost = run_json("stats", str(odd), SESSION)["tokens"]["total"]["cost"]
    assert cost == {"usd": None, "unpriced": ["claude-imaginary-9"],
                    "note": "no price for claude-imaginary-9"}  # fmt: skip
    assert "cost: no price for claude-imaginary-9" in run("stats", str(odd), SESSION).stdout


@pytest.mark.parametrize(
    ("text", "name", "words"),
    [
        ('{"models": {"m": {"input": "lots", "output": 1}}}', "p.json",
         "p.json: models.m.input: 'lots' is not a number"),
        ('{"models": {"m": {"input": -1, "output": 1}}}', "p.json",
         "p.json: models.m.input: must be a number at least 0"),
        ('{"models": {"m": {"output": 1}}}', "p.json", "p.json: models.m.input: is missing"),
        ('{"models": {"m": {"input": "1e999999", "output": 1}}}', "p.json",
         "p.json: models.m.input: must be at most 1,000,000 dollars per million tokens"),
        ('{"models": {"m": {"input": 1, "output": 1, "cache": 1}}}', "p.json",
         "p.json: models.m.cache: is not one of input, output, cache_read, cache_write"),
        ("{", "p.json", "p.json: is not JSON"),
        ("[models\n", "p.toml", "p.toml: is not TOML"),
        ('models = 3\n', "p.toml", "p.toml: models: must be a table of models"),
    ],
)  # fmt: skip
def test_a_bad_prices_file_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, text: str, name: str, words: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    fails("stats", str(tmp_path / "none.sqlite"), "s", "--prices", str(path), words=words)
    with pytest.raises(PricesError, match=r"models\.m\.input"):
        prices_from({"models": {"m": {"input": True, "output": 1}}}, "x")


def test_serve_says_a_bad_prices_file_before_it_listens(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"models": []}', encoding="utf-8")
    fails("serve", str(SHORT), "--port", "0", "--prices", str(path),
          words="p.json: models: must be a table of models")  # fmt: skip


def test_the_largest_count_a_transcript_may_say_is_priced_exactly(tmp_path: Path) -> None:
    # A quadrillion tokens is the ceiling of a count (one past it is refused as damage,
    # `test_token_bounds`): its cost is exact, to the dollar, in the JSON and the terminal.
    huge = tmp_path / "huge.jsonl"
    huge.write_text(SHORT.read_text("utf-8").replace('"output_tokens":13', '"output_tokens":'
                                                     + str(10**15)), "utf-8")  # fmt: skip
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(huge), str(store))
    tokens = run_json("stats", str(store), SESSION)["tokens"]
    assert tokens["total"]["output"] == 10**15
    assert tokens["total"]["cost"]["usd"] == pytest.approx(25 * 10**9)
    assert "cost: $25,000,000,0" in run("stats", str(store), SESSION).stdout
