"""``python -m correx_tools``: the ``correx-tools`` command."""

import sys

from .shell.cli.main import main

sys.exit(main())
