"""Where a transcript may hold a `LongText`: only where the import cuts a value to fit.

The import cuts a call's arguments, its output, a failure's reason and a text of the
conversation to fit an event (`importing.cutting`), and a `LongText` there is cut exactly
as its whole would be. Anything else (an id, a tool's name, a receipt's metadata, the
session's description) is written as it is, so a long text there would be written as its
first characters only; and a part nested too deeply is marked with the digest of its
JSON, which a long text cannot give. `sealed` finds either and raises `Untrimmable`: the
file is then read whole, and gives what it always gave.
"""

from __future__ import annotations

from ..model import Transcript
from .long_text import LongText, Untrimmable, holds_long
from .shallow import too_deep


def sealed(transcript: Transcript) -> Transcript:
    """``transcript``, once it holds a `LongText` only where the import cuts (see the
    module docstring); `Untrimmable` otherwise."""
    about = transcript.about
    _plain(transcript.session, transcript.format, about.agent_session_id, about.cwd,
           about.title, about.parent_session)  # fmt: skip
    for call in transcript.calls:
        _plain(call.call_id, call.tool_name, call.where)
        _shallow(call.arguments)
        end = call.end
        if end is not None:
            _plain(*end.metadata, *end.metadata.values())
            _shallow(end.output)
    for step in transcript.talk:
        message = step.message
        _plain(getattr(message, "model", None), getattr(message, "message_id", None))
    return transcript


def _plain(*values: object) -> None:
    if any(isinstance(value, LongText) for value in values):
        raise Untrimmable("a long text where the import writes a value as it is")


def _shallow(value: object) -> None:
    if isinstance(value, dict | list) and too_deep(value) and holds_long(value):
        raise Untrimmable("a long text in a value nested too deeply")
