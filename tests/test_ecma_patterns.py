"""Patterns mean what ECMA-262 says, as JSON Schema requires, while running on RE2.

The cases are those of the JSON Schema Test Suite's ECMA-262 regex tests
that RE2 answered differently before the translation.
"""

from __future__ import annotations

import pytest

from correx_tools import InMemoryToolRegistry, ToolRequest, ToolSpec, Valid, compile_schema


def matches(pattern: str, text: str) -> bool:
    schema = compile_schema({"type": "string", "pattern": pattern}).unwrap()
    return not list(schema.iter_errors(text))


@pytest.mark.parametrize("space", ["\u000b", "\u00a0", "\u2003", "\u2029", "\ufeff", " ", "\t"])
def test_white_space_is_unicode_white_space(space: str) -> None:
    assert matches(r"^\s$", space)
    assert not matches(r"^\S$", space)
    assert matches(r"^[\s]$", space)


def test_letters_digits_and_scripts_by_their_unicode_names() -> None:
    assert matches(r"^\p{Letter}cole$", "école")
    assert matches(r"^\p{digit}+$", "\u09ea\u09ea")  # Bengali digits
    assert not matches(r"^\p{digit}+$", "a")
    assert matches(r"^\p{Script=Greek}$", "\u03b1") and not matches(r"^\p{sc=Greek}$", "a")
    assert matches(r"^\P{gc=Uppercase_Letter}$", "a")


def test_escapes_ecma_spells_differently() -> None:
    assert matches(r"^\u00e9$", "é") and matches(r"^\u{1F600}$", "😀")
    assert matches(r"^\cJ$", "\n")
    assert matches(r"^(?<year>\d{4})$", "2026")
    assert not matches(r"^.$", "\u2028") and matches(r"^.$", "a")
    assert not matches(r"^[]$", "a") and matches(r"^[^]$", "\n")


def test_any_character_as_ecma_writes_it() -> None:
    # [\s\S] is the usual ECMA-262 spelling of "any character, line breaks too".
    assert matches(r"^[\s\S]+$", "a\nb\u2028 c")
    assert matches(r"^[a\S]$", "x") and not matches(r"^[\S]$", "\u00a0")


@pytest.mark.parametrize(
    ("pattern", "construct"),
    [
        (r"a(?=b)", "lookahead"),
        (r"a(?!b)", "negative lookahead"),
        (r"(?<=a)b", "lookbehind"),
        (r"(a)\1", "backreference"),
        (r"(?<n>a)\k<n>", "named backreference"),
        (r"[^\S]", "negated class"),
    ],
)
def test_what_cannot_run_in_linear_time_is_refused_naming_it(pattern: str, construct: str) -> None:
    refused = compile_schema({"properties": {"a": {"type": "string", "pattern": pattern}}})
    error = refused.failure()
    assert error.path == "$.properties.a.pattern"
    assert construct in error.message


def test_format_annotates_by_default_and_asserts_when_asked() -> None:
    spec = ToolSpec(
        name="schedule",
        description="",
        parameters={
            "type": "object",
            "properties": {
                "day": {"type": "string", "format": "date"},
                "notify": {"type": "string", "format": "email"},
            },
        },
    )
    request = ToolRequest(tool_name="schedule", arguments={"day": "2026-13-45", "notify": "nope"})
    assert InMemoryToolRegistry.of(spec).unwrap().validate(request) == Valid()
    strict = InMemoryToolRegistry.of(spec, formats=True).unwrap()
    found = strict.validate(request)
    assert [str(v) for v in found.violations] == [
        '$.day: "2026-13-45" is not a valid "date"',
        '$.notify: "nope" is not a valid "email"',
    ]
    good = ToolRequest(tool_name="schedule", arguments={"day": "2026-12-03", "notify": "a@b.org"})
    assert strict.validate(good) == Valid()
    assert not list(
        compile_schema({"format": "date"}, formats=True).unwrap().iter_errors("2026-12-03")
    )
