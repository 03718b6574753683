"""What a call and a session record, and what they do not: the marks every view reads.

The importers store what a transcript says and mark what it does not say
(``docs/transcripts.md``); the views read those marks here, so that none shows
a made-up value as a real one:

* a receipt's ``exit_code`` is 0 where the transcript records none, because
  the event type needs an int; its metadata then says ``exit_code_known:
  "false"``, and `exit_code_of` gives ``None``;
* a *non-zero exit* is a completed call whose exit code is not 0 (`exited_nonzero`).
  It is not a status: the lifecycle knows nothing of it, and every view derives
  it from the status and the exit code alone. A recorded non-zero code is
  always a known one (the marker only ever stands beside the 0 an import had to
  write), so a store's index counts them from its typed columns;
* ``edit_applied: "false"`` (and ``edit_note``, the tool's words) marks a
  completed edit that did not take effect (`edit_not_applied`);
* ``cut`` says what an import cut to fit the store, with the original's size and
  digest (`cut_note`);
* an imported session begins with a description; ``"times": "none"`` there means
  the transcript records no time at all, and the stored times only keep the steps
  in order: a view lays such a session out by sequence (`at_sequence`) and shows
  no time, nor a duration computed from one;
* a call's Started event must be stored before its end, but most transcripts record no
  start (Claude Code's Read, Glob, Grep and Task, every Codex and OpenHands call): the
  import stamps such a start at the call's request time, so *in an imported session a
  start at its request's very time is not a recorded one* (`recorded_start`). Where a
  transcript records one moment for both (OpenCode without a message time), it is still
  not two: the time the call waited is not known either way.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ..lifecycle.events import ToolReceipt
from ..lifecycle.status import ToolInvocationStatus

EXIT_CODE_KNOWN = "exit_code_known"
"""The receipt's metadata key that is ``"false"`` where no exit code was recorded."""
EDIT_APPLIED = "edit_applied"
"""The receipt's metadata key that is ``"false"`` for an edit that did not take effect."""
EDIT_NOTE = "edit_note"
"""The receipt's metadata key that holds what the tool said of such an edit."""
CUT = "cut"
"""The receipt's metadata key that names what an import cut, and what it was."""

_COMPLETED = ToolInvocationStatus.COMPLETED


def exit_code_of(receipt: ToolReceipt) -> int | None:
    """The exit code the call recorded: ``None`` where the receipt says none was.

    >>> exit_code_of(ToolReceipt(exit_code=0, metadata={"exit_code_known": "false"}))
    >>> exit_code_of(ToolReceipt(exit_code=2))
    2
    """
    code = receipt.exit_code
    # A non-zero code was recorded (see the module's docstring): its metadata need not be
    # read, which a store's lazily decoded receipt would decode whole for it.
    if code == 0 and receipt.metadata.get(EXIT_CODE_KNOWN) == "false":
        return None
    return code


def recorded_start(
    requested_at: datetime, started_at: datetime | None, *, imported: bool
) -> datetime | None:
    """When the call started, as recorded: ``None`` where it did not start, or where the
    time is the stand-in an import writes (see the module's docstring).

    >>> at = datetime(2026, 1, 1, tzinfo=UTC)
    >>> recorded_start(at, at, imported=True), recorded_start(at, at, imported=False) == at
    (None, True)
    """
    if started_at is None or (imported and started_at == requested_at):
        return None
    return started_at


def exited_nonzero(status: ToolInvocationStatus, exit_code: int | None) -> bool:
    """Whether a call in ``status`` with this exit code is a non-zero exit: it ran to its
    end and its exit code says it went wrong.

    >>> exited_nonzero(ToolInvocationStatus.COMPLETED, 1)
    True
    >>> exited_nonzero(ToolInvocationStatus.FAILED, 1), exited_nonzero(_COMPLETED, None)
    (False, False)
    """
    return status is _COMPLETED and exit_code is not None and exit_code != 0


def receipt_exited_nonzero(receipt: ToolReceipt | None) -> bool:
    """Whether a completed call's receipt says it exited non-zero (its code alone)."""
    return receipt is not None and receipt.exit_code != 0


def edit_not_applied(receipt: ToolReceipt | None) -> str | None:
    """What the tool said of a completed edit that did not take effect (its
    ``edit_note``, or a plain sentence when it kept none); ``None`` for any other."""
    if receipt is None or receipt.metadata.get(EDIT_APPLIED) != "false":
        return None
    return receipt.metadata.get(EDIT_NOTE) or "the tool answered that it changed nothing"


def cut_note(receipt: ToolReceipt | None) -> str | None:
    """What an import cut of this call to fit the store (``output: 1,572,864 bytes,
    sha256:…``), or ``None``."""
    if receipt is None:
        return None
    return receipt.metadata.get(CUT) or None


SEQUENCE_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""Where `at_sequence` puts sequence 0."""


def at_sequence(sequence: int) -> datetime:
    """A stand-in time for an event of a session that records none: its sequence, as
    microseconds after `SEQUENCE_EPOCH`. A view that lays such a session out by step
    passes these where it would pass times, and shows them as sequences, never as times."""
    return SEQUENCE_EPOCH + timedelta(microseconds=sequence)
