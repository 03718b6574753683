"""A search hit's snippet: its value masked whole (`Redaction.text`), then cut around the
first term, so a secret is never half shown at a cut."""

from __future__ import annotations

from ..report.redaction import Redaction
from .words import Term, first_at

SNIPPET_CHARS = 160
"""The longest snippet; a cut is marked with an ellipsis."""


def snippet(text: str, asked: tuple[Term, ...], redaction: Redaction) -> str:
    """``text`` masked, then cut to `SNIPPET_CHARS` around where the first term is."""
    masked = redaction.text(text)
    start = max(0, first_at(masked, asked) - SNIPPET_CHARS // 4)
    end = start + SNIPPET_CHARS
    cut = masked[start:end]
    return ("…" if start else "") + cut + ("…" if end < len(masked) else "")
