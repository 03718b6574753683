"""Masking secrets and cutting large values before a session's data leaves the library.

A report is a file people attach to bug reports and chat threads, so anything
that looks like a credential is masked before it is written, and large payloads
are cut to a size a page can hold. The rules err toward masking: a masked word
costs a reader a little, a leaked key costs its owner a rotation.

Secrets are recognised by shape (a key's well-known prefix, a bearer token, a
private key block, a password in a URL, ``password=...``) and by the name of
the object member that holds them (``"api_key": "..."``); ``Redaction.patterns``
adds a caller's own regular expressions. Cutting happens after masking, so a
secret is never half shown at a cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, final

MASK = "[REDACTED]"
"""What a secret is replaced with."""

_ALNUM_BEFORE = r"(?<![A-Za-z0-9_])"

# Each pattern's whole match is a secret, except where a group named ``keep`` says
# which leading part stays (the word "Bearer", the member name in ``password=``).
_SHAPES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, flags)
    for pattern, flags in (
        # A PEM private key, to its END line (or to the end of the text, if cut).
        (
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY-----|.*)",
            re.S,
        ),
        # Keys with a vendor's prefix: OpenAI and Anthropic, GitHub, GitLab, AWS,
        # Slack, Google, Hugging Face, Stripe; and JSON Web Tokens.
        (_ALNUM_BEFORE + r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}", 0),
        (_ALNUM_BEFORE + r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", 0),
        (_ALNUM_BEFORE + r"glpat-[A-Za-z0-9_-]{20,}", 0),
        (_ALNUM_BEFORE + r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])", 0),
        (_ALNUM_BEFORE + r"xox[abposr]-[A-Za-z0-9-]{10,}", 0),
        (_ALNUM_BEFORE + r"AIza[0-9A-Za-z_-]{35}", 0),
        (_ALNUM_BEFORE + r"hf_[A-Za-z0-9]{30,}", 0),
        (_ALNUM_BEFORE + r"(?:sk|rk)_live_[A-Za-z0-9]{16,}", 0),
        (_ALNUM_BEFORE + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", 0),
        # An HTTP credential after its scheme word.
        (r"(?P<keep>\b(?:[Bb]earer|[Bb]asic|[Tt]oken)\s+)[A-Za-z0-9._~+/=-]{8,}", 0),
        # A password in a URL: scheme://user:password@host.
        (r"(?P<keep>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:)[^\s@/]+(?=@)", 0),
        # name=value and name: value where the name says it is a secret (PASSWORD=...,
        # "api_key": "...", OPENAI_API_KEY=...).
        (
            # The match starts at the word that says secret (a prefix such as OPENAI_
            # stays as it is): scanning back for the name's start costs ten times more.
            r"(?P<keep>(?i:(?:password|passwd|secret|api[_-]?key|access[_-]?key"
            r"|auth[_-]?token|access[_-]?token|refresh[_-]?token|private[_-]?key|token)"
            r"[A-Za-z0-9_]*)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,;]{4,}",
            0,
        ),
    )
)

# Each shape holds one of these (lower-cased): a string with none of them, as most are,
# is let through after a few substring tests instead of thirteen searches.
_MARKERS = (
    "key", "token", "secret", "passw", "bearer", "basic", "://", "sk-", "ghp_", "gho_", "ghu_",
    "ghs_", "ghr_", "github_pat_", "glpat-", "akia", "asia", "xox", "aiza", "hf_", "_live_",
    "eyj",
)  # fmt: skip
_ANY_MARKER = re.compile("|".join(re.escape(marker) for marker in _MARKERS))

SECRET_NAMES = re.compile(
    r"(?i)^(?:.*[_-])?(?:password|passwd|passphrase|secret|client[_-]?secret|api[_-]?key|apikey"
    r"|access[_-]?key|token|access[_-]?token|refresh[_-]?token|auth|authorization|cookie"
    r"|private[_-]?key|credentials?)$"
)
"""Object member names whose string values are masked whole, whatever they look like."""


@final
@dataclass(frozen=True, slots=True)
class Redaction:
    """How to redact: extra patterns, and the sizes past which values are cut.

    ``patterns`` are regular expressions (Python syntax) whose matches are masked
    too; ``max_chars`` cuts a longer string, ``max_items`` a longer array or
    object, each with a note of how much was cut.
    """

    patterns: tuple[re.Pattern[str], ...] = ()
    max_chars: int = 2_000
    max_items: int = 100
    _all: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_chars < 1 or self.max_items < 1:
            raise ValueError("max_chars and max_items must be at least 1")
        object.__setattr__(self, "_all", (*self.patterns, *_SHAPES))

    @staticmethod
    def with_patterns(patterns: Iterable[str], **sizes: int) -> Redaction:
        """A redaction with the caller's patterns compiled; a bad one is a ``ValueError``
        naming it."""
        compiled = []
        for pattern in patterns:
            try:
                compiled.append(re.compile(pattern))
            except re.error as error:
                raise ValueError(f"--redact {pattern!r}: {error}") from None
        return Redaction(tuple(compiled), **sizes)

    def text(self, value: str) -> str:
        """``value`` with every secret masked (not cut)."""
        if not self.patterns and _ANY_MARKER.search(value.lower()) is None:
            return value
        for pattern in self._all:
            if pattern.search(value) is not None:
                value = pattern.sub(_masked, value)
        return value

    def short_text(self, value: str) -> str:
        """``value`` masked, then cut to ``max_chars``."""
        return self._cut(self.text(value))

    def value(self, value: Any) -> Any:
        """A JSON value (thawed: dicts, lists, scalars) with secrets masked and large parts
        cut; a new value, the argument untouched."""
        if isinstance(value, str):
            return self.short_text(value)
        if isinstance(value, Mapping):
            items = list(value.items())
            out: dict[str, Any] = {}
            for key, member in items[: self.max_items]:
                name = self.text(str(key))
                if isinstance(member, str) and SECRET_NAMES.match(str(key)) and member:
                    out[name] = MASK
                else:
                    out[name] = self.value(member)
            if len(items) > self.max_items:
                out["…"] = f"[cut: {len(items) - self.max_items} more members]"
            return out
        if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            kept = [self.value(item) for item in list(value)[: self.max_items]]
            if len(value) > self.max_items:
                kept.append(f"[cut: {len(value) - self.max_items} more items]")
            return kept
        return value

    def _cut(self, value: str) -> str:
        if len(value) <= self.max_chars:
            return value
        return f"{value[: self.max_chars]}… [cut: {len(value):,} characters in all]"


def _masked(match: re.Match[str]) -> str:
    keep = match.groupdict().get("keep")
    return (keep or "") + MASK


DEFAULT = Redaction()
"""The built-in rules with the default sizes."""
