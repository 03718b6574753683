"""``correx-tools import-transcript``: transcripts other agents wrote, as sessions.

PATH is a transcript, a folder of them (every file under it a reader
recognises, each its own session), or ``-`` for standard input. A file
imported again adds only what is new: nothing when it has not changed, the
new events when it grew.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from returns.result import Success

from ...stores.addresses import POSTGRES_SCHEMES
from ...transcripts.errors import TranscriptError
from ...transcripts.importing.files import FileImport, file_size, shown, transcript_files
from ...transcripts.importing.folders import FolderImport, import_files
from ...transcripts.importing.importing import TranscriptImport, import_bytes, import_transcripts
from ...transcripts.importing.options import ImportOptions
from ...transcripts.recognising import FORMATS, is_database
from .. import arguments
from ..errors import CliError
from ..output.readable import counted
from ..output.render import emit
from ..output.tables import Column, table
from ..output.terminal import Progress
from ..sources.staging import Staging, staged_path, writing_to
from ..sources.stores import read_file, redact, refuse_never_read


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools import-transcript``."""
    parser.add_argument(
        "path",
        metavar="PATH",
        help="a transcript, a folder of them (searched recursively), or - for standard input",
    )
    parser.add_argument(
        "dest", metavar="DEST", help="a SQLite file, a .jsonl log or a postgresql:// URL"
    )
    parser.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="the transcripts' format (default: recognised from each one's content)",
    )
    parser.add_argument(
        "--session",
        metavar="NAME",
        help="the session's name (default: the transcript's own session id, or the file's "
        "name); for Goose's sessions.db, the one session to import, by its id",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="leave a damaged line of a JSON Lines transcript out (each is listed) instead of "
        "refusing the file",
    )
    parser.add_argument("--no-conversation", action="store_true", help=arguments.NO_CONVERSATION)
    arguments.add_shown_arguments(parser, masked=False)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools import-transcript``; the exit status."""
    folder = args.path != "-" and Path(args.path).is_dir()
    if args.session is not None and not args.session.strip():
        raise CliError("--session names the session: it cannot be empty")
    if folder and args.session:
        raise CliError("--session names one session, and a folder holds many")
    if args.path != "-" and not folder:
        refuse_never_read(args.path)
        if not Path(args.path).is_file():
            raise CliError(f"{args.path}: no such file or folder")
    with writing_to(args.dest) as staging:
        if folder or (not args.session and _database(args.path)):
            said = _many(args, staging)
        else:
            said = _one(args, staging)
    # Said once DEST holds the import: a reader that stops early, or a full terminal, can
    # neither undo it nor be taken for DEST's own fault.
    return said()


def _database(path: str) -> bool:
    return path != "-" and is_database(Path(path))


def _options(args: argparse.Namespace) -> ImportOptions:
    """The import's options, as the command's arguments give them."""
    return ImportOptions(
        format=args.format, lenient=args.lenient, conversation=not args.no_conversation
    )


def _one(args: argparse.Namespace, staging: Staging) -> Callable[[], int]:
    """Import one session; what to say of it, and the exit status, once it is kept."""
    source = "standard input" if args.path == "-" else args.path
    store = staging.store
    with Progress("converting calls", None, sys.stderr) as bar:
        if args.path == "-":
            result = import_bytes(
                read_file("-"), source, store, _options(args), name="stdin",
                session=args.session, progress=bar.update,
            )  # fmt: skip
        else:
            result = import_transcripts(
                args.path, store, _options(args), session=args.session,
                progress=bar.update, single=True,
            )[0]  # fmt: skip
    if not isinstance(result, Success):
        staging.discard()
        raise CliError(f"{staging.told(str(result.failure()))}; nothing was imported")
    done = result.unwrap()
    dest = redact(args.dest)

    def said() -> int:
        _say_incomplete(source, done)
        emit(
            args,
            {"file": source, "dest": dest, **_session_json(done)},
            lambda: _one_text(source, dest, done),
        )
        return 0

    return said


def _one_text(source: str, dest: str, done: TranscriptImport) -> str:
    said = [f"{count} {status}" for status, count in done.statuses.items() if count]
    if done.exited_nonzero:  # among the completed, as every command counts them
        said.insert(said.index(f"{done.statuses['completed']} completed") + 1,
                    f"{done.exited_nonzero} of them exited non-zero")  # fmt: skip
    counts = ", ".join(said) or "none"
    if done.already_imported:
        head = f"{source}: already imported as session {done.session_id}; nothing written"
    elif not done.events and not done.grown:
        # A transcript with no call yet and no time recorded (an older Goose file before its
        # first message): no session until it has one.
        head = (
            f"{source}: no call and no time recorded yet; nothing written (import it again "
            "once it has more)"
        )
    elif done.grown:
        head = (
            f"{source} grew: added {counted(done.events, 'event')} to session {done.session_id} in "
            f"{dest} ({done.format})"
        )
    else:
        head = (
            f"imported {source} ({done.format}) into {dest} as session "
            f"{done.session_id}: {counted(done.events, 'event')}"
        )
    lines = [head, f"{counted(done.invocations, 'invocation')}: {counts}"]
    if done.in_flight:
        lines.append(f"{done.in_flight} still in flight at the end of the transcript")
    if done.skipped:
        lines.append(f"left out {len(done.skipped)} damaged lines (--lenient):")
        lines.extend(f"  {where}: {why}" for where, why in done.skipped)
    return "\n".join(lines)


def _say_incomplete(source: str, done: TranscriptImport) -> None:
    """The one stderr line for a live file's last line, cut mid-way and left out."""
    if done.incomplete_tail:
        print(
            f"correx-tools import-transcript: {source}: {done.incomplete_tail} is incomplete "
            "(still being written?) and was left out; importing the file again adds it",
            file=sys.stderr,
        )


def _session_json(done: TranscriptImport) -> dict[str, Any]:
    return {
        "format": done.format,
        "session_id": done.session_id,
        "invocations": done.invocations,
        "events": done.events,
        "statuses": dict(done.statuses),
        "exited_nonzero": done.exited_nonzero,
        "in_flight": done.in_flight,
        "already_imported": done.already_imported,
        "grown": done.grown,
        "incomplete_last_line": done.incomplete_tail or None,
        "skipped_lines": [{"where": where, "error": why} for where, why in done.skipped],
    }


def _many(args: argparse.Namespace, staging: Staging) -> Callable[[], int]:
    """A folder, or a file of many sessions: each session on its own; then (once kept)
    a summary."""
    store = staging.store
    root = Path(args.path)
    paths, unreadable = (
        transcript_files(root, exclude=_store_files(args.dest)) if root.is_dir() else ([root], [])
    )
    with Progress("importing transcripts (bytes)", sum(map(file_size, paths)), sys.stderr) as bar:
        found_in = root if root.is_dir() else None  # names the sessions that record no id
        done = import_files(paths, store, _options(args), progress=bar.advance,
                            root=found_in).with_files(unreadable)  # fmt: skip
    done = FolderImport(tuple(_told(file, staging) for file in done.files))
    if not root.is_dir() and done.files and all(file.skipped for file in done.files):
        # One file named, and no transcript: an error, as for any other file.
        staging.discard()
        raise CliError(f"{shown(root)}: {done.files[0].skipped}")
    if not any(s.events for f in done.files for s in f.imported):
        staging.discard()
    dest = redact(args.dest)

    def said() -> int:
        for file in done.files:
            for session in file.imported:
                _say_incomplete(str(file.path), session)
        emit(
            args,
            _many_json(args.path, dest, done),
            lambda: _many_text(args.path, dest, done, wide=args.wide),
        )
        return 1 if done.count("refused") else 0

    return said


def _told(file: FileImport, staging: Staging) -> FileImport:
    """The file's refusals naming DEST, not the file staged for it."""
    if not file.refused:
        return file
    told = tuple(replace(error, message=staging.told(error.message)) for error in file.refused)
    return replace(file, refused=told)


def _store_files(dest: str) -> list[Path]:
    """The store's own files, which a folder's import must never read."""
    if dest.startswith(POSTGRES_SCHEMES):
        return []
    files = [Path(dest), staged_path(Path(dest))]  # DEST, and the file staged for it
    ends = ("", "-wal", "-shm", "-journal")
    return [path.with_name(path.name + end) for path in files for end in ends]


def _many_json(path: str, dest: str, done: FolderImport) -> dict[str, Any]:
    return {
        "path": path,
        "dest": dest,
        "summary": {
            "files": len(done.files),
            "transcripts": done.count("transcripts"),
            "skipped": done.count("skipped"),
            "sessions_new": done.count("new"),
            "sessions_grown": done.count("grown"),
            "sessions_already_imported": done.count("already"),
            "sessions_refused": done.count("refused"),
        },
        "files": [_file_json(file) for file in done.files],
    }


def _file_json(file: FileImport) -> dict[str, Any]:
    return {
        "file": shown(file.path),
        "sessions": [_session_json(session) for session in file.imported],
        "refused": [_refusal(error) for error in file.refused],
        "skipped": file.skipped or None,
    }


def _refusal(error: TranscriptError) -> dict[str, str]:
    return {"where": error.where, "message": error.message}


def _many_text(path: str, dest: str, done: FolderImport, *, wide: bool) -> str:
    lines = [
        f"{path} into {dest}: {len(done.files)} files, {done.count('transcripts')} "
        f"transcripts, {done.count('skipped')} skipped (not transcripts)",
        table(
            (Column("sessions"), Column("count", right=True)),
            [
                ("new", done.count("new")),
                ("grown (new events added)", done.count("grown")),
                ("already imported", done.count("already")),
                ("refused", done.count("refused")),
            ],
            wide=wide,
        ),
    ]
    refused = [error for file in done.files for error in file.refused]
    if refused:
        lines.append("refused (nothing written for these):")
        lines.extend(f"  {error}" for error in refused)
    skipped = [file for file in done.files if file.skipped]
    if skipped:
        lines.append("skipped:")
        lines.extend(f"  {shown(file.path)}: {file.skipped}" for file in skipped)
    return "\n".join(lines)
