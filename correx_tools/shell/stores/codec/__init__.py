"""The one format every store writes: strict JSON, the versioned envelope, the write rule
(an event is stored only if it reads back as itself), database rows and JSONL lines.

Imports only the core; every store imports it.
"""
