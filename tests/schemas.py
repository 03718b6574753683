"""The tool schemas the tests use, in one catalogue, so every one of them gets generated input.

``tests/test_generated_arguments.py`` draws valid and invalid arguments for
each schema here with hypothesis-jsonschema. Tests that need a schema take it
from here rather than writing another one inline.
"""

from __future__ import annotations

from typing import Any

WRITE_FILE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "pattern": "^[^/].*$"},
        "content": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}

RUN_SHELL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "minLength": 1, "maxLength": 200},
        "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 600},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "shell": {"enum": ["bash", "sh", "zsh"]},
    },
    "required": ["command"],
    "additionalProperties": False,
}

EDIT_FILE: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "edit": {
            "type": "object",
            "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
            "required": ["old", "new"],
            "additionalProperties": False,
        }
    },
    "properties": {
        "path": {"type": "string", "minLength": 1},
        "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}, "minItems": 1},
        "dry_run": {"type": "boolean"},
    },
    "required": ["path", "edits"],
}

SEARCH: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "max_results": {"type": "integer", "exclusiveMinimum": 0, "maximum": 100},
        "mode": {"oneOf": [{"const": "regex"}, {"const": "literal"}]},
        "paths": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "required": ["query"],
}

CATASTROPHIC_PATTERN: dict[str, Any] = {
    "type": "object",
    "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
}

PATTERN_PROPERTIES: dict[str, Any] = {
    "patternProperties": {"^x-(a+)+$": {"type": "integer"}},
    "additionalProperties": False,
}

INTEGER_S: dict[str, Any] = {"type": "object", "properties": {"s": {"type": "integer"}}}

REQUIRED_PATH: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}

REQUIRED_X: dict[str, Any] = {"type": "object", "required": ["x"]}

ANY_OBJECT: dict[str, Any] = {"type": "object"}

SCHEMAS: dict[str, dict[str, Any]] = {
    "write_file": WRITE_FILE,
    "run_shell": RUN_SHELL,
    "edit_file": EDIT_FILE,
    "search": SEARCH,
    "catastrophic_pattern": CATASTROPHIC_PATTERN,
    "pattern_properties": PATTERN_PROPERTIES,
    "integer_s": INTEGER_S,
    "required_path": REQUIRED_PATH,
    "required_x": REQUIRED_X,
    "any_object": ANY_OBJECT,
    "empty": {},
}
"""Every schema above by name."""

ACCEPT_EVERY_OBJECT = frozenset({"any_object", "empty"})
"""The schemas no object violates: they get valid arguments only."""
