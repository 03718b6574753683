"""Many sessions of a store at once: listed, and their activity read for usage reports.

A store that keeps the catalog at write time answers from it (`CatalogStore`); any other
is answered by folding each session's events (`folded`), the same rules either way;
a search likewise, from the store's full-text index (`SearchableStore`) or by reading
the events (`scanned`). `catalog_of` and `searchable_of` pick. The
commands and the server import it; it imports the stores, the replay and the core.

What both print of it is built here once: a session's row and a usage row (`rows`), and
the dates and zones a person picks sessions by (`when`).
"""
