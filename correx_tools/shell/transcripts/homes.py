"""Where each agent keeps its sessions on this machine: the folders ``serve`` opens when it is
given no SOURCE.

Each agent writes its transcripts under a folder of its own (the table in the
transcripts page of the documentation); `agent_folders` lists the ones that
exist, each with the agent's name. Paths follow the agents' own defaults and
the variables that move them (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
``GEMINI_CLI_HOME``, ``XDG_DATA_HOME``, ``XDG_CONFIG_HOME``). OpenCode keeps
no transcript a reader takes (its ``export`` does) and Aider writes one per
repository, so neither has a folder here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import final

_VS_CODE_EXTENSIONS = (
    ("Cline", "saoudrizwan.claude-dev"),
    ("Roo Code", "rooveterinaryinc.roo-cline"),
)


@final
@dataclass(frozen=True, slots=True)
class AgentFolder:
    """An agent's folder of transcripts: the agent, and the folder."""

    agent: str
    path: Path


def candidate_folders(
    home: Path | None = None, environ: Mapping[str, str] | None = None
) -> list[AgentFolder]:
    """Every folder an agent may keep its sessions in, whether it exists or not."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    data = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    claude = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    found = [
        AgentFolder("Claude Code", claude / "projects"),
        AgentFolder("Codex CLI", Path(env.get("CODEX_HOME") or home / ".codex") / "sessions"),
        AgentFolder("Gemini CLI", Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini" / "tmp"),
        AgentFolder("Cline", home / ".cline" / "data" / "tasks"),
        AgentFolder("Goose", data / "goose" / "sessions"),
    ]
    for editor in _editor_storage(home, config, env):
        found += [
            AgentFolder(agent, editor / extension / "tasks")
            for agent, extension in _VS_CODE_EXTENSIONS
        ]
    return found


def _editor_storage(home: Path, config: Path, env: Mapping[str, str]) -> list[Path]:
    """VS Code's (and its forks') global storage folders, where Cline and Roo Code write."""
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = config
    return [base / editor / "User" / "globalStorage" for editor in ("Code", "Code - Insiders")]


def agent_folders(
    home: Path | None = None, environ: Mapping[str, str] | None = None
) -> list[AgentFolder]:
    """The agents' folders that exist on this machine, in the order of `candidate_folders`."""
    return [folder for folder in candidate_folders(home, environ) if folder.path.is_dir()]
