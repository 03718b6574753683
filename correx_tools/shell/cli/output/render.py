"""How the command says what it found: its answer as text or JSON, and what a session holds
made visible, so that it cannot steer the terminal."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import CliError

if TYPE_CHECKING:
    pass

NO_TIMES = (
    "the transcript records no time for its steps: none is shown (their order is the sequences')"
)
"""What a command about a session says when its transcript records no time."""

# Control characters (an escape sequence that clears the screen or retitles the
# terminal, a carriage return that hides what came before) and direction controls
# (U+202E reverses what follows) are shown as what they are, as the report shows them.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str, *, styled: bool = False) -> str:
    """``text`` with its control and direction characters written as ``[U+XXXX]`` (a
    newline and a tab stay): what a session holds cannot steer the terminal. ``styled``
    keeps the colour sequences a drawn table holds (``ESC [ ... m``), and only those: a
    colour cannot clear the screen, move the cursor or retitle the window."""
    pattern = _STYLED_CONTROLS if styled else _CONTROLS
    return pattern.sub(_shown, text)


_STYLED_CONTROLS = re.compile(f"(\x1b\\[[0-9;]*m)|{_CONTROLS.pattern}")


_BREAKS = re.compile("[\n\r\t\x0b\x0c]")


def one_line(name: str) -> str:
    """A name (a session's id, say) set in a line of text: its line breaks and tabs written
    as ``[U+XXXX]`` too, so that it cannot split the line it stands in."""
    return _BREAKS.sub(_shown, name)


def in_line(text: str) -> str:
    r"""``text`` said in one line on the terminal (a note naming a file, an error quoting what
    a transcript holds): every control, direction and line-breaking character written as
    ``[U+XXXX]``.

    >>> in_line("bad\x1b[31m.jsonl: line 2\nnot JSON")
    'bad[U+001B][31m.jsonl: line 2[U+000A]not JSON'
    """
    return visible(one_line(text))


def _shown(found: re.Match[str]) -> str:
    if found[1] if found.re is _STYLED_CONTROLS else None:
        return found[0]  # a colour of the drawn table
    return f"[U+{ord(found[0]):04X}]"


def emit(args: argparse.Namespace, document: object, text: Callable[[], str]) -> None:
    """Print the command's answer: its document with ``--json``, else its text. Standard
    output that cannot take it (a full device) is one line saying so."""
    said = json.dumps(document, ensure_ascii=False, sort_keys=False) if args.json else text()
    if not args.json:
        said = visible(said, styled=sys.stdout.isatty())
    try:
        print(said, flush=True)
    except BrokenPipeError:
        raise  # the reader stopped early: not an error (see main)
    except OSError as error:
        raise CliError(f"writing standard output: {error.strerror or error}") from None
