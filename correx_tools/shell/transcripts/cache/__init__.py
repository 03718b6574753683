"""Transcripts read as a store: a cache kept in step with the files agents write.

`cache` imports the files under a folder into a SQLite store of its own, reading
again only what changed since its last look; `manifest` is its table of the files
it read (a ``stat``'s worth of each, and the file read beside one); `passing` is
one look (what it did: `look`), which reads a changed file with `reading`, and
many new ones with worker processes (`filling`), both imported only by a look
that reads a file; `following` looks again and again, on a thread, for ``serve``.
Imports `importing`, `recognising`, `agents`, the stores and the core; the command
imports it.
"""
