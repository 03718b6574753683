"""Hostile strings as ids and tool names: byte-exact through every store, nothing let in.

Two hundred strings a model, a user or an attacker might send (SQL and format
injection, quotes, NUL and other control characters, right-to-left and
zero-width marks, line separators, unnormalised Unicode, 64 KiB of mixed
text) are used as session id, invocation id and tool name in every store.
Each comes back byte for byte, the sessions list is exactly them, and no
table was added or dropped. Strings that are not Unicode text at all (lone
surrogates) cannot be stored anywhere and are refused with a clear error.
A last test scans the package source for the ways to run stored data as code.
"""

from __future__ import annotations

import ast
import random
import sqlite3
from pathlib import Path

import pytest

import correx_tools
from correx_tools import (
    AppendErrorKind,
    SessionId,
    ToolInvocationRequestedEvent,
)
from correx_tools.shell.stores.port import EventStore

from .strategies import completed, requested, started

_SEEDS = [
    "'; DROP TABLE events; --",
    "'; DROP TABLE correx_events; --",
    "\"; DROP TABLE correx_sessions; --",
    "' OR '1'='1",
    "1; DELETE FROM events WHERE 1=1",
    "Robert'); DROP TABLE Students;--",
    "%", "%%", "%s", "%(x)s", "%d%d%d", "{}", "{0}", "{x!r}", "$1", "?", ":name", "@p",
    "'", '"', "`", "''", '""', "\\", "\\\\", "\\'", "\\0", "\\u0000", "\\x00",
    "\x00", "a\x00b", "\x00\x00\x00", "\x01", "\x07", "\x08", "\t", "\n", "\r", "\r\n",
    "a\nb", "\x1b[31mred\x1b[0m", "\x7f", "\x85", "\u2028", "\u2029", "a\u2028b",
    "\u202eevil", "\u202egnp.exe", "\u200f", "\u200e", "\u200b", "\u2066x\u2069", "\ufeff",
    "\ufeffBOM", "\ufffd", "\uffff", "\ufffe", "\U0010ffff", "\U0001f600",
    "\U0001f468\u200d\U0001f469",
    "e\u0301", "\u00e9", "\u0041\u030a", "\u212b", "\u00c5", "ﬁ", "Ⅸ", "ß", "İ", "ı",
    " ", "  ", "\u00a0", "\u3000", " leading", "trailing ", ".", "..", "../../etc/passwd",
    "/", "//", "C:\\Windows", "~", "*", "null", "NULL", "None", "true", "0", "-1", "1e309",
    "NaN", "[]", "{\"a\": 1}", "<script>alert(1)</script>", "${jndi:ldap://x}", "$(rm -rf /)",
    "`id`", "|| true", "&& false", "#", "--", "/*", "*/", ";", "admin'--",
    "日本語", "עברית", "العربية", "한국어", "Ελληνικά", "кириллица", "ᚠᛇᚻ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]  # fmt: skip


def hostile_strings() -> list[str]:
    """Two hundred distinct hostile strings, the same every run."""
    chance = random.Random(7)
    alphabet = "".join(seed for seed in _SEEDS if len(seed) == 1) + "abcXYZ019"
    strings = list(dict.fromkeys(_SEEDS))
    # Mixed text of every length class, up to 64 KiB; random, so it does not compress.
    for size in (255, 256, 1_000, 2_700, 4_096, 8_192, 65_536):
        strings.append("".join(chance.choice(alphabet) for _ in range(size)))
    strings.append("x" * 65_536)
    while len(strings) < 200:
        pieces = chance.sample(_SEEDS, 3)
        strings.append("".join(pieces) + str(len(strings)))
        strings = list(dict.fromkeys(strings))
    return strings[:200]


HOSTILE = hostile_strings()


def test_the_hostile_strings_are_two_hundred_distinct_ones() -> None:
    assert len(HOSTILE) == len(set(HOSTILE)) == 200
    assert any("\x00" in s for s in HOSTILE)
    assert any(len(s.encode()) >= 65_536 for s in HOSTILE)


def events_for(text: str) -> list[object]:
    return [requested(text, tool=text, note=text), started(text), completed(text, output=text)]


def tables(store: EventStore, request: pytest.FixtureRequest) -> tuple[str, ...] | None:
    """The names of the store's tables, where it has any."""
    match type(store).__name__:
        case "SQLiteEventStore":
            with sqlite3.connect(store.path) as connection:  # type: ignore[attr-defined]
                rows = connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
                ).fetchall()
            connection.close()
        case "PostgresEventStore":
            import psycopg  # noqa: PLC0415 - PostgreSQL only

            schema = request.getfixturevalue("postgres_schema")
            with psycopg.connect(request.getfixturevalue("postgres_dsn")) as connection:
                rows = connection.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = %s ORDER BY table_name",
                    (schema,),
                ).fetchall()
        case _:
            return None
    return tuple(row[0] for row in rows)


# The JSONL log reads a session by scanning the file: its copy of the round trip (nine
# seconds) runs with the slow tests.
@pytest.mark.parametrize(
    "store",
    ["memory", "sqlite", "postgres", pytest.param("jsonl", marks=pytest.mark.slow)],
    indirect=True,
)
def test_hostile_ids_and_tool_names_round_trip_byte_exact(
    store: EventStore, request: pytest.FixtureRequest
) -> None:
    before = tables(store, request)
    for text in HOSTILE:
        written = store.append(SessionId(text), events_for(text), expected_sequence=0).unwrap()
        assert [e.session_id for e in written] == [text] * 3
    assert store.sessions() == tuple(sorted(HOSTILE))
    for text in HOSTILE:
        read = list(store.read(SessionId(text)))
        assert [e.sequence for e in read] == [1, 2, 3]
        assert all(e.session_id.encode() == text.encode() for e in read)
        assert [e.event for e in read] == events_for(text)
        first = read[0].event
        assert isinstance(first, ToolInvocationRequestedEvent)
        assert first.invocation_id.encode() == text.encode()
        assert first.tool_name.encode() == text.encode()
        assert first.request.arguments["note"].encode() == text.encode()
    assert tables(store, request) == before
    # The ids are still claimed: a second Requested for one of them is refused.
    error = store.append(
        SessionId("another"), [requested(HOSTILE[0])], expected_sequence=0
    ).failure()
    assert error.kind is AppendErrorKind.DUPLICATE_INVOCATION


def test_an_invocation_id_with_a_lone_surrogate_cannot_even_be_built() -> None:
    with pytest.raises(ValueError, match="lone surrogate at character 1"):
        requested("a\ud800b")


@pytest.mark.parametrize("where", ["session", "tool"])
def test_a_lone_surrogate_is_refused_clearly_and_writes_nothing(
    store: EventStore, where: str
) -> None:
    bad = "a\ud800b"
    session = SessionId(bad if where == "session" else "fine")
    invocation = "inv"
    tool = bad if where == "tool" else "read_file"
    result = store.append(session, [requested(invocation, tool=tool)], expected_sequence=0)
    error = result.failure()
    assert error.kind is AppendErrorKind.INVALID_EVENT
    assert "surrogate" in error.message
    assert store.sessions() == ()


# -- the source scan ---------------------------------------------------------------

PACKAGE = Path(correx_tools.__file__).parent
# Modules that turn bytes into live objects or code. multiprocessing pickles too, but
# only between the parent and the workers replay_all starts itself (shell/replay/parallel.py),
# never anything read from a store, a log or a request.
UNSAFE_MODULES = {"pickle", "cPickle", "dill", "marshal", "shelve", "jsonpickle", "yaml"}
UNSAFE_CALLS = {"eval", "exec", "compile", "__import__"}


def scan(path: Path) -> list[str]:
    """Every unsafe import or call in one file, as ``file:line what``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        if any(name.split(".")[0] in UNSAFE_MODULES for name in names):
            found.append(f"{path.name}:{node.lineno} imports {names}")
        # The builtins by name (``re.compile`` is fine), and eval/exec reached as attributes.
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in UNSAFE_CALLS:
                found.append(f"{path.name}:{node.lineno} calls {func.id}")
            elif isinstance(func, ast.Attribute) and func.attr in {"eval", "exec"}:
                found.append(f"{path.name}:{node.lineno} calls {func.attr}")
    return found


def test_the_package_never_unpickles_or_evaluates() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 30
    assert [hit for path in files for hit in scan(path)] == []


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import pickle\nfrom marshal import loads\nx = eval('1')\nexec('y = 2')\n"
        "import re\nre.compile('z')\nbuiltins.eval('3')\n"
    )
    assert scan(planted) == [
        "planted.py:1 imports ['pickle']",
        "planted.py:2 imports ['marshal']",
        "planted.py:3 calls eval",
        "planted.py:4 calls exec",
        "planted.py:7 calls eval",
    ]
