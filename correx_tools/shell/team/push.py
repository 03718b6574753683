"""A machine's sessions pushed to the team's store: only what the store does not hold yet.

For each session of the sending store (`SourceView.heads`: its last sequence and digest),
the team's store says what it holds of it (`PostgresEventStore.pushed`: the sequence it
was pushed through and the digest there), and the push decides, without reading an event:

* the same sequence and digest: **unchanged**, nothing sent;
* the store holds fewer, and the sending store's digest at that sequence is the one
  recorded: it **grew**, and only the events after are sent;
* anything else (a digest that differs, fewer events here than there): it **changed other
  than by growing** (a transcript rewritten in place, a compaction); refused, named in one
  line, unless ``replace`` sends it anew, whole.

Each session goes in one transaction of its own (`pushing.PushedSession`), so a push
killed at any point leaves each session as it was or pushed through a whole run, and the
next push sends the rest. Pushes race safely: a session another push moved on meanwhile is
refused by the store (its transaction undone) and decided again, from what the store then
holds, a few times at most.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import final

from returns.result import Failure, Result, Success

from ...core.catalog.machines import on_machine, qualified
from ...core.lifecycle.events import StoredEvent
from ..stores.port import AppendError, AppendErrorKind, StoreReadError
from ..stores.postgres.layout import id_key
from ..stores.postgres.pushing import PushedSession
from ..stores.postgres.store import PostgresEventStore
from ..stores.sql.append import IMPORT_RUN
from ..stores.sql.dialect import ReadFault
from ..stores.sql.source_reads import Head, SourceView
from ..stores.sql.store import SqlEventStore

TRIES = 5
"""How many times a session that raced another push is decided again before it is left
for the next push."""


class PushFailed(Exception):
    """The push cannot go on (the team's store is gone, or may not be written by this role):
    one line saying why, with the DSN's password masked."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Pushing:
    """Who pushes: the machine's name, the user's, and whether a session that changed other
    than by growing is sent anew (``replace``)."""

    machine: str
    user: str
    replace: bool = False


@final
@dataclass(slots=True)
class Pushed:
    """What one push did: the events sent by session (its own id), the sessions unchanged,
    and those refused (each with why)."""

    sent: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)

    @property
    def events(self) -> int:
        """Every event sent."""
        return sum(self.sent.values())


def push(
    source: SqlEventStore,
    team: PostgresEventStore,
    pushing: Pushing,
    *,
    where: Callable[[str], str] = str,
    progress: Callable[[int], None] | None = None,
) -> Pushed:
    """Push every session of ``source`` to ``team`` (see the module docstring); ``where``
    names a session's transcript in a refusal, ``progress`` is told of each run sent."""
    try:
        missing = team.missing_to_push(replace=pushing.replace)
    except ReadFault as fault:
        raise PushFailed(f"{team.name}: the database is unavailable ({fault.reason})") from None
    if missing is not None:
        raise PushFailed(
            f"{team.name}: this role may not push to schema {team.schema!r}: it lacks "
            f"{missing}; GRANT it (correx-tools init-db --pusher ROLE), or connect as a "
            "pushing role"
        )
    done = Pushed()
    with source.source_view() as view:
        heads = view.heads()
        sending = _Sending(view, team, pushing, where, progress, _recorded(team, pushing.machine))
        for session in sorted(heads):
            sending.session(session, heads[session], done)
    return done


def _recorded(team: PostgresEventStore, machine: str) -> dict[bytes, tuple[int, int, str]]:
    try:
        return team.pushed(machine)
    except ReadFault as fault:
        raise PushFailed(f"{team.name}: the database is unavailable ({fault.reason})") from None


@final
@dataclass(slots=True)
class _Sending:
    """One push under way: the sending store's snapshot, the team's store and what it
    records of this machine's pushes (read again when another push raced this one)."""

    view: SourceView
    team: PostgresEventStore
    pushing: Pushing
    where: Callable[[str], str]
    progress: Callable[[int], None] | None
    recorded: dict[bytes, tuple[int, int, str]]

    def session(self, session: str, head: Head, done: Pushed) -> None:
        """Decide what of ``session`` to send, and send it (see the module docstring)."""
        name = qualified(self.pushing.machine, session)
        key = id_key(name)
        if head.digest is None:
            self._refuse(
                done,
                session,
                "its index does not reach its last event here; "
                "correx-tools reindex its store, then push again",
            )
            return
        anew = False  # the team's store holds events of it that no push recorded
        for _ in range(TRIES):
            through, digest, _user = self.recorded.get(key, (0, 0, ""))
            if through == head.last and digest == head.digest:
                done.unchanged += 1
                return
            grown = through < head.last and (
                through == 0 or self.view.digest(session, through) == digest
            )
            if anew or (not grown and not self.pushing.replace):
                if not self.pushing.replace:
                    self._refuse(
                        done,
                        session,
                        "changed other than by growing since it was "
                        f"pushed (session {session}); push --replace sends it anew",
                    )
                    return
                grown = False
            sent = self._send(session, name, head, through, digest, grown=grown)
            match sent:
                case Success(count):
                    done.sent[session] = count
                    return
                case Failure(error) if error.kind in (AppendErrorKind.CONFLICT,
                                                      AppendErrorKind.GAP):  # fmt: skip
                    before, self.recorded = self.recorded.get(key), self._again()
                    if self.recorded.get(key) == before:  # no push moved it: another writer did
                        if not self.pushing.replace:
                            self._refuse(
                                done,
                                session,
                                f"the team's store holds other events "
                                f"of {name} than pushes wrote; push --replace sends "
                                "it anew",
                            )
                            return
                        anew = True
                case Failure(error) if error.kind is AppendErrorKind.UNAVAILABLE:
                    # The store's advice to a writer that may have committed is for appends:
                    # the next push reads what was written.
                    raise PushFailed(error.message.split("; if the connection")[0])
                case Failure(error):
                    self._refuse(done, session, error.message)
                    return
                case _:
                    raise AssertionError
        self._refuse(done, session, "other pushes kept moving it on; the next push sends the rest")

    def _refuse(self, done: Pushed, session: str, why: str) -> None:
        done.refused.append((session, f"{self.where(session)}: {why}"))

    def _again(self) -> dict[bytes, tuple[int, int, str]]:
        return _recorded(self.team, self.pushing.machine)

    def _send(
        self, session: str, name: str, head: Head, through: int, digest: int, *, grown: bool
    ) -> Result[int, AppendError]:
        """The session from ``through`` (grown) or whole (anew), in one transaction."""
        after = through if grown else 0
        runs = _runs(self.view, session, after, head.last, self.pushing.machine, self.progress)
        sent = PushedSession(
            session_id=name, schema=self.team.schema, machine=self.pushing.machine,
            user=self.pushing.user, after=through, digest_after=digest if through else None,
            through=head.last, digest=head.digest or 0, runs=runs, replace=not grown,
        )  # fmt: skip
        try:
            return self.team.push(sent)
        except StoreReadError as error:
            message = f"{self.where(session)}: cannot be read: {error.error}"
            return Failure(AppendError(kind=AppendErrorKind.DAMAGED, session_id=name,
                                       message=message))  # fmt: skip


def _runs(  # noqa: PLR0917 - the one caller names them in order
    view: SourceView,
    session: str,
    after: int,
    through: int,
    machine: str,
    progress: Callable[[int], None] | None,
) -> Iterator[list[StoredEvent]]:
    """The session's events after ``after``, as the team's store keeps them, a run at a time."""
    for run in view.runs(session, after, through, IMPORT_RUN):
        yield [on_machine(stored, machine) for stored in run]
        if progress is not None:
            progress(len(run))
