"""The command's one error: a failure to report as one line on stderr."""

from __future__ import annotations


class CliError(Exception):
    """A failure to report as one line on stderr."""
