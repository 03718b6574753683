"""How an answer about the columns names a call: its ref (the name the page asks for it by), its
id and its tool, as the page may show them.
"""

from __future__ import annotations

from typing import Any

from ..columns.columns import SessionColumns
from ..debugger.debugger import Debugger


def named_call(debugger: Debugger, columns: SessionColumns, position: int) -> dict[str, Any]:
    """The call at ``position``: ``ref``, ``invocation_id`` and ``tool_name``."""
    invocation = columns.invocation_id(position)
    return {
        "ref": debugger.ref(invocation),
        "invocation_id": debugger.shown(invocation),
        "tool_name": debugger.shown(columns.tools[columns.tool[position]]),
    }
