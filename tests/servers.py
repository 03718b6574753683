"""PostgreSQL servers of a test's own (the ``own_server`` fixture): started, crashed and
started again by the script CI uses (``.ci/postgres-server``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SERVER_SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "postgres-server"


def server(action: str, directory: str) -> None:
    """``crash``, ``restart`` or ``stop`` the server started in ``directory``."""
    subprocess.run(["bash", str(SERVER_SCRIPT), action, directory], check=True)
