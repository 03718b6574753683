"""The rules that say what a secret looks like, read from gitleaks' rule format.

The rules are data shipped inside the package (``rules/``, see its
``PROVENANCE.md``): ``gitleaks.toml``, the default rule set of the gitleaks
secret scanner copied as it is, and ``hand.toml``, this project's own rules in
the same format. A rule is a regular expression (RE2 syntax: linear in the text
it reads), the keywords one of which a text must hold before the expression is
tried, the group that is the secret, a least Shannon entropy the secret must
have, and allowlists of what looks like a secret and is not. Rules that need a
file's path (``path = ...``) are left out: a value in a session has none.

Reading the package's own data is no I/O of the world: it is part of the
program, read once, when the first value is masked, as a module's source is. It is read
from ``read.json`` (`READ`), the two files as read, written beside them.
`correx_tools.core.report.secret_scan` compiles and runs the rules.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, final

Target = Literal["secret", "match", "line"]
"""What an allowlist's regexes look at: the secret, the whole match, or its line."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Allowlist:
    """What a rule finds and is no secret: ``regexes`` (RE2, searched in ``target``) and
    ``stopwords`` (held by the secret, any case). With ``every``, each kind of check the
    allowlist has must hold; one that needs a path or a commit never does here."""

    target: Target = "secret"
    regexes: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    every: bool = False
    needs_path: bool = False


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """A text a rule must mask, and the secret in it that must not be left."""

    text: str
    secret: str


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One rule: where it came from, its RE2 ``regex``, its ``keywords`` (lower case; none:
    tried on every text), which group is the secret (``None``: the first non-empty one, or
    the whole match when there is none; 0: the whole match), the entropy a secret must
    exceed (0: any), its allowlists, and the examples it is tested with."""

    id: str
    source: str
    regex: str
    keywords: tuple[str, ...] = ()
    secret_group: int | None = None
    entropy: float = 0.0
    allowlists: tuple[Allowlist, ...] = ()
    examples: tuple[Example, ...] = ()
    harmless: tuple[str, ...] = ()


def parse_rules(files: Sequence[tuple[str, str]]) -> tuple[Rule, ...]:
    """The rules of gitleaks configuration files, each ``(name, text)``, in order: the first
    is the base, and a rule of a later file with the id of one of the base's replaces it.
    A file's allowlists apply to its own rules (gitleaks' global allowlist), or, with
    ``targetRules``, to the rules so named in any file. A malformed file is a
    ``ValueError`` naming it."""
    import tomllib  # noqa: PLC0415 - the shipped rules are read as JSON (`READ`)

    configs = []
    for source, text in files:
        try:
            configs.append((source, tomllib.loads(text)))
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"{source}: {error}") from None
    return rules_of(configs)


def rules_of(configs: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[Rule, ...]:
    """The rules of gitleaks configurations as read (`parse_rules`), each ``(name, table)``."""
    targeted: dict[str, list[Allowlist]] = {}
    for _, config in configs:
        for found in config.get("allowlists", ()):
            for rule in found.get("targetRules", ()):
                targeted.setdefault(rule, []).append(_allowlist(found))
    replaced = {found["id"] for _, config in configs[1:] for found in config.get("rules", ())}
    rules = []
    for number, (source, config) in enumerate(configs):
        shared = [_allowlist(config["allowlist"])] if "allowlist" in config else []
        shared += [_allowlist(a) for a in config.get("allowlists", ()) if "targetRules" not in a]
        for found in config.get("rules", ()):
            if "path" in found or "regex" not in found:
                continue  # a rule about files' paths: a value in a session has none
            if number == 0 and found["id"] in replaced:
                continue  # a later file's rule of the same id replaces it
            own = [_allowlist(a) for a in found.get("allowlists", ())]
            if "allowlist" in found:
                own.append(_allowlist(found["allowlist"]))
            every = (*shared, *own, *targeted.get(found["id"], ()))
            rules.append(
                Rule(
                    id=str(found["id"]),
                    source=source,
                    regex=str(found["regex"]),
                    keywords=tuple(str(k).lower() for k in found.get("keywords", ())),
                    secret_group=found.get("secretGroup") or None,
                    entropy=float(found.get("entropy", 0.0)),
                    # one that needs a path, and all its checks to hold, never holds here
                    allowlists=tuple(a for a in every if not (a.needs_path and a.every)),
                    examples=tuple(Example(**example) for example in found.get("examples", ())),
                    harmless=tuple(found.get("harmless", ())),
                )
            )
    return tuple(rules)


def _allowlist(found: Mapping[str, Any]) -> Allowlist:
    target = found.get("regexTarget", "secret")
    if target not in ("secret", "match", "line"):
        raise ValueError(f"regexTarget {target!r} is not secret, match or line")
    return Allowlist(
        target=target,
        regexes=tuple(found.get("regexes", ())),
        stopwords=tuple(str(word).lower() for word in found.get("stopwords", ())),
        every=found.get("condition", "OR").upper() == "AND",
        needs_path=bool(found.get("paths") or found.get("commits")),
    )


RULE_FILES = ("gitleaks.toml", "hand.toml")
"""The package's rule files, in the order their rules are tried."""
READ = "read.json"
"""The rule files as `tomllib` reads them, in one JSON document (each file's name: its
table), shipped beside them: what `builtin_rules` reads, some thirty times faster than
the TOML (every command that masks a title pays for it when it starts).
``tests/test_secret_rules.py`` holds it equal to the files, and writes it again when run
as ``python -m tests.test_secret_rules``."""


@functools.cache
def builtin_rules() -> tuple[Rule, ...]:
    """Every rule the package ships (read once)."""
    shipped = importlib.resources.files(__package__).joinpath("rules").joinpath(READ)
    read = json.loads(shipped.read_text("utf-8"))
    return rules_of([(name, read[name]) for name in RULE_FILES])


def rule_files() -> list[tuple[str, str]]:
    """The package's rule files, each ``(name, text)``: what `READ` is read from."""
    folder = importlib.resources.files(__package__).joinpath("rules")
    return [(name, folder.joinpath(name).read_text("utf-8")) for name in RULE_FILES]


def user_rules(patterns: Sequence[str]) -> tuple[Rule, ...]:
    """The caller's own patterns (``--redact``) as rules: tried on every text, the whole
    match masked."""
    return tuple(
        Rule(id=f"--redact {pattern!r}", source="--redact", regex=pattern, secret_group=0)
        for pattern in patterns
    )
