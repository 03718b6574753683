"""The conversation of an Aider chat history (the rules are in `calls`' docstring)."""

from __future__ import annotations

from datetime import datetime

import re2

from .....core.lifecycle.conversation import TokenUsage
from ...common.talk import MOST_COUNTED, Talk, too_many
from ...errors import Unreadable

_MODEL = re2.compile(r"\A(?:Main )?[Mm]odel: (\S{1,200})")
_MODEL_OPENINGS = ("Main model: ", "Main Model: ", "model: ", "Model: ")
"""How a line `_MODEL` matches begins (tested first: a string's test costs far less)."""
_TOKENS = "Tokens: "
_COUNT = re2.compile(
    r"([0-9][0-9,]{0,15})(?:\.([0-9]{1,3}))?([kM]?) (sent|received|cache write|cache hit)\b"
)
_UNMATCHED_END = "The SEARCH section must exactly match"
"""The last line of Aider's message on a block that failed to match (editblock_coder)."""
_SCALE = {"": 1, "k": 1000, "M": 1_000_000}
_PROMPTS = ("/ask ", "/code ", "/architect ", "/context ")
"""The commands whose rest is a prompt (any other ``/`` command is Aider's, not the model's)."""


class AiderTalk:
    """What a history says around its calls, read a line at a time: a user's message (its
    ``#### `` lines, one after another), the model's reply (none before the first message:
    a website copy's introduction), Aider's ``Main model:`` and ``Tokens:`` lines."""

    def __init__(self) -> None:
        self.talk = Talk()
        self.model: str | None = None
        self._asked: list[str] = []
        self._asked_at = 0
        self._spoken_to = False  # the model speaks after a user's message, never before
        self._unmatched = False  # Aider's last output says a block failed to match

    def user(self, words: str, number: int) -> None:
        """A ``#### `` line (``words``: after the marks)."""
        if not self._asked:
            self._asked_at = number
        self._asked.append(words)
        self._spoken_to = True
        self._unmatched = False

    def settle(self, at: datetime | None) -> None:
        """Any other line: a user's message read so far is whole."""
        if not self._asked:
            return
        text = "\n".join(self._asked).strip()
        self._asked = []
        if text.startswith(_PROMPTS):
            text = text.split(" ", 1)[1]
        elif text.startswith(("/", "!")):
            return  # a command of Aider's (``/run`` and ``!`` are calls)
        self.talk.prompt(text, at, (self._asked_at,))

    def reply(self, lines: list[tuple[int, str]], at: datetime | None) -> None:
        """The model's reply (its lines, numbered)."""
        if self._unmatched:
            # Aider's own message goes on without its "> " marks, to its fixed last line
            # (its block markers may split it, as they split the reply).
            ends = [k for k, (_, line) in enumerate(lines) if line.startswith(_UNMATCHED_END)]
            if not ends:
                return
            lines = lines[ends[0] + 1 :]
            self._unmatched = False
        if lines and self._spoken_to:
            text = "\n".join(line for _, line in lines).strip()
            self.talk.text(text, self.model, at, (lines[0][0],))

    def output(self, line: str, number: int, at: datetime | None) -> None:
        """One of Aider's ``> `` lines (less its mark)."""
        if "failed to match!" in line:
            self._unmatched = True
        model = _MODEL.match(line) if line.startswith(_MODEL_OPENINGS) else None
        if model is not None:
            self.model = model.group(1)
            return
        if line.startswith(_TOKENS):
            usage = _usage(line, number)
            if usage is not None:
                self.talk.usage(usage, self.model, at, (number,))


def _usage(line: str, number: int) -> TokenUsage | None:
    """``Tokens: 2.9k sent, 1.2k cache write, 20k cache hit, 141 received``: Aider's own
    rounding (one decimal under 10k; older releases wrote ``6,445``), read back as the
    counts it stands for; ``None`` for a line that states none. ``number`` is the line's."""
    counts = {"sent": 0, "received": 0, "cache write": 0, "cache hit": 0}
    found = False
    for count in _COUNT.finditer(line):
        whole, tenths, scale, what = count.groups()
        value = int(whole.replace(",", "")) * _SCALE[scale]
        if tenths:
            value += int(tenths) * _SCALE[scale] // 10 ** len(tenths)
        if value > MOST_COUNTED:
            raise Unreadable(f"line {number}", too_many(f"{what!r}", value))
        counts[what], found = value, True
    if not found:
        return None
    return TokenUsage(
        input=counts["sent"],
        output=counts["received"],
        cache_read=counts["cache hit"],
        cache_write=counts["cache write"],
    )
