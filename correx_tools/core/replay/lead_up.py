"""What led to a call: the prompt that started its turn, and the assistant's words and
reasoning just before it.

Read from the session's events before the call's request, walking back:

* the tool events and the token counts in between are passed over, so the calls
  one message asks for together (a ``text`` block, then two ``tool_use`` blocks)
  each have the words that message said before them;
* the words are the last run of the assistant's text and reasoning before the
  call, in the order they were said: the run ends at the first event before it
  that is neither (a tool event, a prompt);
* the prompt is the last one before the call; none before it (a session that
  records none, or a walk that ends first) is ``None``.

The walk looks at most ``limit`` events (`LOOKED_AT_MOST`), so the work per call is
bounded whatever the session's size; `LeadUp.whole` says whether it reached the
session's start or the prompt.

>>> from correx_tools.core.lifecycle.conversation import AssistantText, Prompt
>>> from correx_tools.core.lifecycle.conversation import conversation_event as said
>>> lead_up([(3, said(AssistantText(text="Let me look."))), (2, object()),
...          (1, said(Prompt(text="fix it")))]).prompt
Words(sequence=1, kind='prompt', text='fix it', model=None)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import final

from ..lifecycle.conversation import AssistantText, Prompt, Reasoning, Usage, conversation_of

LOOKED_AT_MOST = 5_000
"""How many events before a call the walk looks at, at most."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Words:
    """One thing said: ``kind`` is ``prompt``, ``text`` (the assistant's) or ``reasoning``."""

    sequence: int
    kind: str
    text: str
    model: str | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class LeadUp:
    """What led to a call: its turn's ``prompt``, the words ``before`` it (in order), and
    whether the walk was ``whole`` (it found the prompt, or the session's start)."""

    prompt: Words | None
    before: tuple[Words, ...]
    whole: bool


def lead_up(backwards: Iterable[tuple[int, object]], limit: int = LOOKED_AT_MOST) -> LeadUp:
    """What led to a call, from the events before its request, newest first, each with its
    sequence (see the module docstring)."""
    before: list[Words] = []
    run = "looking"  # then "in" (inside the run of words), then "done"
    for looked, (sequence, event) in enumerate(backwards):
        if looked >= limit:
            return LeadUp(prompt=None, before=tuple(reversed(before)), whole=False)
        said = conversation_of(event)
        if isinstance(said, Prompt):
            prompt = Words(sequence=sequence, kind="prompt", text=said.text)
            return LeadUp(prompt=prompt, before=tuple(reversed(before)), whole=True)
        if isinstance(said, AssistantText | Reasoning):
            if run != "done":
                kind = "text" if isinstance(said, AssistantText) else "reasoning"
                before.append(Words(sequence=sequence, kind=kind, text=said.text, model=said.model))
                run = "in"
        elif run == "in" and not isinstance(said, Usage):
            run = "done"
    return LeadUp(prompt=None, before=tuple(reversed(before)), whole=True)
