"""The JSON API under ``/api/v1``: one module per path, each a function from the debugger and
the request's parameters to the answer's document (``app`` routes a path to it).

Most answers are the command's ``--json`` documents, paged: ``sessions`` and ``usage``
(picked by the commands' filters, read by ``picking``), ``state``, ``history``, ``diff``,
``stats``, ``compare``, ``audit``. The others are what only the page
asks: ``scrub``, ``seek``, ``timeline``, ``refused``, ``search``, ``said``, ``turns``,
``view``, ``family``, ``stream``, ``everywhere`` (search and said across every session, read
through) and ``hits`` (a search of every session through the store's full-text index).
``params`` reads a request's parameters; ``calls`` names a call as every answer does.

Imports ``shell.serve.debugger``, ``shell.serve.columns``, ``shell.serve.errors``, the shell's
rooms below the server and the core; only ``shell.serve.app`` imports it. It knows nothing of
the guard: who may ask is settled before a question reaches it.
"""
