"""Token counts have a ceiling: a transcript that says a message spent more than a
quadrillion tokens is refused, naming where, instead of making a cost of ``Infinity``
(which no JSON reader takes) or a number of hundreds of digits in every view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import InMemoryEventStore, TokenUsage, Usage, import_transcript
from correx_tools.core.lifecycle.conversation import MOST_TOKENS
from correx_tools.shell.transcripts.common.talk import MOST_COUNTED, digits

from .commands import correx
from .one_call import one_call_session


def strict(text: str) -> object:
    """``text`` as JSON, refusing ``Infinity`` and ``NaN`` as JSON itself does."""

    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("tokens", [10**400, MOST_COUNTED + 1])
def test_a_count_past_the_ceiling_is_refused_naming_its_line_and_key(
    tmp_path: Path, tokens: int
) -> None:
    store = InMemoryEventStore()
    path = one_call_session(tmp_path / "s.jsonl", "tokens", tokens=tokens)
    error = import_transcript(path, store).failure()
    assert f"{path}: line 2: usage.input_tokens must be at most 1,000,000,000,000,000" in str(error)
    assert f"not a number of {len(str(tokens))} digits" in str(error)
    assert store.sessions() == ()


def test_a_count_at_the_ceiling_is_kept_and_every_view_stays_json(tmp_path: Path) -> None:
    path = one_call_session(tmp_path / "s.jsonl", "tokens", tokens=MOST_COUNTED)
    for command in (["stats", str(path), "tokens", "--json"], ["sessions", str(path), "--json"]):
        done = correx(*command, "--no-cache")
        assert done.returncode == 0, done.stderr
        assert str(MOST_COUNTED + 5) in done.stdout  # the session's total, input and output
        strict(done.stdout)


def test_an_aider_tokens_line_past_the_ceiling_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2026-01-01 00:00:00\n\n#### fix it  \n\nDone.\n\n"
        "> Tokens: 9,999,999,999,999,999M sent, 141 received.  \n",
        encoding="utf-8",
    )
    error = import_transcript(path, InMemoryEventStore()).failure()
    assert "line 7: 'sent' must be at most 1,000,000,000,000,000 tokens" in str(error)


def test_a_usage_past_the_core_ceiling_cannot_be_built() -> None:
    assert MOST_COUNTED * 4 < MOST_TOKENS  # a message's four counts read at the ceiling fit
    Usage(usage=TokenUsage(cache_read=MOST_TOKENS))
    ceiling = r"usage\.cache_read must be at most 9,007,199,254,740,991"
    with pytest.raises(ValueError, match=ceiling):
        Usage(usage=TokenUsage(cache_read=MOST_TOKENS + 1))


@given(st.integers(1, 10**4000))
def test_digits_counts_what_printing_would_print(value: int) -> None:
    assert digits(value) == len(str(value))


@pytest.mark.parametrize("power", range(0, 4300, 97))
def test_digits_is_right_on_both_sides_of_each_power_of_ten(power: int) -> None:
    for value in (10**power - 1, 10**power, 10**power + 1):
        if value:
            assert digits(value) == len(str(value))
