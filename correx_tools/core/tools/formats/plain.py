"""Definitions without hints: OpenAI's and Anthropic's, and this library's own form.

OpenAI and Anthropic definitions carry a name, a description and a schema;
the caller's tier and capabilities apply. This library's own form
(``parameters`` with ``tier`` and ``capabilities`` by value) carries its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from returns.result import Failure, Result, Success

from ..capability import ToolCapability
from ..tier import Tier
from ._reader import PORTABLE_NAME_RULE, TOOL_NAME, FormatError, Reader, ToolFields, under


def read_plain(
    format_name: str,
    definition: object,
    schema_key: str,
    *,
    tier: Tier,
    capabilities: Iterable[ToolCapability],
    path: str,
) -> Result[ToolFields, FormatError]:
    """An OpenAI or Anthropic definition: name, description and a schema; no hints."""
    reader = Reader(format_name, definition)
    if not isinstance(definition, Mapping):
        return reader.fail(path, "a tool definition must be an object")
    fields = _named(reader, schema_key, tier, capabilities)
    if reader.error is not None:
        return Failure(under(reader.error, path))
    return Success(fields)


def read_own(
    definition: Mapping[str, Any], tier: Tier, capabilities: Iterable[ToolCapability]
) -> Result[ToolFields, FormatError]:
    """This library's definition: ``parameters``, ``tier`` and ``capabilities`` by value."""
    reader = Reader("definition", definition)
    fields = _named(reader, "parameters", tier, capabilities)
    if reader.error is not None:
        return Failure(reader.error)
    raw_tier = definition.get("tier", tier.value)
    try:
        own_tier = Tier(raw_tier)
    except ValueError:
        known = ", ".join(t.value for t in Tier)
        return reader.fail("$.tier", f"{str(raw_tier)[:40]!r} is not a tier ({known})")
    raw = definition.get("capabilities", [c.value for c in capabilities])
    if not isinstance(raw, list):
        return reader.fail("$.capabilities", "capabilities must be a list")
    own: set[ToolCapability] = set()
    for index, value in enumerate(raw):
        try:
            own.add(ToolCapability(value))
        except ValueError:
            known = ", ".join(c.value for c in ToolCapability)
            return reader.fail(
                f"$.capabilities[{index}]", f"{str(value)[:40]!r} is not a capability ({known})"
            )
    return Success(fields._replace(tier=own_tier, capabilities=frozenset(own)))


def _named(
    reader: Reader, schema_key: str, tier: Tier, capabilities: Iterable[ToolCapability]
) -> ToolFields:
    """What every definition here names alike (name, description, a schema under
    ``schema_key``), with ``tier`` and ``capabilities``; a problem is kept in ``reader``."""
    return ToolFields(
        name=reader.name("name", TOOL_NAME, PORTABLE_NAME_RULE),
        description=reader.text("description") or "",
        parameters=reader.schema(schema_key, required=False) or {},
        tier=tier,
        capabilities=frozenset(capabilities),
    )
