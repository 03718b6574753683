"""Validation of a tool request against its tool's schema.

Arguments are bounded *before* the schema sees them (nesting depth, string
and array length, approximate total size, strict JSON types), so a hostile
request is an `Invalid` naming the limit, never a ``RecursionError``
or a multi-second validation. Messages quote at most a short piece of the
offending value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias, final

from pyrsistent import PVector

from .json_values import thaw_json
from .request import ToolRequest
from .schema.compiled import CompiledSchema, compile_schema
from .schema.messages import described
from .spec import ToolSpec
from .tool import Tool


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationLimits:
    """Bounds checked before schema validation; sizes are in characters or items."""

    max_depth: int = 64
    max_string_length: int = 1 << 20
    max_items: int = 100_000
    max_total_size: int = 1 << 20
    max_violations: int = 20
    max_integer_digits: int = 4300
    """Python's own default limit: a longer integer could be written but never read back."""


DEFAULT_LIMITS = ValidationLimits()


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Violation:
    """One thing wrong with a request: the JSON path of the value and what is wrong."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@final
@dataclass(frozen=True, slots=True)
class Valid:
    """The request fits its tool's schema: no ``violations``, and true in a test.

    Both results read the same way: ``if result:`` (or ``if not result.violations:``)
    holds for ``Valid`` and fails for ``Invalid``.

    >>> bool(Valid()), Valid().violations
    (True, ())
    """

    @property
    def violations(self) -> tuple[Violation, ...]:
        """None: the empty tuple."""
        return ()

    def __bool__(self) -> bool:
        return True


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Invalid:
    """The request does not fit: a one-line ``reason`` and each violation; false in a test."""

    reason: str
    violations: tuple[Violation, ...] = ()

    def __str__(self) -> str:
        return self.reason

    def __bool__(self) -> bool:
        return False


ValidationResult: TypeAlias = Valid | Invalid
"""The outcome of `validate_request`."""


def validate_request(
    tool: Tool, request: ToolRequest, *, limits: ValidationLimits = DEFAULT_LIMITS
) -> ValidationResult:
    """Check that ``request`` is for ``tool`` and that its arguments fit the tool's schema.

    A `ToolSpec` keeps its compiled schema, so
    repeated calls do not rebuild the validator; any other ``Tool`` has its
    schema compiled on each call (register it in a registry to avoid that).

    >>> from correx_tools.core.tools.spec import ToolSpec
    >>> spec = ToolSpec(name="echo", description="Echo", parameters={
    ...     "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    >>> validate_request(spec, ToolRequest(tool_name="echo", arguments={"text": "hi"}))
    Valid()
    >>> print(validate_request(spec, ToolRequest(tool_name="echo", arguments={"text": 3})))
    1 violation: $.text: 3 is not of type "string"
    """
    if request.tool_name != tool.name:
        return _invalid(
            [
                Violation(
                    path="$",
                    message=f"request is for tool {request.tool_name!r}, not {tool.name!r}",
                )
            ]
        )
    if isinstance(tool, ToolSpec):
        compiled = tool.compiled_schema()
    else:
        compiled = compile_schema(thaw_json(tool.parameters))
    schema = compiled.value_or(None)
    if schema is None:
        return _invalid(
            [Violation(path="$", message=f"the tool's schema is invalid: {compiled.failure()}")]
        )
    return validate_arguments(schema, request.arguments, limits=limits)


def validate_arguments(
    schema: CompiledSchema, arguments: object, *, limits: ValidationLimits = DEFAULT_LIMITS
) -> ValidationResult:
    """Check frozen or plain JSON ``arguments`` against a compiled schema."""
    bounded = check_bounds(arguments, limits)
    if bounded is not None:
        return _invalid([bounded])
    # Imported here, as jsonschema is (see schema/compiled.py): loaded with the
    # first schema, not with the package.
    from referencing.exceptions import Unresolvable  # noqa: PLC0415 - loaded with the first schema

    violations: list[Violation] = []
    try:
        errors = schema.iter_errors(thaw_json(arguments))
        for path, message in described(errors, limits.max_violations):
            violations.append(Violation(path=path, message=_short(message)))
            if len(violations) >= limits.max_violations:
                break
    except Unresolvable as error:
        return _invalid(
            [Violation(path="$", message=f"the schema has an unresolvable reference: {error}")]
        )
    if violations:
        return _invalid(violations)
    return Valid()


def check_bounds(value: object, limits: ValidationLimits = DEFAULT_LIMITS) -> Violation | None:
    """The first limit ``value`` breaks, or ``None``; walks iteratively, never recursing."""
    if _flat_and_within(value, limits):
        return None
    return _walk_bounds(value, limits)


_FLAT_SCALARS = frozenset({str, int, float, bool, type(None)})


def _flat_and_within(value: object, limits: ValidationLimits) -> bool:
    """Whether ``value`` is an object of scalars and arrays of scalars that breaks no limit.

    The common shape of arguments, checked in one loop; ``False`` says only
    "not sure", and `_walk_bounds` then decides and names what is wrong. (A
    test holds this to the walk: it never says yes where the walk finds a
    limit broken.)
    """
    if (
        not isinstance(value, Mapping)
        or len(value) > limits.max_items
        or limits.max_depth < 3
        or limits.max_integer_digits < 18  # `_small_scalar` lets integers of 18 digits by
    ):
        return False
    size = 0
    longest, widest = limits.max_string_length, limits.max_items
    for key, item in value.items():
        if type(key) is not str:
            return False
        kind = type(item)
        if kind is str:
            if len(item) > longest:
                return False
            size += len(key) + len(item) + 5
        elif kind in _FLAT_SCALARS:
            if not _small_scalar(item):
                return False
            size += len(key) + 25
        elif kind is list or kind is tuple or isinstance(item, PVector):
            if len(item) > widest:
                return False
            size += len(key) + 5
            for inner in item:
                if type(inner) is str:
                    if len(inner) > longest:
                        return False
                    size += len(inner) + 2
                elif type(inner) in _FLAT_SCALARS and _small_scalar(inner):
                    size += 22
                else:
                    return False
        else:
            return False
    # Sizes above are generous (an integer counts as 22 characters, more than the walk
    # counts for any integer this short), so under the limit here is under it there.
    return size <= limits.max_total_size


def _small_scalar(item: object) -> bool:
    """A scalar the walk would count at most 22 characters for and refuse nothing of."""
    if type(item) is int:
        return -(10**18) < item < 10**18
    if type(item) is float:
        return math.isfinite(item)
    return True  # bool or None


def _walk_bounds(value: object, limits: ValidationLimits) -> Violation | None:
    """`check_bounds` by walking every value: the definition, and the way to a message."""
    stack: list[tuple[object, str, int]] = [(value, "$", 1)]
    size = 0
    while stack:
        node, path, depth = stack.pop()
        if depth > limits.max_depth:
            return Violation(
                path=path, message=f"nesting deeper than the limit of {limits.max_depth}"
            )
        if isinstance(node, str):
            if len(node) > limits.max_string_length:
                return _over(path, f"string of {len(node)} characters", limits.max_string_length)
            size += len(node) + 2
        elif node is None or isinstance(node, bool):
            size += 4
        elif isinstance(node, int):
            bits = node.bit_length()
            # 3.33 bits per digit: only integers this long can break the limit.
            if bits > 3 * limits.max_integer_digits and abs(node) >= 10**limits.max_integer_digits:
                return Violation(
                    path=path,
                    message=f"integer of {bits} bits has more than the limit of "
                    f"{limits.max_integer_digits} digits",
                )
            size += bits // 3 + 1
        elif isinstance(node, float):
            if not math.isfinite(node):
                return Violation(path=path, message=f"{node} is not a JSON number")
            size += 8
        elif isinstance(node, Mapping):
            if len(node) > limits.max_items:
                return _over(path, f"object of {len(node)} members", limits.max_items)
            for key, item in node.items():
                if not isinstance(key, str):
                    return Violation(path=path, message=f"object key {key!r} is not a string")
                size += len(key) + 3
                stack.append((item, path + _member(key), depth + 1))
        elif isinstance(node, list | tuple | PVector):
            if len(node) > limits.max_items:
                return _over(path, f"array of {len(node)} items", limits.max_items)
            size += 2
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node))
        else:
            return Violation(path=path, message=f"a {type(node).__name__} is not a JSON value")
        if size > limits.max_total_size:
            return Violation(
                path="$",
                message=f"arguments are larger than the limit of {limits.max_total_size} bytes",
            )
    return None


def _over(path: str, what: str, limit: int) -> Violation:
    return Violation(path=path, message=f"{what} is over the limit of {limit}")


def _invalid(violations: list[Violation]) -> Invalid:
    count = len(violations)
    noun = "violation" if count == 1 else "violations"
    shown = "; ".join(str(v) for v in violations[:3])
    more = f"; and {count - 3} more" if count > 3 else ""
    return Invalid(reason=f"{count} {noun}: {shown}{more}", violations=tuple(violations))


def _member(key: str) -> str:
    if key.isidentifier():
        return f".{key}"
    return f"[{_short(repr(key), 40)}]"


def _short(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[:limit] + "..."
