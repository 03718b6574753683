"""The conversation of a SWE-agent trajectory (the rules are in `calls`' docstring)."""

from __future__ import annotations

from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.long_text import joined
from ...common.talk import Talk, count, texts


def talk_in(document: dict[str, Any]) -> Talk:
    """The task, each step's thought, and the run's tokens, where it records them."""
    talk = Talk()
    history = document.get("history")
    for message in history if isinstance(history, list) else []:
        if isinstance(message, dict) and message.get("role") == "user":
            if message.get("is_demo") is True:
                continue  # a demonstration shown to the model, not this run's task
            talk.prompt(joined("\n", texts(message.get("content"))), None, (0,))
            break  # the later user messages are the environment's observations
    steps = document["trajectory"]
    for number, step in enumerate(steps):
        thought = step.get("thought") if isinstance(step, dict) else None
        if isinstance(thought, str):
            talk.text(thought, None, None, (number,))
    info = document.get("info")
    stats = info.get("model_stats") if isinstance(info, dict) else None
    if isinstance(stats, dict):
        where = "$.info.model_stats"
        sent, received = count(stats, "tokens_sent", where), count(stats, "tokens_received", where)
        if sent or received:  # a replayed run counts 0 for the calls it did not make
            usage = TokenUsage(input=sent, output=received)
            talk.usage(usage, None, None, (len(steps),))
    return talk
