"""Each session's invocations as compact columns, and the pictures the page asks for drawn from
them: counts, per-tool statistics and the calls in flight at any sequence, the timeline at any
zoom; the shelf that reads them once and keeps them in bounds.

Imports ``shell.replay`` (the repository the shelf reads) and the core; the server's debugger
and its API import it. It knows nothing of HTTP.
"""
