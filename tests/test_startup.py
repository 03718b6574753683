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


def test_a_command_imports_its_own_module_and_not_the_others() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys\n"
         "from correx_tools.shell.cli.main import main\n"
         "main(['stats', '--help'])"],
        check=False, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "usage: correx-tools stats" in loaded.stdout
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys\n"
         "from correx_tools.shell.cli.main import build_parser\n"
         "build_parser('stats').parse_args(['stats', 'x.sqlite', 's'])\n"
         "print(' '.join(m for m in sys.modules if m.startswith('correx_tools.shell.cli.')))"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout.split()  # fmt: skip
    assert "correx_tools.shell.cli.commands.stats" in probe
    others = ("serve", "compare", "export", "report", "verify", "tools", "demo")
    assert [m for m in others if f"correx_tools.shell.cli.{m}" in probe] == []
