"""A database store's layout: the one it was found in, and how it is brought to this release's.

The layout decides how much of the store is read as it is: an index of
`READABLE_LAYOUT` or later is answered from (each row checked by its own
layout's seal, `images.proof_for`); an older one keeps no index to answer from
until it is upgraded. Writing needs this release's layout: an older store is
upgraded in place, in one transaction, its index rebuilt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..port import Reindexed, StoreLayoutError
from .dialect import Database
from .layout import (
    ADDED_INDEXES,
    CATALOG_LAYOUT,
    READABLE_LAYOUT,
    adding_catalog_columns,
    catalog_whole,
)


class LaidOutStore:
    """What a database store knows of its layout (internal base of `SqlEventStore`).

    A subclass sets ``_database``, ``name``, ``_layout`` (the layout this release
    writes) and ``layout`` (the one found, this release's once created or upgraded),
    and gives its database's own DDL (`_create_tables`, `_upgrade_tables`).
    """

    _database: Database
    _layout: int
    _upgraded: Reindexed | None = None
    _catalog_whole: bool | None = None
    name: str

    @property
    def layout(self) -> int:
        """The store's layout: as found when opened read-only, else this release's."""
        return self._database.dialect.layout

    @layout.setter
    def layout(self, layout: int) -> None:
        # The dialect reads the index by that layout's seals.
        self._database.dialect.layout = layout

    @property
    def _indexed(self) -> bool:
        return self.layout >= READABLE_LAYOUT

    @property
    def outdated(self) -> bool:
        """Whether an older release wrote it: writing to it needs an upgrade first
        (``correx-tools reindex``), which rebuilds its index."""
        return self.layout < self._layout

    def _follow_layout(self, cursor: Any) -> None:
        """In a read snapshot of an outdated store: take its layout as this snapshot sees
        it. Another process may have upgraded it since it was opened (its rows are then
        sealed by the new layout's rule), and a reader open for hours reads them so."""
        if self.outdated:
            self.layout = self._layout_in(cursor) or self.layout
            self._note_catalog(cursor)

    def _note_catalog(self, cursor: Any) -> None:
        """Whether the catalog has every column read, noted where the layout is found (a
        question asked later may be asked inside a read snapshot, which cannot open one)."""
        if self.layout >= CATALOG_LAYOUT:
            self._catalog_whole = catalog_whole(cursor, self._database.dialect)

    def _layout_in(self, cursor: Any) -> int | None:
        """The database's layout as ``cursor``'s snapshot sees it, if it holds a store (each
        store gives its own: where a database keeps the number differs)."""
        raise NotImplementedError

    def _interval(self, cursor: Any, given: int) -> int:
        """The checkpoint interval to index by: the store's own where its index is read (its
        layout keeps one), else ``given``."""
        return self._stored_interval(cursor) if self._indexed else given

    def _stored_interval(self, cursor: Any) -> int:
        """The checkpoint interval the store was made with (layout 2 on)."""
        d = self._database.dialect
        query = d.sql("SELECT value FROM {settings} WHERE name = 'checkpoint_interval'")
        return int(cursor.execute(query).fetchone()[0])

    def _bring_to_layout(
        self,
        cursor: Any,
        layout: int,
        *,
        allowed: bool,
        interval: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        """In the caller's write transaction: a new database's tables made, an older layout's
        upgraded and its index rebuilt (unless ``allowed``: a `StoreLayoutError`); a store
        of the layout just before this release's gains its catalog whether or not."""
        # Filling and rebuilding are imported where a layout needs them: a store opened at
        # this release's layout (every open but the first) never loads them.
        if layout == 0:
            self._create_tables(cursor, interval)
        elif CATALOG_LAYOUT - 1 <= layout < self._layout:
            # Only the catalog and the words are new: they are filled, the index kept.
            self._upgrade_tables(cursor, interval, since=layout)
            from .rebuilding import fill_catalogs  # noqa: PLC0415

            fill_catalogs(self._database.dialect, cursor, self._stored_interval(cursor))
        elif layout < self._layout:
            if not allowed:
                raise StoreLayoutError(
                    f"{self._what} was written by an older release (layout {layout}); "
                    f"upgrade it in place with: correx-tools reindex {self.name}"
                )
            self._upgrade_tables(cursor, interval, since=layout)
            interval = self._stored_interval(cursor)  # a store made with another keeps it
            from .rebuilding import rebuild_all  # noqa: PLC0415

            self._upgraded = rebuild_all(self._database.dialect, cursor, interval, progress)
        elif not self._current(cursor, layout):  # only indexes added since: no rebuild
            d = self._database.dialect
            for statement in ADDED_INDEXES.values():
                cursor.execute(d.sql(statement))
            if not catalog_whole(cursor, d):  # a catalog from before its last column
                for statement in adding_catalog_columns():
                    cursor.execute(d.sql(statement))
                from .rebuilding import fill_catalogs  # noqa: PLC0415

                fill_catalogs(d, cursor, self._stored_interval(cursor))

    def _current(self, cursor: Any, layout: int) -> bool:
        """Whether a store of ``layout`` has all this release writes (its tables and indexes)."""
        d = self._database.dialect
        return (
            layout >= self._layout
            and all(d.has_index(cursor, name) for name in ADDED_INDEXES)
            and catalog_whole(cursor, d)
        )

    def _create_tables(self, cursor: Any, interval: int) -> None:
        """The database's own DDL for the current layout (each store gives its own)."""
        raise NotImplementedError

    def _upgrade_tables(self, cursor: Any, interval: int, *, since: int) -> None:
        """The database's own DDL from layout ``since`` to the current one (``interval``
        recorded where the layout kept none)."""
        raise NotImplementedError

    @property
    def _what(self) -> str:
        """The store as an error names it (its file, or its database and schema)."""
        return self.name

    @property
    def upgraded(self) -> Reindexed | None:
        """What upgrading the store in place did, when it was opened with ``upgrade=True``
        and needed it (``None`` otherwise): a session whose events stopped its rebuild
        keeps no index, and is answered by folding."""
        return self._upgraded

    @property
    def needs_upgrade(self) -> bool:
        """Whether the store was written by an older release and keeps no index to answer
        from until it is upgraded (``correx-tools reindex``)."""
        return not self._indexed
