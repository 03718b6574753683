"""``correx-tools serve`` as a process: the line it prints, how it stops, and what it refuses.

Each test runs the real command. A server that starts prints one flushed line
with its address and token once it accepts connections, and stops with exit
status 0 and no traceback on SIGTERM or Ctrl-C. Everything wrong is one line on
stderr and exit status 1 before anything listens.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from correx_tools import SQLiteEventStore

from .serving import ROOT, Served, wait_for
from .strategies import completed, requested, started, stored


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-command") / "run.sqlite"
    with SQLiteEventStore(path) as written:
        written.import_events(stored([requested("a"), started("a"), completed("a")])).unwrap()
    return path


def run(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "correx_tools", "serve", *arguments],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_it_prints_its_address_then_stops_cleanly(store: Path, how: signal.Signals) -> None:
    served = Served(store)
    assert served.line == f"serving {store} at http://127.0.0.1:{served.port}/?token={served.token}"
    assert served.port and served.port > 0 and len(served.token or "") >= 32
    assert served.answer("/api/v1/sessions")["total"] == 1
    status, stderr = served.stop(how)
    assert status == 0 and stderr == ""
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", served.port), timeout=1).close()


def test_json_gives_the_address_as_a_document(store: Path) -> None:
    served = Served.__new__(Served)
    process = subprocess.Popen(
        [sys.executable, "-m", "correx_tools", "serve", str(store), "--port", "0", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert process.stdout is not None
    document = json.loads(process.stdout.readline())
    served.process = process
    assert document["source"] == str(store) and "?token=" in document["url"]
    assert document["url"].startswith(f"http://127.0.0.1:{document['port']}/")
    assert served.stop()[0] == 0


def test_open_hands_the_address_to_the_browser(store: Path, tmp_path: Path) -> None:
    # The standard library's webbrowser runs $BROWSER with the address for %s.
    opened = tmp_path / "opened.txt"
    browser = f"{sys.executable} -c \"import sys; open(sys.argv[1], 'w').write(sys.argv[2])\""
    served = Served(store, "--open", env={"BROWSER": f"{browser} {opened} %s"})
    try:
        wait_for(opened.exists)
        assert wait_for(opened.read_text) == served.url
    finally:
        assert served.stop()[0] == 0


def test_a_port_in_use_is_one_line(store: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = run(str(store), "--port", str(port))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"correx-tools serve: error: cannot listen on 127.0.0.1:{port}: the port is in use "
        "(another server?); pick another with --port, or --port 0 for any free one\n"
    )


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("missing.sqlite", "missing.sqlite: no such file"),
        (".", ".: a folder with no transcripts in it"),
        ("notes.txt", "notes.txt: neither an event store nor a transcript of a known format"),
    ],
)
def test_a_source_that_is_no_store_is_one_line(tmp_path: Path, source: str, words: str) -> None:
    (tmp_path / "notes.txt").write_text("just some words, not a database\n" * 100)
    done = subprocess.run(
        [sys.executable, "-m", "correx_tools", "serve", source, "--port", "0"],
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"correx-tools serve: error: {words}"), done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_no_token_is_refused_off_loopback(store: Path) -> None:
    done = run(str(store), "--host", "0.0.0.0", "--no-token", "--port", "0")
    assert done.returncode == 1
    assert "--no-token with --host 0.0.0.0" in done.stderr and "keep the token" in done.stderr


def test_no_token_on_loopback_serves_without_one(store: Path) -> None:
    served = Served(store, "--no-token")
    assert served.line == f"serving {store} at http://127.0.0.1:{served.port}/"
    assert served.get("/api/v1/sessions", token=False)[0] == 200
    assert served.stop()[0] == 0


def test_no_redact_warns_and_a_bad_pattern_is_one_line(store: Path) -> None:
    served = Served(store, "--no-redact")
    status, stderr = served.stop()
    assert status == 0 and "warning: --no-redact" in stderr
    done = run(str(store), "--redact", "(oops", "--port", "0")
    assert done.returncode == 1 and done.stderr.startswith(
        "correx-tools serve: error: --redact '(oops'"
    )


def test_without_the_extra_it_says_what_to_install(store: Path, tmp_path: Path) -> None:
    # A Python where Starlette cannot be imported, as when the extra is not installed.
    (tmp_path / "starlette").mkdir()
    (tmp_path / "starlette" / "__init__.py").write_text("raise ImportError('not installed')\n")
    done = run(str(store), env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"})
    assert done.returncode == 1
    assert done.stderr == (
        "correx-tools serve: error: serve needs its extra: pip install 'correx-tools[serve]'\n"
    )
