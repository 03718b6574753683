"""The arguments the commands share: what SOURCE, SESSION and INVOCATION may be, the
whole-number types, and the options several commands take (``--cache``, ``--workers``,
``--prices``, ``--redact``).

Declaring an argument costs nothing here: this module imports no more than `argparse` (and
`sys`), so that every start of the command, whatever it runs, stays light.
"""

from __future__ import annotations

import argparse
import sys

STORE_HELP = "a SQLite file, a .jsonl log or a postgresql:// URL"
"""What a store SOURCE or DEST may be, for the command's help."""
SOURCE_HELP = f"{STORE_HELP}; or an agent's transcript, or a folder of them"
"""What a SOURCE may be for a command that also reads transcripts."""
SESSION_HELP = "a session's id, or the start of exactly one (as git takes a commit's)"
INVOCATION_HELP = (
    "an invocation's id, or its id without the session's own prefix (call-00005), or the "
    "start of exactly one of those"
)
NO_CONVERSATION = "leave out the conversation around the calls (prompts, words, reasoning, tokens)"


def whole(text: str) -> int:
    """A whole number, or a usage error naming what was given."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive(text: str) -> int:
    """A whole number of at least 1."""
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def count(text: str) -> int:
    """A whole number of at least 0."""
    value = whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative; give 0 or more")
    return value


def add_terminal_limit(parser: argparse.ArgumentParser, what: str, on_a_terminal: int) -> None:
    """``--limit N`` of a command that shows ``on_a_terminal`` rows (``what``) on a terminal
    unless asked, and all of them elsewhere (`terminal_limit`)."""
    parser.add_argument(
        "--limit",
        type=count,
        metavar="N",
        help=f"show the {what} (0: all; default: {on_a_terminal} on a terminal, else all)",
    )


def terminal_limit(args: argparse.Namespace, on_a_terminal: int) -> int | None:
    """How many rows ``--limit`` asks for (None: all): ``on_a_terminal`` when it is not given
    and the text goes to a terminal."""
    if args.limit is not None:
        return int(args.limit) or None
    return on_a_terminal if sys.stdout.isatty() and not args.json else None


EVERY_FOLDER = "default: every agent's folder found on this machine"


def add_source(
    parser: argparse.ArgumentParser, *, transcripts: bool = True, optional: bool = False
) -> None:
    """The positional SOURCE; with ``transcripts``, also the options of a SOURCE that is a
    transcript or a folder of them (read through a cache); ``optional``: left out, every
    agent's folder found on the machine."""
    if optional:
        parser.add_argument(
            "source", metavar="SOURCE", nargs="?", help=f"{SOURCE_HELP} ({EVERY_FOLDER})"
        )
    else:
        parser.add_argument(
            "source", metavar="SOURCE", help=SOURCE_HELP if transcripts else STORE_HELP
        )
    if transcripts:
        add_cache_arguments(parser)


def add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cache``, ``--no-cache`` and ``--no-conversation``, for a command whose SOURCE may be
    a transcript or a folder of them."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--cache",
        metavar="PATH",
        help="for a transcript or folder SOURCE: the SQLite file to cache it in "
        "(default: one per SOURCE in the user's cache folder)",
    )
    group.add_argument(
        "--no-cache",
        action="store_true",
        help="for a transcript or folder SOURCE: a temporary cache, gone when the command ends",
    )
    parser.add_argument("--no-conversation", action="store_true", help=NO_CONVERSATION)


def add_session(parser: argparse.ArgumentParser) -> None:
    """The positional SESSION."""
    parser.add_argument("session", metavar="SESSION", help=SESSION_HELP)


def add_workers_argument(
    parser: argparse.ArgumentParser, verb: str, *, among: str = "this one among them"
) -> None:
    """``--workers N``: how many processes work a database's large sessions in parts."""
    parser.add_argument(
        "--workers",
        type=_workers,
        default=None,
        metavar="N",
        help=f"processes that {verb} a large session's parts at once, {among} "
        "(default: the machine's cores; 1 works every session in this process)",
    )


def _workers(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number


def workers_of(args: argparse.Namespace) -> int:
    """The ``--workers`` asked for, or the machine's cores."""
    from ..stores.fanout import default_workers  # noqa: PLC0415 - only commands with workers

    return default_workers() if args.workers is None else int(args.workers)


def add_prices_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--prices FILE`` option."""
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="a TOML or JSON file of prices per model (US dollars per million tokens: input, "
        "output, cache_read, cache_write) put over the shipped table",
    )


def add_redact_argument(parser: argparse.ArgumentParser) -> None:
    """``--redact PATTERN``, repeatable: what the report and the server also mask."""
    parser.add_argument(
        "--redact",
        metavar="PATTERN",
        action="append",
        default=[],
        help="also mask what this regular expression (RE2 syntax: no lookaround or "
        "backreferences) matches (repeatable); keys, tokens, private keys and passwords are "
        "always masked",
    )


def add_session_filters(parser: argparse.ArgumentParser) -> None:
    """The options that pick sessions among many (``sessions``, ``usage``, ``search``)."""
    picked = parser.add_argument_group("which sessions")
    picked.add_argument("--agent", metavar="NAME", help="only this agent's (its format's name)")
    picked.add_argument(
        "--project", metavar="TEXT", help="only projects whose path holds TEXT (any case)"
    )
    picked.add_argument(
        "--model", metavar="TEXT", help="only sessions with a model whose name holds TEXT"
    )
    picked.add_argument(
        "--since",
        metavar="WHEN",
        help="only sessions active at or after WHEN: a date (2026-12-01, 20261201) or a date "
        "and time (2026-12-01T14:30, with Z or +01:00 for another zone than --tz's)",
    )
    picked.add_argument(
        "--until",
        metavar="WHEN",
        help="only sessions active before WHEN (a date: up to the end of that day)",
    )
    picked.add_argument(
        "--failed",
        action="store_true",
        help="only sessions with a failed, rejected or non-zero call",
    )
    picked.add_argument("--machine", metavar="NAME", help="only sessions recorded on this machine")
    picked.add_argument(
        "--user", metavar="NAME", help="only sessions this user pushed (a team's store)"
    )
    picked.add_argument(
        "--tz",
        metavar="ZONE",
        help="the time zone of dates given and shown (a name such as Europe/Paris or UTC; "
        "default: this machine's)",
    )


def add_lenient_argument(parser: argparse.ArgumentParser) -> None:
    """``--lenient``: a command that replays sessions skips the events the lifecycle refuses."""
    parser.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")


def add_shown_arguments(parser: argparse.ArgumentParser, *, masked: bool = True) -> None:
    """``--wide`` (every column whole) and, for a command that quotes a session,
    ``--unmasked`` (secrets shown as they are)."""
    parser.add_argument(
        "--wide", action="store_true", help="every column, nothing cut (for a wide terminal)"
    )
    if masked:
        parser.add_argument(
            "--unmasked",
            action="store_true",
            help="show secrets as the session holds them (masked by default, as the "
            "debugger masks them)",
        )
