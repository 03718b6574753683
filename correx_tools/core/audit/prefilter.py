"""The secret rule's prefilter: whether a JSON value could hold anything masking would
change, answered by one RE2 pass over the JSON text the store holds it in.

Masking changes a string only where a rule matches, and a rule is tried only on a text
that holds one of its keywords, in any case (`secret_scan`); it changes a member by name
only when the name says secret (`SECRET_NAMES`), and every such name holds one of
`NAME_WORDS`. A JSON text spells every string and member name of its value as it is, but
for its escapes; no keyword or name word holds a quote, a backslash or a control
character (the characters escapes stand for besides ``\\u`` and ``\\/``), so when the text
holds no ``\\u`` or ``\\/`` escape, a keyword or name word in any string or name of the
value is in the text too (in any case: one RE2 set of them all reads the text, folding
case as the scanner's own keyword set does). A text that holds none of them, and no such
escape, cannot hold a secret: `secret_in` then skips its walk and its scan. The caller's
own patterns have no keywords: with them (or with a keyword the proof does not cover) the
prefilter always says maybe. ``tests/test_audit_prefilter.py`` holds it to the full scan.
"""

from __future__ import annotations

import functools
from typing import Any

from ..report.redaction import Redaction, default_scanner
from ..report.secret_scan import keyword_set

NAME_WORDS = (
    "passw",
    "passphrase",
    "pwd",
    "secret",
    "key",
    "token",
    "auth",
    "cookie",
    "credential",
)
"""A word every name `SECRET_NAMES` matches holds (any case)."""


def may_hold_secret(text: str, redaction: Redaction) -> bool:
    """Whether the JSON value spelled in ``text`` could hold a secret (see the module
    docstring): false only where `secret_in` would find none."""
    words = _words()
    if words is None or redaction.patterns or "\\u" in text or "\\/" in text:
        return True  # an escape could stand for a keyword's character
    found = words[0].Match(text.encode("utf-8", "surrogatepass"))
    return bool(found != [words[1]])  # the set's end-of-text pattern alone: no word


@functools.cache
def _words() -> tuple[Any, int] | None:
    """One RE2 set of every keyword of the built-in rules and every name word, and the
    position of its end-of-text pattern; ``None`` where the module docstring's proof does
    not hold (a rule without keywords, a keyword with a quote, backslash or control
    character)."""
    rules = default_scanner().rules
    if any(not rule.keywords for rule in rules):
        return None
    words = sorted({*(k for rule in rules for k in rule.keywords), *NAME_WORDS})
    if any(c in '"\\' or ord(c) < 0x20 for word in words for c in word):
        return None
    return keyword_set(words), len(words)
