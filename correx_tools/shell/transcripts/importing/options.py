"""How an import reads and writes its transcripts: one frozen value, the same for every file
of one import, handed down whole from the command (or the caller) to each file's import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, final

if TYPE_CHECKING:
    from .tiers import Tiering


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ImportOptions:
    """An import's choices.

    ``format`` is a format's name or ``"auto"`` (recognised from each file's content,
    not its name); ``tiering`` gives each call its tier and capabilities (``None``: the
    capability table's, `tiers.table_tiering`); ``lenient`` leaves a damaged line out
    (and lists it) instead of refusing the file; ``conversation`` false leaves out the
    conversation around the calls (the prompts, the assistant's words and reasoning,
    the tokens), for who must not keep it.
    """

    format: str = "auto"
    tiering: Tiering | None = None
    lenient: bool = False
    conversation: bool = True
