"""A policy file (TOML) read into a `Policy`, and the built-in one.

A bad file is one `PolicyFileError` line naming the file, the key and the line:
tomllib's own line for text that is not TOML, else the line the key is written on.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from collections.abc import Mapping
from typing import Any

from ...core.audit.policy import CompiledPolicy, DeniedCommand, Policy, PolicyError, compiled
from ...core.tools.capability import ToolCapability
from ...core.tools.capability_table import TableError, capability_named
from ..option_files import OptionFileError, nested_too_deeply, read_option_file

DEFAULT_POLICY = "default_policy.toml"
_KEYS: dict[str, frozenset[str]] = {
    "": frozenset({"workspace", "capabilities", "paths", "commands", "secrets", "flows"}),
    "capabilities": frozenset({"allowed"}),
    "paths": frozenset(
        {"deny", "untrusted", "writes_outside_workspace", "reads_outside_workspace_untrusted"}
    ),
    "commands": frozenset({"deny"}),
    "secrets": frozenset({"check", "patterns"}),
    "flows": frozenset({"min_chars"}),
}


class PolicyFileError(Exception):
    """A policy file that cannot be used, said in one line."""


def default_policy_text() -> str:
    """The built-in policy, as the package ships it (``--print-policy``)."""
    return importlib.resources.files(__package__).joinpath(DEFAULT_POLICY).read_text("utf-8")


def read_policy(path: str | None) -> CompiledPolicy:
    """The policy in the file at ``path`` (``None``: the built-in one), checked and compiled."""
    name = "the built-in policy" if path is None else path
    if path is None:
        text = default_policy_text()
    else:
        try:
            text = read_option_file(path).decode("utf-8")
        except OptionFileError as error:
            raise PolicyFileError(str(error)) from None
        except UnicodeDecodeError as error:
            raise PolicyFileError(f"{name}: cannot be read: not UTF-8 ({error.reason})") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PolicyFileError(f"{name}: not TOML: {error}") from None
    except RecursionError:
        raise PolicyFileError(nested_too_deeply(name)) from None
    try:
        return compiled(policy_from_document(document))
    except (PolicyError, TableError) as error:
        line = _line_of(text, error.key)
        where = f" (line {line})" if line is not None else ""
        raise PolicyFileError(f"{name}: {error}{where}") from None


def policy_from_document(document: Mapping[str, Any]) -> Policy:
    """The `Policy` a parsed policy document states; a `PolicyError` naming the key."""
    _known(document, "")
    tables = {key: _table(document, key) for key in _KEYS if key}
    workspace = document.get("workspace")
    if workspace is not None and (not isinstance(workspace, str) or not workspace.startswith("/")):
        raise PolicyError("workspace", "must be an absolute path")
    allowed = tables["capabilities"].get("allowed", [c.value for c in ToolCapability])
    paths, secrets, flows = tables["paths"], tables["secrets"], tables["flows"]
    min_chars = flows.get("min_chars", 16)
    if type(min_chars) is not int:
        raise PolicyError("flows.min_chars", "must be an integer")
    return Policy(
        workspace=workspace,
        allowed=frozenset(
            capability_named(n, "capabilities.allowed")
            for n in _texts(allowed, "capabilities.allowed")
        ),
        denied_paths=_texts(paths.get("deny", []), "paths.deny"),
        untrusted_paths=_texts(paths.get("untrusted", []), "paths.untrusted"),
        writes_outside_workspace=_flag(paths, "writes_outside_workspace", "paths"),
        reads_outside_workspace_untrusted=_flag(
            paths, "reads_outside_workspace_untrusted", "paths"
        ),
        denied_commands=_denied(tables["commands"].get("deny", [])),
        secrets=_flag(secrets, "check", "secrets"),
        secret_patterns=_texts(secrets.get("patterns", []), "secrets.patterns"),
        flow_min_chars=min_chars,
    )


def _known(table: Mapping[str, Any], where: str) -> None:
    unknown = sorted(set(table) - _KEYS[where])
    if unknown:
        key = f"{where}.{unknown[0]}" if where else unknown[0]
        raise PolicyError(key, "is not a policy key")


def _table(document: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    found = document.get(key, {})
    if not isinstance(found, Mapping):
        raise PolicyError(key, "must be a table")
    _known(found, key)
    return found


def _texts(value: object, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PolicyError(key, "must be a list of strings")
    return tuple(value)


def _flag(table: Mapping[str, Any], key: str, where: str) -> bool:
    value = table.get(key, True)
    if type(value) is not bool:
        raise PolicyError(f"{where}.{key}", "must be true or false")
    return value


def _denied(found: object) -> tuple[DeniedCommand, ...]:
    if not isinstance(found, list):
        raise PolicyError("commands.deny", "must be an array of tables ([[commands.deny]])")
    denied = []
    for n, item in enumerate(found):
        if (
            not isinstance(item, Mapping)
            or set(item) - {"name", "pattern"}
            or not isinstance(item.get("pattern"), str)
        ):
            raise PolicyError(f"commands.deny[{n}]", "must have a string pattern (and a name)")
        name = item.get("name", item["pattern"])
        denied.append(DeniedCommand(name=str(name), pattern=item["pattern"]))
    return tuple(denied)


def _line_of(text: str, key: str) -> int | None:
    """The line ``key``'s last part is written on (or its table's header), if found."""
    last = (
        key.split(":", maxsplit=1)[0].rsplit(".", maxsplit=1)[-1].split("[", maxsplit=1)[0].strip()
    )
    if not last:
        return None
    header = key.split(".", maxsplit=1)[0].split("[", maxsplit=1)[0]
    fallback = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith((f"{last} ", f"{last}=")):
            return number
        if fallback is None and stripped.strip("[]") == header:
            fallback = number
    return fallback
