"""The command run in this process, its standard output and error captured (not a terminal):
what a person who pipes it, or a script, reads. `Said.json` reads a ``--json`` answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

import pytest

from correx_tools.shell.cli.main import main


class Said(NamedTuple):
    """One run's exit status, standard output and standard error."""

    status: int
    out: str
    err: str

    def json(self) -> Any:
        """The ``--json`` document the run printed."""
        return json.loads(self.out)


Command = Callable[..., Said]


def command(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Command:
    """``run(*argv, columns=None, env=None)``: the command in this process, with ``COLUMNS``
    set to ``columns`` (none: unset, as a pipe is 80 wide) and ``env`` set over the test's."""

    def run(*argv: str, columns: int | None = None, env: dict[str, str] | None = None) -> Said:
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", str(columns))
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        try:
            status = main(list(argv))
        except SystemExit as leaving:
            status = int(leaving.code or 0)
        out, err = capsys.readouterr()
        return Said(status, out, err)

    return run
