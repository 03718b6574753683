"""The ``correx-tools`` command run in this process: `correx` calls the entry point,
``correx_tools.shell.cli.main.main(argv)``, as the interpreter would run it and answers as a
finished subprocess does (exit status, standard output and error as text).

A start of the interpreter costs 0.3-0.8 s of imports before the command reads its
arguments, and the tests ran it about a thousand times; here each call costs what the
command itself does.

Where the process boundary is what is tested, the command stays a real process:

* signals and kills: ``test_bulk_kills``, ``test_export_kills``, ``test_parts_kills`` and
  ``test_import_parts`` (a killed command or worker), ``test_crashes``, two racing imports in
  ``test_hostile_imports``;
* the real process's streams and exit: a reader that stops early and a pseudo-terminal in
  ``test_cli``, a closed standard output and a closed pipe in ``test_cli_writes``,
  ``test_terminal`` and its ``on_terminal`` (used by ``test_readable``,
  ``test_transcripts_folders``, ``test_views_recorded``), the installed ``correx-tools``
  script and ``python -m correx_tools`` in ``test_cli``, ``test_startup`` (what a start
  imports), a fresh hash seed in ``test_readable``;
* another user or a limit: the ``as_nobody`` runs of ``test_read_only``, ``test_cli_writes``,
  ``test_transcript_sources``, ``test_transcripts_folders`` and ``test_output_targets``, a
  memory limit in ``test_bulk_memory``, a missing extra in ``test_serve_command``;
* what a library writes to the process's own standard error: RE2 compiling a policy's
  patterns in ``test_audit_hostile``;
* servers, which run until stopped: `serving.Served`, ``test_serve_command``,
  ``test_serve_transcripts``.

What a call gets, as a subprocess would: standard output and error that are not a terminal
(text on top of bytes, for commands that write bytes to ``sys.stdout.buffer``), standard
input from ``stdin`` (or an empty one, as from ``/dev/null``), the working directory
``cwd`` and the environment with ``env`` set over it (a value of ``None`` removes the
name). Everything is put back afterwards, whatever happens. An exception that escapes
``main`` is printed as the interpreter prints it, exit status 1; ``SystemExit`` (a usage
error, ``--help``, ``--version``) gives its code.
"""

from __future__ import annotations

import io
import os
import sys
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from correx_tools.shell.cli.main import main


@dataclass(frozen=True, slots=True)
class Ran:
    """One finished run of the command: as `subprocess.CompletedProcess` with ``text=True``
    (line ends made ``\\n``), and the bytes of standard output as written."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


def correx(
    *args: str,
    cwd: Path | str | None = None,
    env: Mapping[str, str | None] | None = None,
    stdin: str | bytes | None = None,
    check: bool = False,
) -> Ran:
    """Run ``correx-tools ARGS`` in this process; see the module's docstring. ``check``: fail
    the test unless it exits 0 (as ``subprocess.run(check=True)`` would)."""
    out, err = io.BytesIO(), io.BytesIO()
    given = stdin.encode("utf-8") if isinstance(stdin, str) else (stdin or b"")
    # As Python opens them in a UTF-8 locale: strict for output, backslashes for errors.
    stdout = _Stream(out, errors="strict")
    stderr = _Stream(err, errors="backslashreplace")
    status = 1
    with _environment(env), _directory(cwd), _streams(stdout, stderr, _Stream(given)):
        try:
            status = main(list(args))
        except SystemExit as leaving:
            status = _exit_status(leaving.code, stderr)
        except Exception:
            traceback.print_exc(file=stderr)
        finally:
            for stream in (stdout, stderr):
                with suppress(ValueError):  # the command closed it
                    stream.flush()
    ran = Ran(
        args=args,
        returncode=status,
        stdout=_text(out.getvalue(), "strict"),
        stderr=_text(err.getvalue(), "backslashreplace"),
        stdout_bytes=out.getvalue(),
    )
    if check and status != 0:
        raise AssertionError(f"correx-tools {' '.join(args)}: exit {status}\n{ran.stderr}")
    return ran


class _Stream(io.TextIOWrapper):
    """A standard stream on bytes in memory: not a terminal, with a ``buffer``, and its
    bytes still readable after the command closed it."""

    def __init__(self, data: io.BytesIO | bytes, errors: str = "strict") -> None:
        raw = data if isinstance(data, io.BytesIO) else io.BytesIO(data)
        raw.close = lambda: None  # type: ignore[method-assign]
        super().__init__(raw, encoding="utf-8", errors=errors, write_through=True)


def _text(data: bytes, errors: str) -> str:
    """Bytes as ``subprocess.run(text=True)`` gives them: universal line ends."""
    return data.decode("utf-8", errors).replace("\r\n", "\n").replace("\r", "\n")


def _exit_status(code: Any, stderr: io.TextIOBase) -> int:
    """What the interpreter makes of ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


@contextmanager
def _streams(stdout: _Stream, stderr: _Stream, stdin: _Stream) -> Iterator[None]:
    # The dunder ones too: `shutil.get_terminal_size` asks ``sys.__stdout__`` for its width,
    # which in a subprocess with its output piped is no terminal either.
    saved = sys.stdout, sys.stderr, sys.stdin, sys.__stdout__, sys.__stderr__, sys.__stdin__
    sys.stdout, sys.stderr, sys.stdin = stdout, stderr, stdin
    sys.__stdout__, sys.__stderr__, sys.__stdin__ = stdout, stderr, stdin  # type: ignore[misc]
    try:
        yield
    finally:
        sys.stdout, sys.stderr, sys.stdin, *dunder = saved
        sys.__stdout__, sys.__stderr__, sys.__stdin__ = dunder  # type: ignore[misc]


@contextmanager
def _directory(cwd: Path | str | None) -> Iterator[None]:
    if cwd is None:
        yield
        return
    before = os.getcwd()
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


@contextmanager
def _environment(env: Mapping[str, str | None] | None) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env or {}}
    try:
        for name, value in (env or {}).items():
            _set(name, value)
        yield
    finally:
        for name, value in saved.items():
            _set(name, value)


def _set(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
