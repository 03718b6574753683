"""The base of every error value the library returns in a ``Failure``.

Errors are values: frozen dataclasses a ``Result`` carries, compared by their
fields. They are also ``Exception`` subclasses for one reason: ``unwrap()`` on
a ``Failure`` raises ``UnwrapFailedError`` *from* the value it holds when that
value is an exception, so the traceback ends with the error's own message
instead of a bare ``UnwrapFailedError``. The library never raises them itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar, dataclass_transform

E = TypeVar("E", bound="CorrexError")


class CorrexError(Exception):
    """An error value of this library (see the module docstring); ``str()`` is its message.

    >>> from returns.result import Failure
    >>> from correx_tools import PathError
    >>> error = PathError(path="../x", reason="climbs above the workspace root")
    >>> isinstance(error, CorrexError), str(error)
    (True, "path '../x': climbs above the workspace root")
    >>> from returns.primitives.exceptions import UnwrapFailedError
    >>> try:
    ...     Failure(error).unwrap()
    ... except UnwrapFailedError as failed:
    ...     print(failed.__cause__)  # what a traceback shows, below the error's type
    path '../x': climbs above the workspace root
    """

    def __str__(self) -> str:
        return str(getattr(self, "message", "")) or type(self).__name__

    def __setattr__(self, name: str, value: object) -> None:
        # The interpreter keeps its own bookkeeping on an exception (__traceback__,
        # __context__, __cause__, __notes__); the value's fields stay frozen.
        if _is_dunder(name):
            object.__setattr__(self, name, value)
            return
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        if _is_dunder(name):
            object.__delattr__(self, name)
            return
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception's own reduce rebuilds from ``args``, which a dataclass leaves empty.
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        return _rebuild, (type(self), fields)


@dataclass_transform(frozen_default=True, kw_only_default=True)
def error_value(cls: type[E]) -> type[E]:
    """Declares an error value: ``cls`` as a frozen, slotted, keyword-only dataclass that
    still takes the interpreter's bookkeeping (see `CorrexError`).

    The dataclass's own ``__setattr__`` and ``__delattr__`` refuse every name; they are
    removed, so the base's (which let the interpreter's own names through) apply.
    """
    made = dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
    for name in ("__setattr__", "__delattr__"):
        if name in made.__dict__:
            delattr(made, name)
    return made


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _rebuild(cls: type[E], fields: dict[str, Any]) -> E:
    return cls(**fields)
