"""How a run ended, as the harness that ran it wrote: the task it worked on, how the agent
stopped, whether it submitted a patch (and the patch), what it cost, and whether an
evaluation found the task resolved.

An evaluation team's first question of two runs is which one resolved its task. The
answer is not in the agent's calls but beside them: SWE-agent's ``info`` (its
``exit_status`` and ``submission``), mini-swe-agent's, SWE-bench's ``report.json``
(``resolved``), OpenHands' evaluation log. The transcripts' readers gather it into one
`Outcome`, and an imported session keeps it as an event of its own (`OUTCOME`, version
1), written right after the session's description: like the description it is no tool
event, every store keeps it as an `OpaqueEvent`, the lifecycle passes over it, and
`outcome_in` reads it back from a session's first events.

Each part is ``None`` where nothing says it: a run no evaluation looked at has no
``resolved``, not ``False``.

>>> found = outcome_of(outcome_event(Outcome(task="django__django-11099", resolved=True)))
>>> found.task, found.verdict
('django__django-11099', 'resolved')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias, final

from .events import OpaqueEvent, StoredEvent

OUTCOME = "correx.session.outcome"
"""The type tag of the event that holds how an imported run ended."""
VERSION = 1
MAX_PATCH = 256 * 1024
"""Characters of a final patch kept (a longer one is cut, and says so): the event must
fit in a store's envelope beside everything else."""

Verdict: TypeAlias = Literal["resolved", "unresolved", "not evaluated"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """How a run ended (each part ``None`` where nothing says it).

    ``task`` is the task's id (a SWE-bench instance id); ``exit_status`` how the agent
    stopped, in the harness's words (``submitted``, ``exit_cost``); ``submitted`` whether
    it handed in a non-empty patch, and ``patch`` that patch (``patch_cut``: cut at
    `MAX_PATCH`); ``resolved`` an evaluation's verdict, read from ``evaluated_by`` (the
    file that says it); ``cost`` the run's cost in dollars and ``model_calls`` its calls to
    the model, as the harness counted them.
    """

    task: str | None = None
    exit_status: str | None = None
    submitted: bool | None = None
    patch: str | None = None
    patch_cut: bool = False
    resolved: bool | None = None
    evaluated_by: str | None = None
    cost: float | None = None
    model_calls: int | None = None

    @property
    def verdict(self) -> Verdict:
        """What the evaluation found."""
        if self.resolved is None:
            return "not evaluated"
        return "resolved" if self.resolved else "unresolved"

    @property
    def said(self) -> str:
        """The outcome in a few words: the verdict, else how the run stopped.

        >>> Outcome(exit_status="exit_cost", submitted=False).said
        'not evaluated (exit_cost, no patch)'
        """
        if self.resolved is not None:
            return self.verdict
        how = [part for part in (self.exit_status, _submitted(self.submitted)) if part]
        return "not evaluated" + (f" ({', '.join(how)})" if how else "")


def _submitted(submitted: bool | None) -> str:
    return "" if submitted is None else "a patch" if submitted else "no patch"


def with_patch(outcome: Outcome, patch: str | None) -> Outcome:
    """``outcome`` with ``patch`` as its final patch (cut at `MAX_PATCH`); a patch of only
    whitespace is no patch."""
    if patch is None:
        return outcome
    text = patch if patch.strip() else None
    cut = text is not None and len(text) > MAX_PATCH
    return replace(
        outcome,
        patch=None if text is None else text[:MAX_PATCH],
        patch_cut=cut,
        submitted=text is not None if outcome.submitted is None else outcome.submitted,
    )


def outcome_event(outcome: Outcome) -> OpaqueEvent:
    """The event a store keeps for ``outcome``."""
    data: dict[str, Any] = {
        "task": outcome.task,
        "exit_status": outcome.exit_status,
        "submitted": outcome.submitted,
        "patch": outcome.patch,
        "patch_cut": outcome.patch_cut or None,
        "resolved": outcome.resolved,
        "evaluated_by": outcome.evaluated_by,
        "cost": outcome.cost,
        "model_calls": outcome.model_calls,
    }
    return OpaqueEvent(
        type=OUTCOME,
        version=VERSION,
        data={key: value for key, value in data.items() if value is not None},
    )


def outcome_of(event: object) -> Outcome | None:
    """The outcome ``event`` holds; ``None`` for any other event (and one of a later
    version). A part of the wrong type is read as not said."""
    if not isinstance(event, OpaqueEvent) or event.type != OUTCOME or event.version != VERSION:
        return None
    data: Mapping[str, Any] = event.data
    cost = data.get("cost")
    calls = data.get("model_calls")
    return Outcome(
        task=_text(data, "task"),
        exit_status=_text(data, "exit_status"),
        submitted=_flag(data, "submitted"),
        patch=_text(data, "patch"),
        patch_cut=data.get("patch_cut") is True,
        resolved=_flag(data, "resolved"),
        evaluated_by=_text(data, "evaluated_by"),
        cost=float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool) and math.isfinite(cost)
        else None,
        model_calls=calls if type(calls) is int and calls >= 0 else None,
    )


def outcome_in(events: Iterable[StoredEvent]) -> Outcome | None:
    """The outcome of an imported session, from its first events (the description, then
    the outcome: at most two are read)."""
    for number, stored in enumerate(events):
        found = outcome_of(stored.event)
        if found is not None or number >= 1:
            return found
    return None


def without_patch(outcome: Outcome) -> Outcome:
    """``outcome`` as a list of sessions keeps it: its patch stays in its event alone (a
    listing shows the verdict; the comparison reads the patch from the event)."""
    return replace(outcome, patch=None, patch_cut=False)


def outcome_data(outcome: Outcome) -> dict[str, Any]:
    """The parts of ``outcome`` that are said, as plain JSON values (`outcome_from_data`
    reads them back)."""
    return dict(outcome_event(outcome).data)


def outcome_from_data(data: object) -> Outcome | None:
    """The outcome `outcome_data` gave ``data`` for (``None`` if it is not a mapping)."""
    if not isinstance(data, Mapping):
        return None
    return outcome_of(OpaqueEvent(type=OUTCOME, version=VERSION, data=data))


def outcome_json(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as the commands' documents show it (its patch left out: the comparison
    shows what it changed)."""
    if outcome is None:
        return None
    return {
        "task": outcome.task,
        "verdict": outcome.verdict,
        "resolved": outcome.resolved,
        "evaluated_by": outcome.evaluated_by,
        "exit_status": outcome.exit_status,
        "submitted": outcome.submitted,
        "cost": outcome.cost,
        "model_calls": outcome.model_calls,
        "said": outcome.said,
    }


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _flag(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    return value if isinstance(value, bool) else None
