"""A `LongText` answers what its whole answers, or refuses: the readers' questions that look
past its first characters (a Codex output's last line, a Gemini CLI output's last exit
code) give what they give on the whole text, whatever the pieces it is read again in.

Each text is drawn from the words those patterns look for, held as a long text of a few
characters read again in pieces of a drawn size, and asked both ways.
"""

from __future__ import annotations

from collections.abc import Iterator
from hashlib import sha256

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools.shell.transcripts.agents.codex import calls as codex
from correx_tools.shell.transcripts.agents.gemini import calls as gemini
from correx_tools.shell.transcripts.common import long_text
from correx_tools.shell.transcripts.common.long_text import (
    LongText,
    Untrimmable,
    blank,
    joined,
    tail,
)

KEPT = 6
_WORDS = ["\n", " ", "\t", "\r", "aborted", " by user", " after ", "1", "2.5", "s", "x", "-", "é"]
WORDS = st.sampled_from([*_WORDS, "Exit Code: "])
TEXTS = st.lists(WORDS, max_size=40).map("".join)


def held(text: str, piece: int) -> str:
    """``text`` as a `LongText` read again in pieces of ``piece`` characters (itself when it
    is no longer than `KEPT`)."""
    if len(text) <= KEPT:
        return text

    def pieces() -> Iterator[str]:
        return (text[at : at + piece] for at in range(0, len(text), piece))

    data = text.encode("utf-8")
    return LongText(text[:KEPT], length=len(text), size=len(data),
                    digest=sha256(data).hexdigest(), pieces=pieces)  # fmt: skip


def asked(question: object, text: str) -> object:
    try:
        return question(text)  # type: ignore[operator]
    except Untrimmable:
        return Untrimmable


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(1, 9), st.integers(1, 12))
def test_a_long_text_answers_as_its_whole_or_refuses(text: str, piece: int, last: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_text, "KEPT", KEPT)
        patch.setattr(codex, "_LAST", last)
        patch.setattr(gemini, "_OVERLAP", 23)  # a match of 22 characters and the next one
        long = held(text, piece)
        for question in (codex._aborted, gemini._last_exit_code, blank):
            answer = asked(question, long)
            assert answer is Untrimmable or answer == question(text), question
        assert tail(long, last) == text[-last:]
        assert joined("\n", [long, text]) == f"{text}\n{text}"


def test_a_last_line_past_what_is_looked_at_is_refused() -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_text, "KEPT", KEPT)
        patch.setattr(codex, "_LAST", 8)
        assert asked(codex._aborted, held("x\naborted after 123456.7s  ", 3)) is Untrimmable
        assert asked(codex._aborted, held("x\nok\naborted", 3)) is True
        assert asked(codex._aborted, held("aborted\nx\nyz", 3)) is False
