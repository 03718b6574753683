"""``correx-tools serve`` as a process: the line it prints, how it stops, and what it refuses.

Each test runs the real command. A server that starts prints one flushed line
with its link (a single-use code, never the token; ``--json`` adds the token)
once it accepts connections, and stops with exit status 0 and no traceback on
SIGTERM or Ctrl-C. Everything wrong is one line on
stderr and exit status 1 before anything listens.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
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
def test_it_prints_its_link_then_stops_cleanly(store: Path, how: signal.Signals) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "correx_tools", "serve", str(store), "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.fullmatch(
        rf"serving {re.escape(str(store))} at http://127\.0\.0\.1:(\d+)/#code=(\S+)\n", line
    )
    assert found, line
    port, code = int(found[1]), found[2]
    served = Served.__new__(Served)
    served.process, served.base, served.token = process, f"http://127.0.0.1:{port}", None
    # The line holds a single-use code, never the token: the page trades the code once.
    status, body, _ = served.post("/api/v1/credential", {"code": code})
    assert status == 200
    bearer = {"Authorization": f"Bearer {body['credential']}"}
    assert served.get("/api/v1/sessions", headers=bearer)[1]["total"] == 1
    status, stderr = served.stop(how)
    assert status == 0
    # A fresh link for another browser, the only line: loopback gives no warning.
    fresh = re.fullmatch(
        rf"correx-tools serve: the link was opened; to open the page in another browser: "
        rf"http://127\.0\.0\.1:{port}/#code=(\S+)\n",
        stderr,
    )
    assert fresh and fresh[1] != code, stderr
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_json_gives_the_link_and_the_token_for_scripts(store: Path) -> None:
    served = Served(store)
    try:
        document = served.document
        assert sorted(document) == ["port", "source", "token", "url"]
        assert document["source"] == str(store) and len(document["token"]) >= 32
        assert document["url"].startswith(f"http://127.0.0.1:{document['port']}/#code=")
        assert document["token"] not in document["url"]
        assert served.answer("/api/v1/sessions")["total"] == 1  # Authorization: Bearer TOKEN
    finally:
        assert served.stop() == (0, "")


def test_open_gives_the_browser_neither_the_code_nor_the_token(store: Path, tmp_path: Path) -> None:
    # The standard library's webbrowser runs $BROWSER with the address for %s; this browser
    # keeps its command line, the mode of the file it was given and what the file says.
    seen, browser = tmp_path / "seen.json", tmp_path / "browser.py"
    browser.write_text(
        "import json, os, sys, urllib.parse\n"
        "path = urllib.parse.urlsplit(sys.argv[2]).path\n"
        "json.dump({'argv': sys.argv, 'mode': os.stat(path).st_mode & 0o777,\n"
        "           'folder': os.stat(os.path.dirname(path)).st_mode & 0o777, 'path': path,\n"
        "           'text': open(path).read()}, open(sys.argv[1] + '.part', 'w'))\n"
        "os.replace(sys.argv[1] + '.part', sys.argv[1])\n"
    )
    served = Served(store, "--open", env={"BROWSER": f"{sys.executable} {browser} {seen} %s"})
    try:
        got = json.loads(wait_for(lambda: seen.exists() and seen.read_text()))
        code = served.url.rsplit("#code=", 1)[1]
        shown = " ".join(got["argv"])
        assert code not in shown and str(served.token) not in shown
        assert got["argv"][2].startswith("file://") and served.url in got["text"]
        assert (got["mode"], got["folder"]) == (0o600, 0o700)
        assert Path(got["path"]).exists()
        assert served.post("/api/v1/credential", {"code": code}, token=False)[0] == 200
        wait_for(lambda: not Path(got["path"]).exists())  # gone once the link was used
    finally:
        assert served.stop()[0] == 0


def test_open_with_no_browser_to_open_says_so(store: Path) -> None:
    # No display, and a browser that fails at once: the person is told to open the link.
    served = Served(store, "--open", env={"BROWSER": "false", "DISPLAY": "", "WAYLAND_DISPLAY": ""})
    try:
        assert served.process.stderr is not None
        said: list[str] = []
        reading = threading.Thread(target=lambda: said.append(served.process.stderr.readline()))
        reading.start()
        reading.join(60)
        assert said == [
            "correx-tools serve: no browser could be opened (no display, or none installed): "
            "open the link above in one\n"
        ]
    finally:
        assert served.stop()[0] == 0


def test_a_host_others_can_reach_is_warned_about(store: Path) -> None:
    served = Served(store, "--host", "0.0.0.0")
    try:
        assert served.answer("/api/v1/sessions")["total"] == 1
    finally:
        status, stderr = served.stop()
    assert status == 0
    assert stderr == (
        "correx-tools serve: warning: --host 0.0.0.0 listens on every address of this machine: "
        "anyone who can reach it may try, and the link, the token and every answer travel in "
        "clear (no TLS); any Host name is accepted, so only the token guards it\n"
    )


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
    assert served.document["url"] == f"http://127.0.0.1:{served.port}/"
    assert served.document["token"] is None
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
