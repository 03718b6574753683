"""The conversation of a Cline or Roo Code task (the rules are in `calls`' docstring)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import re2

from ...common.talk import Talk, model_of, texts
from .signs import RESULT

_THINKING = re2.compile(r"(?s)<thinking>(.*?)</thinking>")
_OWN = ("<environment_details>", "[TASK RESUMPTION]", "[Response interrupted")
"""How the user texts Cline writes itself begin."""
_WRAPPED = re2.compile(r"\A[^<]{0,200}<(task|feedback|answer|user_message)>")
"""A user's words as Cline wraps them: the task, feedback on a call, an answer."""


def talk_in(
    message: dict[str, Any], index: int, at: datetime | None, tool: str | None, talk: Talk
) -> None:
    """What one message says around its calls (``at``: when, if it records it); ``tool``
    names the tool element of an assistant's text that is a call (its element is not the
    assistant's words)."""
    content = message.get("content")
    if message.get("role") == "user":
        for text in texts(content if isinstance(content, list) else [content]):
            stripped = text.lstrip()
            if stripped.startswith(_OWN) or RESULT.match(stripped):
                continue
            talk.prompt(_unwrapped(stripped), at, (index,))
        return
    if message.get("role") != "assistant":
        return
    info = message.get("modelInfo")
    model = model_of(info.get("modelId")) if isinstance(info, dict) else None
    for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            talk.reasoning(block["thinking"], model, at, (index,))
        elif block.get("type") == "text" and isinstance(block.get("text"), str):
            text = block["text"]
            for thought in _THINKING.finditer(text):
                talk.reasoning(thought.group(1).strip("\n"), model, at, (index,))
            text = _THINKING.sub("", text)
            opening = -1 if tool is None else text.find(f"<{tool}>")
            talk.text((text if opening < 0 else text[:opening]).strip(), model, at, (index,))


def _unwrapped(text: str) -> str:
    """The words inside Cline's wrapping element, if the text is one."""
    opening = _WRAPPED.match(text)
    if opening is None:
        return text
    closing = text.rfind(f"</{opening.group(1)}>")
    if closing < opening.end():
        return text
    return text[opening.end() : closing].strip("\n")
