"""The tool → capability table: what each agent's tools may do, and which arguments hold
the paths, commands, URLs and written text they touch.

One table, read by both who need it: an import gives each call the capabilities
(and from them the tier) its row says (`shell.transcripts.importing.policy`), and
the audit holds each call's effects to its row (`core.audit.effects`). The table
is data shipped inside the package (``capabilities.toml``, beside this module):
reading the package's own data is no I/O of the world, read once, when it is first
asked for, as a module's source is (`builtin_table`). A tool is looked up by its
lower-cased name, in the format's own section first, then in the shared one;
Goose's ``extension__tool`` names are looked up by the tool's part.
"""

from __future__ import annotations

import functools
import importlib.resources
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, final

from .capability import ToolCapability
from .tier import Tier

TABLE = "capabilities.toml"
"""The package's table, beside this module."""
ARGUMENT_KINDS = ("path", "command", "url", "content", "patch")
"""The kinds of argument an entry names: a path, a shell command, a URL, the text a write
puts in a file, an ``apply_patch`` text (its paths and added lines)."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEntry:
    """One tool's row: its capabilities, the argument names of each kind, and the
    ``(argument, value)`` pairs with which a reading-and-writing tool only reads."""

    capabilities: frozenset[ToolCapability]
    arguments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    read_only_when: tuple[tuple[str, str], ...] = ()

    def names(self, kind: str) -> tuple[str, ...]:
        """The argument names that hold a value of ``kind`` (one of `ARGUMENT_KINDS`)."""
        return self.arguments.get(kind, ())

    def capabilities_for(
        self, arguments: Mapping[str, Any], declared: frozenset[ToolCapability] | None = None
    ) -> frozenset[ToolCapability]:
        """What one call with ``arguments`` may do: the row's capabilities (or those the
        tool ``declared``), or only reading where its arguments say so
        (``read_only_when``: a reading-and-writing tool asked to view)."""
        if self.read_only_when and all(arguments.get(k) == v for k, v in self.read_only_when):
            return _READ_ONLY
        return self.capabilities if declared is None else declared


_READ_ONLY = frozenset({ToolCapability.FILE_READ})
_ELEVATED = frozenset(
    {ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN, ToolCapability.NETWORK_ACCESS}
)


def tier_of(capabilities: frozenset[ToolCapability]) -> Tier:
    """The approval a call that may do this needs: elevated for a shell, another process or
    the network; confirm for a write; none (auto) for a read, or for nothing outside the
    agent (a plan, a question, a thought).

    >>> tier_of(frozenset({ToolCapability.FILE_READ, ToolCapability.FILE_WRITE}))
    <Tier.CONFIRM: 'confirm'>
    """
    if capabilities & _ELEVATED:
        return Tier.ELEVATED
    if ToolCapability.FILE_WRITE in capabilities:
        return Tier.CONFIRM
    return Tier.AUTO


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CapabilityTable:
    """Every tool known, by lower-cased name: shared, and each format's own."""

    tools: Mapping[str, ToolEntry]
    formats: Mapping[str, Mapping[str, ToolEntry]] = field(default_factory=dict)

    def entry(self, format: str | None, tool_name: str) -> ToolEntry | None:
        """The row of ``tool_name`` as ``format`` names it (``None``: a tool not known)."""
        name = tool_name.lower()
        for key in (name, name.rpartition("__")[2]):
            own = self.formats.get(format or "", {}).get(key)
            if own is not None:
                return own
            shared = self.tools.get(key)
            if shared is not None:
                return shared
        return None


class TableError(ValueError):
    """A capability table that does not read: ``key`` names where."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


def table_from_document(document: Mapping[str, Any]) -> CapabilityTable:
    """The table a parsed document holds: ``[tools.NAME]`` rows, and ``[formats.FORMAT.NAME]``
    rows for one format; a `TableError` naming the first key that is wrong."""
    tools = _rows(document.get("tools", {}), "tools")
    formats_found = document.get("formats", {})
    if not isinstance(formats_found, Mapping):
        raise TableError("formats", "must be a table of formats")
    formats = {str(name): _rows(rows, f"formats.{name}") for name, rows in formats_found.items()}
    return CapabilityTable(tools=tools, formats=formats)


def _rows(found: object, where: str) -> dict[str, ToolEntry]:
    if not isinstance(found, Mapping):
        raise TableError(where, "must be a table of tools")
    return {str(name).lower(): _row(row, f"{where}.{name}") for name, row in found.items()}


def _row(found: object, where: str) -> ToolEntry:
    if not isinstance(found, Mapping):
        raise TableError(where, "must be a table")
    unknown = set(found) - {"capabilities", "read_only_when", *ARGUMENT_KINDS}
    if unknown:
        raise TableError(f"{where}.{sorted(unknown)[0]}", "is not a key a tool's row has")
    capabilities = frozenset(
        capability_named(name, f"{where}.capabilities")
        for name in _texts(found, "capabilities", where)
    )
    arguments = {kind: _texts(found, kind, where) for kind in ARGUMENT_KINDS if kind in found}
    when = found.get("read_only_when", {})
    if not isinstance(when, Mapping) or not all(isinstance(v, str) for v in when.values()):
        raise TableError(f"{where}.read_only_when", "must map argument names to strings")
    return ToolEntry(
        capabilities=capabilities,
        arguments=arguments,
        read_only_when=tuple((str(k), v) for k, v in when.items()),
    )


def _texts(found: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = found.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TableError(f"{where}.{key}", "must be a list of strings")
    return tuple(value)


def capability_named(name: object, where: str) -> ToolCapability:
    """The capability called ``name`` (``file_read``, ...); a `TableError` at ``where``."""
    for capability in ToolCapability:
        if name == capability.value:
            return capability
    known = ", ".join(c.value for c in ToolCapability)
    raise TableError(where, f"{name!r} is not a capability (known: {known})")


@functools.cache
def builtin_table() -> CapabilityTable:
    """The table the package ships (read once)."""
    text = importlib.resources.files(__package__).joinpath(TABLE).read_text("utf-8")
    try:
        return table_from_document(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, TableError) as error:  # the package's own file
        raise AssertionError(f"{TABLE}: {error}") from None
