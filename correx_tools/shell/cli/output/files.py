"""A file a command writes: whole under its name, or not there at all.

The content goes to a new file beside the target (a hidden ``.NAME.*.partial``
in the same directory, so the rename cannot cross file systems), is flushed to
disk, and only then renamed over the target. A failure on the way (a full
disk, an error while reading the store) removes the partial file; a process
killed on the way leaves at most that hidden partial file, never a truncated
file under the name asked for.
"""

from __future__ import annotations

import argparse
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ..errors import CliError

STANDARD_OUTPUT = "-"
"""What ``-o`` takes for standard output, as most commands do."""


def output_argument(text: str) -> str:
    """``-o FILE`` as the parser takes it: a file name, or ``-``; never an empty name."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name: give a file, or - for standard output")
    return text


@contextmanager
def whole_file(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s content to; renamed to ``path`` when the block ends
    without an error. An ``OSError`` becomes one line naming ``path``.

    Only a regular file is written whole this way: a link is followed (the link stays, its
    file is replaced, keeping its permission bits), and something else that is there (a
    device such as ``/dev/null``, a pipe) is written to as it is. A file this user may
    not write is refused, as an editor would.
    """
    if not path.name or path.name in (".", ".."):
        raise CliError(f"{path}: names a folder, not a file to write")
    target = path.resolve() if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise CliError(f"{path}: is a folder, not a file to write")
        with _as_it_is(path) as out:  # a device or a pipe: never replaced
            yield out
        return
    if mode is not None and not os.access(target, os.W_OK):
        raise CliError(f"{path}: cannot be written by this user (it is read-only)")
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
    try:
        # O_EXCL: never someone else's file; 0o666 less the umask, as any new file.
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(partial, stat.S_IMODE(mode))  # the file it replaces keeps its bits
        partial.replace(target)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise CliError(f"{path}: {error.strerror or error}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


@contextmanager
def _as_it_is(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for writing where it is (a device or a pipe); an ``OSError`` (a full
    device) becomes one line naming it."""
    try:
        with path.open("wb") as out:
            yield out
            out.flush()
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None


def size_text(size: int) -> str:
    """A file's size as a person reads it: ``812 bytes``, ``12.4 KB``, ``1.6 MB``."""
    if size < 1_000:
        return f"{size:,} bytes"
    if size < 1_000_000:
        return f"{size / 1e3:.1f} KB"
    return f"{size / 1e6:.1f} MB"
