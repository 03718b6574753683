"""A finding as the JSON documents say it (``audit --json``, the debugger's API)."""

from __future__ import annotations

from typing import Any

from ...core.audit.finding import Finding


def finding_json(finding: Finding) -> dict[str, Any]:
    """A finding as ``--json`` writes it (and ``--recheck`` reads it): ``attempt`` true for
    a call rejected before it ran."""
    return {
        "rule": finding.rule,
        "level": finding.level.value,
        "session": finding.session,
        "sequence": finding.sequence,
        "tool": finding.tool,
        "message": finding.message,
        "attempt": finding.attempt,
        "evidence": [
            {"sequence": e.sequence, "role": e.role, "value": e.value} for e in finding.evidence
        ],
    }
