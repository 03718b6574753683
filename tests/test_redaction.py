"""Redaction: planted secrets never survive, harmless text passes unchanged, sizes are cut."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools.core.report.redaction import DEFAULT, MASK, Redaction

# Secrets of each shape the rules know, each as a real one would look.
SECRETS = [
    "sk-ant-api03-" + "Ab9_" * 10,
    "sk-proj-" + "x1Y2" * 6,
    "ghp_" + "a1B2c3D4e5" * 3,
    "github_pat_11ABCDEFG0" + "q" * 40,
    "glpat-" + "abcDEF123_" * 2,
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-1234567890-abcdefghij",
    "AIza" + "Sy0123456789abcdefghijklmnopqrstuvw",
    "hf_" + "AbCdEfGhIj" * 3,
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]
# Secrets that are secrets by their context: (text around, the secret inside it).
IN_CONTEXT = [
    ("Authorization: Bearer {}", "c2VjcmV0LXRva2VuLXZhbHVl"),
    ("postgresql://app:{}@db.internal:5432/app", "hunter2-is-long"),
    ("OPENAI_API_KEY={}", "abc123def456"),
    ('"password": "{}"', "hunter22"),
    ("client_secret = {}", "s3cr3tv4lu3"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAA",
    ),
]

words = st.text(alphabet="abcdefghij klmnop.,:/", max_size=30)


def json_values(leaf: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaf | st.integers() | st.booleans() | st.none(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(["path", "content", "cmd", "note"]), inner, max_size=4
            )
        ),
        max_leaves=12,
    )


@st.composite
def planted(draw: st.DrawFn) -> tuple[Any, str]:
    """A JSON value with one secret planted in one of its strings, and the secret."""
    if draw(st.booleans()):
        secret = draw(st.sampled_from(SECRETS))
        text = f"{draw(words)} {secret} {draw(words)}"
    else:
        template, secret = draw(st.sampled_from(IN_CONTEXT))
        text = f"{draw(words)} {template.format(secret)} {draw(words)}"
    value = draw(json_values(words))
    holder = draw(st.sampled_from(["list", "dict", "bare"]))
    if holder == "list":
        return [value, text], secret
    if holder == "dict":
        return {"content": text, "other": value}, secret
    return text, secret


@given(planted())
def test_a_planted_secret_never_survives(case: tuple[Any, str]) -> None:
    value, secret = case
    redacted = json.dumps(DEFAULT.value(value), ensure_ascii=False)
    assert secret not in redacted
    assert MASK in redacted


@given(json_values(words))
def test_text_with_no_secret_passes_unchanged(value: Any) -> None:
    assert DEFAULT.value(value) == value


@given(planted())
def test_masking_twice_is_masking_once(case: tuple[Any, str]) -> None:
    value, _ = case
    once = DEFAULT.value(value)
    assert DEFAULT.value(once) == once


@pytest.mark.parametrize("name", ["password", "api_key", "apiKey", "GITHUB_TOKEN", "Authorization"])
def test_members_named_as_secrets_are_masked_whole(name: str) -> None:
    assert DEFAULT.value({name: "plain words", "path": "a/b"}) == {name: MASK, "path": "a/b"}


def test_words_that_only_contain_a_prefix_are_kept() -> None:
    harmless = ["task-management-system-long-name", "the token is fine", "ask-me-anything-about"]
    for text in harmless:
        assert DEFAULT.text(text) == text


def test_the_callers_patterns_are_masked_too() -> None:
    redaction = Redaction.with_patterns([r"ACME-\d{6}"])
    assert redaction.text("ticket ACME-123456 is open") == f"ticket {MASK} is open"


def test_a_bad_pattern_is_an_error_that_names_it() -> None:
    with pytest.raises(ValueError, match=r"--redact '\(unclosed'"):
        Redaction.with_patterns(["(unclosed"])


def test_long_strings_are_cut_with_their_size() -> None:
    redacted = Redaction(max_chars=10).value({"content": "x" * 5_000})
    assert redacted == {"content": "x" * 10 + "… [cut: 5,000 characters in all]"}


def test_long_arrays_and_objects_are_cut_with_what_was_left_out() -> None:
    redaction = Redaction(max_items=3)
    assert redaction.value(list(range(10))) == [0, 1, 2, "[cut: 7 more items]"]
    cut = redaction.value({f"k{i}": i for i in range(5)})
    assert cut == {"k0": 0, "k1": 1, "k2": 2, "…": "[cut: 2 more members]"}


def test_a_secret_is_masked_before_a_cut_could_show_half_of_it() -> None:
    secret = "ghp_" + "a1B2c3D4e5" * 3
    redacted = Redaction(max_chars=20).value("see " + secret)
    assert "ghp_" not in redacted and redacted.startswith("see " + MASK)
