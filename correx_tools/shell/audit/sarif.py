"""Findings as a SARIF 2.1.0 log, for code-scanning tools.

One run, the tool ``correx-tools audit`` with a rule per `RULES` entry. Each result
names its rule, level and message; its location is where the call is written down: the
transcript file the session was read from, relative to the SOURCE folder (``uriBaseId``
``SOURCE``, which ``originalUriBaseIds`` resolves), with the line the call's receipt
records (``region.startLine``) where it records one; else the SOURCE itself (a store).
Logically it is the session and the event sequence. Its properties hold the evidence
(each event's sequence, role and evidence value) and whether the call was an attempt,
which ``audit --recheck`` reads back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, final
from urllib.parse import quote

from ..._version import __version__
from ...core.audit.finding import RULES, Finding
from ..stores.addresses import POSTGRES_SCHEMES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION = "https://github.com/correx/correx-tools/blob/main/docs/audit.md"


@final
@dataclass(frozen=True, slots=True)
class Place:
    """Where a finding's call is written down: a transcript file (its path relative to the
    SOURCE folder, or the file SOURCE names) and, where known, its line."""

    file: str
    line: int | None = None


def sarif_log(
    findings: Iterable[Finding],
    source: str,
    places: Mapping[tuple[str, int], Place] | None = None,
    *,
    folder: bool = False,
) -> dict[str, Any]:
    """The SARIF log of ``findings`` read from ``source``; ``places``: where each finding's
    call (by session and sequence) is written down (``folder``: SOURCE is a folder, and
    each place's file is relative to it)."""
    rules = list(RULES)
    found = list(findings)
    where = places or {}
    files = sorted({place.file for place in where.values()})
    index = {file: n for n, file in enumerate(files, start=1)}
    base = {"uriBaseId": "SOURCE"} if folder else {}
    artifacts = [{"location": {"uri": artifact_uri(source)}}]
    artifacts += [{"location": {"uri": artifact_uri(file), **base}} for file in files]
    run: dict[str, Any] = {
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
        "artifacts": artifacts,
        "results": [],
    }
    if folder:
        # An absolute URI, as SARIF asks of a base (a file's, for a folder SOURCE).
        run["originalUriBaseIds"] = {"SOURCE": {"uri": Path(source).resolve().as_uri() + "/"}}
    for finding in found:
        place = where.get((finding.session, finding.sequence))
        if place is None:
            physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(source),
                                                             "index": 0}}  # fmt: skip
        else:
            physical = {"artifactLocation": {"uri": artifact_uri(place.file), **base,
                                             "index": index[place.file]}}  # fmt: skip
            if place.line is not None:
                physical["region"] = {"startLine": place.line}
        run["results"].append(_result(finding, physical, rules.index(finding.rule)))
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


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


def _result(finding: Finding, physical: dict[str, Any], rule_index: int) -> dict[str, Any]:
    return {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": finding.level.value,
        "message": {"text": literal(finding.message)},
        "locations": [
            {
                "physicalLocation": physical,
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
            "attempt": finding.attempt,
            "evidence": [
                {"sequence": e.sequence, "role": e.role, "value": e.value} for e in finding.evidence
            ],
        },
    }
