"""A call of a tool: the tool's name and the JSON object of its arguments."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from typing import Any, final

from pyrsistent import PMap, pmap

from .json_values import freeze_object, value_at


@final
class ToolRequest:
    """A call of a tool: its name and the JSON object of its arguments.

    An immutable value, equal and hashing by its name and arguments. The
    arguments are a frozen ``PMap``; a request read from a store may decode
    them from the store's canonical JSON on first access (`lazy_request`),
    which gives the same ``PMap``.

    >>> ToolRequest(tool_name="read_file", arguments={"path": "README.md"})
    ToolRequest(tool_name='read_file', arguments=pmap({'path': 'README.md'}))
    """

    __slots__ = ("_arguments", "_source", "tool_name")
    __match_args__ = ("tool_name", "arguments")

    tool_name: str
    _arguments: PMap[str, Any]
    # (text, keys) while the arguments are not decoded yet; None once they are.
    _source: tuple[str, tuple[str, ...]] | None

    def __init__(self, *, tool_name: str, arguments: Mapping[str, Any] | None = None) -> None:
        if not isinstance(tool_name, str):
            raise TypeError(f"tool_name must be a str, not {type(tool_name).__name__}")
        _set_tool_name(self, tool_name)
        _set_arguments(self, _NO_ARGUMENTS if arguments is None else freeze_object(arguments))
        _set_source(self, None)

    @property
    def arguments(self) -> PMap[str, Any]:
        """The arguments, a frozen JSON object (decoded now if it was not yet)."""
        source = self._source
        if source is not None:
            _set_arguments(self, freeze_object(value_at(*source)))
            _set_source(self, None)
        return self._arguments

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolRequest):
            return NotImplemented
        if self.tool_name != other.tool_name:
            return False
        # The same canonical text is the same value: no need to decode either.
        if self._source is not None and self._source == other._source:
            return True
        return self.arguments == other.arguments

    def __hash__(self) -> int:
        return hash((self.tool_name, self.arguments))

    def __repr__(self) -> str:
        return f"ToolRequest(tool_name={self.tool_name!r}, arguments={self.arguments!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return _restore, (self.tool_name, self.arguments)


_NO_ARGUMENTS: PMap[str, Any] = pmap()
_new = object.__new__
# Slot setters: the class refuses attribute assignment, so its own code writes
# the slots through their descriptors.
_set_tool_name = ToolRequest.__dict__["tool_name"].__set__
_set_arguments = ToolRequest.__dict__["_arguments"].__set__
_set_source = ToolRequest.__dict__["_source"].__set__


def _restore(tool_name: str, arguments: PMap[str, Any]) -> ToolRequest:
    return checked_request(tool_name, arguments)


def checked_request(tool_name: str, arguments: PMap[str, Any]) -> ToolRequest:
    """A request of a checked name and already frozen arguments (for decoders)."""
    request: ToolRequest = _new(ToolRequest)
    _set_tool_name(request, tool_name)
    _set_arguments(request, arguments)
    _set_source(request, None)
    return request


def lazy_request(tool_name: str, text: str, keys: tuple[str, ...]) -> ToolRequest:
    """A request whose arguments are the object at ``keys`` in ``text``, decoded when first used.

    ``text`` must be canonical JSON a store wrote after checking it (the
    arguments then decode to exactly what was written).

    >>> text = '{"request":{"arguments":{"path":"."}}}'
    >>> request = lazy_request("ls", text, ("request", "arguments"))
    >>> request == ToolRequest(tool_name="ls", arguments={"path": "."})
    True
    """
    request: ToolRequest = _new(ToolRequest)
    _set_tool_name(request, tool_name)
    _set_arguments(request, _NO_ARGUMENTS)
    _set_source(request, (text, keys))
    return request


def undecoded_request(request: ToolRequest) -> str | None:
    """The Requested event's data text while the arguments are not decoded yet
    (`lazy_request`); ``None`` once they are, or for a request built from values."""
    source = request._source
    return None if source is None else source[0]


def plain_arguments(request: ToolRequest) -> tuple[Mapping[str, Any], str | None]:
    """The arguments for one look, and the store's text they were read from.

    While they are not decoded yet (`lazy_request`), they are decoded from the text as
    plain JSON (``dict`` and ``list``: the same values as `ToolRequest.arguments`, not
    frozen and not kept, so nothing is built twice), and the text is given too (every
    string and member name of the arguments is spelled in it); else the frozen arguments
    and ``None``. The plain value must not be changed.

    >>> text = '{"request":{"arguments":{"path":"."}}}'
    >>> plain_arguments(lazy_request("ls", text, ("request", "arguments")))[0]
    {'path': '.'}
    """
    source = request._source
    if source is None:
        return request._arguments, None
    text, keys = source
    node: Any = json.loads(text)
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return _NO_ARGUMENTS, text
        node = node[key]
    return node, text


def undecoded_source(request: ToolRequest) -> tuple[str, tuple[str, ...]] | None:
    """The store's text and the keys of the arguments in it, while the arguments are not
    decoded yet (`lazy_request`); ``None`` once they are, or for a request built from values."""
    return request._source
