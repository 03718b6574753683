"""``GET /api/v1/audit?session=``: the session's audit so far, held to ``--policy`` or the
built-in one (`shell.audit.live`), with the session and the tools named as every other
answer names them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...audit.live import LiveAudits
from ..debugger.debugger import Debugger
from ..errors import ApiError


def audit(debugger: Debugger, audits: LiveAudits, query: Mapping[str, str]) -> dict[str, Any]:
    """The audit of the session ``query`` names."""
    ref = query.get("session")
    if not ref:
        raise ApiError(400, "give the session: /api/v1/audit?session=ID")
    session = debugger.session(ref)
    said = audits.audit(session)
    # The session and the tools as every other answer names them: masked where they look
    # like a secret (the page names a masked session by its ref).
    said["session"] = debugger.shown(session)
    unknown: dict[str, int] = {}
    for tool, count in said["unknown_tools"].items():
        unknown[debugger.shown(tool)] = unknown.get(debugger.shown(tool), 0) + count
    said["unknown_tools"] = unknown
    for finding in said["findings"]:
        finding["session"], finding["tool"] = said["session"], debugger.shown(finding["tool"])
    return said
