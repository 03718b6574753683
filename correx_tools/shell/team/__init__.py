"""A team's store: every machine's sessions pushed to one PostgreSQL (`push`), and kept
pushing as agents write (`follow`).

Imports the stores and the core; the command imports it.
"""
