"""The secret rule's prefilter never skips a secret: where it says a JSON text cannot hold
one, the full scan finds none, and a session audits the same with and without it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from correx_tools import SQLiteEventStore
from correx_tools.core.audit import rules
from correx_tools.core.audit.prefilter import NAME_WORDS, may_hold_secret
from correx_tools.core.lifecycle.events import StoredEvent
from correx_tools.core.report.redaction import SECRET_NAMES, Redaction
from correx_tools.shell.audit.policy_file import read_policy
from correx_tools.shell.audit.running import audit_store

from .strategies import completed, requested, stored

REDACTION = Redaction()
# Pieces that wake the rules or hide from a plain search: secrets, keywords, case-folded
# letters (KELVIN SIGN folds to k, LONG S to s), quotes, backslashes, control characters.
PIECES = st.sampled_from([
    "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AKIAIOSFODNN7EXAMPLE", "PGPASSWORD=hunter2", "Bearer abc.def.ghi", "api_key=Zx9",
    "\u212aey", "\u017fecret", "to\u212aen", "s.", "://", "\"", "\\", "\n", "\t", "\x00", "é",
    "-----BEGIN PRIVATE KEY-----", "plain words", " ", "a", "1",
])  # fmt: skip
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=5).map("".join)
NAMES = st.one_of(
    TEXTS,
    st.sampled_from(["password", "db_password", "apiKey", "X-Auth", "secretAccessKey", "pwd"]),
    st.sampled_from(["PASSWORD", "Cookie", "credentials", "max_tokens", "author", "path"]),
)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), TEXTS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3)),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from(["canonical", "ascii", "escaped"]))
def test_a_text_the_prefilter_passes_holds_no_secret(value: object, spelling: str) -> None:
    # ascii spells every other character as \\u, escaped every character of every string
    # (the same value): the prefilter must then say maybe
    if spelling == "escaped":
        text = _escaped(value)
    else:
        text = json.dumps(value, ensure_ascii=spelling == "ascii", sort_keys=True)
    assert json.loads(text) == value
    if not may_hold_secret(text, REDACTION):
        assert rules.secret_in(value, REDACTION) is None


@given(st.lists(st.sampled_from([*NAME_WORDS, "_", "-", ".", "x", "K", "\u212a"]), max_size=6))
def test_every_secret_name_holds_a_name_word(parts: list[str]) -> None:
    for name in ("".join(parts), "".join(parts).title(), "".join(parts).upper()):
        if SECRET_NAMES.match(name) is not None:
            assert may_hold_secret(json.dumps({name: 1}, ensure_ascii=False), REDACTION)


def _escaped(value: object) -> str:
    """``value`` as JSON whose strings spell every character as a ``\\u`` escape."""
    if isinstance(value, str):
        units = value.encode("utf-16-be", "surrogatepass")
        return (
            '"'
            + "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
            + '"'
        )
    if isinstance(value, dict):
        return "{" + ",".join(f"{_escaped(k)}:{_escaped(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_escaped(item) for item in value) + "]"
    return json.dumps(value)


def test_an_escape_or_the_callers_patterns_say_maybe() -> None:
    hidden = _escaped({"a": "sk_live_4eC39HqLyjWDarjtT1zdp7dc"})
    assert "live" not in hidden
    assert may_hold_secret(hidden, REDACTION)
    assert may_hold_secret('{"a":"x:\\/\\/y"}', REDACTION)
    assert may_hold_secret('{"a":"plain"}', Redaction.with_patterns(["plain"]))
    assert not may_hold_secret('{"a":"plain"}', REDACTION)


def _session(draw: st.DrawFn) -> list[StoredEvent]:
    events: list[object] = []
    for n in range(draw(st.integers(1, 4))):
        call = f"c{n}"
        tool = draw(st.sampled_from(["Bash", "WebFetch", "Read", "Write", "mystery"]))
        arguments = draw(st.dictionaries(NAMES, VALUES, max_size=3))
        events += [requested(call, tool=tool, **arguments), completed(call, output=draw(VALUES))]
    return stored(events)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.composite(_session)())
def test_a_session_audits_the_same_with_and_without_the_prefilter(
    events: list[StoredEvent],
) -> None:
    policy = read_policy(None)
    with tempfile.TemporaryDirectory() as folder, SQLiteEventStore(Path(folder) / "a") as store:
        store.import_events(events)
        fast = list(audit_store(store, policy))
        with mock.patch.object(rules, "may_hold_secret", return_value=True):
            slow = list(audit_store(store, policy))
    assert fast == slow
