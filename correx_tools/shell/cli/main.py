"""The ``correx-tools`` command: a thin shell that parses, calls the library, renders.

`COMMANDS` is the one table of commands: each row names a command, says what it
does, and names its module under `correx_tools.shell.cli.commands`, which exports
``add_arguments(parser)`` and ``run(args) -> int``. Only the module of the command
being run is imported (``--version`` and ``--help`` import none): every start of
the command, every user's and every test's, would otherwise pay for all of them.

Every command prints a readable table, or with ``--json`` one JSON document on
stdout. Errors are one line on stderr and exit status 1 (2 for a usage error),
never a traceback. What the commands share lives beside them: `arguments` (what
SOURCE, SESSION and the common options are), `sources` (opening what the
arguments name) and `output` (tables, readable numbers, the terminal).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NamedTuple

from ..._version import __version__
from .errors import CliError


class Command(NamedTuple):
    """A command: its name, what it does (its help), and its module's name."""

    name: str
    help: str
    module: str

    def load(self) -> ModuleType:
        """The command's module (imported now, if it was not yet)."""
        return importlib.import_module(f"{__package__}.commands.{self.module}")


COMMANDS = (
    Command("demo", "write a realistic multi-session agent run to SQLite, then replay and "
            "inspect it", "demo"),
    Command("sessions", "the sessions of a SOURCE (every agent's folder when none is given), "
            "the most recent first, with filters", "sessions"),
    Command("usage", "what sessions spent, by day, week, month, project, model, agent, "
            "machine, session or 5-hour block: sessions, calls, tokens and cost", "usage"),
    Command("search", "find what agents did across every session: calls' arguments, their "
            "outputs, what was said", "search"),
    Command("replay", "replay a session and show its invocations", "replay"),
    Command("history", "every version of one invocation's record", "history"),
    Command("diff", "the invocations added or changed between two sequences", "diff"),
    Command("import", "copy every session of SOURCE into DEST (created if missing)",
            "import_store"),
    Command("push", "send every session of SOURCE to the team's PostgreSQL store, only what "
            "it does not hold yet, named by machine and labelled by user", "push"),
    Command("init-db", "create the tables of a store (idempotent)", "init_db"),
    Command("replay-all", "replay every session of a store in parallel processes",
            "replay_all"),
    Command("stats", "per-tool calls, outcomes and durations of a session (at any sequence), "
            "and what is in flight", "stats"),
    Command("export", "write a session as OpenTelemetry trace data (OTLP/JSON): a span per "
            "tool call", "export"),
    Command("report", "write a session as one self-contained HTML page: a timeline, a "
            "scrubber over its sequences, each invocation's history", "report"),
    Command("serve", "a live, read-only time-travel debugger for a store in the browser: "
            "scrub to any event, open any invocation, diff, search, follow a running "
            "session", "serve"),
    Command("compare", "where two sessions of one task part ways: their calls aligned, the "
            "first divergence with the state of both there, and what differed beside each "
            "call", "compare"),
    Command("audit", "hold every recorded call to a policy: capabilities, denied paths and "
            "commands, secrets, untrusted values that flowed into later calls; findings "
            "pinned to events", "audit"),
    Command("reindex", "rebuild the time-travel index of a SQLite file or PostgreSQL schema "
            "from its events (upgrading one written by an older release)", "reindex"),
    Command("verify", "check a store end to end: each session's events, and every index row "
            "against a fresh fold of them (--repair rebuilds a damaged index; events are "
            "never changed)", "verify"),
    Command("validate", "validate a tool request against a file of tool definitions",
            "validate"),
    Command("import-transcript", "import the transcripts other agents wrote (Claude Code, "
            "Codex, Gemini CLI, Cline, Goose, OpenCode, Aider, MCP, OpenHands, SWE-agent, "
            "...): a file, or a folder of them, each as a session", "import_transcript"),
    Command("tools", "convert a file of tool definitions to OpenAI, Anthropic or MCP form",
            "tools"),
)  # fmt: skip
"""Every command, in the order ``--help`` lists them."""


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``correx-tools``: every command listed, and the arguments of
    ``chosen`` alone (the others parse nothing: ``main`` runs only the command named)."""
    parser = argparse.ArgumentParser(
        prog="correx-tools",
        description="Inspect, replay and travel through recorded agent tool sessions.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        sub = commands.add_parser(command.name, help=command.help, description=command.help)
        sub.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        sub.set_defaults(run=command)
        if command.name == chosen:
            command.load().add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    given = sys.argv[1:] if argv is None else list(argv)
    named = given[0] if given and not given[0].startswith("-") else None
    args = build_parser(named).parse_args(given)
    if sys.stdout is None:  # started with its standard output closed (``>&-``)
        print(f"correx-tools {args.command}: error: standard output is closed", file=sys.stderr)
        return 1
    command: Command = args.run
    from .sources.options import source_scope  # noqa: PLC0415 - not for --version or --help

    try:
        with source_scope(args):
            status: int = command.load().run(args)
    except CliError as error:
        _error(args.command, str(error))
        return 1
    except BrokenPipeError:
        # The reader (``head``, say) stopped early: not an error. Point stdout at
        # /dev/null so the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"correx-tools {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        said = _expected(error, args.command)
        if said is None:
            raise
        _error(args.command, said)
        return 1
    return status


def _expected(error: Exception, command: str) -> str | None:
    """What to say of an error a store or the file system raised: a failure the user can
    act on, not a bug (``None`` for anything else, which keeps its traceback)."""
    import sqlite3  # noqa: PLC0415 - only on the way out with an error

    from ..stores.port import StoreLayoutError, StoreReadError  # noqa: PLC0415

    if isinstance(error, StoreReadError):
        hint = "" if command == "verify" else " (correx-tools verify checks the store)"
        return f"{error.error}{hint}"
    if isinstance(error, OSError | sqlite3.Error | StoreLayoutError):
        return str(error)
    return None


def _error(command: str, message: str) -> None:
    from .output.render import in_line  # noqa: PLC0415 - only on the way out with an error

    print(f"correx-tools {command}: error: {in_line(message)}", file=sys.stderr)
