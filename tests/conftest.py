"""Shared test configuration: fixed Hypothesis profiles.

``ci`` is derandomized with no deadline so a run on a loaded machine neither
flakes nor finds different examples each time; ``dev`` is the default for
local runs; ``nightly`` runs ten times as many random examples (``pytest -m
slow`` with ``HYPOTHESIS_PROFILE=nightly``).
"""

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from correx_tools import EventStore

from .browsing import chromium  # noqa: F401 (a fixture: one browser a worker)
from .servers import SERVER_SCRIPT
from .stores import KINDS, make_store

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    # Fewer examples than the local default draws, so that the README's command stays under
    # five minutes on two cores in a fresh clone; the tests that need more set their own,
    # and `nightly` draws many more.
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile("nightly", deadline=None, max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


ROOT = Path(__file__).resolve().parent.parent


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker a core. The command runs in the workers' own processes now
    (`commands.correx`), so few tests wait on another process; a worker more than the
    cores only made them take turns (and its share of memory and start-up)."""
    return os.cpu_count() or 1


@pytest.fixture(autouse=True, scope="session")
def _caches_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Caches of transcripts (a transcript given as SOURCE) go to a folder of the run's own,
    never the user's cache folder: the commands the tests run inherit it."""
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache-home"))


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A reachable PostgreSQL server: ``CORREX_TEST_POSTGRES_DSN``, or one started here.

    Without either, the tests that need it are skipped locally and fail in CI
    (``CI`` set): a CI run must never pass without testing PostgreSQL.
    """
    dsn = os.environ.get("CORREX_TEST_POSTGRES_DSN")
    if dsn:
        yield dsn
        return
    started = subprocess.run(
        ["bash", str(ROOT / ".ci" / "postgres-server"), "start"],
        capture_output=True,
        text=True,
        check=False,
    )
    if started.returncode != 0:
        reason = (
            f"no PostgreSQL server: set CORREX_TEST_POSTGRES_DSN ({started.stderr.strip()[-200:]})"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    dsn, directory = started.stdout.split()
    try:
        yield dsn
    finally:
        subprocess.run(
            ["bash", str(ROOT / ".ci" / "postgres-server"), "stop", directory], check=False
        )


@pytest.fixture
def own_server() -> Iterator[tuple[str, str]]:
    """A PostgreSQL server of this test's own, which it may crash or configure:
    ``(dsn, directory)`` (`servers.server` stops and starts it)."""
    started = subprocess.run(
        ["bash", str(SERVER_SCRIPT), "start"], capture_output=True, text=True, check=False
    )
    if started.returncode != 0:
        message = f"cannot start a PostgreSQL server: {started.stderr.strip()[-300:]}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    dsn, directory = started.stdout.split()
    try:
        yield dsn, directory
    finally:
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop", directory], check=False)


@pytest.fixture
def postgres_schema(postgres_dsn: str) -> Iterator[str]:
    """A fresh, empty schema name for one test; dropped afterwards."""
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    name = f"t_{uuid.uuid4().hex[:16]}"
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    """A new, empty store of each kind in turn (the contract suites run against all four)."""
    made = make_store(request.param, tmp_path, request)
    yield made
    close = getattr(made, "close", None)
    if close is not None:
        close()
