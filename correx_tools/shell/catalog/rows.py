"""The JSON documents of many sessions: a session's row of ``sessions --json``, a row of
``usage --json`` and a hit of ``search --json``, one builder each, which the commands and
the server's API both print."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

from ...core.catalog.listing import Listed
from ...core.catalog.searched import SearchHit
from ...core.catalog.usage import UsageRow
from ...core.lifecycle.outcome import outcome_json
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.pricing import PriceTable, cost_of
from ...core.replay.talk_summary import cut_title
from ...core.report.redaction import Redaction
from ...core.report.refs import ref_of
from ..replay.spent import usage_json as tokens_json
from ..stores.codec.envelope import iso_time


def session_json(listed: Listed, redaction: Redaction | None, prices: PriceTable) -> dict[str, Any]:
    """One session of ``sessions --json`` (the keys of earlier releases, and more): its
    agent-written text (its project, title, models) masked by ``redaction`` (``None``: as
    it is), its cost at ``prices`` (``null`` where a model has no price:
    ``unpriced_models`` names them)."""
    facts, counts = listed.facts, listed.counts
    shown = _as_it_is if redaction is None else redaction.text
    described = facts.description
    tokens = facts.tokens
    cost = cost_of(facts.spent, prices)
    title = facts.title
    return {
        "session_id": listed.session_id,
        "events": facts.events,
        "invocations": counts.calls,
        "statuses": {
            ToolInvocationStatus.REQUESTED.value: counts.requested,
            ToolInvocationStatus.STARTED.value: counts.started,
            ToolInvocationStatus.COMPLETED.value: counts.completed,
            ToolInvocationStatus.FAILED.value: counts.failed,
            ToolInvocationStatus.REJECTED.value: counts.rejected,
        },
        "exited_nonzero": counts.exited_nonzero,
        "refused_events": counts.refused,
        "transcript": None if described is None else {
            "format": described.format,
            "agent_session_id": described.about.agent_session_id,
            "started_at": iso_time(described.about.started_at),
            "cwd": None if described.about.cwd is None else shown(described.about.cwd),
            "title": None if described.about.title is None else shown(described.about.title),
            "times_recorded": described.times_recorded,
            "outcome": _outcome_shown(outcome_json(described.outcome), shown),
        },
        # Masked whole, then cut: a cut first could split a secret the masking would miss.
        "title": None if title is None else cut_title(shown(title)),
        "title_from": facts.title_from,
        "agent": facts.agent,
        "project": None if facts.project is None else shown(facts.project),
        "models": [shown(model) for model in facts.talk.models],
        "tokens": None if tokens is None else tokens_json(tokens),
        "said": None if described is None and facts.talk.empty
                else facts.talk.prompts + facts.talk.messages,
        "first_time": iso_time(facts.started),
        "last_time": iso_time(facts.ended),
        "cost": None if cost is None or cost.amount is None else float(cost.amount),
        "unpriced_models": [] if cost is None else list(cost.unpriced),
        "machine": listed.machine,
        "user": listed.user,
    }  # fmt: skip


def usage_row_json(row: UsageRow) -> dict[str, Any]:
    """One row of ``usage --json`` (its ``key``; ``total`` for the total's)."""
    return {
        "key": row.key,
        "sessions": row.sessions,
        "calls": row.calls,
        "tokens": tokens_json(row.tokens),
        "cost": None if row.cost is None else float(row.cost),
        "unpriced_tokens": row.unpriced_tokens,
    }


def hit_json(hit: SearchHit, redaction: Redaction | None) -> dict[str, Any]:
    """A hit of ``search --json`` (but the command that opens it, which only the command
    knows): where it is, its snippet, and ``page``, the path that opens it in the server's
    page (after its address), named by refs (`refs`)."""
    shown = _as_it_is if redaction is None else redaction.text
    at: dict[str, str | int] = {"at": hit.sequence}
    if hit.invocation_id is not None:
        at["invocation"] = ref_of(hit.invocation_id, redaction)
    page = f"/sessions/{quote(ref_of(hit.session_id, redaction), safe='')}?{urlencode(at)}"
    return {
        "session_id": shown(hit.session_id),
        "invocation_id": None if hit.invocation_id is None else shown(hit.invocation_id),
        "sequence": hit.sequence,
        "field": hit.field,
        "snippet": hit.snippet,
        "page": page,
    }


def _outcome_shown(
    outcome: dict[str, Any] | None, shown: Callable[[str], str]
) -> dict[str, Any] | None:
    """An outcome's document with the text its harness wrote masked."""
    if outcome is None:
        return None
    said = ("task", "evaluated_by", "exit_status", "said")
    return {k: shown(v) if k in said and isinstance(v, str) else v for k, v in outcome.items()}


def _as_it_is(text: str) -> str:
    return text
