"""The shape rules: the layers, no import cycles, a pure core, a curated public surface.

The module graph is read from the source (every import statement, at any
depth in a file), so a rule cannot be broken by an import inside a function.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import correx_tools

PACKAGE = Path(correx_tools.__file__).parent
CORE = PACKAGE / "core"
# Modules that do I/O, read a clock, draw randomness, log, or reach other processes.
FORBIDDEN = {
    "asyncio", "datetime.datetime.now", "io", "logging", "multiprocessing", "os", "pathlib.Path",
    "pickle", "random", "secrets", "shelve", "marshal", "socket", "sqlite3", "subprocess",
    "sys", "tempfile", "threading", "time", "urllib", "uuid", "http", "psycopg", "shutil",
}  # fmt: skip
# Pure parts of otherwise forbidden packages: urllib.parse only splits and joins strings.
PURE = ("urllib.parse",)

TRANSCRIPTS = "correx_tools.shell.transcripts"
# The transcripts' rooms: the cache over the import over recognising over the agents'
# formats over what they share; the package's own modules below them all. Each may also
# import the core, and those marked so the stores.
TRANSCRIPT_ROOMS = [
    (f"{TRANSCRIPTS}.{room}",
     [f"{TRANSCRIPTS}.{name}" for name in below.split()]
     + ["correx_tools.core"] + (["correx_tools.shell.stores"] if stores else []))
    for room, below, stores in [
        ("cache", "importing recognising agents agent_format common model errors", True),
        ("importing", "recognising agents agent_format common model errors", True),
        ("recognising", "agents agent_format common model errors", True),
        ("homes", "agents agent_format model", False),
        ("agents", "agent_format common model errors", True),
        ("common", "model errors", True),
        ("agent_format", "model errors", False),
        ("description", "", True),
        ("model", "errors", False),
        ("errors", "", False),
    ]
]  # fmt: skip


# Each room may import only from the rooms listed after it (and from itself). A room is a
# package or a module; a module lives in the longest room it lies under, so a subroom is a
# room of its own, held to its own line.
# What the server's rooms may read below them.
_BELOW_SERVE = [
    "correx_tools.shell.catalog",
    "correx_tools.shell.audit",
    "correx_tools.shell.transcripts",
    "correx_tools.shell.replay",
    "correx_tools.shell.stores",
    "correx_tools.core",
]
LAYERS = [
    ("correx_tools.shell.cli", ["correx_tools.shell", "correx_tools.core"]),
    # The server: the app and the server on top, then the API (a module per path), the
    # debugger (the store and what is kept of it), the guard, the columns, the API's error.
    (
        "correx_tools.shell.serve",
        [
            "correx_tools.shell.serve.api",
            "correx_tools.shell.serve.debugger",
            "correx_tools.shell.serve.guard",
            "correx_tools.shell.serve.columns",
            "correx_tools.shell.serve.errors",
            *_BELOW_SERVE,
        ],
    ),
    (
        "correx_tools.shell.serve.api",
        [
            "correx_tools.shell.serve.debugger",
            "correx_tools.shell.serve.columns",
            "correx_tools.shell.serve.errors",
            *_BELOW_SERVE,
        ],
    ),
    (
        "correx_tools.shell.serve.debugger",
        ["correx_tools.shell.serve.columns", "correx_tools.shell.serve.errors", *_BELOW_SERVE],
    ),
    # The guard knows nothing of what it guards: no API, no store, no core.
    ("correx_tools.shell.serve.guard", []),
    ("correx_tools.shell.serve.columns", ["correx_tools.shell.replay", "correx_tools.core"]),
    ("correx_tools.shell.serve.errors", []),
    (
        "correx_tools.shell.runs",
        [
            "correx_tools.shell.transcripts",
            "correx_tools.shell.replay",
            "correx_tools.shell.stores",
            "correx_tools.core",
        ],
    ),
    # Many sessions at once: their catalog, kept by a store or folded from its events.
    (
        "correx_tools.shell.catalog",
        ["correx_tools.shell.replay", "correx_tools.shell.stores", "correx_tools.core"],
    ),
    (
        "correx_tools.shell.audit",
        [
            "correx_tools.shell.transcripts",
            "correx_tools.shell.stores",
            "correx_tools.shell.option_files",
            "correx_tools.core",
        ],
    ),
    ("correx_tools.shell.recording", ["correx_tools.shell.stores", "correx_tools.core"]),
    # The columnar export: a store's sessions, calls and events as Parquet or CSV tables.
    ("correx_tools.shell.columnar", ["correx_tools.shell.stores", "correx_tools.core"]),
    # A team's store: pushing a machine's sessions to it, and following them.
    ("correx_tools.shell.team", ["correx_tools.shell.stores", "correx_tools.core"]),
    *TRANSCRIPT_ROOMS,
    ("correx_tools.shell.transcripts", ["correx_tools.shell.stores", "correx_tools.core"]),
    (
        "correx_tools.shell.report",
        ["correx_tools.shell.replay", "correx_tools.shell.stores", "correx_tools.core"],
    ),
    (
        "correx_tools.shell.replay",
        ["correx_tools.shell.stores", "correx_tools.shell.option_files", "correx_tools.core"],
    ),
    ("correx_tools.shell.option_files", []),
    ("correx_tools.shell.export", ["correx_tools.core"]),
    ("correx_tools.shell.stores", ["correx_tools.core"]),
    ("correx_tools.shell.workspace", ["correx_tools.core"]),
    (
        "correx_tools.core.audit",
        [
            "correx_tools.core.report",
            "correx_tools.core.replay",
            "correx_tools.core.lifecycle",
            "correx_tools.core.tools",
        ],
    ),
    (
        "correx_tools.core.catalog",
        [
            "correx_tools.core.report",
            "correx_tools.core.replay",
            "correx_tools.core.lifecycle",
            "correx_tools.core.tools",
        ],
    ),
    (
        "correx_tools.core.report",
        ["correx_tools.core.replay", "correx_tools.core.lifecycle", "correx_tools.core.tools"],
    ),
    ("correx_tools.core.replay", ["correx_tools.core.lifecycle", "correx_tools.core.tools"]),
    ("correx_tools.core.lifecycle", ["correx_tools.core.tools"]),
    ("correx_tools.core.tools", []),
]
# The modules that live in no room: the entry points, and the two packages that only say
# what the core and the shell are.
OUTSIDE = {
    "correx_tools": "the public surface, re-exported from every room",
    "correx_tools.__main__": "python -m correx_tools",
    "correx_tools.cli": "the command's entry point",
    "correx_tools._version": "the version, which any room may read",
    "correx_tools._public": "the table of public names every surface reads",
    "correx_tools.stores": "a surface: the stores' public names",
    "correx_tools.transcripts": "a surface: the transcripts' public names",
    "correx_tools.history": "a surface: the history's public names",
    "correx_tools.conversation": "a surface: the conversation's public names",
    "correx_tools.formats": "a surface: the tool formats' public names",
    "correx_tools.core": "a docstring",
    "correx_tools.shell": "a docstring",
}
ROOMS = dict(LAYERS)


def room_of(name: str) -> str | None:
    """The room ``name`` lives in: the longest room of `LAYERS` it is or lies under."""
    return max((room for room in ROOMS if _under(name, room)), key=len, default=None)


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    assert len(found) > 40, "the package should not be empty"
    return found


def imports_of(path: Path, name: str) -> Iterator[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)


def graph() -> dict[str, set[str]]:
    """Module -> the modules of this package it imports."""
    known = modules()
    return {
        name: {target for target in imports_of(path, name) if target in known and target != name}
        for name, path in known.items()
    }


def test_each_room_imports_only_from_the_rooms_below_it() -> None:
    for name, targets in graph().items():
        room = room_of(name)
        if room is None:
            continue
        for target in targets:
            if room_of(target) == room or target == "correx_tools._version":
                continue
            assert any(_under(target, below) for below in ROOMS[room]), (
                f"{name} imports {target}, which {room} may not import"
            )


def test_every_module_lives_in_a_room() -> None:
    assert sorted(name for name in modules() if room_of(name) is None) == sorted(OUTSIDE)


def test_the_table_names_rooms_that_exist_and_points_only_down() -> None:
    known = modules()
    order = [room for room, _ in LAYERS]
    assert len(set(order)) == len(order)
    for index, (room, allowed) in enumerate(LAYERS):
        assert room in known, f"{room} is in the table but not in the package"
        for below in allowed:
            covered = [other for other in order if _under(other, below) and other != room]
            assert covered, f"{room} may import {below}, which holds no room"
            above = [other for other in covered if order.index(other) < index]
            assert not above, f"{room} may import {above}, listed above it"


def test_no_module_imports_in_a_cycle() -> None:
    edges = graph()
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    assert cycles == []


def test_only_the_registry_imports_an_agents_package() -> None:
    # One agent's format lives in its package; the machinery (recognising, the import, the
    # cache, the home folders, the command) loops over `agents.REGISTRY` and names none.
    agents = "correx_tools.shell.transcripts.agents"
    for name, targets in graph().items():
        if name.startswith(agents):
            continue
        named = sorted(target for target in targets if target.startswith(agents + "."))
        assert named == [], f"{name} imports {named}: loop over agents.REGISTRY instead"


def test_no_module_is_over_400_lines() -> None:
    long = {
        name: lines
        for name, path in modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


# Every package but the top one, which is the public surface.
PACKAGES = sorted(
    module_name(path) for path in PACKAGE.rglob("__init__.py") if path.parent != PACKAGE
)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_says_what_lives_there_and_who_may_import_it(package: str) -> None:
    module = importlib.import_module(package)
    doc = (module.__doc__ or "").strip()
    assert doc, package
    assert "import" in doc.lower(), f"{package} should say what may import it"


def core_files() -> list[Path]:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) > 20, "the core package should not be empty"
    return files


def test_core_imports_no_io_clock_randomness_or_logging() -> None:
    for path in core_files():
        for name in imports_of(path, module_name(path)):
            if name.startswith(PURE):
                continue
            top = name.split(".")[0]
            assert top not in FORBIDDEN and name not in FORBIDDEN, f"{path.name} imports {name}"


def test_core_never_calls_now_open_or_print() -> None:
    for path in core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                assert name not in {
                    "now",
                    "utcnow",
                    "today",
                    "open",
                    "print",
                    "time",
                    "eval",
                    "exec",
                }, f"{path.name}:{node.lineno} calls {name}"


SURFACES = {"": "__init__", "stores": "stores", "transcripts": "transcripts",
            "history": "history", "conversation": "conversation", "formats": "formats"}  # fmt: skip


def typed_names(module_file: str) -> dict[str, str]:
    """What type checkers read of a surface: each name its imports under TYPE_CHECKING
    give it, and the module (under the package) it comes from."""
    source = ast.parse((PACKAGE / f"{module_file}.py").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module
        for block in source.body
        if isinstance(block, ast.If)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


@pytest.mark.parametrize("surface", list(SURFACES))
def test_each_surface_offers_what_the_one_table_says(surface: str) -> None:
    from correx_tools import _public  # noqa: PLC0415

    module = importlib.import_module("correx_tools" + (f".{surface}" if surface else ""))
    exported = module.__all__

    def isort_key(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert exported == sorted(exported, key=isort_key)
    assert len(set(exported)) == len(exported) > 0
    # What type checkers read is the table: the same names, from the same modules.
    offered = {name: where for name, (where, on) in _public.NAMES.items() if surface in on}
    assert typed_names(SURFACES[surface]) == offered
    assert set(exported) == set(offered)
    for name in exported:
        value = getattr(module, name)
        assert value is getattr(importlib.import_module(f"correx_tools.{offered[name]}"), name)


def test_every_public_name_is_offered_somewhere_and_importable_from_the_top() -> None:
    from correx_tools import _public  # noqa: PLC0415

    assert all(on and set(on) <= set(SURFACES) for _, on in _public.NAMES.values())
    for name in _public.NAMES:
        assert getattr(correx_tools, name) is not None
    assert len(correx_tools.__all__) < len(_public.NAMES)  # the top level is the contract
    with pytest.raises(AttributeError, match="has no attribute 'Prompt'"):
        importlib.import_module("correx_tools.stores").Prompt  # noqa: B018


def test_importing_the_package_loads_none_of_it_until_a_name_is_asked_for() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c",
         "import sys, correx_tools\n"
         "before = sorted(m for m in sys.modules if m.startswith('correx_tools.'))\n"
         "correx_tools.SQLiteEventStore\n"
         "print(before, 'correx_tools.shell.stores.sqlite' in sys.modules)"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    assert loaded == "['correx_tools._public', 'correx_tools._version'] True"


def test_every_export_has_a_docstring() -> None:
    from correx_tools import _public  # noqa: PLC0415

    for name in _public.NAMES:
        value = getattr(correx_tools, name)
        if callable(value) and not isinstance(value, type(correx_tools)):
            doc = getattr(value, "__doc__", None)
            assert doc and doc.strip(), f"{name} has no docstring"


def test_every_module_imports_cleanly() -> None:
    for module in pkgutil.walk_packages(correx_tools.__path__, "correx_tools."):
        if module.name != "correx_tools.__main__":  # it runs the command
            importlib.import_module(module.name)


def test_the_package_ships_py_typed() -> None:
    assert (PACKAGE / "py.typed").exists()


# Python's `re` backtracks: a pattern with a lazy or nested repeat over text a model wrote can
# take time quadratic or worse in it. Text from a session (transcripts, outputs, arguments,
# ids) is matched with RE2, in linear time. These modules keep `re` for patterns of fixed
# shape over what the library itself writes or a person types (store timestamps and lines,
# schema names, a DSN, a command-line number, a tool name's characters, a file's name).
MAY_BACKTRACK = {
    "correx_tools.shell.stores.codec.envelope": "the stores' own timestamp shape",
    "correx_tools.shell.stores.codec.lines": "a JSONL line's own head and tail",
    "correx_tools.shell.stores.codec.encoding": "JSON the encoder itself wrote",
    "correx_tools.shell.stores.postgres.layout": "a schema name the user gives",
    "correx_tools.shell.stores.addresses": "a DSN the user gives",
    "correx_tools.shell.serve.api.params": "a number in a query string, bounded in length",
    "correx_tools.shell.serve.api.everywhere": "the server's own cursor, bounded in length",
    "correx_tools.shell.recording.outcomes": "one character class (lone surrogates)",
    "correx_tools.shell.cli.commands.report": "one character class over a session id",
    "correx_tools.shell.cli.output.render": "character classes (controls, line breaks)",
    "correx_tools.core.tools.formats._reader": "a tool name's characters, bounded in length",
    "correx_tools.core.tools.definitions": "one character class over a tool name",
}


def test_only_modules_that_never_match_session_text_use_backtracking_patterns() -> None:
    users = {
        name
        for name, path in modules().items()
        if "re" in set(imports_of(path, name)) or "re" in _plain_imports(path)
    }
    assert users <= set(MAY_BACKTRACK), sorted(users - set(MAY_BACKTRACK))


def _plain_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
