"""The ``correx-tools`` command (implemented in `correx_tools.shell.cli.main`)."""

from .shell.cli.main import main

__all__ = ["main"]
