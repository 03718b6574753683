"""The ``correx-tools`` command: one module per command group, the shared rendering, the demo.

Imports the rest of the shell and the core; nothing but the entry points imports it.
"""
