"""Recording one session as an agent loop runs it: only legal histories reach the store.

A store appends whatever it is given; the lifecycle's rules are the reducer's.
`SessionRecorder` puts them together on the write side: each event is
first applied to the recorder's view of the session with the reducer, and
appended only if the lifecycle accepts it, with ``expected_sequence`` set to
the end of that view. When another writer got there first, the append
conflicts; the recorder reads what was added, decides again on the new state,
and retries. So every event it writes was legal at the exact point where it
landed, however many recorders share the session.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import final

from returns.result import Failure, Result, Success

from ...core.lifecycle.conversation import ConversationEvent, conversation_event
from ...core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ...core.lifecycle.reducer import DefaultToolReducer
from ...core.lifecycle.state import ToolState
from ...core.lifecycle.transitions import TransitionError
from ...core.replay.fold import fold_events
from ...core.replay.projection import ToolProjector
from ...core.tools.executor import ToolExecutor, ToolFailure, ToolResult, ToolSuccess
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.registry import ToolRegistry
from ...core.tools.request import ToolRequest
from ...core.tools.tier import Tier
from ...core.tools.validation import Invalid, validate_request
from ..stores.port import AppendErrorKind, EventStore, StoreReadError
from .errors import RecordError, RecordErrorKind
from .outcomes import as_reason, executed


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord:
    """What `SessionRecorder.run` did: the executor's outcome and the events recorded."""

    outcome: ToolResult
    events: tuple[StoredEvent, ...]


def _with_recorded(error: RecordError, before: tuple[StoredEvent, ...]) -> RecordError:
    return replace(error, recorded=before + error.recorded)


ATTEMPTS = 10
"""Appends tried before a recorder gives up to other writers (each after catching up)."""
BACKOFF_SECONDS = 0.001
"""The first pause after a conflict is up to twice this; each next one doubles (jittered)."""


def utc_now() -> datetime:
    """The recorder's default clock."""
    return datetime.now(UTC)


@final
class SessionRecorder:
    """The write side of one session: records each step of an invocation, if it is legal.

    ``request``, ``start``, ``complete``, ``fail`` and ``reject`` each return
    the stored event, or a `RecordError`: an illegal step (Started after
    Completed, say) is refused before anything is written. With a
    ``registry``, ``request`` resolves the tool, takes its tier and validates
    the arguments; an invalid request is recorded as requested and then
    rejected with the validation message, and returned as a ``RecordError``
    holding the ``Invalid``. ``clock`` stamps the events (UTC now by default);
    a session's times never go backwards: a clock behind the session's latest
    event (another machine's) stamps that event's time instead.

    One recorder may be shared by threads; any number of recorders, in any
    number of processes, may record the same session (see the module
    docstring). It reads the session's existing events on first use.
    """

    def __init__(
        self,
        store: EventStore,
        session_id: SessionId,
        *,
        registry: ToolRegistry | None = None,
        clock: Callable[[], datetime] | None = None,
        attempts: int = ATTEMPTS,
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        self.store = store
        self.session_id = session_id
        self.registry = registry
        self._clock = clock or utc_now
        self._attempts = attempts
        self._reducer = DefaultToolReducer()
        self._lock = threading.Lock()
        self._state = ToolState.empty()
        self._last = 0
        self._latest: datetime | None = None
        self._read = False

    @property
    def state(self) -> ToolState:
        """The session as this recorder last saw it (after its own writes and catch-ups)."""
        return self._state

    @property
    def last_sequence(self) -> int:
        """The last sequence this recorder has seen in the session."""
        return self._last

    # -- the steps -------------------------------------------------------------

    def request(
        self, invocation_id: InvocationId, request: ToolRequest, *, tier: Tier | None = None
    ) -> Result[StoredEvent, RecordError]:
        """Record that the model asked for ``request``; ``tier`` defaults to the tool's.

        Without a registry, ``tier`` is required (a guessed tier would be a false record).
        """
        invalid: Invalid | None = None
        if self.registry is not None:
            tool = self.registry.resolve(request.tool_name).value_or(None)
            if tool is None:
                return Failure(
                    self._error(
                        RecordErrorKind.UNKNOWN_TOOL,
                        invocation_id,
                        f"no tool named {request.tool_name[:80]!r} is registered; nothing recorded",
                    )
                )
            tier = tool.tier if tier is None else tier
            checked = validate_request(tool, request)
            invalid = checked if isinstance(checked, Invalid) else None
        elif tier is None:
            raise ValueError("a request needs tier=... when the recorder has no registry")
        requested = ToolInvocationRequestedEvent(
            invocation_id=invocation_id, tool_name=request.tool_name, tier=tier, request=request
        )
        if invalid is None:
            return self._record(invocation_id, [requested]).map(lambda events: events[0])
        rejected = ToolExecutionRejectedEvent(
            invocation_id=invocation_id, reason=f"invalid request: {invalid.reason}"
        )

        def refuse(events: tuple[StoredEvent, ...]) -> Result[StoredEvent, RecordError]:
            return Failure(
                self._error(
                    RecordErrorKind.INVALID_REQUEST,
                    invocation_id,
                    f"{invocation_id}: {invalid.reason}; recorded as requested and rejected",
                    invalid=invalid,
                    recorded=events,
                )
            )

        return self._record(invocation_id, [requested, rejected]).bind(refuse)

    def start(self, invocation_id: InvocationId) -> Result[StoredEvent, RecordError]:
        """Record that the invocation started running."""
        return self._one(invocation_id, ToolExecutionStartedEvent(invocation_id=invocation_id))

    def complete(
        self, invocation_id: InvocationId, receipt: ToolReceipt
    ) -> Result[StoredEvent, RecordError]:
        """Record that the invocation ran to the end, with what it produced."""
        return self._one(
            invocation_id, ToolExecutionCompletedEvent(invocation_id=invocation_id, receipt=receipt)
        )

    def fail(
        self, invocation_id: InvocationId, reason: str, *, recoverable: bool
    ) -> Result[StoredEvent, RecordError]:
        """Record that the invocation failed; ``recoverable`` if running it again may succeed."""
        return self._one(
            invocation_id,
            ToolExecutionFailedEvent(
                invocation_id=invocation_id, reason=reason, recoverable=recoverable
            ),
        )

    def reject(self, invocation_id: InvocationId, reason: str) -> Result[StoredEvent, RecordError]:
        """Record that the invocation was refused (by a person, a policy or validation)."""
        return self._one(
            invocation_id, ToolExecutionRejectedEvent(invocation_id=invocation_id, reason=reason)
        )

    def run(
        self,
        invocation_id: InvocationId,
        request: ToolRequest,
        executor: ToolExecutor,
        *,
        tier: Tier | None = None,
    ) -> Result[RunRecord, RecordError]:
        """Request, start, execute and end one invocation: the agent loop's step.

        Completed on a ``ToolSuccess``; failed on a ``ToolFailure``, or on an
        exception from the executor, recorded as a recoverable failure with its
        type and message and not re-raised (the session must not be left with
        a call that started and never ended); an outcome no store can keep (an
        output over the size limit, a NaN) is recorded as a failure that says so.
        A refused step is a ``RecordError`` whose ``recorded`` holds the steps
        written before it: an end that other writers kept beating, or that the
        store could not take, leaves the call started rather than claim it failed.
        An invalid request is never executed.
        """
        requested = self.request(invocation_id, request, tier=tier)
        if not isinstance(requested, Success):
            return Failure(requested.failure())
        first = requested.unwrap()
        started = self.start(invocation_id)
        if not isinstance(started, Success):
            return Failure(_with_recorded(started.failure(), (first,)))
        outcome = executed(executor, invocation_id, request)
        ended = self._ended(invocation_id, outcome)
        steps = (first, started.unwrap())
        if not isinstance(ended, Success):
            why = ended.failure()
            if why.append is None or why.append.kind is not AppendErrorKind.INVALID_EVENT:
                # Other writers kept winning, or the store failed: nothing is known to be
                # wrong with the outcome, so the call is not said to have failed; it stays
                # started, for the writer that won to end or a later run to retry.
                return Failure(_with_recorded(why, steps))
            # What the tool gave could not be recorded (an output over the size limit, a
            # NaN): the call is ended as failed all the same, never left started.
            failed = self.fail(
                invocation_id,
                as_reason(f"what the tool returned could not be recorded: {why.message}"),
                recoverable=False,
            )
            done = (*steps, failed.unwrap()) if isinstance(failed, Success) else steps
            return Failure(_with_recorded(why, done))
        return Success(RunRecord(outcome=outcome, events=(*steps, ended.unwrap())))

    def say(self, message: ConversationEvent) -> Result[StoredEvent, RecordError]:
        """Record a step of the conversation around the calls: a `Prompt`, the assistant's
        `AssistantText` or `Reasoning`, a message's `Usage` (with its model); a refusal
        names no invocation (``""``)."""
        return self._one(InvocationId(""), conversation_event(message))

    def _ended(
        self, invocation_id: InvocationId, outcome: ToolSuccess | ToolFailure
    ) -> Result[StoredEvent, RecordError]:
        if isinstance(outcome, ToolFailure):
            return self.fail(invocation_id, outcome.reason, recoverable=outcome.recoverable)
        try:
            receipt = ToolReceipt(
                output=outcome.output, exit_code=outcome.exit_code, metadata=outcome.metadata
            )
        except (TypeError, ValueError) as error:  # a value no receipt can hold
            reason = as_reason(f"what the tool returned cannot be recorded: {error}")
            return self.fail(invocation_id, reason, recoverable=False)
        return self.complete(invocation_id, receipt)

    # -- the machinery -----------------------------------------------------------

    def _one(self, invocation_id: InvocationId, event: object) -> Result[StoredEvent, RecordError]:
        return self._record(invocation_id, [event]).map(lambda events: events[0])

    def _record(
        self, invocation_id: InvocationId, events: Sequence[object]
    ) -> Result[tuple[StoredEvent, ...], RecordError]:
        with self._lock:
            if not self._read:
                problem = self._catch_up(invocation_id)
                if problem is not None:
                    return Failure(problem)
                self._read = True
            conflicts = 0
            for _ in range(self._attempts):
                at = self._stamp()
                decided = self._decide(events, at)
                if isinstance(decided, TransitionError):
                    # Our view may be behind the store: decide again on what it holds now.
                    behind = self._last
                    problem = self._catch_up(invocation_id)
                    if problem is not None:
                        return Failure(problem)
                    if self._last == behind:
                        return Failure(self._illegal(invocation_id, decided))
                    continue
                appended = self.store.append(
                    self.session_id, events, expected_sequence=self._last, recorded_at=at
                )
                if isinstance(appended, Success):
                    written = appended.unwrap()
                    self._state, self._last, self._latest = decided, written[-1].sequence, at
                    return Success(written)
                error = appended.failure()
                if error.kind is AppendErrorKind.CONFLICT:
                    conflicts += 1
                    # Writers that keep colliding spread out: a jittered, growing pause.
                    time.sleep(random.uniform(0, BACKOFF_SECONDS * 2**conflicts))
                    problem = self._catch_up(invocation_id)
                    if problem is not None:
                        return Failure(problem)
                    continue
                kind = (
                    RecordErrorKind.DUPLICATE_INVOCATION
                    if error.kind is AppendErrorKind.DUPLICATE_INVOCATION
                    else RecordErrorKind.STORE
                )
                return Failure(self._error(kind, invocation_id, error.message, append=error))
            return Failure(
                self._error(
                    RecordErrorKind.CONFLICT,
                    invocation_id,
                    f"session {self.session_id!r}: other writers appended first "
                    f"{self._attempts} times in a row; nothing recorded",
                )
            )

    def _stamp(self) -> datetime:
        now = self._clock()
        return now if self._latest is None or now >= self._latest else self._latest

    def _decide(self, events: Sequence[object], at: datetime) -> ToolState | TransitionError:
        """The state after ``events``, appended now, or the reducer's refusal of one of them."""
        state = self._state
        for offset, event in enumerate(events, start=1):
            stored = StoredEvent(
                session_id=self.session_id,
                sequence=self._last + offset,
                recorded_at=at,
                event=event,
            )
            stepped = self._reducer.step(state, stored)
            if isinstance(stepped, TransitionError):
                return stepped
            state = stepped
        return state

    def _catch_up(self, invocation_id: InvocationId) -> RecordError | None:
        """Fold what other writers appended since our view, as a lenient replay would."""
        try:
            added = list(self.store.read(self.session_id, after=self._last))
        except StoreReadError as error:
            return self._error(
                RecordErrorKind.STORE, invocation_id, f"could not read the session: {error}"
            )
        if not added:
            return None
        folded = fold_events(
            ToolProjector(), added, strict=False, initial=self._state, after=self._last
        )
        if not isinstance(folded, Success):
            return self._error(RecordErrorKind.STORE, invocation_id, str(folded.failure()))
        replay = folded.unwrap()
        self._state, self._last = replay.state, replay.last_sequence
        latest = max(stored.recorded_at for stored in added)
        self._latest = latest if self._latest is None else max(self._latest, latest)
        return None

    def _illegal(self, invocation_id: InvocationId, refused: TransitionError) -> RecordError:
        # The refusal's own message names the sequence the event would have had.
        _, _, why = refused.message.partition(": ")
        return self._error(
            RecordErrorKind.ILLEGAL,
            invocation_id,
            f"session {self.session_id!r} after sequence {self._last}: {why or refused.message}; "
            "nothing recorded",
            transition=refused,
        )

    def _error(
        self,
        kind: RecordErrorKind,
        invocation_id: InvocationId,
        message: str,
        **details: object,
    ) -> RecordError:
        return RecordError(
            kind=kind,
            session_id=self.session_id,
            invocation_id=invocation_id,
            message=message,
            **details,  # type: ignore[arg-type]
        )
