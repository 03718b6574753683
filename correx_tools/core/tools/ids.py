"""Identifiers of sessions and tool invocations.

Both are ``NewType`` s over ``str``: free at run time, distinct to mypy.
Use `invocation_id` and `session_id` where a string comes from
outside and may be empty.
"""

from typing import NewType

from .json_values import lone_surrogate_at

InvocationId = NewType("InvocationId", str)
SessionId = NewType("SessionId", str)


def invocation_id(value: str) -> InvocationId:
    """Check that ``value`` is non-empty Unicode text and brand it an `InvocationId`.

    >>> invocation_id("inv-1")
    'inv-1'
    """
    return InvocationId(_non_empty("invocation id", value))


def session_id(value: str) -> SessionId:
    """Check that ``value`` is non-empty Unicode text and brand it a `SessionId`.

    >>> session_id("a\\ud800")
    Traceback (most recent call last):
    ...
    ValueError: session id holds a lone surrogate at character 1, which is not Unicode text
    """
    return SessionId(_non_empty("session id", value))


def _non_empty(what: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if not value:
        raise ValueError(f"{what} must not be empty")
    index = lone_surrogate_at(value)
    if index is not None:
        raise ValueError(
            f"{what} holds a lone surrogate at character {index}, which is not Unicode text"
        )
    return value
