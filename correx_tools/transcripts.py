"""What other agents wrote, brought in: importing a transcript (or a folder of them) as
sessions, its options and errors, and the runs of one task split and compared.

Every name here is also importable from ``correx_tools`` itself; each is imported when first
asked for. The names and where they live are `correx_tools._public`'s table.
"""

import typing as _typing

from . import _public

if _typing.TYPE_CHECKING:
    from .shell.runs import compare_sessions as compare_sessions
    from .shell.runs import split_runs as split_runs
    from .shell.transcripts.errors import TranscriptError as TranscriptError
    from .shell.transcripts.importing.importing import TranscriptImport as TranscriptImport
    from .shell.transcripts.importing.importing import import_transcript as import_transcript
    from .shell.transcripts.importing.options import ImportOptions as ImportOptions
    from .shell.workspace import Workspace as Workspace

__getattr__, __dir__, __all__ = _public.attach(__name__, "transcripts")
