"""The audit's effects: the built-in policy shipped as data, a policy file read, a session
streamed through the rules (holding calls to `core.tools.capability_table`), evidence
re-checked, SARIF written.

Imports from `shell.stores` and `core`; imported by `shell.serve` (the live audit panel)
and `shell.cli`.
"""
