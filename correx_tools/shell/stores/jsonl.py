"""Sessions as a JSON Lines file: one envelope a line, every line checksummed.

The log is append-only. Writers take an exclusive ``flock`` on the file and
first read whatever other writers appended since, so ``expected_sequence``
conflicts and duplicate invocation ids are caught across processes. Each
append is one ``write`` followed by ``fsync``.

Reading is strict: malformed JSON, a bad envelope or checksum, a line over
1 MiB (refused without reading it whole) each raise a
`StoreReadError` naming the file and line.
An unterminated final line is a crash mid-write; it is reported as ``torn``
so lenient replay may drop it, and the next append cuts it off first (the
append that wrote it never returned success).

A reader reads the file as it stood when no writer held it: it takes a shared
``flock`` just long enough to learn the file's size (waiting at most
`READ_WAIT_SECONDS` for a writer), then reads up to there. Every append ends
whole (or is cut back) before its writer lets go, so a reader never sees half
of one, nor the first lines of a batch without the rest.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, NoReturn, final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import StoredEvent
from ...core.replay.errors import EventDecodeError
from ...core.tools.ids import SessionId
from .addresses import StoreAddress
from .codec.encoding import envelope_line
from .codec.lines import decode_line
from .codec.rows import encode_rows
from .codec.strict_json import EnvelopeError
from .log_lines import DamagedLine, Upto, complete_without_newline, damaged_line, iter_lines
from .port import AppendError, AppendErrorKind, StoreReadError
from .writing import BatchWritingStore, check_import_run, conflict, duplicate, requested_ids

_HEAD_BYTES = 512
"""How much of a log's beginning a writer keeps, to know the file again."""

READ_WAIT_SECONDS = 5.0
"""How long a reader waits for a writer to let go of the log before it says so."""


@dataclass(slots=True)
class _Index:
    """What a writer must know of the file: per-session tails and used ids."""

    offset: int = 0
    line: int = 0
    head: bytes = b""
    """The file's first bytes as read: a log only grows, so other first bytes mean another
    file under the same name (rotated, restored), read anew (an inode may be reused)."""
    last: dict[str, int] = field(default_factory=dict)
    invocations: dict[str, str] = field(default_factory=dict)


def _append(handle: BinaryIO, payload: bytes) -> None:
    """Write ``payload`` at the end of the log and make it durable, or leave none of it.

    The bytes go straight to the file, not through a buffer that would keep a
    failed part to write later: a write cut short (a full disk) is cut back to
    where it began, durably, before the error is raised.
    """
    descriptor = handle.fileno()
    handle.flush()
    start = os.lseek(descriptor, 0, os.SEEK_END)
    rest = memoryview(payload)
    try:
        while rest:
            rest = rest[os.write(descriptor, rest) :]
        os.fsync(descriptor)
    except OSError:
        os.ftruncate(descriptor, start)
        os.fsync(descriptor)
        raise


def _ends_in_newline(handle: BinaryIO) -> bool:
    """Whether the file is empty or its last byte is a newline."""
    size = os.fstat(handle.fileno()).st_size
    if size == 0:
        return True
    handle.seek(size - 1)
    return handle.read(1) == b"\n"


@final
class JsonlEventLog(BatchWritingStore):
    """An event store in the JSON Lines file at ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._index = _Index()

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("jsonl", str(self.path))

    # -- reading -------------------------------------------------------------

    def _records(
        self, *, start: int = 0, start_line: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, int, StoredEvent]]:
        """``(line, end offset, event)`` of every complete line, from byte ``start`` to
        ``end`` (a writer holding the lock knows it; a reader learns it from the file as
        no writer holds it).

        A final line without its newline is still complete when it decodes, alone
        or without its last byte (a newline that was damaged): its checksum
        vouches for it, so it is kept; its end offset then excludes the damaged
        byte (see `_catch_up`). Only a final line that does not decode is torn.
        """
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            if end is None:
                end = self._committed(handle)
            handle.seek(start)
            offset = start
            last_by_session: dict[str, int] = {}
            lines = iter_lines(Upto(handle, end), self.path, start_line=start_line)
            for number, raw, terminated in lines:
                if terminated:
                    offset += len(raw)
                    try:
                        stored = decode_line(raw)
                    except (EnvelopeError, ValueError, TypeError) as error:
                        self._raise(number, str(error), last_by_session)
                else:
                    kept = complete_without_newline(raw)
                    if kept is None:
                        self._raise(
                            number,
                            "torn final line (no newline, and not a whole event): "
                            "a write was cut short",
                            last_by_session,
                            torn=True,
                        )
                    stored, length = kept
                    offset += length
                last_by_session[stored.session_id] = stored.sequence
                yield number, offset, stored

    def _committed(self, handle: BinaryIO) -> int:
        """The file's size while no writer holds it: where the last whole append ends."""
        deadline = time.monotonic() + READ_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreReadError(
                        EventDecodeError(
                            source=str(self.path),
                            line=None,
                            message=f"a writer held the log for over {READ_WAIT_SECONDS:g} s",
                        ),
                        sequence=0,
                    ) from None
                time.sleep(0.002)
        try:
            return os.fstat(handle.fileno()).st_size
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _raise(
        self, line: int, message: str, last: dict[str, int], *, torn: bool = False
    ) -> NoReturn:
        # The sequence it should have held: we can not know its session, so the
        # most recent one's next sequence is the best name for it.
        sequence = (max(last.values()) + 1) if last else 1
        raise StoreReadError(
            EventDecodeError(source=str(self.path), line=line, message=message),
            sequence=sequence,
            torn=torn,
        )

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in file order (a valid log is in sequence).

        A line that repeats the session's last event exactly (a delivery made twice) is
        read once, as the fold takes it: every reader then counts the same events. Any
        other line out of sequence is given as it is, for the fold to refuse by name.
        """
        last: StoredEvent | None = None
        try:
            for _, _, stored in self._records():
                if stored.session_id == session_id:
                    if last is not None and stored.sequence == last.sequence and stored == last:
                        continue
                    last = stored
                    if stored.sequence > after:
                        yield stored
        except StoreReadError as error:
            error.sequence = (0 if last is None else last.sequence) + 1
            raise

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        return tuple(
            SessionId(name)
            for name in sorted({stored.session_id for _, _, stored in self._records()})
        )

    def events(self) -> Iterator[StoredEvent]:
        """Every event of every session, in file order (for export)."""
        for _, _, stored in self._records():
            yield stored

    def scan(self) -> Iterator[StoredEvent | DamagedLine]:
        """Every line of the log in file order, read on past the damaged ones (``verify``):
        each event, and each line that cannot be read as one, with the session it names. A
        line over the limit ends the scan: where it ends cannot be found without reading
        it whole."""
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            lines = iter_lines(Upto(handle, self._committed(handle)), self.path)
            try:
                for number, raw, terminated in lines:
                    try:
                        if terminated:
                            yield decode_line(raw)
                            continue
                    except (EnvelopeError, ValueError, TypeError) as error:
                        yield damaged_line(self.path, number, raw, str(error))
                        continue
                    kept = complete_without_newline(raw)
                    yield (
                        kept[0]
                        if kept is not None
                        else damaged_line(self.path, number, raw, "torn final line (no "
                                          "newline, and not a whole event): a write was cut short")
                    )  # fmt: skip
            except StoreReadError as error:  # a line over the limit
                yield DamagedLine(error.error, None, None)

    # -- writing -------------------------------------------------------------

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        lines = encode_rows(
            groups,
            lambda session_id, stored, encoded: envelope_line(
                encoded.type,
                encoded.version,
                encoded.data,
                encoded.recorded_at,
                session_id,
                stored.sequence,
            ),
        )
        if isinstance(lines, AppendError):
            return Failure(lines)
        with self._lock, self.path.open("ab+") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                try:
                    self._catch_up(handle)
                except StoreReadError as damaged:  # a line other than a torn last one
                    return Failure(
                        AppendError(
                            kind=AppendErrorKind.DAMAGED,
                            session_id=groups[0][0] if groups else "",
                            message=f"{damaged.error}; nothing was written (correx-tools "
                            "verify names every fault)",
                        )
                    )
                problem = self._check(groups, expected)
                if problem is not None:
                    return Failure(problem)
                payload = b"".join(lines)
                _append(handle, payload)
                if len(self._index.head) < _HEAD_BYTES:  # the file's first bytes, as written
                    self._index.head += payload[: _HEAD_BYTES - len(self._index.head)]
                self._index.offset += len(payload)
                self._index.line += len(lines)
                for session_id, events in groups:
                    self._index.last[session_id] = (
                        events[-1].sequence if events else self._index.last.get(session_id, 0)
                    )
                    for invocation, _ in requested_ids(events):
                        self._index.invocations[invocation] = session_id
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return Success(len(lines))

    def _catch_up(self, handle: BinaryIO) -> None:
        """Read what other writers appended since our last look; cut a torn tail."""
        size = os.fstat(handle.fileno()).st_size
        head = os.pread(handle.fileno(), _HEAD_BYTES, 0)
        known = self._index.head
        if size < self._index.offset or head[: len(known)] != known:
            self._index = _Index()  # another file, or one cut short: start over
        index = self._index
        try:
            records = self._records(start=index.offset, start_line=index.line, end=size)
            for number, offset, stored in records:
                index.offset, index.line = offset, number
                index.last[stored.session_id] = stored.sequence
                for invocation, _ in requested_ids((stored,)):
                    index.invocations.setdefault(invocation, stored.session_id)
        except StoreReadError as error:
            if not error.torn:
                raise
            # The append that wrote this never returned: drop the partial line.
            handle.truncate(index.offset)
            os.fsync(handle.fileno())
            index.head = head[: index.offset]
            return
        index.head = head[: index.offset]
        if not _ends_in_newline(handle):
            # The last line is a whole event whose newline is missing or damaged: give
            # it its newline back (the event's own bytes stay as they are).
            handle.truncate(index.offset)
            handle.seek(0, os.SEEK_END)
            if index.offset:
                handle.write(b"\n")
                index.offset += 1
                index.head = (index.head + b"\n")[:_HEAD_BYTES]
            handle.flush()
            os.fsync(handle.fileno())

    def _check(
        self, groups: list[tuple[str, list[StoredEvent]]], expected: int | None
    ) -> AppendError | None:
        seen: dict[str, str] = {}
        for session_id, events in groups:
            last = self._index.last.get(session_id, 0)
            if expected is None:
                problem = check_import_run(session_id, last, events)
                if problem is not None:
                    return problem
            elif last != expected:
                return conflict(session_id, expected, last)
            for invocation, _ in requested_ids(events):
                other = self._index.invocations.get(invocation) or seen.get(invocation)
                if other is not None:
                    return duplicate(session_id, invocation, other)
                seen[invocation] = session_id
        return None
