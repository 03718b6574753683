"""The release: what ``python -m build`` makes installs, runs, and holds every file it needs.

The wheel is built (through the sdist, as a release is) from a copy of this tree and
installed, not editable, into a fresh virtual environment; the environment reads the
development one's dependencies through a ``.pth`` file and the wheel goes in with
``--no-deps``, so nothing is downloaded. The installed ``correx-tools`` then runs ``demo``,
``report`` and ``serve --help`` from a folder with no source in it. A file of the package
that the wheel leaves out (the secret rules, the prices, the report's or the debugger's
scripts, a transcript the demo imports) fails here, in CI, rather than for the first
person who installs the release.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from correx_tools import __version__

ROOT = Path(__file__).resolve().parent.parent
LEFT_OUT = {".venv", ".git", ".tox", "__pycache__", ".pytest_cache", ".mypy_cache",
            ".ruff_cache", ".hypothesis", "build", "dist", "site"}  # fmt: skip
"""What is never part of a release, wherever it is in the tree."""


@dataclass(frozen=True)
class Release:
    """The tree the release was built from, what it built, and where the wheel went."""

    source: Path
    wheel: Path
    sdist: Path
    venv: Path


def _copy_ignoring(directory: str, names: list[str]) -> set[str]:
    ignored = {n for n in names if n in LEFT_OUT or n.endswith((".egg-info", ".pyc"))}
    if Path(directory) == ROOT:  # a demo's or a benchmark's files left at the top
        ignored |= {n for n in names if ".sqlite" in n}
    return ignored


def _package_folders() -> list[str]:
    """The folders this environment imports installed packages from, as a fresh process of
    it sees them (so not this tree, which pytest's own start may have put on the path)."""
    shown = subprocess.run(
        [sys.executable, "-c", "import sys; print('\\n'.join(sys.path))"],
        cwd=Path(sysconfig.get_paths()["stdlib"]), capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    return [p for p in shown if p.endswith(("site-packages", "dist-packages"))]


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    """The sdist and wheel of this tree, the wheel installed into a fresh environment."""
    where = tmp_path_factory.mktemp("release")
    source = where / "source"
    shutil.copytree(ROOT, source, ignore=_copy_ignoring)
    built = where / "dist"
    # --no-isolation: the build backend is the development environment's (the dev extra
    # holds it), so nothing is downloaded; the wheel is built from the sdist.
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(built), str(source)],
        cwd=where, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    (wheel,) = built.glob("*.whl")
    (sdist,) = built.glob("*.tar.gz")
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    # The development environment's package folders (and any it chains to), after the new
    # one's own: the wheel's copy of correx_tools comes first, and the .pth files over
    # there (the editable install) are not read from a folder a .pth line adds.
    Path(site, "development.pth").write_text(
        "".join(f"{folder}\n" for folder in _package_folders()), encoding="utf-8"
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    return Release(source, wheel, sdist, venv)


@pytest.mark.slow  # a build and an install: about half a minute on two busy cores
def test_the_wheel_holds_every_file_of_the_package(release: Release) -> None:
    package = release.source / "correx_tools"
    expected = {
        f"correx_tools/{path.relative_to(package).as_posix()}"
        for path in package.rglob("*")
        if path.is_file()
    }
    with zipfile.ZipFile(release.wheel) as wheel:
        shipped = set(wheel.namelist())
    assert sorted(expected - shipped) == [], "pyproject.toml's package-data leaves these out"
    assert release.wheel.name == f"correx_tools-{__version__}-py3-none-any.whl"


@pytest.mark.slow
def test_the_sdist_holds_what_the_tests_and_the_docs_read(release: Release) -> None:
    with tarfile.open(release.sdist) as sdist:
        top = f"correx_tools-{__version__}/"
        shipped = {name.removeprefix(top) for name in sdist.getnames()}
    needed = {"README.md", "CHANGELOG.md", "pyproject.toml", "mkdocs.yml", "tox.ini"}
    for folder in ("correx_tools", "tests", "docs", "benchmarks"):
        needed |= {
            path.relative_to(release.source).as_posix()
            for path in (release.source / folder).rglob("*")
            if path.is_file()
        }
    assert sorted(needed - shipped) == [], "MANIFEST.in leaves these out of the sdist"


@pytest.mark.slow
def test_the_installed_command_runs_from_the_wheel(release: Release, tmp_path: Path) -> None:
    command = release.venv / "bin" / "correx-tools"
    env = {**os.environ, "PYTHONPATH": "", "NO_COLOR": "1"}

    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [command, *arguments], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"correx-tools {' '.join(arguments)}: {done.stderr}"
        assert "Traceback" not in done.stderr
        return done

    where = "import correx_tools; print(correx_tools.__file__)"
    imported = subprocess.run(
        [release.venv / "bin" / "python", "-c", where],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert Path(imported.strip()).is_relative_to(release.venv), imported
    assert run("--version").stdout.strip() == f"correx-tools {__version__}"
    demo = run("demo", "--sessions", "2", "--invocations", "40").stdout
    assert "imported as session real-claude-code-subagent" in demo  # the package's transcript
    page = tmp_path / "page.html"
    run("report", "correx-demo.sqlite", "real-claude-code-subagent", "-o", str(page))
    assert "<script" in page.read_text(encoding="utf-8")
    assert "usage: correx-tools serve" in run("serve", "--help").stdout


def test_the_version_is_written_in_one_place() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "correx_tools._version.__version__"
    assigned = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "correx_tools").rglob("*.py")
        if "__version__ = " in path.read_text(encoding="utf-8")
    ]
    assert assigned == ["correx_tools/_version.py"]
    # The site's changelog is the repository's, included whole.
    assert (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8").strip() == (
        '--8<-- "CHANGELOG.md"'
    )
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {__version__} — " in changelog, "the version's section in the changelog"
