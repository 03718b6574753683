"""The audit's effects: the capability table and the built-in policy shipped as data, a
policy file read, a session streamed through the rules, evidence re-checked, SARIF
written.

Imports from `shell.transcripts` (a session's description), `shell.stores` and `core`;
imported by `shell.serve` (the live audit panel) and `shell.cli`.
"""
