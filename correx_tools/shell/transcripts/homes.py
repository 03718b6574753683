"""Where each agent keeps its sessions on this machine: the folders ``serve`` opens when it is
given no SOURCE.

Each agent writes its transcripts under a folder of its own (the table in the
transcripts page of the documentation); its format's record says where
(`AgentFormat.homes`, from the home folder, ``XDG_DATA_HOME``,
``XDG_CONFIG_HOME`` and the variables the agent itself reads), and where its
editor extension keeps them (`AgentFormat.extension_homes`, in VS Code's and
its forks' storage). `agent_folders` lists the ones that exist, each with the
agent's name. A format written per repository, or only by an export, has no
folder here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import final

from .agent_format import Places
from .agents import REGISTRY

_OWN = sorted((home for found in REGISTRY for home in found.homes), key=lambda home: home.rank)
_IN_EDITORS = sorted(
    (home for found in REGISTRY for home in found.extension_homes), key=lambda home: home.rank
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
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    places = Places(
        home=home,
        environ=env,
        data=Path(env.get("XDG_DATA_HOME") or home / ".local" / "share"),
        config=config,
        editors=tuple(_editor_storage(home, config, env)),
    )
    found = [AgentFolder(own.agent, own.folder(places)) for own in _OWN]
    for editor in places.editors:
        found += [
            AgentFolder(extension.agent, extension.folder(editor)) for extension in _IN_EDITORS
        ]
    return found


def _editor_storage(home: Path, config: Path, env: Mapping[str, str]) -> list[Path]:
    """VS Code's (and its forks') global storage folders, where extensions write."""
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
