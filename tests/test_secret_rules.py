"""The masking's rules: the shipped rule set loads and compiles, each rule masks its examples
and spares its harmless text, every kind of secret a session holds is masked, a clean real
transcript keeps its text, and the fast machinery equals the rules read naively.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
import uuid
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import re2
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import InMemoryEventStore, SessionId
from correx_tools.core.replay.fold import fold_events
from correx_tools.core.replay.projection import ToolProjector
from correx_tools.core.report.re2_spans import compiled, matches, without_groups
from correx_tools.core.report.redaction import DEFAULT, MASK, SECRET_NAMES, Redaction
from correx_tools.core.report.redaction import default_scanner as scanner
from correx_tools.core.report.secret_rules import (
    READ,
    Rule,
    builtin_rules,
    parse_rules,
    rule_files,
)
from correx_tools.core.report.secret_scan import Scanner, entropy, masked_bytes
from correx_tools.core.tools.json_values import thaw_json
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .transcript_samples import samples

RULES = parse_rules(rule_files())
"""The rule files read as they are written (`builtin_rules` reads them as JSON: held equal
below)."""


def test_the_rule_set_ships_with_its_provenance_and_licence() -> None:
    folder = resources.files("correx_tools.core.report").joinpath("rules")
    provenance = folder.joinpath("PROVENANCE.md").read_text("utf-8")
    assert "github.com/gitleaks/gitleaks" in provenance
    assert "b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b" in provenance
    assert "MIT License" in folder.joinpath("gitleaks.LICENSE").read_text("utf-8")
    sources = {rule.source for rule in RULES}
    assert sources == {"gitleaks.toml", "hand.toml"}
    assert sum(rule.source == "gitleaks.toml" for rule in RULES) > 200


def rule_files_read() -> dict[str, Any]:
    """The package's rule files as `tomllib` reads them: what ``READ`` must hold."""
    return {name: tomllib.loads(text) for name, text in rule_files()}


def test_the_rules_read_when_masking_are_the_rule_files_as_read() -> None:
    shipped = resources.files("correx_tools.core.report").joinpath("rules").joinpath(READ)
    assert json.loads(shipped.read_text("utf-8")) == rule_files_read(), (
        f"a rule file changed: write {READ} again with python -m tests.test_secret_rules"
    )
    assert builtin_rules() == parse_rules(rule_files())


def test_every_rule_compiles_with_re2() -> None:
    scanner().check()  # a rule RE2 refuses is a ValueError naming it
    for rule in RULES:
        assert re2.compile(without_groups(rule.regex)).groups == 0, rule.id


@pytest.mark.parametrize("rule", [r for r in RULES if r.examples or r.harmless], ids=str)
def test_each_rule_masks_its_examples_and_spares_its_harmless_text(rule: Rule) -> None:
    alone = Scanner([rule])
    for example in rule.examples:
        data = example.text.encode()
        masked = masked_bytes(data, alone.find(data), MASK.encode()).decode()
        assert example.secret not in masked and MASK in masked, (rule.id, masked)
        assert example.secret not in DEFAULT.text(example.text)
    for text in rule.harmless:
        assert DEFAULT.text(text) == text, rule.id


# Each kind the masking did not know before, as it turns up in a session; old rules let all
# of them through.
KINDS = {
    "PGP private key": (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGX0aBcBCAC7vXq9RmT2kP4s\n=Xq7Z\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBGX0aBcBCAC7vXq9RmT2kP4s",
    ),
    "PuTTY private key": (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n"
        "AAAAIFf8qZ0xT2rkWm9LpVb3\nPrivate-MAC: 5e7b0c1d9a",
        "AAAAIFf8qZ0xT2rkWm9LpVb3",
    ),
    "DB_PASS=": ("export DB_PASS=Tr0ub4dor3x", "Tr0ub4dor3x"),
    "MYSQL_PWD=": ("MYSQL_PWD=zebra42 mysql -u root", "zebra42"),
    "JWT_SIGNING_KEY=": ("JWT_SIGNING_KEY=jwt-sapphire", "jwt-sapphire"),
    "ENCRYPTION_KEY=": ("ENCRYPTION_KEY=enc-marigold-77", "enc-marigold-77"),
    "AUTH=": ("AUTH=letmein-otter ./run", "letmein-otter"),
    "short Bearer": ("curl -H 'Authorization: Bearer q7Zk' https://x", "q7Zk"),
    "short password=": ("mysql --password=ox9 -u root", "password=ox9"),
    "Slack webhook URL": (
        "curl -X POST https://hooks.slack.com/services/T024BE7LD/B02K9EXAMPLE/Xk9fP2mQ7vLs4Rt8Wn3Y",
        "Xk9fP2mQ7vLs4Rt8Wn3Y",
    ),
    "bare AWS secret next to its key id": (
        "deploy,AKIAZ3MXQ7EXAMPLE4QP,Hx8vR2mK9pLq3TzW7nYb5cFd1gJs6uAe0iOk4Wy+\n",
        "Hx8vR2mK9pLq3TzW7nYb5cFd1gJs6uAe0iOk4Wy+",
    ),
    "JSON password member in a log line": ('body={"password": "x", "user": "me"}', '"x"'),
    "JSON auth member in a log line": ('upstream {"auth": "basic-otter-99"} ok', "basic-otter-99"),
    "consecutive NAME=value lines": ("DB_PASS=one1\nMYSQL_PWD=two2\n", "two2"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_secret_a_session_holds_is_masked(kind: str) -> None:
    text, secret = KINDS[kind]
    masked = DEFAULT.text(text)
    assert secret not in masked and MASK in masked, masked


@pytest.mark.parametrize(
    "name", ["auth", "cookie", "passphrase", "credentials", "password", "db_password",
             "X-Auth-Token", "secretAccessKey", "clientSecret", "Set-Cookie"]
)  # fmt: skip
def test_members_named_as_secrets_have_everything_in_them_masked(name: str) -> None:
    value = {name: {"user": "me", "pass": ["hunter2", 1234]}, "path": "a/b"}
    assert DEFAULT.masked(value) == {name: {"user": MASK, "pass": [MASK, MASK]}, "path": "a/b"}
    assert SECRET_NAMES.match(name) is not None


@pytest.mark.parametrize("name", ["max_tokens", "author", "token_type", "auth_url", "keyboard"])
def test_member_names_that_only_contain_a_secret_word_are_not_secrets(name: str) -> None:
    assert DEFAULT.masked({name: "plain"}) == {name: "plain"}


def test_a_pattern_re2_refuses_is_an_error_that_names_it() -> None:
    with pytest.raises(ValueError, match=r"--redact '\(\?<!x\)y'"):
        Redaction.with_patterns([r"(?<!x)y"])  # lookbehind: RE2 has none
    with pytest.raises(ValueError, match=r"--redact 'x\*': matches an empty text"):
        Redaction.with_patterns([r"x*"])
    assert Redaction.with_patterns([r"ACME-\d{6}"]).text("ACME-123456 x") == f"{MASK} x"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for member in value.values() for s in _strings(member)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_a_clean_real_transcript_keeps_its_text() -> None:
    """Every call of every real sample (code read and written, commands and their output,
    git hashes, UUIDs) is left as it is."""
    changed = []
    for sample in samples():
        store = InMemoryEventStore()
        for result in import_transcripts(sample.path, store):
            session = SessionId(result.unwrap().session_id)
            state = fold_events(ToolProjector(), list(store.read(session))).unwrap().state
            for record in state.records():
                values = [thaw_json(record.request.arguments)]
                if record.receipt is not None:
                    values.append(thaw_json(record.receipt.output))
                for value in values:
                    if DEFAULT.masked(value) != value:
                        changed += [s for s in _strings(value) if DEFAULT.text(s) != s]
    assert changed == []


def test_hashes_uuids_and_ordinary_code_keep_their_text() -> None:
    commits = [hashlib.sha1(str(n).encode()).hexdigest() for n in range(200)]
    log = "\n".join(f"commit {c}\nAuthor: A <a@example.com>\n\n    fix #{n}\n" for n, c in
                    enumerate(commits))  # fmt: skip
    uuids = "\n".join(str(uuid.uuid5(uuid.NAMESPACE_DNS, str(n))) for n in range(200))
    sums = "\n".join(f"{hashlib.sha256(c.encode()).hexdigest()}  dist/{c[:8]}.whl" for c in
                     commits)  # fmt: skip
    code = "\n".join([
        "secret = named or SECRET_NAMES.match(name)",
        "authorization = headers.get('authorization')",
        "def allows(self, data: bytes, secret: Span, match: Span) -> bool:",
        "password = getpass.getpass()",
        "token = tokenizer.encode(text)",
        "max_tokens = 4096",
        "if password == expected: return True",
        "headers = {'Authorization': f'Bearer {self.token}'}",
        "parser.add_argument('--password', help='the password')",
        "api_key = os.environ['OPENAI_API_KEY']",
    ])  # fmt: skip
    for text in (log + " sourcegraph", uuids, sums, code):
        assert DEFAULT.text(text) == text


def test_the_rules_apply_to_json_members_at_any_depth_and_in_text() -> None:
    value = {"args": {"headers": {"Cookie": "session=abc"}}, "text": '{"cookie": "abc"}'}
    assert json.dumps(DEFAULT.masked(value)).count(MASK) == 2


# The machinery against the rules read naively: for each rule, the binding's own search
# over the whole text, each match's groups read from the match itself.

PIECES = [
    "password=", "DB_PASS=", "x9", "Bearer ", "token ", "AKIA", "IOSFODNN7EXAMPLE", "\n",
    " ", '"auth": "', '"', "ghp_", "a1B2c3D4e5" * 2, "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "é", "://u:", "@h", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
    "secret", "_KEY=", "eyJ", ".", "abc", "=",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def _naive(n: int, data: bytes) -> list[tuple[int, int]]:
    """What rule ``n`` must find: each match by the binding's own search, its secret group
    read from it, checked by entropy and the rule's allowlists."""
    rule = scanner().rules[n]
    regex, found, pos = re2.compile(rule.regex.encode()), [], 0
    while pos <= len(data) and (match := regex.search(data, pos)) is not None:
        start, end = match.span()
        pos = end - 1 if end - 1 > start else end if end > start else end + 1
        while start < end and data[start] == 10:
            start += 1
        while end > start and data[end - 1] == 10:
            end -= 1
        groups = [match.span(g) for g in range(1, regex.groups + 1)]
        if rule.secret_group is not None:
            secret = (start, end) if rule.secret_group == 0 else groups[rule.secret_group - 1]
        else:
            secret = next((g for g in groups if g[0] < g[1]), (start, end))
        if secret[0] >= secret[1]:
            continue
        if rule.entropy and entropy(data[secret[0] : secret[1]]) <= rule.entropy:
            continue
        if not scanner().allows(n, data, secret, (start, end)):
            found.append(secret)
    return found


@given(texts)
def test_finding_secrets_equals_reading_each_match_with_its_groups(text: str) -> None:
    data = text.encode()
    for n in scanner().woken(data):
        assert scanner().find(data, [n]) == _naive(n, data), scanner().rules[n].id


@given(texts)
def test_a_rule_not_woken_by_its_keywords_is_one_whose_keywords_are_not_there(
    text: str,
) -> None:
    woken = set(scanner().woken(text.encode()))
    for n, rule in enumerate(scanner().rules):
        assert (n in woken) == any(k in text.lower() for k in rule.keywords), rule.id


def _masked_naively(data: bytes, spans: list[tuple[int, int]], mask: bytes) -> bytes:
    covered = [False] * len(data)
    for start, end in spans:
        if start >= end:
            continue
        first, last = start, end
        while first > 0 and 0x80 <= data[first] < 0xC0:
            first -= 1
        while last < len(data) and 0x80 <= data[last] < 0xC0:
            last += 1
        covered[first:last] = [True] * (last - first)
    out, i = b"", 0
    while i < len(data):
        if covered[i]:
            while i < len(data) and covered[i]:
                i += 1
            out += mask
        else:
            out, i = out + data[i : i + 1], i + 1
    return out


@given(texts, st.lists(st.tuples(st.integers(0, 200), st.integers(0, 60)), max_size=6))
def test_masking_spans_masks_each_run_of_them_once_and_keeps_whole_characters(
    text: str, spans: list[tuple[int, int]]
) -> None:
    data = text.encode()
    chosen = [(min(a, len(data)), min(a + b, len(data))) for a, b in spans]
    masked = masked_bytes(data, chosen, b"#")
    assert masked == _masked_naively(data, chosen, b"#")
    masked.decode("utf-8")  # whole characters only


def test_without_groups_matches_the_same_text_at_the_same_places() -> None:
    text = " ".join(example.text for rule in RULES for example in rule.examples).encode()
    for rule in RULES:
        plain = compiled(without_groups(rule.regex), rule.id)
        grouped = compiled(rule.regex, rule.id)
        assert [s[0] for s in matches(plain, text)] == [s[0] for s in matches(grouped, text)]


def test_a_gitleaks_file_with_targeted_and_global_allowlists_is_read_as_gitleaks_reads_it() -> None:
    first = """
[allowlist]
regexes = ['''^skip''']
[[rules]]
id = "a"
regex = '''key=(\\w+)'''
keywords = ["key"]
entropy = 1.0
[[rules]]
id = "by-path"
path = '''\\.env$'''
"""
    second = """
[[allowlists]]
targetRules = ["a"]
stopwords = ["example"]
"""
    [rule] = parse_rules([("first.toml", first), ("second.toml", second)])
    found = Scanner([rule])
    assert [found.find(t.encode()) for t in ("key=abcdef", "key=skipit", "key=myexample",
                                             "key=aaaa")] == [[(4, 10)], [], [], []]  # fmt: skip


if __name__ == "__main__":  # writes READ again from the rule files
    folder = Path(str(resources.files("correx_tools.core.report").joinpath("rules")))
    written = json.dumps(rule_files_read(), ensure_ascii=False, indent=1) + "\n"
    (folder / READ).write_text(written, encoding="utf-8")
