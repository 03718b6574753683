"""Validation messages written for the model that made the call: JSON, one per mistake.

jsonschema words its messages for Python programmers (``True is not of type
'string'``). A tool call's violations go back to a model, which wrote JSON:
this module says the same in JSON (``true is not of type "string"``), keeps
one message per wrong value (a value of the wrong type is not also reported
for every other keyword it fails), and where a required property is missing
while an unexpected one is present, asks whether one was meant for the other.
"""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

_QUOTE_LIMIT = 80
_ERRORS_PER_MISTAKE = 4
"""How many of jsonschema's errors one wrong value can give (type, enum, bounds...)."""


def described(errors: Iterable[ValidationError], limit: int) -> Iterator[tuple[str, str]]:
    """``(JSON path, message)`` for each mistake among ``errors``, in their order, at
    most ``limit`` of them.

    Reads no more of ``errors`` than ``limit`` messages need (a few errors per
    mistake at most): a hostile request with a million wrong items costs what
    its first ``limit`` mistakes cost.
    """
    found = list(islice(errors, max(limit, 1) * _ERRORS_PER_MISTAKE))
    mistyped = {error.json_path for error in found if error.validator == "type"}
    unexpected = {
        error.json_path: sorted(_unexpected(error))
        for error in found
        if error.validator == "additionalProperties"
    }
    said = 0
    for error in found:
        path = error.json_path
        if path in mistyped and error.validator != "type":
            continue  # the wrong type says it all; its other keywords follow from it
        if said == limit:
            return
        said += 1
        yield path, _message(error, unexpected.get(path, []))


def json_text(value: object, limit: int = _QUOTE_LIMIT) -> str:
    """``value`` as compact JSON, cut to ``limit`` characters.

    >>> json_text(True), json_text("10"), json_text({"a": [1, None]})
    ('true', '"10"', '{"a":[1,null]}')
    """
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(error: ValidationError, unexpected: list[str]) -> str:
    keyword, expected, value = error.validator, error.validator_value, error.instance
    match keyword:
        case "type":
            kinds = expected if isinstance(expected, list) else [expected]
            return f"{json_text(value)} is not of type {' or '.join(map(json_text, kinds))}"
        case "required":
            missing = _missing(error)
            message = f"{json_text(missing)} is a required property"
            close = difflib.get_close_matches(missing, unexpected, n=1, cutoff=0.5)
            if close:
                message += f" (did you mean {json_text(missing)} instead of {json_text(close[0])}?)"
            return message
        case "additionalProperties":
            return str(error.message)  # the RE2 keyword's own, already in JSON
        case "enum":
            return f"{json_text(value)} is not one of {json_text(expected)}"
        case "const":
            return f"{json_text(value)} is not {json_text(expected)}"
        case "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum":
            words = {
                "minimum": "less than the minimum of",
                "maximum": "greater than the maximum of",
                "exclusiveMinimum": "not greater than",
                "exclusiveMaximum": "not less than",
            }
            return f"{json_text(value)} is {words[keyword]} {json_text(expected)}"
        case "minLength" | "maxLength" | "minItems" | "maxItems":
            least = keyword.startswith("min")
            unit = "characters" if keyword.endswith("Length") else "items"
            bound = "at least" if least else "at most"
            size = len(value) if isinstance(value, str | list) else 0
            return f"{json_text(value)} has {size} {unit}; {bound} {expected} allowed"
        case "pattern":
            return f"{json_text(value)} does not match {json_text(expected)}"
        case "format":
            return f"{json_text(value)} is not a valid {json_text(expected)}"
        case _:
            return _jsonified(error)


def _missing(error: ValidationError) -> str:
    """The property a ``required`` error is about (jsonschema gives one error each)."""
    text = str(error.message).removesuffix(" is a required property")
    try:
        name = ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError):
        return text
    return name if isinstance(name, str) else text


def _unexpected(error: ValidationError) -> set[str]:
    """The properties ``additionalProperties`` refused, to guess from: those outside
    ``properties`` when no ``patternProperties`` decides too (none otherwise)."""
    schema: Mapping[str, Any] = error.schema if isinstance(error.schema, Mapping) else {}
    if error.validator_value is not False or "patternProperties" in schema:
        return set()
    known = schema.get("properties", {})
    value = error.instance if isinstance(error.instance, Mapping) else {}
    return {name for name in value if name not in known}


def _jsonified(error: ValidationError) -> str:
    """jsonschema's own message, with the value it starts with written as JSON."""
    message = str(error.message)
    quoted = repr(error.instance)
    if message.startswith(quoted):
        return json_text(error.instance) + message[len(quoted) :]
    return message
