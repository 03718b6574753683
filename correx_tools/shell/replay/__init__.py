"""Replaying from stores: the replayer and repository, parallel replay, following a session.

Imports ``shell.stores`` and the core; ``shell.cli`` imports it.
"""
