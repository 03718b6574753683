"""What the command imports when it starts: every user's command and every test's pays for
it, so what only some commands need is imported when they need it.

Each test reads what a real start of the command imported (every module in ``sys.modules``
when it exits, written to a file; ``python -X importtime`` tells the same story with the
times, but leaves out a module imported through `importlib`, as the command's own is) and
holds it to a budget: a list of what may be imported, and a count of the package's own
modules. A budget, not a time: what a start imports is the same on a busy machine and a
quiet one, while its seconds are not (the start-up times are a row of the benchmarks).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TRANSCRIPT = (
    Path(__file__).parent / "data" / "transcripts" / "claude-code" / "short_two_rejections.jsonl"
)
HEAVY = ("jsonschema", "referencing", "rich", "psycopg", "starlette", "uvicorn", "opentelemetry",
         "google")  # fmt: skip
"""Third-party packages no start may import unless its command uses them."""
FIRST_START = {
    "correx_tools", "correx_tools._version", "correx_tools._public", "correx_tools.shell",
    "correx_tools.shell.cli",
    "correx_tools.shell.cli.main", "correx_tools.shell.cli.errors", "correx_tools.cli",
}  # fmt: skip
"""All of the package that ``--version`` and ``--help`` may import."""
SESSIONS_BUDGET = 170
"""How many of the package's modules listing a small transcript's sessions may import (185
on 2026-12-07, the catalog's included: no agent's reader among them; 166 on 2026-12-08,
with no writing, verifying or rebuilding of a store)."""
READERS = ("calls", "talk", "usage", "database")
"""The modules of an agent's package that read its files (its record and `signs` do not)."""
READING = {
    "correx_tools.shell.transcripts.importing.events",
    "correx_tools.shell.transcripts.importing.importing",
    "correx_tools.shell.transcripts.cache.reading",
    "correx_tools.shell.transcripts.cache.filling",
}
"""What only a look that reads a file needs."""
SQL = "correx_tools.shell.stores.sql."
NOT_TO_READ = {
    f"{SQL}append", f"{SQL}copy_parts", f"{SQL}parts", f"{SQL}rebuild_parts", f"{SQL}rebuilding",
    f"{SQL}verify_parts", f"{SQL}verifying", "tomllib", "hashlib",
}  # fmt: skip
"""What a store's writes, copies, checks and rebuilds need, and the parsers and digests only
some commands use (TOML: a file a person gives; hashlib: its OpenSSL is slow to load): no
listing of a warm cache imports them."""


LAUNCHER = """
import atexit, sys
def written():
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))
atexit.register(written)
from correx_tools.cli import main
sys.exit(main(sys.argv[2:]))
"""


def imported(*argv: str, folder: Path) -> list[str]:
    """The modules a start of ``correx-tools ARGV`` had imported when it ended."""
    listed = folder / "modules.txt"
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(listed), *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return listed.read_text(encoding="utf-8").splitlines()


def third_party(names: list[str]) -> set[str]:
    """The top-level packages of ``names`` that are neither the standard library nor ours."""
    tops = {name.split(".")[0] for name in names}
    return {
        top
        for top in tops
        if top not in sys.stdlib_module_names
        and not top.startswith("_")
        and top not in {"correx_tools", "sitecustomize", "usercustomize"}
    }


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_import_no_command_and_no_library(argv: list[str], tmp_path: Path) -> None:
    names = imported(*argv, folder=tmp_path)
    ours = {name for name in names if name.startswith("correx_tools")}
    # The editable install's own finder is not ours; everything else of the package is.
    assert ours - {n for n in ours if n.startswith("correx_tools.__editable")} <= FIRST_START
    assert third_party(names) == set()


def test_one_command_imports_its_own_module_and_no_other_command(tmp_path: Path) -> None:
    names = imported("stats", "--help", folder=tmp_path)
    commands = {n for n in names if n.startswith("correx_tools.shell.cli.commands.")}
    assert commands == {"correx_tools.shell.cli.commands.stats"}


def test_listing_a_transcript_imports_no_heavy_library_and_stays_in_its_budget(
    tmp_path: Path,
) -> None:
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    imported("sessions", str(TRANSCRIPT), *cache, folder=tmp_path)  # the next start is warm
    names = imported("sessions", str(TRANSCRIPT), *cache, folder=tmp_path)
    assert [name for name in names if name.split(".")[0] in HEAVY] == []
    ours = [name for name in names if name.startswith("correx_tools")]
    assert len(ours) <= SESSIONS_BUDGET, sorted(ours)
    # A warm cache reads no transcript again: no agent's reader is needed to say so.
    assert "correx_tools.shell.cli.commands.sessions" in ours
    agents = "correx_tools.shell.transcripts.agents."
    readers = [n for n in ours if n.startswith(agents) and n.rpartition(".")[2] in READERS]
    assert readers == [] and READING.isdisjoint(ours), sorted(ours)
    assert NOT_TO_READ.isdisjoint(names), sorted(NOT_TO_READ.intersection(names))
    assert f"{agents}claude_code" in ours  # the records are there: recognising needs them


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
