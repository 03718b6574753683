"""``correx-tools init-db``: create the tables of a store (idempotent)."""

from __future__ import annotations

import argparse

from ...stores.jsonl import JsonlEventLog
from ...stores.port import (
    StoreReadError,
)
from .. import arguments
from ..errors import CliError
from ..output.render import emit
from ..sources.stores import open_store, redact


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools init-db``."""
    arguments.add_source(parser, transcripts=False)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools init-db``; the exit status."""
    store = open_store(args.source, create=True)
    if isinstance(store, JsonlEventLog):
        try:
            next(iter(store.events()), None)  # its first line says whether it is a log
        except StoreReadError as error:
            raise CliError(
                f"{redact(args.source)}: holds something other than an event log "
                f"({error.error.message}); init-db leaves it as it is"
            ) from None
        store.path.touch()
    emit(
        args,
        {"source": redact(args.source), "ready": True},
        lambda: f"{redact(args.source)}: ready",
    )
    return 0
