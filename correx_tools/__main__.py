"""``python -m correx_tools``: the ``correx-tools`` command."""

import sys

from .shell.cli.main import main

if __name__ == "__main__":  # run as a program, not when a tool imports every module
    sys.exit(main())
