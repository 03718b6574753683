"""A session written out as one self-contained HTML page (``correx-tools report``).

Imports ``shell.replay`` (to ask a store about a session) and ``core``; the command imports it.
"""
