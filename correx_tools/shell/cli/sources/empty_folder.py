"""Why a folder given as SOURCE gave no session, said in one line."""

from __future__ import annotations

from ...transcripts.cache.look import Look
from ...transcripts.importing.files import SUFFIXES

_NONE = "a folder with no transcripts in it; expected agents' transcript"


def why_no_session(found: Look) -> str:
    """Its transcripts could not be read (the first, with why, and how many more), or it
    holds none: of the files it holds (a number), or at all (the formats' files named)."""
    if found.refused:
        more = len(found.refused) - 1
        first = ": ".join(found.refused[0])
        return f"no transcript in it could be read: {first}" + (
            f" ({more:,} more refused)" if more else ""
        )
    if found.files:
        files = f"{found.files:,} file{'' if found.files == 1 else 's'}"
        return f"{_NONE}s, and none of its {files} is one of a known format"
    return f"{_NONE} files ({', '.join(sorted(SUFFIXES))}) under it"
