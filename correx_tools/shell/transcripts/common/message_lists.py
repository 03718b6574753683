"""Message lists an agent loop keeps for the model (OpenAI chat, Anthropic Messages): the one
walk over a list that both formats' readers share (where a document holds its list, and
whose tool calls it holds, is `message_shapes`).

A list of messages, or an object holding one as ``messages``. Neither format records
times: message ``k`` is at a derived time, ``k`` seconds after a fixed origin (it keeps
the order; the session's description says no time is recorded).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import Unreadable
from ..model import Transcript
from .message_shapes import messages_of
from .pairing import Pairing
from .talk import Talk

Step = Callable[[dict[str, Any], int, str, Pairing, Talk], None]
"""``step(message, index, where, calls, talk)``: what message ``index`` (at ``where``) adds
to the calls and the conversation read so far; its time is `model.step_time` of its
index."""


def read_list(document: Any, name: str, format: str, step: Step) -> Transcript:
    """The calls and conversation of a message list, each message read by ``step``."""
    found = messages_of(document)
    assert found is not None
    messages, path = found
    calls = Pairing()
    talk = Talk()
    for index, message in enumerate(messages):
        where = f"{path}[{index}]"
        if not isinstance(message, dict):
            raise Unreadable(where, "a message must be a JSON object")
        step(message, index, where, calls, talk)
    return Transcript(format, name, calls.calls(), talk=tuple(talk.steps))
