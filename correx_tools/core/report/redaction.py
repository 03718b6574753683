"""Masking secrets and cutting large values before a session's data leaves the library.

A report is a file people attach to bug reports and chat threads, and the
debugger's pages are read on shared screens, so anything that looks like a
credential is masked before it is shown, and large payloads are cut to a size a
page can hold. The rules err toward masking: a masked word costs a reader a
little, a leaked key costs its owner a rotation.

Secrets are recognised by shape and by name:

* by shape: the rules of `secret_rules` (the gitleaks secret scanner's rule set
  and this project's own, in ``rules/``) and the caller's ``patterns``
  (``--redact``), every one RE2, so masking is linear in the text whatever it
  holds (`secret_scan` says how it stays fast);
* by name: a JSON object's member whose name says secret (`SECRET_NAMES`:
  ``password``, ``auth``, ``cookie``, ``passphrase``, ``credentials``,
  ``apiKey``, ...) has every string and number inside it masked whatever it
  looks like.

A value is masked whole, and only then cut (`short_text`, `value`), so a
secret is never half shown at a cut; `masked` masks a JSON value without
cutting it, for views that split it into lines or cut it their own way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, final

import re2

from .secret_rules import builtin_rules, user_rules
from .secret_scan import Scanner, masked_bytes

MASK = "[REDACTED]"
"""What a secret is replaced with."""
_MASK = MASK.encode("ascii")

SECRET_NAMES = re2.compile(
    r"^(?:(?i:(?:.*[_.-])?(?:password|passwd|passphrase|pwd|secret|client[_-]?secret"
    r"|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|signing[_-]?key"
    r"|encryption[_-]?key|token|access[_-]?token|refresh[_-]?token|auth|authorization"
    r"|cookie|credentials?))|.*[a-z0-9](?:Password|Passwd|Passphrase|Pwd|Secret|SecretKey"
    r"|ApiKey|AccessKey|PrivateKey|SigningKey|EncryptionKey|Token|AccessToken|RefreshToken"
    r"|Auth|Authorization|Cookie|Credentials?))$"
)
"""Object member names whose values are masked whole, whatever they look like (RE2: ``.match``
a name). The name ends with the word: ``db_password``, ``X-Auth``, ``secretAccessKey``;
``max_tokens`` and ``author`` are no secrets."""

_MEMO_CHARS = 256, 32_768
"""Strings of these lengths are masked once and kept (ids and names, asked for again and
again; a shorter one costs less to mask than to keep); the kept ones are let go when they
add up to `_MEMO_TOTAL` characters."""
_MEMO_TOTAL = 8_000_000


@final
@dataclass(frozen=True, slots=True)
class Redaction:
    """How to redact: extra patterns, and the sizes past which values are cut.

    ``patterns`` are regular expressions in RE2's syntax (no lookaround or
    backreferences) whose matches are masked too; one RE2 refuses, or one that
    matches an empty text, is a ``ValueError`` naming it. ``max_chars`` cuts a
    longer string, ``max_items`` a longer array or object, each with a note of how
    much was cut.

    >>> Redaction().text("PGPASSWORD=hunter2 psql")
    'PGPASSWORD=[REDACTED] psql'
    """

    patterns: tuple[str, ...] = ()
    max_chars: int = 2_000
    max_items: int = 100
    _own: Scanner | None = field(init=False, repr=False, compare=False)
    _memo: dict[str, str] = field(init=False, repr=False, compare=False)
    _memo_size: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.max_chars < 1 or self.max_items < 1:
            raise ValueError("max_chars and max_items must be at least 1")
        own = None
        if self.patterns:
            own = Scanner(user_rules(self.patterns))
            own.check()  # a pattern RE2 refuses is refused now, by name
            for pattern in self.patterns:
                if re2.fullmatch(pattern.encode("utf-8"), b"") is not None:
                    raise ValueError(
                        f"--redact {pattern!r}: matches an empty text, so it would mask "
                        "nothing and cost a search at every character"
                    )
        object.__setattr__(self, "_own", own)
        object.__setattr__(self, "_memo", {})
        object.__setattr__(self, "_memo_size", [0])

    @staticmethod
    def with_patterns(patterns: Iterable[str], **sizes: int) -> Redaction:
        """A redaction with the caller's patterns (RE2 syntax); a bad one is a ``ValueError``
        naming it."""
        return Redaction(tuple(patterns), **sizes)

    def text(self, value: str) -> str:
        """``value`` with every secret masked (not cut)."""
        if not value:
            return value
        short = _MEMO_CHARS[0] < len(value) <= _MEMO_CHARS[1]
        if short:
            kept = self._memo.get(value)
            if kept is not None:
                return kept
        data = value.encode("utf-8", "surrogatepass")
        spans = default_scanner().find(data)
        if self._own is not None:
            spans += self._own.find(data)
        masked = value
        if spans:
            masked = masked_bytes(data, spans, _MASK).decode("utf-8", "surrogatepass")
        if short:
            self._keep(value, masked)
        return masked

    def short_text(self, value: str) -> str:
        """``value`` masked, then cut to ``max_chars``."""
        return self._cut(self.text(value))

    def value(self, value: Any) -> Any:
        """A JSON value (thawed: dicts, lists, scalars) with secrets masked and large parts
        cut; a new value, the argument untouched."""
        return self._walk(value, cut=True, named=False)

    def masked(self, value: Any) -> Any:
        """A JSON value with secrets masked, by shape and by member name, and nothing cut;
        a new value, the argument untouched."""
        return self._walk(value, cut=False, named=False)

    def _walk(self, value: Any, *, cut: bool, named: bool) -> Any:
        """``value`` masked (everything in it, for a value held by a secret's name)."""
        if isinstance(value, str):
            if named and value:
                return MASK
            return self.short_text(value) if cut else self.text(value)
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int | float):
            return MASK if named else value
        if isinstance(value, Mapping):
            items = list(value.items())
            kept = items[: self.max_items] if cut else items
            out: dict[str, Any] = {}
            for key, member in kept:
                name = str(key)
                secret = named or SECRET_NAMES.match(name) is not None
                out[self.text(name)] = self._walk(member, cut=cut, named=secret)
            if len(items) > len(kept):
                out["…"] = f"[cut: {len(items) - len(kept)} more members]"
            return out
        if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
            every = list(value)
            chosen = every[: self.max_items] if cut else every
            walked = [self._walk(item, cut=cut, named=named) for item in chosen]
            if len(every) > len(chosen):
                walked.append(f"[cut: {len(every) - len(chosen)} more items]")
            return walked
        return value

    def _cut(self, value: str) -> str:
        if len(value) <= self.max_chars:
            return value
        return f"{value[: self.max_chars]}… [cut: {len(value):,} characters in all]"

    def _keep(self, value: str, masked: str) -> None:
        size = self._memo_size
        if size[0] > _MEMO_TOTAL:
            self._memo.clear()
            size[0] = 0
        self._memo[value] = masked
        size[0] += len(value)


@functools.cache
def default_scanner() -> Scanner:
    """The scanner of the rules the package ships (built when first asked for)."""
    return Scanner(builtin_rules())


DEFAULT = Redaction()
"""The built-in rules with the default sizes."""
