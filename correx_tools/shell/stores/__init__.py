"""Event stores: the port and its errors, the envelope codec, memory, SQLite, PostgreSQL, JSONL.

Imports only the core; ``shell.replay`` and ``shell.cli`` import it.
"""
