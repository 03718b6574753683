"""The shape rules: core is pure and independent of shell; the public surface is curated."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import correx_tools
import correx_tools.core

CORE = Path(correx_tools.core.__file__).parent
# Modules that do I/O, read a clock, draw randomness, log, or reach other processes.
FORBIDDEN = {
    "asyncio", "datetime.datetime.now", "io", "logging", "multiprocessing", "os", "pathlib.Path",
    "pickle", "random", "secrets", "shelve", "marshal", "socket", "sqlite3", "subprocess",
    "sys", "tempfile", "threading", "time", "urllib", "uuid", "http", "psycopg", "shutil",
}  # fmt: skip


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ("." * node.level) + (node.module or "")
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def core_files() -> list[Path]:
    files = sorted(CORE.glob("*.py"))
    assert len(files) > 10, "the core package should not be empty"
    return files


def test_core_imports_nothing_from_shell() -> None:
    for path in core_files():
        for name in imported_modules(path):
            assert "shell" not in name.split("."), f"{path.name} imports {name}"
            assert not name.startswith("correx_tools.") or name.startswith("correx_tools.core"), (
                f"{path.name} imports {name}"
            )
            assert not name.startswith(".."), f"{path.name} reaches outside core with {name}"


# Pure parts of otherwise forbidden packages: urllib.parse only splits and joins strings.
PURE = ("urllib.parse",)


def test_core_imports_no_io_clock_randomness_or_logging() -> None:
    for path in core_files():
        for name in imported_modules(path):
            if name.startswith(PURE):
                continue
            top = name.lstrip(".").split(".")[0]
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


def test_all_is_sorted_and_matches_the_exports() -> None:
    exported = correx_tools.__all__

    def isort_key(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)

    assert exported == sorted(exported, key=isort_key)
    assert len(set(exported)) == len(exported)
    public = {name for name in vars(correx_tools) if not name.startswith("_")} - {
        "core",
        "shell",
        "cli",
    }
    public = {
        name for name in public if not isinstance(getattr(correx_tools, name), type(correx_tools))
    }
    assert set(exported) == public


def test_every_export_has_a_docstring() -> None:
    for name in correx_tools.__all__:
        value = getattr(correx_tools, name)
        if callable(value) and not isinstance(value, type(correx_tools)):
            doc = getattr(value, "__doc__", None)
            assert doc and doc.strip(), f"{name} has no docstring"


def test_every_module_imports_cleanly() -> None:
    for module in pkgutil.walk_packages(correx_tools.__path__, "correx_tools."):
        if module.name != "correx_tools.__main__":  # it runs the command
            importlib.import_module(module.name)


def test_the_package_ships_py_typed() -> None:
    assert (Path(correx_tools.__file__).parent / "py.typed").exists()
