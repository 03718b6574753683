"""The live debugger's server: the page, its JSON API, who may ask, and the columns it answers
pictures from.

Imports ``shell.audit``, ``shell.transcripts``, ``shell.replay``, ``shell.stores`` and the core;
only the ``serve`` command imports it.
"""
