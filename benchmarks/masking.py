"""Masking secrets: hostile text against ordinary text of the same size, in the same run.

Ordinary text is what the real Claude Code sample's tools gave back (files
read, listings, command output); hostile text is a string repeated: the ones
the issue measured (``"token" * n`` took 3.74 s at 32k characters before the
masking ran on RE2), every rule's keywords (each the worst of them), and texts
made of nothing but findings. Each row is the least of a few runs, with a new
`Redaction` each time so nothing is kept from the run before.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from correx_tools.core.report.redaction import Redaction
from correx_tools.core.report.secret_rules import builtin_rules

from .table import Row, at_most

SAMPLE = (
    Path(__file__).resolve().parent.parent
    / "tests/data/transcripts/claude-code/session_4d5611e5_subagent_a2898e3.jsonl"
)
NAMED = ("token", "-----BEGIN PRIVATE KEY-----", "password=", "a")
FINDINGS = ("api_key=abc123def456ghi ", '"password": "x", ',
            "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ")  # fmt: skip
LIMIT = 2.0
"""Hostile text costs at most this many times ordinary text (the named strings, keywords)."""


def ordinary(size: int) -> str:
    """``size`` characters of the sample's tool outputs, repeated."""
    outputs = []
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        content = json.loads(line).get("message", {}).get("content")
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "tool_result":
                given = part.get("content")
                outputs.append(given if isinstance(given, str) else json.dumps(given))
    text = "\n".join(outputs)
    return (text * (size // len(text) + 1))[:size]


def _cost(text: str, repeat: int) -> float:
    Redaction().text(text)  # the rules it wakes compiled before it is timed
    best = float("inf")
    for _ in range(repeat):
        redaction = Redaction()
        started = time.perf_counter()
        redaction.text(text)
        best = min(best, time.perf_counter() - started)
    return best


def masking_rows(size: int, repeat: int) -> list[Row]:
    """A row for each hostile text the issue names, the worst keyword and each flood of
    findings, at ``size`` characters."""
    base = _cost(ordinary(size), repeat)
    label = f"{size:,} chars"
    baseline = f"{base * 1e3:.1f} ms ordinary text"

    def row(name: str, seed: str, limit: float | None) -> Row:
        text = (seed * (size // len(seed) + 1))[:size]
        spent = _cost(text, repeat)
        ours = f"{spent * 1e3:.1f} ms"
        if limit is None:
            return Row(name, label, ours, baseline, spent / base, "-", None)
        return at_most(name, label, ours, baseline, ratio=spent / base, limit=limit)

    rows = [row(f"masking, {seed!r} * n", seed, LIMIT) for seed in NAMED]
    keywords = sorted({k for rule in builtin_rules() for k in rule.keywords})
    worst = max(keywords, key=lambda k: _cost((k * (size // len(k) + 1))[:size], 1))
    rows.append(row(f"masking, the worst keyword of {len(keywords)}: {worst!r} * n", worst,
                    LIMIT))  # fmt: skip
    rows += [row(f"masking, nothing but findings: {seed[:24]!r} * n", seed, None)
             for seed in FINDINGS]  # fmt: skip
    return rows
