"""A file a command writes: whole under its name, or not there at all.

The content goes to a new file beside the target (a hidden ``.NAME.*.partial``
in the same directory, so the rename cannot cross file systems), is flushed to
disk, and only then renamed over the target. A failure on the way (a full
disk, an error while reading the store) removes the partial file; a process
killed on the way leaves at most that hidden partial file, never a truncated
file under the name asked for.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .errors import CliError


@contextmanager
def whole_file(path: Path) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s content to; renamed to ``path`` when the block ends
    without an error. An ``OSError`` becomes one line naming ``path``."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
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
        partial.replace(path)
    except OSError as error:
        partial.unlink(missing_ok=True)
        raise CliError(f"{path}: {error.strerror or error}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def size_text(size: int) -> str:
    """A file's size as a person reads it: ``812 bytes``, ``12.4 KB``, ``1.6 MB``."""
    if size < 1_000:
        return f"{size:,} bytes"
    if size < 1_000_000:
        return f"{size / 1e3:.1f} KB"
    return f"{size / 1e6:.1f} MB"
