"""Findings as a SARIF 2.1.0 log, for code-scanning tools.

One run, the tool ``correx-tools audit`` with a rule per `RULES` entry. Each result
names its rule, level and message; its location is the session (an artifact, the SOURCE
it was read from) and, logically, the session and the event sequence; its properties hold
the evidence (each event's sequence, role and evidence value), which ``audit --recheck``
reads back.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from ..._version import __version__
from ...core.audit.finding import RULES, Finding
from ..stores.addresses import POSTGRES_SCHEMES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION = "https://github.com/correx/correx-tools/blob/main/docs/audit.md"


def sarif_log(findings: Iterable[Finding], source: str) -> dict[str, Any]:
    """The SARIF log of ``findings`` read from ``source``."""
    rules = list(RULES)
    source = artifact_uri(source)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "correx-tools audit",
                        "version": __version__,
                        "informationUri": INFORMATION,
                        "rules": [
                            {
                                "id": rule,
                                "shortDescription": {"text": text},
                                "defaultConfiguration": {"level": level.value},
                            }
                            for rule, (level, text) in RULES.items()
                        ],
                    }
                },
                "artifacts": [{"location": {"uri": source}}],
                "results": [
                    _result(finding, source, rules.index(finding.rule)) for finding in findings
                ],
            }
        ],
    }


def artifact_uri(source: str) -> str:
    """SOURCE as the URI reference an ``artifactLocation`` holds: a database's URL as it
    is, a path with what a URI cannot hold as it is escaped (a space, ``%``, and ``#`` and
    ``?``, which would begin a fragment or a query)."""
    if source.startswith(POSTGRES_SCHEMES):
        return source
    return quote(PurePath(source).as_posix(), safe="/")


def literal(text: str) -> str:
    r"""``text`` as a SARIF message says it, every character its own (a finding quotes what
    the agent ran): SARIF reads ``{0}`` as the place of an argument, and ``{{`` and ``}}``
    as the braces themselves; and ``[text](target)`` as a link (§3.11.6), so ``[``, ``]``
    and the backslash that escapes them are escaped.

    >>> print(literal(r"[x](javascript:alert(1)) {0} a\b"))
    \[x\](javascript:alert(1)) {{0}} a\\b
    """
    escaped = text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return escaped.replace("{", "{{").replace("}", "}}")


def _result(finding: Finding, source: str, rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.level.value,
        "message": {"text": literal(finding.message)},
        "locations": [
            {
                "physicalLocation": {"artifactLocation": {"uri": source, "index": 0}},
                "logicalLocations": [
                    {
                        "name": f"sequence {finding.sequence}",
                        "fullyQualifiedName": f"{finding.session}/{finding.sequence}",
                        "kind": "member",
                    }
                ],
            }
        ],
        "properties": {
            "session": finding.session,
            "tool": finding.tool,
            "evidence": [
                {"sequence": e.sequence, "role": e.role, "value": e.value} for e in finding.evidence
            ],
        },
    }
