"""The imperative shell: event stores, replaying from them, the workspace, the command.

Imports the core; the core never imports it.
"""
