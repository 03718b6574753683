"""The files a person names with an option (a policy, a price table, tool definitions, saved
findings): read whole, and only if each is a regular file of a sane size.

A FIFO, a device or a folder named by mistake would hang the command or read for ever; a
file of gigabytes would be read into memory before its first key was looked at. Each is
one `OptionFileError` line instead, naming the file. Parsing a text nested deeper than the
interpreter's stack (``[[[[…`` 50,000 deep) is `nested_too_deeply`'s to say.
"""

from __future__ import annotations

import os
import stat

MAX_BYTES = 64 << 20
"""The largest option file read (a policy or a table of prices is some kilobytes)."""


class OptionFileError(Exception):
    """An option's file that cannot be read, said in one line naming it."""


def read_option_file(path: str, *, most: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file at ``path``; an `OptionFileError` for anything else
    (missing, a folder, a FIFO or device, unreadable, over ``most`` bytes)."""
    try:
        # Opened without waiting: a FIFO with no writer would block a plain open.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise OptionFileError(f"{path}: cannot be read: {error.strerror or error}") from None
    try:
        found = os.fstat(descriptor)
        if stat.S_ISDIR(found.st_mode):
            raise OptionFileError(f"{path}: is a directory, not a file")
        if not stat.S_ISREG(found.st_mode):
            raise OptionFileError(f"{path}: is not a regular file (a FIFO, socket or device)")
        if found.st_size > most:
            raise OptionFileError(f"{path}: {found.st_size:,} bytes, over the limit of {most:,}")
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb", closefd=False) as file:
            data = file.read(most + 1)
    except OSError as error:
        raise OptionFileError(f"{path}: cannot be read: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if len(data) > most:
        raise OptionFileError(f"{path}: over the limit of {most:,} bytes")
    return data


def nested_too_deeply(path: str) -> str:
    """The one line for a file whose text nests deeper than it can be parsed."""
    return f"{path}: nests too deeply to be read (arrays or tables inside each other)"
