"""Every example in the README and in ``docs/`` runs, and every output it shows is real.

Each page runs in a fresh directory of its own, its fenced blocks in order:

* ``python`` blocks run in one namespace per page, like cells of a notebook;
* ``sh`` blocks run each command (``correx-tools`` in this process, as
  `commands.correx` runs it, ``python`` as a new process; a ``.venv/bin/``
  prefix is dropped; ``&&`` chains are split). A command ends with ``# exits N`` when it is meant to
  fail. Setting up an environment, running the test suite and the benchmarks
  are what CI itself does, so those lines are listed in ``NOT_RUN`` and skipped;
* a ``text`` block right after a ``python`` or ``sh`` block is its output:
  each of its lines must appear in what the block printed, ``...`` standing
  for any text (timings). Elsewhere a ``text`` block is a diagram or prose;
* a ``text`` block marked ``<!-- output -->`` on the line before it is the whole
  output, written by this test: it must be what the block printed, line for line
  (the command's own timings written ``...``), and ``CORREX_DOCS_WRITE=1`` writes it
  again from what the block printed.

Every command runs with ``COLUMNS=80``: the pages show each table as an 80-column
terminal, or a pipe, shows it.

The PostgreSQL URL the pages use stands for a fresh database on the test server.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from correx_tools import (
    TRANSITIONS,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolInvocationStatus,
    _public,
)

from .commands import Ran, correx

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLE_DSN = "postgresql://agent@db.internal/correx"
NOT_RUN = (
    "python3 -m venv",  # environment set-up: CI does exactly this
    "pip install",
    "tox",
    "python -m pytest",  # the test suite itself
    "python -m benchmarks ",  # minutes long; tests/test_benchmarks_smoke.py runs it small
    "python tests/mutants.py",  # run by tests/test_mutants.py
    "HYPOTHESIS_PROFILE=",  # the nightly run: the test suite again, bigger
    "mkdocs",  # the site build: tests/test_docs.py::test_the_site_builds_strictly
    "correx-tools serve",  # runs until stopped: tests/test_serve_command.py runs it
)
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


GENERATED = "<!-- output -->"
"""The line before a ``text`` block that is a command's whole output, written by this test."""
WRITE = "CORREX_DOCS_WRITE"
"""Set to 1: the marked output blocks are written again from what their commands print."""
COLUMNS = "80"
_TIMINGS = (
    (re.compile(r"\bin \d+(?:\.\d+)? s\b"), "in ... s"),
    (re.compile(r"\([\d,]+ events/s\)"), "(... events/s)"),
)
"""What a command says of its own run's time, which no two runs share."""


@dataclass(frozen=True)
class Block:
    """One fenced block of a page: where its body starts and ends in the page's text, and
    whether it is a generated output (`GENERATED`)."""

    language: str
    body: str
    line: int
    start: int = 0
    end: int = 0
    generated: bool = False


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    return [
        Block(
            m.group(1),
            m.group(2),
            text.count("\n", 0, m.start()) + 1,
            m.start(2),
            m.end(2),
            text[: m.start()].rstrip().endswith(GENERATED),
        )
        for m in _FENCE.finditer(text)
    ]


def as_shown(output: str) -> str:
    """A command's whole output as a page shows it: its own timings written ``...``, no
    trailing spaces, one line end at the end."""
    for pattern, shown in _TIMINGS:
        output = pattern.sub(shown, output)
    return "".join(line.rstrip() + "\n" for line in output.rstrip("\n").splitlines())


def commands(body: str) -> Iterator[tuple[str, int]]:
    """The commands of a ``sh`` block, with the exit status each should end with."""
    for raw in body.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        expected = 0
        marker = re.search(r"\s+# exits (\d+)$", line)
        if marker:
            expected, line = int(marker.group(1)), line[: marker.start()]
        line = re.sub(r"\s+#.*$", "", line)
        for part in line.split("&&"):
            command = part.strip().removeprefix(".venv/bin/")
            if not command.startswith(NOT_RUN):
                yield command, expected


def run_command(
    command: str, cwd: Path, env: dict[str, str]
) -> tuple[Ran | subprocess.CompletedProcess[str], list[str]]:
    """A page's command: ``correx-tools`` in this process, ``python`` as a new one."""
    words = shlex.split(command)
    match words[0]:
        case "correx-tools":
            return correx(*words[1:], cwd=cwd, env={"COLUMNS": COLUMNS}), words
        case "python" | "python3":
            argv = [sys.executable, *words[1:]]
        case _:
            raise AssertionError(f"the docs run only correx-tools and python, not {command!r}")
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    return done, argv


def shows(output: str, shown: str, where: str) -> None:
    """Each line ``shown`` appears in ``output``; ``...`` stands for any text (timings)."""
    lines = [line.rstrip() for line in output.splitlines()]
    for line in shown.splitlines():
        if line.strip() in ("", "..."):
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in line.rstrip().split("...")))
        assert any(pattern.fullmatch(candidate) for candidate in lines), (
            f"{where}: {line!r} is not in the output:\n{output}"
        )


@pytest.fixture
def postgres_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database on the test server, dropped afterwards."""
    import psycopg  # noqa: PLC0415 - only pages that use PostgreSQL need it
    from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: PLC0415

    server = request.getfixturevalue("postgres_dsn")
    name = f"docs_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    params = conninfo_to_dict(server)
    url = f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}/{name}"
    yield url
    with psycopg.connect(make_conninfo(server), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_example_on_the_page_runs(
    page: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    page_blocks = blocks(page)
    dsn = None
    if any(EXAMPLE_DSN in b.body for b in page_blocks):
        dsn = request.getfixturevalue("postgres_database")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": COLUMNS}
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    last_output: str | None = None
    ran = 0
    written: list[tuple[Block, str]] = []
    for block in page_blocks:
        body = block.body.replace(EXAMPLE_DSN, dsn) if dsn else block.body
        where = f"{page.name}:{block.line}"
        match block.language:
            case "python":
                captured = io.StringIO()
                before = Path.cwd()
                os.chdir(tmp_path)
                try:
                    with contextlib.redirect_stdout(captured):
                        # Our own pages: running their examples is the point.
                        exec(compile(body, where, "exec"), namespace)
                finally:
                    os.chdir(before)
                last_output, ran = captured.getvalue(), ran + 1
            case "sh":
                runs: list[tuple[str, str]] = []
                for command, expected in commands(body):
                    done, argv = run_command(command, tmp_path, env)
                    assert done.returncode == expected, f"{where}: {argv}\n{done.stderr}"
                    assert "Traceback" not in done.stderr, f"{where}: {done.stderr}"
                    runs.append((command, done.stdout + done.stderr))
                    ran += 1
                # What the block printed: each command's output, after its command line
                # when the block runs more than one.
                last_output = "".join(
                    (f"$ {command}\n" if len(runs) > 1 else "") + said for command, said in runs
                )
            case "text" if last_output is not None and block.generated:
                if os.environ.get(WRITE) == "1":
                    written.append((block, as_shown(last_output)))
                else:
                    assert as_shown(last_output) == body, (
                        f"{where}: the output is not what the page shows ({WRITE}=1 writes "
                        f"it again):\n{as_shown(last_output)}"
                    )
            case "text" if last_output is not None:
                shows(last_output, body, where)
            case _:
                last_output = None
    assert ran > 0 or not any(b.language in ("python", "sh") for b in page_blocks)
    if written:
        text = page.read_text(encoding="utf-8")
        for block, output in reversed(written):
            text = text[: block.start] + output + text[block.end :]
        page.write_text(text, encoding="utf-8")


def test_the_runner_checks_outputs_and_exit_statuses(tmp_path: Path) -> None:
    assert list(commands("python3 -m venv .venv && .venv/bin/correx-tools demo\n")) == [
        ("correx-tools demo", 0)
    ]
    assert list(commands("correx-tools replay x y  # exits 1\n# a comment\n")) == [
        ("correx-tools replay x y", 1)
    ]
    shows("took 0.12 s\ndone\n", "took ... s\n...\ndone\n", "page.md:1")
    assert as_shown("wrote 3 events in 0.12 s (25 events/s)  \n\n") == (
        "wrote 3 events in ... s (... events/s)\n"
    )
    with pytest.raises(AssertionError, match="not in the output"):
        shows("one\ntwo\n", "one\n...\nthree\n", "page.md:1")
    with pytest.raises(AssertionError, match="not in the output"):
        shows("took 0.12 s\n", "took ... ms\n", "page.md:1")


def test_the_transition_table_in_the_concepts_page_is_the_one_in_the_code() -> None:
    text = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\(no record\)|[A-Z]+) +\|(.*)\|$", text, re.M)
    assert [status for status, _ in rows] == [
        "(no record)", "REQUESTED", "STARTED", "COMPLETED", "FAILED", "REJECTED"
    ]  # fmt: skip
    columns = [
        ToolInvocationRequestedEvent,
        ToolExecutionStartedEvent,
        ToolExecutionCompletedEvent,
        ToolExecutionFailedEvent,
        ToolExecutionRejectedEvent,
    ]
    for status, cells in rows:
        row = None if status == "(no record)" else ToolInvocationStatus[status]
        for event, cell in zip(columns, cells.split("|"), strict=True):
            outcome = TRANSITIONS[(row, event)]
            shown = outcome.name if isinstance(outcome, ToolInvocationStatus) else outcome.value
            assert cell.strip() == shown, (status, event.__name__)


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    reference = (tmp_path / "site" / "reference" / "index.html").read_text(encoding="utf-8")
    documented = set(re.findall(r'id="correx_tools\.(?:[a-z]+\.)?([A-Za-z_]+)"', reference))
    # Every public name of every surface, read from the package as it runs (its names are
    # imported when asked for).
    assert set(_public.NAMES) - documented == set()
    assert (tmp_path / "site" / "tutorial" / "index.html").exists()
    # Docstrings are Markdown: no Sphinx role or reST literal marker shows raw, and a
    # constant shows its docstring, not the private helpers that build its value.
    assert not re.search(r":(class|meth|func|data|mod|attr):`", reference)
    assert "::\n" not in reference and "_ROWS" not in reference
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "<code>tools SOURCE --to openai|anthropic|mcp" in cli and "\\|" not in cli


def test_docstrings_use_markdown_not_sphinx_roles() -> None:
    """The reference page renders docstrings as Markdown: a role would show raw."""
    role = re.compile(r":(class|meth|func|data|mod|attr|exc|obj):`")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "correx_tools").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if role.search(line)
    ]
    assert found == []
