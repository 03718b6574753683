"""The conversation around the calls: prompts, the assistant's words and reasoning, and the
tokens each message spent, as events a store keeps beside the tool events.

Every name here is also importable from ``correx_tools`` itself; each is imported when first
asked for. The names and where they live are `correx_tools._public`'s table.
"""

import typing as _typing

from . import _public

if _typing.TYPE_CHECKING:
    from .core.lifecycle.conversation import AssistantText as AssistantText
    from .core.lifecycle.conversation import ConversationEvent as ConversationEvent
    from .core.lifecycle.conversation import Prompt as Prompt
    from .core.lifecycle.conversation import Reasoning as Reasoning
    from .core.lifecycle.conversation import TokenUsage as TokenUsage
    from .core.lifecycle.conversation import Usage as Usage
    from .core.lifecycle.conversation import conversation_event as conversation_event
    from .core.lifecycle.conversation import conversation_of as conversation_of

__getattr__, __dir__, __all__ = _public.attach(__name__, "conversation")
