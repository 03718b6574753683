"""What a tool may do to the world outside the agent."""

import enum
from typing import final


@final
class ToolCapability(enum.Enum):
    """One kind of effect a tool needs permission for."""

    FILE_READ = "file_read"
    FILE_WRITE = "file_write"
    NETWORK_ACCESS = "network_access"
    SHELL_EXEC = "shell_exec"
    PROCESS_SPAWN = "process_spawn"
