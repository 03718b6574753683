"""A session's catalog as a database keeps it, and back: one row of facts and counts, its
models, its tokens by model, its activity windows (`layout.CATALOG_TABLES`).

Every value goes in as the dialect keeps ids and times (bytes and timestamps in
PostgreSQL, text in SQLite), agent-written text included (a NUL is legal there), and
comes back as the same value: `listed_from` makes the `Listed` a fold of the events
makes (`FoldedCatalog`), held equal by ``tests/test_catalog_store.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from ....core.catalog.activity import Window
from ....core.catalog.facts import SessionFacts
from ....core.catalog.listing import CallCounts, Listed
from ....core.lifecycle.conversation import TokenUsage
from ....core.lifecycle.description import About, Described
from ....core.lifecycle.outcome import Outcome, outcome_data, outcome_from_data
from ....core.replay.spending import Spent
from ....core.replay.talk_summary import TalkSummary
from .dialect import Dialect

ROW_COLUMNS = (
    "name", "agent", "agent_fold", "agent_session", "described_at", "project", "project_fold",
    "own_title", "parent_session", "times_recorded", "title", "prompts", "messages", "events",
    "first_at", "last_at", "started", "ended", "calls", "completed", "failed", "rejected",
    "requested_calls", "started_calls", "exited", "refused", "failures", "input", "output",
    "cache_read", "cache_write", "outcome",
)  # fmt: skip
"""The catalog row's columns a write sets (``number`` and ``searched`` are set apart;
``machine`` and ``user_name`` by whoever knows them: no write here changes them)."""

READ_COLUMNS = ("{session}", "number", "searched", *ROW_COLUMNS, "machine", "user_name")
"""The columns `listed_from` reads, in order."""

WINDOW_COLUMNS = (
    "quarter", "model", "calls", "messages", "input", "output", "cache_read", "cache_write",
    "first_at", "last_at",
)  # fmt: skip


def row_values(d: Dialect, session_id: str, facts: SessionFacts, counts: CallCounts) -> list[Any]:
    """The values of `ROW_COLUMNS` for a session."""
    text, time = d.text_value, _timer(d)
    described = facts.description
    tokens = facts.tokens
    return [
        text(session_id),
        text(facts.agent),
        text((facts.agent or "").lower()),
        text(None if described is None else described.about.agent_session_id),
        time(None if described is None else described.about.started_at),
        text(facts.project),
        text((facts.project or "").lower()),
        text(None if described is None else described.about.title),
        text(None if described is None else described.about.parent_session),
        facts.times_recorded,
        text(facts.talk.title),
        facts.talk.prompts,
        facts.talk.messages,
        facts.events,
        time(facts.first_at),
        time(facts.last_at),
        time(facts.started),
        time(facts.ended),
        counts.calls,
        counts.completed,
        counts.failed,
        counts.rejected,
        counts.requested,
        counts.started,
        counts.exited_nonzero,
        counts.refused,
        counts.failures,
        *((None,) * 4 if tokens is None else _counts(tokens)),
        text(_outcome_text(described)),
    ]


def _outcome_text(described: Described | None) -> str | None:
    """How the run ended as the row keeps it: the outcome's JSON (its patch left out)."""
    if described is None or described.outcome is None:
        return None
    return json.dumps(outcome_data(described.outcome), separators=(",", ":"))


def _outcome_from(text: str | None) -> Outcome | None:
    return None if text is None else outcome_from_data(json.loads(text))


def _counts(tokens: TokenUsage) -> tuple[int, int, int, int]:
    return tokens.input, tokens.output, tokens.cache_read, tokens.cache_write


def _timer(d: Dialect) -> Any:
    def time(moment: datetime | None) -> object:
        return None if moment is None else d.time_value(moment)

    return time


def model_rows(d: Dialect, key: object, models: Sequence[str]) -> list[tuple[Any, ...]]:
    """The rows of a session's models, in the order first seen."""
    return [
        (key, position, d.text_value(model), d.text_value(model.lower()))
        for position, model in enumerate(models)
    ]


def spent_rows(d: Dialect, key: object, spent: Spent | None) -> list[tuple[Any, ...]]:
    """The rows of a session's tokens by model, in the order first seen."""
    if spent is None:
        return []
    return [
        (key, position, d.text_value(model), *_counts(usage))
        for position, (model, usage) in enumerate(spent.by_model)
    ]


def window_values(d: Dialect, quarter: int | None, model: str | None, window: Window) -> list[Any]:
    """The values of `WINDOW_COLUMNS` for one window."""
    time = _timer(d)
    return [quarter, d.text_value(model), window.calls, window.messages,
            *_counts(window.tokens), time(window.first_at), time(window.last_at)]  # fmt: skip


def window_from(d: Dialect, row: Sequence[Any]) -> tuple[int | None, str | None, Window]:
    """A window as `window_values` wrote it (its columns, in order)."""
    quarter, model, calls, messages, i, o, r, w, first, last = row
    window = Window(
        calls=calls,
        messages=messages,
        tokens=TokenUsage.unchecked(i, o, r, w),
        first_at=None if first is None else d.when(first),
        last_at=None if last is None else d.when(last),
    )
    return (None if quarter is None else int(quarter)), d.text(model), window


def listed_from(
    d: Dialect,
    row: Sequence[Any],
    models: Iterable[Sequence[Any]],
    spent: Iterable[Sequence[Any]],
) -> Listed:
    """The `Listed` a catalog row (`READ_COLUMNS`), its models' rows (``model`` values, in
    order) and its tokens' rows (``model, input, output, cache_read, cache_write``) make."""
    text = d.text
    (_key, _number, _searched, name, agent, _agent_fold, agent_session, described_at, project,
     _project_fold, own_title, parent_session, times_recorded, title, prompts, messages, events,
     first_at, last_at, _started, _ended, calls, completed, failed, rejected, requested_calls,
     started_calls,
     exited, refused, _failures, i, o, r, w, outcome, machine, user) = row  # fmt: skip
    agent_name = text(agent)
    description = None
    if agent_name is not None:
        about = About(
            agent_session_id=text(agent_session),
            started_at=None if described_at is None else d.when(described_at),
            cwd=text(project),
            title=text(own_title),
            parent_session=text(parent_session),
        )
        description = Described(
            agent_name,
            about,
            times_recorded=bool(times_recorded),
            outcome=_outcome_from(text(outcome)),
        )
    # Counts the store wrote from checked usages: not checked again.
    by_model = tuple((text(model), TokenUsage.unchecked(*tokens)) for model, *tokens in spent)
    spent_value = Spent(by_model=by_model) if by_model else None
    talk = TalkSummary(
        title=text(title),
        models=tuple(text(model) or "" for (model,) in models),
        tokens=None if i is None else TokenUsage.unchecked(i, o, r, w),
        prompts=int(prompts),
        messages=int(messages),
    )
    facts = SessionFacts(
        description=description,
        talk=talk,
        spent=spent_value,
        events=int(events),
        first_at=None if first_at is None else d.when(first_at),
        last_at=None if last_at is None else d.when(last_at),
    )
    counts = CallCounts(calls=calls, completed=completed, failed=failed, rejected=rejected,
                        requested=requested_calls, started=started_calls,
                        exited_nonzero=exited, refused=refused)  # fmt: skip
    return Listed(session_id=text(name) or "", facts=facts, counts=counts,
                  machine=text(machine), user=text(user))  # fmt: skip
