"""The live debugger's server (``correx-tools serve``), in rooms that import only downwards:

* ``app`` (the routes: the page, its files, a path to its API module) and ``server`` (bind,
  run uvicorn over the watched protocol of ``limits``, its troubles said once by
  ``troubles``, stop on a signal) on top;
* ``api``: the JSON API, one module per path;
* ``debugger``: the store opened read-only and what is kept to answer about it;
* ``guard``: who may ask (the Host check, the token, codes and credentials), which knows
  nothing of the API it guards;
* ``columns``: each session's calls as flat arrays, and the pictures drawn from them;
* ``errors``: the one error a question ends in.

``tests/test_architecture.py`` holds each room to its line. The package imports
``shell.catalog``, ``shell.audit``, ``shell.transcripts``, ``shell.replay``, ``shell.stores``
and the core; only the ``serve`` command imports it (and only when it runs: starlette and
uvicorn are optional).
"""
