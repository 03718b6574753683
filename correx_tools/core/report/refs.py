"""How the page names a session or an invocation whose id the redaction masks.

An id is shown redacted, so the page cannot use what it shows to ask for it
again. Such an id is named by a *ref* instead: ``~`` and a digest of the id,
which says nothing about it. Every other id is its own ref, so links stay
readable: ``/sessions/run-1?invocation=call-7``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .redaction import Redaction

MARK = "~"


def ref_of(value: str, redaction: Redaction | None) -> str:
    """The ref of an id: the id itself unless the redaction changes it (or it starts with
    ``~``, which refs keep for digests)."""
    if not value.startswith(MARK) and (redaction is None or redaction.text(value) == value):
        return value
    import hashlib  # noqa: PLC0415 - seldom needed, and its OpenSSL is slow to load

    return MARK + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def is_digest(ref: str) -> bool:
    """Whether ``ref`` is a digest (rather than an id as it is)."""
    return len(ref) == 25 and ref.startswith(MARK) and all(c in "0123456789abcdef" for c in ref[1:])


def resolve(ref: str, candidates: Iterable[str], redaction: Redaction | None) -> str | None:
    """The id among ``candidates`` whose ref is ``ref`` (for a digest), or ``ref`` itself."""
    if not is_digest(ref):
        return ref
    for candidate in candidates:
        if ref_of(candidate, redaction) == ref:
            return candidate
    return None
