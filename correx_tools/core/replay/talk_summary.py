"""A session's conversation at a glance: its title, its models and the tokens it spent.

Summed over the session's conversation events (`correx_tools.core.lifecycle.conversation`)
one at a time, so a summary of a session that grew goes on from the one before
(`TalkSummary.taking`). The title is the agent's own where the transcript records one
(its description's), else the first prompt's first line, which a view masks and then
cuts to `TITLE_CHARS` (`cut_title`).

>>> from correx_tools.core.lifecycle.conversation import Prompt, conversation_event
>>> TalkSummary().taking([conversation_event(Prompt(text="fix the tests\\nplease"))]).title
'fix the tests'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import final

from ..lifecycle.conversation import (
    AssistantText,
    ConversationEvent,
    Prompt,
    Reasoning,
    TokenUsage,
    Usage,
    conversation_of,
)

TITLE_CHARS = 120
"""The longest title taken from a prompt."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TalkSummary:
    """What a session's conversation adds up to: ``title`` (its first prompt's first line,
    whole: a view masks it, then cuts it with `cut_title`), ``models`` in the order first
    seen, ``tokens`` (``None`` while no usage is recorded: a session whose format records
    none says so, not 0),
    and how many ``prompts`` and ``messages`` (words and reasoning) it holds."""

    title: str | None = None
    models: tuple[str, ...] = ()
    tokens: TokenUsage | None = None
    prompts: int = 0
    messages: int = 0

    @property
    def empty(self) -> bool:
        """Whether it has taken no conversation event: no prompt, words, reasoning or usage."""
        return not (self.prompts or self.messages) and self.tokens is None

    def taking(self, events: Iterable[object]) -> TalkSummary:
        """This summary moved on by ``events`` (the session's next ones, in order)."""
        return self.hearing(conversation_of(event) for event in events)

    def hearing(self, heard: Iterable[ConversationEvent | None]) -> TalkSummary:
        """`taking` the events these are the `conversation_of` (read once by a caller that
        reads them for more than this summary)."""
        title, models, tokens = self.title, list(self.models), self.tokens
        known = set(models)  # a transcript may name a model per message: no list to search
        prompts, messages = self.prompts, self.messages
        for said in heard:
            if said is None:
                continue
            if isinstance(said, Prompt):
                prompts += 1
                if title is None and said.text.strip():
                    title = first_line(said.text)
                continue
            if isinstance(said, Usage):
                tokens = said.usage if tokens is None else tokens + said.usage
            elif isinstance(said, AssistantText | Reasoning):
                messages += 1
            if said.model is not None and said.model not in known:
                known.add(said.model)
                models.append(said.model)
        return replace(self, title=title, models=tuple(models), tokens=tokens, prompts=prompts,
                       messages=messages)  # fmt: skip


def first_line(text: str) -> str:
    """A prompt's first line that is not blank, whole (a view masks it, then cuts it with
    `cut_title`: a cut first could split a secret the masking would no longer see)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def cut_title(line: str) -> str:
    """A title cut to `TITLE_CHARS`, an ellipsis where it was cut."""
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
