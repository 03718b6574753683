"""The transcript samples under ``data/transcripts/`` and their stated counts, and the
samples these tests make themselves from the formats' definitions (a Goose ``sessions.db``).

Each ``expected.json`` (or ``<file>.expected.json``) says what a correct import of its
sample gives: ``{calls, by_tool, by_status{completed, failed, rejected, in_flight},
nonzero_exit_completed}``; a Goose database's gives those for each of its sessions.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "transcripts"


@dataclass(frozen=True)
class Sample:
    """A sample file, its format and the counts its import must give (per session)."""

    path: Path
    format: str
    expected: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.path.relative_to(DATA))


def samples() -> list[Sample]:
    """Every sample with stated counts, in path order."""
    found = []
    for stated in sorted(DATA.rglob("*expected.json")):
        fmt = stated.relative_to(DATA).parts[0]
        expected = json.loads(stated.read_text(encoding="utf-8"))
        if stated.name == "expected.json":
            paths = [
                p
                for p in sorted(stated.parent.iterdir())
                if p.is_file()
                and p.name not in ("expected.json", "PROVENANCE.txt", "ui_messages.json")
                and not p.name.endswith(".expected.json")
            ]
        else:
            paths = [stated.with_name(stated.name.removesuffix(".expected.json"))]
        found.extend(Sample(path, fmt, expected) for path in paths)
    return found


# Goose's own tables (block/goose, crates/goose/src/session/session_manager.rs, schema 5).
GOOSE_SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY,
                             applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (5);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER, schedule_id TEXT, recipe_json TEXT,
    user_recipe_values_json TEXT);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
"""


_GOOSE_TOKENS = ("total_tokens", "input_tokens", "output_tokens", "accumulated_total_tokens",
                 "accumulated_input_tokens", "accumulated_output_tokens")  # fmt: skip


def goose_messages() -> dict[str, tuple[str, str, list[dict[str, Any]], dict[str, int]]]:
    """The sessions of the two Goose samples as Goose's database would hold them:
    ``{id: (name, created_at, messages, token counts)}`` (the export's session, and the
    older file's)."""
    export = json.loads((DATA / "goose" / "20251118_2.json").read_text(encoding="utf-8"))
    legacy = (DATA / "goose" / "20251118_154210.jsonl").read_text(encoding="utf-8")
    header, *lines = [json.loads(line) for line in legacy.splitlines() if line.strip()]
    return {
        export["id"]: (export["name"], "2025-11-18 06:42:10.250+00:00", export["conversation"],
                       {key: export[key] for key in _GOOSE_TOKENS}),
        "20251118_3": (header["description"], "2025-11-18 07:10:00", lines,
                       {key: header[key] for key in _GOOSE_TOKENS}),
    }  # fmt: skip


def make_goose_database(path: Path, *, wal: bool = False) -> sqlite3.Connection:
    """A ``sessions.db`` with the samples' two sessions, as Goose writes it; the connection
    is returned open (in WAL mode with ``wal``, its last writes not yet checkpointed)."""
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.executescript(GOOSE_SCHEMA)
    for number, (session, about) in enumerate(goose_messages().items()):
        name, created, messages, tokens = about
        connection.execute(
            f"INSERT INTO sessions (id, name, working_dir, created_at, updated_at, "
            f"{', '.join(tokens)}) VALUES (?, ?, ?, ?, ?{', ?' * len(tokens)})",
            (session, name, "/home/yuki/translit-rs", created, created, *tokens.values()),
        )
        for message in messages:
            connection.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp, "
                "timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?)",
                (session, message["role"], json.dumps(message["content"], ensure_ascii=False),
                 message["created"], f"2025-11-18 06:42:{10 + number:02d}",
                 json.dumps(message.get("metadata", {}))),
            )  # fmt: skip
        connection.commit()
    return connection
