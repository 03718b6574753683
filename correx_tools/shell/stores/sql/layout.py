"""The time-travel index's tables and columns, written once for every database.

Layout 1 (release 0.2.0) kept the events and the invocation ids only; layout
2 added the index: typed and derived columns on the events and the
invocations, the sessions' heads, the checkpoints and the store's settings;
layout 3 seals every invocation row and head, and its events' chains cover
their derived columns too, so an index of layout 2 is rebuilt on upgrade.
Layout 4 seals an invocation row over its events' chain values
and the CRC-32s of their JSON, which the row keeps in columns of its own,
where layout 3 sealed it over the JSON itself (`images`): a row is checked
without reading a payload. Layout 3's tables are otherwise the same, so a
layout-3 index is still read (and verified) as it is, each row by its own
layout's seal; it is rebuilt, sealed anew, when the store is upgraded for
writing. Layout 5 (this release) adds the catalog (`CATALOG_TABLES`: each session's
facts, models, tokens by model and activity by quarter hour, kept at write time) and the
full-text index of what agents did (each database's own: FTS5 in SQLite, a ``tsvector``
in PostgreSQL); a layout-4 store gains them, filled from its events, the next time it is
opened for writing, its index kept as it is. Stores also
keep partial indexes that change no row and no chain (`ADDED_INDEXES`: the
conversation's events, the calls that exited non-zero), so a store made before
one gains it the next time it is opened for writing, and until then a question
that would use it reads the rows it would have found. A database's
own layout module (`sqlite.layout`, `postgres.layout`) keeps the events' and
invocations' tables, its triggers and how it records its layout; what the
index adds is here, in the engine's spelling (`dialect`: braced table names and
column types).
"""

from __future__ import annotations

from ....core.lifecycle.conversation import CONVERSATION_TYPES

LAYOUT = 5
"""The layout this release writes."""

CATALOG_LAYOUT = 5
"""The first layout that keeps the catalog and the full-text index."""

READABLE_LAYOUT = 3
"""The oldest layout whose index this release reads as it is (an older one is answered by
folding until it is upgraded)."""

INDEX_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "events": (
        ("kind", "small"),
        ("invocation_id", "id"),
        ("label", "id"),
        ("code", "big"),
        ("effect", "small"),
        ("chain", "big"),
    ),
    "invocations": (
        ("status", "small"),
        ("requested_at", "time"),
        ("started_seq", "big"),
        ("ended_seq", "big"),
        ("tool_name", "id"),
        ("tier", "small"),
        ("started_at", "time"),
        ("completed_at", "time"),
        ("end_label", "id"),
        ("end_code", "big"),
    ),
}
"""What layout 2 adds to layout 1's tables: every column derived (NULL until indexed), by
table, with its type (``small``, ``big``, ``id`` for ids and labels, ``time``)."""

SEAL_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "invocations": (("seal", "big"),),
    "heads": (("seal", "big"),),
}
"""What layout 3 adds to layout 2's tables."""

CRC_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "invocations": (
        ("request_crc", "big"),
        ("end_crc", "big"),
        ("request_chain", "big"),
        ("end_chain", "big"),
    ),
}
"""What layout 4 adds to layout 3's tables: the CRC-32 of the JSON of an invocation's
Requested and Completed events, and their chain values, sealed with the row (so that the
row is checked alone; `verify` holds the chains to the events')."""

INDEX_TABLES = (
    """CREATE TABLE IF NOT EXISTS {heads} (
        {session}       {key}   PRIMARY KEY,
        indexed_through {big}   NOT NULL,
        requested {big} NOT NULL, started {big} NOT NULL, completed {big} NOT NULL,
        failed    {big} NOT NULL, rejected {big} NOT NULL, refused {big} NOT NULL,
        chain     {big} NOT NULL,
        stale     {bool} NOT NULL DEFAULT {false}
    )""",
    """CREATE TABLE IF NOT EXISTS {checkpoints} (
        {session} {key} NOT NULL,
        sequence  {big} NOT NULL,
        requested {big} NOT NULL, started {big} NOT NULL, completed {big} NOT NULL,
        failed    {big} NOT NULL, rejected {big} NOT NULL, refused {big} NOT NULL,
        chain     {big} NOT NULL,
        seal      {big} NOT NULL,
        PRIMARY KEY ({session}, sequence)
    ){without_rowid}""",
    """CREATE TABLE IF NOT EXISTS {settings} (
        name  TEXT  PRIMARY KEY,
        value {big} NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS {index_prefix}invocations_by_session "
    "ON {invocations} ({session}, sequence)",
    "CREATE INDEX IF NOT EXISTS {index_prefix}invocations_open "
    "ON {invocations} ({session}, sequence) WHERE ended_seq IS NULL",
    "CREATE INDEX IF NOT EXISTS {index_prefix}events_refused "
    "ON {events} ({session}, sequence) WHERE effect < 0",
)
"""The index's own tables and indexes (layout 2 on), in the engine's spelling."""


SAID = "type IN (" + ", ".join(f"'{tag}'" for tag in sorted(CONVERSATION_TYPES)) + ")"
"""The condition that picks the conversation's events (prompts, words, reasoning, usage),
spelled the same in `SAID_INDEX` and in every query meant to use it: a database uses a
partial index only for a query whose condition contains the index's own."""

SAID_INDEX_NAME = "events_said"
"""`SAID_INDEX`'s name as the layout spells it (a database puts its ``{index_prefix}`` first)."""

SAID_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {{index_prefix}}{SAID_INDEX_NAME} "
    f"ON {{events}} ({{session}}, sequence) WHERE {SAID}"
)
"""The conversation's events of each session, in order: whether a session holds any, and
what it said, are answered without reading its tool events (a recorded session of a
million calls and no conversation is known to hold none from one probe)."""

EXITED_INDEX_NAME = "invocations_exited"
"""`EXITED_INDEX`'s name as the layout spells it."""

EXITED_INDEX = (
    f"CREATE INDEX IF NOT EXISTS {{index_prefix}}{EXITED_INDEX_NAME} "
    "ON {invocations} ({session}, ended_seq) WHERE status = 3 AND end_code <> 0"
)
"""The calls that completed with an exit code other than 0, by when they ended: how many
had by any point of a session is counted from them alone (`index.exits_nonzero`, whose
condition contains this one), not from every call of the session."""

ADDED_INDEXES: dict[str, str] = {SAID_INDEX_NAME: SAID_INDEX, EXITED_INDEX_NAME: EXITED_INDEX}
"""The indexes added to a layout without changing it, by name: a store of the layout
without one gains it when next opened for writing."""


CATALOG_TABLES = (
    """CREATE TABLE IF NOT EXISTS {catalog} (
        {session}      {key}  PRIMARY KEY,
        name           {id}   NOT NULL,
        agent          {id},
        agent_fold     {id}   NOT NULL,
        agent_session  {id},
        described_at   {time},
        project        {id},
        project_fold   {id}   NOT NULL,
        own_title      {id},
        number         {big}  NOT NULL UNIQUE,
        searched       {big}  NOT NULL,
        parent_session {id},
        times_recorded {bool} NOT NULL,
        title          {id},
        prompts  {big} NOT NULL, messages {big} NOT NULL, events {big} NOT NULL,
        first_at {time}, last_at {time}, started {time}, ended {time},
        calls    {big} NOT NULL, completed {big} NOT NULL, failed {big} NOT NULL,
        rejected {big} NOT NULL, requested_calls {big} NOT NULL,
        started_calls {big} NOT NULL, exited {big} NOT NULL,
        refused  {big} NOT NULL, failures {big} NOT NULL,
        input {big}, output {big}, cache_read {big}, cache_write {big},
        machine   {id},
        user_name {id}
    )""",
    """CREATE TABLE IF NOT EXISTS {models} (
        {session}  {key} NOT NULL,
        position   {big} NOT NULL,
        model      {id}  NOT NULL,
        model_fold {id}  NOT NULL,
        PRIMARY KEY ({session}, position)
    ){without_rowid}""",
    """CREATE TABLE IF NOT EXISTS {spent} (
        {session} {key} NOT NULL,
        position  {big} NOT NULL,
        model     {id},
        input {big} NOT NULL, output {big} NOT NULL,
        cache_read {big} NOT NULL, cache_write {big} NOT NULL,
        PRIMARY KEY ({session}, position)
    ){without_rowid}""",
    """CREATE TABLE IF NOT EXISTS {activity} (
        {session} {key} NOT NULL,
        quarter   {big},
        model     {id},
        calls {big} NOT NULL, messages {big} NOT NULL,
        input {big} NOT NULL, output {big} NOT NULL,
        cache_read {big} NOT NULL, cache_write {big} NOT NULL,
        first_at {time}, last_at {time}
    )""",
    """CREATE TABLE IF NOT EXISTS {search_runs} (
        first_id       {big} PRIMARY KEY,
        number         {big} NOT NULL,
        first_sequence {big} NOT NULL,
        last_id        {big} NOT NULL
    ){without_rowid}""",
    "CREATE INDEX IF NOT EXISTS {index_prefix}search_runs_by_number ON {search_runs} (number)",
    "CREATE INDEX IF NOT EXISTS {index_prefix}catalog_by_end ON {catalog} (ended)",
    "CREATE INDEX IF NOT EXISTS {index_prefix}activity_by_session "
    "ON {activity} ({session}, quarter)",
    "CREATE INDEX IF NOT EXISTS {index_prefix}activity_by_quarter ON {activity} (quarter)",
)
"""The catalog (layout 5 on): a row per session (`catalog`), its models in the order first
seen and its tokens by model (`models`, `spent`), its activity by quarter hour and model
(`activity`), every column derived from its events (`correx_tools.core.catalog`); and
where each value of the full-text index came from (`search_runs`: `searching`)."""


def index_statements(since: int) -> list[str]:
    """What brings a store of layout ``since`` (1 to 4; 1 for a new store, whose layout-1
    tables were just made) to `LAYOUT`, in the engine's spelling: the columns each layout
    adds, then the index's tables. Its index is still to be built (or rebuilt)."""
    statements: list[str] = []
    if since < 2:
        statements += _adding(INDEX_COLUMNS)
        statements += INDEX_TABLES
    if since < 3:
        statements += _adding(SEAL_COLUMNS)
    if since < 4:
        statements += _adding(CRC_COLUMNS)
    if since < CATALOG_LAYOUT:
        statements += CATALOG_TABLES
    statements += ADDED_INDEXES.values()
    return statements


def _adding(columns: dict[str, tuple[tuple[str, str], ...]]) -> list[str]:
    return [
        f"ALTER TABLE {{{table}}} ADD COLUMN {name} {{{type_name}}}"
        for table, added in columns.items()
        for name, type_name in added
    ]
