"""The tables of a session's calls: ``replay``'s records and ``diff``'s changes, a row a call
with what it did (`gist`: its command, path or pattern), how it ended and its exit code.

Ids are shown without the session's prefix (`shown_ids`) and cut, where the width asks
for it, to no less than the start that names each call in the whole session
(`short_names.short_invocations`), which any command takes for the whole id. What a row
quotes of the session is masked (`Redaction`) unless the person asked for it raw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.lifecycle.state import ToolState
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.recorded import cut_note, edit_not_applied, exit_code_of
from ....core.replay.timeline import RecordChange
from ....core.report.gist import gist
from ....core.report.redaction import Redaction
from ....core.tools.json_values import thaw_json
from ....core.tools.short_ids import short_invocation_id
from .tables import Column, table


def record_detail(record: ToolInvocationRecord, *, notes: bool = False) -> str:
    """How the call ended, in a cell: its reason, or its exit code where one was recorded
    (none is made up: a call whose transcript states none shows none). With ``notes``, also
    an edit that did not take effect and what an import cut, in their own words."""
    if record.reason is not None:
        return record.reason
    receipt = record.receipt
    if receipt is None:
        return ""
    code = exit_code_of(receipt)
    said = [] if code is None else [f"exit {code}"]
    if notes:
        said += notes_of(record)
    return " · ".join(said)


def notes_of(record: ToolInvocationRecord) -> list[str]:
    """What the transcript said of the call beside its outcome, in its own words: an edit
    that did not take effect, what an import cut."""
    edit, cut = edit_not_applied(record.receipt), cut_note(record.receipt)
    return [*([] if edit is None else [f"edit not applied: {edit}"]),
            *([] if cut is None else [f"cut to fit the store: {cut}"])]  # fmt: skip


def status_counts(state: ToolState) -> dict[str, int]:
    """How many calls of ``state`` have each status, in the lifecycle's order."""
    counts = Counter(record.status.value for record in state.records())
    return {status.value: counts.get(status.value, 0) for status in ToolInvocationStatus}


class Shown:
    """How a table of one session's calls shows them: each id as the table names it
    (``names``: the shortest start that names it in the session, where known), the
    session's working directory (``cwd``: paths inside it said relative to it), what it
    masks (``redaction``; ``None``: nothing), and whether the session was ``imported``
    (its stand-in starts are no starts: `recorded_start`)."""

    __slots__ = ("cwd", "imported", "names", "redaction", "session")

    def __init__(
        self,
        session: str | None,
        *,
        names: Mapping[str, str] | None = None,
        cwd: str | None = None,
        redaction: Redaction | None = None,
        imported: bool = False,
    ) -> None:
        self.session, self.names, self.cwd, self.redaction = session, names or {}, cwd, redaction
        self.imported = imported

    def id_column(self, header: str, ids: Mapping[str, str]) -> Column:
        """The column of the ``ids`` (each as the table shows it), cut to no less than each
        one's short name."""
        least = max((len(self.names.get(i, shown)) for i, shown in ids.items()), default=0)
        return Column(header, fit="id", least=least)

    def did(self, record: ToolInvocationRecord) -> str:
        """What the call did, in a few words."""
        arguments = thaw_json(record.request.arguments)
        if not isinstance(arguments, dict):
            return ""
        return gist(record.tool_name, arguments, cwd=self.cwd, redaction=self.redaction)

    def text(self, text: str) -> str:
        """Text of the session, masked."""
        return text if self.redaction is None else self.redaction.text(text)


TOOL = Column("tool", fit="cut", least=6, ease=12, give=1)
DID = Column("did", fit="cut", least=12, ease=28, give=3)
DETAIL = Column("detail", fit="cut", least=10, ease=16, give=4)
"""How the call ended: a reason gives way before what the call did."""


def records_table(
    records: Sequence[ToolInvocationRecord], shown: Shown, *, times: bool = True, wide: bool
) -> str:
    """The records, one a row (``times`` false: the session records none, and none is
    shown)."""
    ids = shown_ids(shown.session, [r.invocation_id for r in records])
    columns = [shown.id_column("invocation", ids), TOOL, Column("status")]
    if times:
        columns += [Column("requested", drop=1), Column("completed", drop=2)]
    columns += [DID, DETAIL]
    rows = []
    for r in records:
        row: list[object] = [ids[r.invocation_id], shown.text(r.tool_name), r.status.name]
        if times:
            row += [_short_time(r.requested_at), _short_time(r.completed_at)]
        rows.append([*row, shown.did(r), shown.text(record_detail(r))])
    return table(columns, rows, wide=wide)


def changes_table(changes: Sequence[RecordChange], shown: Shown, *, wide: bool) -> str:
    """The changes, one a row: how each call stood before and after, what it did, and how
    it ended (its reason, or its exit code: a non-zero exit is never a plain COMPLETED)."""
    ids = shown_ids(shown.session, [c.invocation_id for c in changes])
    columns = [shown.id_column("invocation", ids), TOOL, Column("before"), Column("after"),
               DID, DETAIL]  # fmt: skip
    rows = [
        [
            ids[c.invocation_id],
            shown.text(c.after.tool_name),
            "(new)" if c.before is None else c.before.status.name,
            c.after.status.name,
            shown.did(c.after),
            shown.text(record_detail(c.after)),
        ]
        for c in changes
    ]
    return table(columns, rows, wide=wide)


def _short_time(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%H:%M:%S.%f")[:-3]


def shown_ids(session: str | None, invocations: Sequence[str]) -> dict[str, str]:
    """Each id as a table shows it: without the session's prefix (`shown_id`), unless two
    ids of the table would then read alike (``run-1/call-1``, ``run-1:call-1``): those
    stay whole."""
    short = {invocation: shown_id(session, invocation) for invocation in invocations}
    seen = Counter(short.values())
    return {
        invocation: name if seen[name] == 1 else invocation for invocation, name in short.items()
    }


def shown_id(session: str | None, invocation: str) -> str:
    """An invocation's id in text that names its session already: without the session's own
    prefix (`short_invocation_id`), which the commands take back."""
    return invocation if session is None else short_invocation_id(session, invocation)
