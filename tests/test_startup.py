"""What the command imports when it starts: every test of the command and every user's
command pays it, so what only some commands need is imported when they need it."""

from __future__ import annotations

import subprocess
import sys

LOADED_LATER = ("jsonschema", "referencing", "psycopg", "starlette", "uvicorn")


def test_the_command_starts_without_what_only_some_commands_use() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys, correx_tools.shell.cli.main; print(' '.join(sorted(sys.modules)))"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout.split()  # fmt: skip
    assert "correx_tools.shell.cli.main" in loaded
    assert [name for name in LOADED_LATER if name in loaded] == []


def test_a_schema_still_compiles_and_validates_when_first_used() -> None:
    checked = subprocess.run(
        [sys.executable, "-c",
         "from correx_tools import compile_schema\n"
         "from correx_tools.core.tools.validation import validate_arguments\n"
         "schema = compile_schema({'type': 'object', 'required': ['path']}).unwrap()\n"
         "print(validate_arguments(schema, {}))"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout  # fmt: skip
    assert checked.strip() == '1 violation: $: "path" is a required property'
