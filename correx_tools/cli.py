"""The ``correx-tools`` command (implemented in :mod:`correx_tools.shell.cli`)."""

from .shell.cli import main

__all__ = ["main"]
