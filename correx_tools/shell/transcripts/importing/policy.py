"""Which tier and capabilities an imported call gets: no transcript format records them.

A policy is a function of the tool's name and the call's arguments. The default
knows the tools of the formats this package reads: read-only tools are ``AUTO``,
file writes ``CONFIRM``, shell and network tools ``ELEVATED``, and any tool it
does not know ``CONFIRM`` (a guess on the careful side).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, final

from ....core.tools.capability import ToolCapability
from ....core.tools.tier import Tier


@final
@dataclass(frozen=True, slots=True)
class Assignment:
    """The tier of a call and what its tool can do."""

    tier: Tier
    capabilities: frozenset[ToolCapability] = frozenset()


Policy = Callable[[str, Mapping[str, Any]], Assignment]
"""``policy(tool_name, arguments)``: the tier and capabilities of one imported call."""

_READ = Assignment(Tier.AUTO, frozenset({ToolCapability.FILE_READ}))
_NOTHING = Assignment(Tier.AUTO)
_WRITE = Assignment(Tier.CONFIRM, frozenset({ToolCapability.FILE_READ, ToolCapability.FILE_WRITE}))
_SHELL = Assignment(
    Tier.ELEVATED, frozenset({ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN})
)
_NETWORK = Assignment(Tier.ELEVATED, frozenset({ToolCapability.NETWORK_ACCESS}))
_UNKNOWN = Assignment(Tier.CONFIRM)

# Lower-cased tool names: those of the agents whose transcripts this package reads, and
# common ones.
_BY_NAME: dict[str, Assignment] = {
    **dict.fromkeys(
        [
            "read",
            "glob",
            "grep",
            "ls",
            "view",
            "open",
            "goto",
            "scroll_up",
            "scroll_down",
            "search_file",
            "search_dir",
            "find_file",
            "read_file",
            "list_files",
            "search_code",
            "notebookread",
            "cat",
            "list",
            "list_directory",
            "search_file_content",
            "read_many_files",
            "search_files",
            "list_code_definition_names",
            "search",
            "codebase_search",
        ],
        _READ,
    ),
    **dict.fromkeys(
        [
            "write",
            "edit",
            "multiedit",
            "notebookedit",
            "create",
            "write_file",
            "edit_file",
            "apply_patch",
            "insert",
            "patch",
            "replace",
            "write_to_file",
            "replace_in_file",
            "apply_diff",
            "insert_content",
            "search_and_replace",
        ],
        _WRITE,
    ),
    **dict.fromkeys(
        [
            "bash",
            "execute_bash",
            "shell",
            "run_shell",
            "run",
            "exec",
            "execute_ipython_cell",
            "killshell",
            "bashoutput",
            "python",
            "python3",
            "pytest",
            "pip",
            "git",
            "make",
            "shell_command",
            "local_shell",
            "exec_command",
            "run_shell_command",
            "execute_command",
            "run_command",
        ],
        _SHELL,
    ),
    **dict.fromkeys(
        [
            "webfetch",
            "websearch",
            "fetch",
            "browser",
            "web_read",
            "browse",
            "curl",
            "wget",
            "web_fetch",
            "google_web_search",
            "browser_action",
        ],
        _NETWORK,
    ),
    **dict.fromkeys(
        [
            "think",
            "finish",
            "submit",
            "todowrite",
            "todoread",
            "exitplanmode",
            "task",
            "attempt_completion",
            "ask_followup_question",
            "plan_mode_respond",
            "update_plan",
        ],
        _NOTHING,
    ),
}


def default_policy(tool_name: str, arguments: Mapping[str, Any]) -> Assignment:
    """The default tier and capabilities of a call (see the module docstring).

    >>> default_policy("Read", {"file_path": "a.py"}).tier
    <Tier.AUTO: 'auto'>
    >>> default_policy("str_replace_editor", {"command": "create", "path": "a.py"}).tier
    <Tier.CONFIRM: 'confirm'>
    >>> default_policy("deploy_to_prod", {}).tier
    <Tier.CONFIRM: 'confirm'>
    >>> default_policy("developer__shell", {"command": "ls"}).tier
    <Tier.ELEVATED: 'elevated'>
    """
    # Goose names a tool after its extension: ``developer__shell`` is a shell.
    name = tool_name.lower().rpartition("__")[2]
    if name in {"str_replace_editor", "file_editor", "text_editor"}:
        # One tool that views and edits: the command says which.
        return _READ if arguments.get("command") == "view" else _WRITE
    return _BY_NAME.get(name, _UNKNOWN)
