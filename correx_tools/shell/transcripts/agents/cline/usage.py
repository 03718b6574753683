"""A Cline or Roo Code task's tokens: the ``api_req_started`` records of ``ui_messages.json``.

Cline keeps the conversation for the model in ``api_conversation_history.json`` and
what its panel shows in ``ui_messages.json`` beside it. The tokens are only in the
second: each request to the model is a UI message ``{"say": "api_req_started",
"text": "<JSON>", "conversationHistoryIndex": i}`` whose text, a ``ClineApiReqInfo``,
gets ``tokensIn``, ``tokensOut``, ``cacheWrites`` and ``cacheReads`` when the reply
has streamed (Cline's ``src/shared/ExtensionMessage.ts``). ``i`` is the index of the
history's last message when the request was sent, so the reply it paid for is message
``i + 1``. The rules:

* a request's usage is placed first in message ``i + 1`` (before its words and calls),
  with the request's own id, so it reaches that message's calls (`spending`); a request
  that got no reply (cancelled, failed, retried) still counts for its turn and the
  session, and reaches no call;
* a request with none of the four counts (still streaming, or cancelled before any)
  recorded no usage, and gives none; one without ``conversationHistoryIndex`` (written
  before Cline kept it) cannot be placed, and gives none either;
* the model is the request's ``modelId`` where Cline records it, else that of its reply;
* Cline's own ``cost`` is not read: the pricing table prices every format alike.

Cline writes ``ui_messages.json`` after a reply's tokens are known and before the reply
joins the history, so a history read beside it finds every reply's tokens in place: an
import that is read again adds only what is new.
"""

from __future__ import annotations

import dataclasses

from .....core.lifecycle.conversation import AssistantText, Reasoning, TokenUsage, Usage
from ...common.lines import strict_value
from ...common.talk import count, model_of
from ...errors import Unreadable
from ...model import TalkStep, Transcript
from .signs import UI_MESSAGES

_COUNTS = (
    ("tokensIn", "input"),
    ("tokensOut", "output"),
    ("cacheReads", "cache_read"),
    ("cacheWrites", "cache_write"),
)


def with_usage(transcript: Transcript, data: bytes) -> Transcript:
    """``transcript`` with the usage of the requests ``data`` (a ``ui_messages.json``)
    records, among its conversation in the places the rules say."""
    where = f"{UI_MESSAGES} beside it"
    try:
        messages = strict_value(data.decode("utf-8"), where)
    except UnicodeDecodeError as error:
        raise Unreadable(where, f"not UTF-8 text (byte {error.start})") from None
    if not isinstance(messages, list):
        raise Unreadable(where, f"expected a list of messages, found {type(messages).__name__}")
    models = {
        step.position[0]: step.message.model
        for step in transcript.talk
        if isinstance(step.message, AssistantText | Reasoning) and step.message.model
    }
    added: list[TalkStep] = []
    for number, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("say") != "api_req_started":
            continue
        index = message.get("conversationHistoryIndex")
        if type(index) is not int or index < -1:
            continue  # cannot be placed (see the rules)
        place = f"{where}, $[{number}].text"
        text = message.get("text")
        if not isinstance(text, str):
            raise Unreadable(place, f"expected the request's JSON text, found {text!r:.40}")
        info = strict_value(text, place)
        if not isinstance(info, dict):
            raise Unreadable(place, f"expected an object, found {type(info).__name__}")
        if not any(key in info for key, _ in _COUNTS):
            continue
        usage = TokenUsage(**{name: count(info, key, place) for key, name in _COUNTS})
        reply = index + 1
        model = model_of(info.get("modelId")) or models.get(reply)
        # Named by its place in the file: unique, and short whatever the message holds.
        spent = Usage(usage=usage, model=model, message_id=f"cline-request-{number}")
        # Step 0 and the request's number: before the reply's own steps (1, 2, ...), in order.
        added.append(TalkStep((reply, -1, 0, number), None, spent))
    # Placed by position: staging puts the conversation and the calls in order.
    return dataclasses.replace(transcript, talk=(*transcript.talk, *added))
