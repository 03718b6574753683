"""Importing transcripts into a store: a file, bytes already read, or a folder of files.

`importing` reads a transcript (`recognising`), turns it into the lifecycle's
events (`events`: a value too large cut to fit, `cutting`; each call's tier and
capabilities, `tiers`) and writes them as a session, adding only what is new when
the file grew; `folders` imports every transcript under a folder. Imports
`recognising`, `common`, `model`, `errors`, the stores and the core; the cache and
the command import it.
"""
