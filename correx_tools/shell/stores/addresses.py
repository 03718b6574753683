"""Naming a store by a string: a SQLite file, a ``.jsonl`` log or a ``postgresql://`` URL.

An address is plain data (no store is imported here); `opening` opens one,
and each store that lives outside the process says its own (``store.address``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import final

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@final
@dataclass(frozen=True, slots=True)
class StoreAddress:
    """Enough to open a store again, in another process: its kind, location and schema."""

    kind: str
    location: str
    schema: str = "public"


def address_of(source: str) -> StoreAddress:
    """The address a SOURCE string names (no I/O)."""
    if source.startswith(POSTGRES_SCHEMES):
        return StoreAddress("postgres", source)
    if Path(source).suffix == ".jsonl":
        return StoreAddress("jsonl", source)
    return StoreAddress("sqlite", source)


def redact_dsn(dsn: str) -> str:
    """``dsn`` with any password masked, fit for a message.

    >>> redact_dsn("postgresql://app:s3cret@db:5432/agents")
    'postgresql://app:***@db:5432/agents'
    >>> redact_dsn("host=db password=s3cret dbname=agents")
    'host=db password=*** dbname=agents'
    """
    masked = re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", dsn)
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", masked)
