"""What an Aider chat history looks like: the light test recognising tries on Markdown, kept
apart from the reader (`calls`), which is imported only when a history is read."""

from __future__ import annotations

import re2

FORMAT = "aider"
EXPECTED = "an Aider chat history: Markdown with '# aider chat started at' or '#### ' user lines"
HEADER = re2.compile(r"\A# aider chat started at ([0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8})")
"""A run's first line, with when it started (local time, no zone)."""
_OUTPUT_MARKERS = ("Applied edit to", "Tokens:", "Added ", "Commit ", "Run shell command", "aider")


def looks_like(text: str) -> bool:
    """Whether Markdown text is an Aider chat history."""
    head = text.split("\n", 400)[:400]
    if any(HEADER.match(line) for line in head):
        return True
    return any(line.startswith("#### ") for line in head) and any(
        line.startswith("> ") and line[2:].lstrip().startswith(_OUTPUT_MARKERS) for line in head
    )
