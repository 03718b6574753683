"""The capability of a recorded call: what its tool may do, and what its arguments name.

A call's effects come from the capability table (its tool's row: capabilities and which
arguments hold paths, commands, URLs, written text), or from the capabilities a
registered tool declares, or from an MCP tool's annotations; and from the plain effects of
each shell command it runs (`commands`). A tool none of those knows is ``known`` false,
with no capability: the audit cannot say what it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, final

from ..tools.capability import ToolCapability
from ..tools.capability_table import CapabilityTable, ToolEntry
from ..tools.shell_words import MAX_COMMAND, MAX_WORDS, command_text
from ..tools.tool import Tool
from .commands import command_effects

MAX_VALUES = 64
"""Commands, URLs or texts kept of one call, of each kind."""
MAX_PATHS = 4_096
"""Paths judged of one call (a read of many files names many)."""
MAX_TEXT = 1 << 20
"""Characters of one call's written text looked at."""

_PATCH_FILE = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Effects:
    """What a call may do (``capabilities``; ``known`` false for a tool nothing describes)
    and the paths it reads and writes, the commands it runs, the URLs it reaches and the
    text it writes, as its arguments name them."""

    known: bool
    capabilities: frozenset[ToolCapability] = frozenset()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    content: tuple[str, ...] = ()
    cut: tuple[str, ...] = ()
    """What of the call its effects were not read from, past a bound (a finding of its own:
    the call could not be audited whole)."""


def annotated(hints: Mapping[str, Any]) -> frozenset[ToolCapability]:
    """The capabilities an MCP tool's annotations state: ``readOnlyHint`` true reads, else
    it may write; ``openWorldHint`` (true unless said otherwise) reaches the network.

    >>> sorted(c.value for c in annotated({"readOnlyHint": True, "openWorldHint": False}))
    ['file_read']
    """
    found = {ToolCapability.FILE_READ}
    if hints.get("readOnlyHint") is not True:
        found.add(ToolCapability.FILE_WRITE)
    if hints.get("openWorldHint", True) is not False:
        found.add(ToolCapability.NETWORK_ACCESS)
    return frozenset(found)


def declared_by(
    tools: Iterable[Tool], annotations: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, frozenset[ToolCapability]]:
    """The capabilities each of ``tools`` declares, by name, widened by its MCP
    ``annotations`` (by name) where given: what `effects_of` takes as ``declared``."""
    hints = annotations or {}
    return {
        tool.name: tool.capabilities
        | (annotated(hints[tool.name]) if tool.name in hints else frozenset())
        for tool in tools
    }


def effects_of(
    table: CapabilityTable,
    format: str | None,
    tool_name: str,
    arguments: Mapping[str, Any],
    *,
    declared: frozenset[ToolCapability] | None = None,
) -> Effects:
    """The effects of one call of ``tool_name`` recorded in a ``format`` session; ``declared``:
    the capabilities its registered tool or annotations state (they win over the table)."""
    return effects_with(table.entry(format, tool_name), arguments, declared=declared)


def effects_with(
    entry: ToolEntry | None,
    arguments: Mapping[str, Any],
    *,
    declared: frozenset[ToolCapability] | None = None,
) -> Effects:
    """The effects of one call of the tool of the table's row ``entry`` (``None``: a tool
    the table does not know), as `effects_of`."""
    if entry is None:
        if declared is None:
            return Effects(known=False)
        entry = ToolEntry(capabilities=declared)
    capabilities = set(entry.capabilities_for(arguments, declared))
    kinds = entry.arguments
    cut: list[str] = []
    paths = _strings(arguments, kinds, "path", cut, most=MAX_PATHS)
    content = _strings(arguments, kinds, "content", cut, deep=True)
    patched, added = _patches(_strings(arguments, kinds, "patch", cut))
    writes = ToolCapability.FILE_WRITE in capabilities
    commands: tuple[str, ...] = ()
    if "command" in kinds:
        found = (command_text(arguments.get(name)) for name in kinds["command"])
        commands = tuple(command for command in found if command)[:MAX_VALUES]
    urls = list(_strings(arguments, kinds, "url", cut))
    written = [*patched] if writes or patched else []
    for command in commands:
        said = command_effects(command)
        if said.urls:
            capabilities.add(ToolCapability.NETWORK_ACCESS)
            urls.extend(said.urls)
        if said.removed or said.redirected:
            capabilities.add(ToolCapability.FILE_WRITE)
            written.extend((*said.removed, *said.redirected))
        if said.cut:
            cut.append(
                f"a command past {MAX_COMMAND:,} characters or {MAX_WORDS:,} words was read "
                "for what it removes, redirects to and fetches no further"
            )
    every_write = [*(paths if writes else ()), *written]
    if len(every_write) > MAX_PATHS:
        cut.append(f"past {MAX_PATHS:,} paths written, the rest were not judged")
    return Effects(
        known=True,
        capabilities=frozenset(capabilities),
        reads=() if writes else paths,
        writes=tuple(every_write[:MAX_PATHS]),
        commands=commands,
        urls=tuple(urls[:MAX_VALUES]),
        content=(*content, *added)[:MAX_VALUES],
        cut=tuple(dict.fromkeys(cut)),
    )


def _strings(
    arguments: Mapping[str, Any],
    kinds: Mapping[str, tuple[str, ...]],
    kind: str,
    cut: list[str],
    *,
    deep: bool = False,
    most: int = MAX_VALUES,
) -> tuple[str, ...]:
    """The strings the arguments the table names for ``kind`` hold (a string, or a list of
    them; ``deep``: any string inside), to ``most``; past it, or past `MAX_TEXT` characters
    of one, what was not read is said in ``cut``."""
    found: list[str] = []
    for name in kinds.get(kind, ()):
        value = arguments.get(name)
        if value is None:
            continue
        if isinstance(value, str):  # the common case, without the walk
            found.append(value)
        else:
            found.extend(_walk(value, deep=deep, most=most + 1))
        if len(found) > most:
            break
    if len(found) > most:
        cut.append(f"past {most:,} values of its {kind} arguments, the rest were not judged")
    if any(len(text) > MAX_TEXT for text in found):
        cut.append(f"past {MAX_TEXT:,} characters of one of its {kind} arguments, not read")
    return tuple(text[:MAX_TEXT] for text in found[:most])


def _walk(value: Any, *, deep: bool, most: int) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        return
    items: Any = None
    if isinstance(value, Sequence):
        items = value
    elif deep and isinstance(value, Mapping):
        items = [value[key] for key in sorted(value, key=str)]
    if items is not None:
        for n, item in enumerate(items):
            if n >= most:
                return
            if isinstance(item, str):
                yield item
            elif deep:
                yield from _walk(item, deep=False, most=most)


def _patches(texts: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The files an ``apply_patch`` text names, and its added lines."""
    files: list[str] = []
    added: list[str] = []
    for text in texts:
        for line in text[:MAX_TEXT].splitlines():
            if line.startswith("*** "):
                for prefix in _PATCH_FILE:
                    if line.startswith(prefix) and len(files) <= MAX_PATHS:
                        files.append(line[len(prefix) :].strip())
            elif line.startswith("+") and not line.startswith("+++"):
                added.append(line[1:])
    return files, ["\n".join(added)] if added else []
