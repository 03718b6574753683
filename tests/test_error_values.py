"""Every error value the package declares keeps the contract of `CorrexError`.

Error values are declared with one decorator (`error_value`); these tests find
each of them in the package and hold it to what the decorator promises: a
frozen, slotted, keyword-only dataclass that still takes the interpreter's
bookkeeping (a traceback, a cause, notes), compares by its fields and survives
a pickle round trip.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import pickle
import pkgutil
import types
import typing
from typing import Any

import pytest

import correx_tools
from correx_tools.core.tools.errors import CorrexError


def _error_classes() -> list[type[CorrexError]]:
    for module in pkgutil.walk_packages(correx_tools.__path__, "correx_tools."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: list[type[CorrexError]] = []
    pending = list(CorrexError.__subclasses__())
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    # `dataclass(slots=True)` makes a new class; the one it replaced stays among the
    # subclasses until the collector frees it. Only the class its module names is kept.
    named = [cls for cls in found if _named(cls)]
    return sorted(named, key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


def _named(cls: type) -> bool:
    found: object = importlib.import_module(cls.__module__)
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is cls


ERRORS = _error_classes()


def _sample(kind: Any) -> Any:
    """A value of the annotated type ``kind`` (the first member, the first choice)."""
    supertype = getattr(kind, "__supertype__", None)  # a NewType such as SessionId
    if supertype is not None:
        return _sample(supertype)
    origin = typing.get_origin(kind)
    arguments = typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return None if type(None) in arguments else _sample(arguments[0])
    if origin is typing.Literal:
        return arguments[0]
    if origin is tuple:
        return ()
    if kind is bool:
        return True
    if kind is int:
        return 3
    if kind in (str, object):
        return "x"
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return next(iter(kind))
    if isinstance(kind, type) and issubclass(kind, CorrexError):
        return _instance(kind)
    raise AssertionError(f"no sample value for {kind!r}: add one to this test")


def _instance(cls: type[CorrexError]) -> CorrexError:
    hints = typing.get_type_hints(cls)
    required = {
        field.name: _sample(hints[field.name])
        for field in dataclasses.fields(cls)  # type: ignore[arg-type]
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    }
    return cls(**required)


def test_the_package_declares_its_error_values() -> None:
    names = {cls.__name__ for cls in ERRORS}
    assert {"AppendError", "PathError", "RecordError", "TransitionError"} <= names
    assert len(ERRORS) >= 13


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: cls.__name__)
def test_an_error_value_is_a_frozen_keyword_only_dataclass(cls: type[CorrexError]) -> None:
    assert dataclasses.is_dataclass(cls)
    error = _instance(cls)
    assert "__slots__" in cls.__dict__
    first = dataclasses.fields(cls)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(error, first, getattr(error, first))
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(error, first)
    with pytest.raises(TypeError):
        cls(*(getattr(error, f.name) for f in dataclasses.fields(cls)))  # type: ignore[arg-type]
    assert str(error)


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: cls.__name__)
def test_an_error_value_takes_the_interpreters_bookkeeping(cls: type[CorrexError]) -> None:
    error = _instance(cls)

    def fail() -> None:
        try:
            raise KeyError("underneath")
        except KeyError as cause:
            error.add_note("a note")
            raise error from cause

    with pytest.raises(cls) as raised:
        fail()
    assert raised.value is error
    assert error.__traceback__ is not None
    assert isinstance(error.__cause__, KeyError)
    assert error.__notes__ == ["a note"]
    # What Python code does to an exception passing through (contextlib, for one).
    error.__traceback__ = None
    error.__suppress_context__ = False
    assert error.__traceback__ is None


@pytest.mark.parametrize("cls", ERRORS, ids=lambda cls: cls.__name__)
def test_an_error_value_compares_by_fields_and_pickles(cls: type[CorrexError]) -> None:
    error = _instance(cls)
    again = _instance(cls)
    assert error == again and error is not again
    assert pickle.loads(pickle.dumps(error)) == error
