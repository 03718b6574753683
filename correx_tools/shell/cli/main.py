"""The ``correx-tools`` command: a thin shell that parses, calls the library, renders.

Every subcommand prints a readable table, or with ``--json`` one JSON document
on stdout. Errors are one line on stderr and exit status 1 (2 for a usage
error), never a traceback. This module holds the parser; each group of
subcommands lives in its own module (``inspect``, ``stores``, ``tools``,
``demo``), and what they share in ``sources`` (what the arguments name),
``loading`` (replays with progress) and ``render`` (all output).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sqlite3
import sys
from collections.abc import Sequence
from typing import Any

from ..._version import __version__
from ..stores.port import StoreLayoutError, StoreReadError
from .errors import CliError
from .output.render import in_line
from .sources.loading import INVOCATION_HELP, SESSION_HELP
from .sources.transcripts import STORE_HELP, add_cache_arguments, source_scope

# -- the parser ----------------------------------------------------------------
#
# Each command's handler, and the arguments its own module adds, are named as
# ``module:function`` and imported only for the command being run: every start
# (every user's, every test's) otherwise paid for importing every command's module.


def _loaded(target: str) -> Any:
    """The function ``module:function`` of the command modules beside this one."""
    module, name = target.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


class _Parsers:
    """The subcommands being declared: each with its handler's name, and the arguments its
    module adds only when it is the command being run (or every command is wanted)."""

    def __init__(self, commands: Any, chosen: str | None) -> None:
        self._commands = commands
        self._chosen = chosen
        self.source_help = f"{STORE_HELP}; or an agent's transcript, or a folder of them"

    def command(self, name: str, handler: str, help_text: str) -> argparse.ArgumentParser:
        """Declare ``name``, run by ``handler`` (``module:function``)."""
        sub: argparse.ArgumentParser = self._commands.add_parser(
            name, help=help_text, description=help_text
        )
        sub.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        sub.set_defaults(handler=handler)
        add_cache_arguments(sub, name)
        return sub

    def extend(self, name: str, sub: argparse.ArgumentParser, adder: str, *more: str) -> None:
        """Add the arguments ``adder`` (``module:function``) declares to command ``name``."""
        if self._chosen in (None, name):
            _loaded(adder)(sub, *more)


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``correx-tools``: every command's arguments, or with
    ``chosen`` only that command's (the others are listed, and parse nothing)."""
    parser = argparse.ArgumentParser(
        prog="correx-tools",
        description="Inspect, replay and travel through recorded agent tool sessions.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    declared = _Parsers(
        parser.add_subparsers(dest="command", required=True, metavar="COMMAND"), chosen
    )
    command, source_help = declared.command, declared.source_help
    demo = command(
        "demo",
        "demo:cmd_demo",
        "write a realistic multi-session agent run to SQLite, then replay and inspect it",
    )
    demo.add_argument(
        "--db", default="correx-demo.sqlite", help="the SQLite file to write (default: %(default)s)"
    )
    demo.add_argument(
        "--sessions", type=_positive, default=4, help="sessions to write (default: %(default)s)"
    )
    demo.add_argument(
        "--invocations",
        type=_positive,
        default=2_500,
        help="tool calls per session (default: %(default)s)",
    )
    sessions = command(
        "sessions",
        "inspect:cmd_sessions",
        "list the sessions of a store with their invocation counts",
    )
    sessions.add_argument("source", metavar="SOURCE", help=source_help)
    _one_session(declared)
    copy = command(
        "import",
        "stores:cmd_import",
        "copy every session of SOURCE into DEST (created if missing)",
    )
    copy.add_argument("source", metavar="SOURCE", help=source_help)
    copy.add_argument("dest", metavar="DEST", help=STORE_HELP)
    declared.extend("import", copy, "stores:add_import_arguments")
    init_db = command("init-db", "stores:cmd_init_db", "create the tables of a store (idempotent)")
    init_db.add_argument("source", metavar="SOURCE", help=STORE_HELP)
    everything = command(
        "replay-all",
        "stores:cmd_replay_all",
        "replay every session of a store in parallel processes",
    )
    everything.add_argument("source", metavar="SOURCE", help=source_help)
    everything.add_argument(
        "--workers", type=_positive, default=2, help="processes (default: %(default)s)"
    )
    everything.add_argument(
        "--lenient", action="store_true", help="skip events the lifecycle refuses"
    )
    _looking_closer(declared)
    _keeping(declared)
    validate = command(
        "validate",
        "tools:cmd_validate",
        "validate a tool request against a file of tool definitions",
    )
    validate.add_argument(
        "tools",
        metavar="TOOLS",
        help="a JSON file of tool definitions: this library's "
        "{name, description, parameters, tier, capabilities}, or MCP, OpenAI or Anthropic; "
        "- reads standard input",
    )
    validate.add_argument(
        "request",
        metavar="REQUEST",
        help='a JSON file, inline JSON {"tool_name": ..., "arguments": {...}}, '
        "or - for standard input",
    )
    transcript = command(
        "import-transcript",
        "transcripts:cmd_import_transcript",
        "import the transcripts other agents wrote (Claude Code, Codex, Gemini CLI, Cline, "
        "Goose, OpenCode, Aider, MCP, OpenHands, SWE-agent, ...): a file, or a folder of them, "
        "each as a session",
    )
    declared.extend("import-transcript", transcript, "transcripts:add_arguments")
    tools = command(
        "tools",
        "tools:cmd_tools",
        "convert a file of tool definitions to OpenAI, Anthropic or MCP form",
    )
    declared.extend("tools", tools, "tools:add_tools_arguments")
    return parser


def _keeping(declared: _Parsers) -> None:
    """The commands that keep a store's index true to its events: ``reindex``, ``verify``."""
    reindex = declared.command(
        "reindex",
        "stores:cmd_reindex",
        "rebuild the time-travel index of a SQLite file or PostgreSQL schema from its events "
        "(upgrading one written by an older release)",
    )
    reindex.add_argument("source", metavar="SOURCE", help="a SQLite file or a postgresql:// URL")
    reindex.add_argument(
        "--accept-edits",
        action="store_true",
        help="index events changed after they were written as they are now (after a "
        "deliberate edit: the new index vouches for them); without it such a session keeps "
        "its index, and verify names the change",
    )
    declared.extend("reindex", reindex, "verify:add_workers_argument", "rebuild")
    verify = declared.command(
        "verify",
        "verify:cmd_verify",
        "check a store end to end: each session's events, and every index row against a "
        "fresh fold of them (--repair rebuilds a damaged index; events are never changed)",
    )
    declared.extend("verify", verify, "verify:add_verify_arguments", declared.source_help)


def _one_session(declared: _Parsers) -> None:
    """The commands that look at one session: ``replay``, ``history``, ``diff``."""
    command, source_help = declared.command, declared.source_help
    replay = command("replay", "inspect:cmd_replay", "replay a session and show its invocations")
    replay.add_argument("source", metavar="SOURCE", help=source_help)
    replay.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    replay.add_argument(
        "--at",
        type=int,
        metavar="SEQ",
        help="the state right after this sequence (0: before any event)",
    )
    replay.add_argument(
        "--lenient",
        action="store_true",
        help="skip events the lifecycle refuses instead of stopping",
    )
    replay.add_argument(
        "--limit",
        type=_count,
        default=20,
        help="show the last N invocations (0: all; default: %(default)s)",
    )
    history = command("history", "inspect:cmd_history", "every version of one invocation's record")
    history.add_argument("source", metavar="SOURCE", help=source_help)
    history.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    history.add_argument("invocation", metavar="INVOCATION", help=INVOCATION_HELP)
    declared.extend("history", history, "prices:add_prices_argument")
    diff = command(
        "diff", "inspect:cmd_diff", "the invocations added or changed between two sequences"
    )
    diff.add_argument("source", metavar="SOURCE", help=source_help)
    diff.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    diff.add_argument("a", type=int, metavar="A")
    diff.add_argument("b", type=int, metavar="B")
    diff.add_argument(
        "--summary",
        action="store_true",
        help="only count them: added, changed, finished, by status and by tool",
    )
    diff.add_argument(
        "--limit",
        type=_count,
        default=50,
        help="show the first N of them, and how many there are (0: all; default: %(default)s)",
    )


def _looking_closer(declared: _Parsers) -> None:
    """The commands that look at sessions as a whole: ``stats``, ``export``, ``report``,
    ``serve``, ``compare``, ``audit``."""
    for name, handler, help_text in (
        (
            "stats",
            "stats:cmd_stats",
            "per-tool calls, outcomes and durations of a session (at any sequence), "
            "and what is in flight",
        ),
        (
            "export",
            "export:cmd_export",
            "write a session as OpenTelemetry trace data (OTLP/JSON): a span per tool call",
        ),
        (
            "report",
            "report:cmd_report",
            "write a session as one self-contained HTML page: a timeline, a scrubber over its "
            "sequences, each invocation's history",
        ),
        (
            "serve",
            "serve:cmd_serve",
            "a live, read-only time-travel debugger for a store in the browser: scrub to any "
            "event, open any invocation, diff, search, follow a running session",
        ),
        (
            "compare",
            "compare:cmd_compare",
            "where two sessions of one task part ways: their calls aligned, the first "
            "divergence with the state of both there, and what differed beside each call",
        ),
        (
            "audit",
            "audit:cmd_audit",
            "hold every recorded call to a policy: capabilities, denied paths and commands, "
            "secrets, untrusted values that flowed into later calls; findings pinned to events",
        ),
    ):
        sub = declared.command(name, handler, help_text)
        declared.extend(name, sub, f"{name}:add_{name}_arguments", declared.source_help)


def _positive(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def _count(text: str) -> int:
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; give 0 or more")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    given = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(given[0] if given and not given[0].startswith("-") else None).parse_args(
        given
    )
    if sys.stdout is None:  # started with its standard output closed (``>&-``)
        print(f"correx-tools {args.command}: error: standard output is closed", file=sys.stderr)
        return 1
    try:
        with source_scope(args):
            status: int = _loaded(args.handler)(args)
    except CliError as error:
        print(f"correx-tools {args.command}: error: {in_line(str(error))}", file=sys.stderr)
        return 1
    except StoreReadError as error:
        hint = "" if args.command == "verify" else " (correx-tools verify checks the store)"
        said = in_line(str(error.error))
        print(f"correx-tools {args.command}: error: {said}{hint}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader (``head``, say) stopped early: not an error. Point stdout at
        # /dev/null so the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, sqlite3.Error, StoreLayoutError) as error:
        print(f"correx-tools {args.command}: error: {in_line(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"correx-tools {args.command}: interrupted", file=sys.stderr)
        return 130
    return status
