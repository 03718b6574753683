"""What a report of a session shows, decided without I/O: redaction, the refs that name what it
masks, and the page's data.

Imports ``core.replay``, ``core.lifecycle`` and ``core.tools``; the shell writes the page.
The masking's rules are this package's own data (``rules/``), read like its source.
"""
