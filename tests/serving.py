"""Running ``correx-tools serve`` for the tests: a real process on loopback, and a client.

`Served` starts the command as a subprocess on a free port with ``--json``, waits
for the document it prints once it accepts connections, and asks it questions
over HTTP with the token (``Authorization: Bearer``), as a script would; `link`
gives an address a browser opens, with a fresh single-use code. Stopping it
sends SIGTERM and checks it stopped cleanly: exit status 0 and no traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from .commands import correx
from .copies import copy_of

ROOT = Path(__file__).resolve().parent.parent
_LIMITED = (
    "import resource, runpy, sys\n"
    "resource.setrlimit(resource.RLIMIT_NOFILE, (int(sys.argv[1]), int(sys.argv[2])))\n"
    "sys.argv = ['correx-tools', *sys.argv[3:]]\n"
    "runpy.run_module('correx_tools', run_name='__main__', alter_sys=True)\n"
)
"""The command, run with a limit on open files set before it starts (soft, hard: its first
two arguments)."""


class Served:
    """One ``correx-tools serve --json`` process and what it printed.

    ``open_files`` sets the process's (soft, hard) limit on open files before it starts."""

    def __init__(
        self,
        source: str | Path,
        *options: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        open_files: tuple[int, int] | None = None,
    ) -> None:
        start = (
            ["-m", "correx_tools"]
            if open_files is None
            else ["-c", _LIMITED, *map(str, open_files)]
        )
        self.process = subprocess.Popen(
            [sys.executable, *start, "serve", str(source), "--port", "0", "--json", *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        )
        assert self.process.stdout is not None
        self.line = self.process.stdout.readline().strip()
        if not self.line.startswith("{"):
            self.process.kill()
            _, stderr = self.process.communicate(timeout=10)
            raise AssertionError(f"the server did not start: {self.line!r} {stderr!r}")
        self.document: dict[str, Any] = json.loads(self.line)
        self.url: str = self.document["url"]
        parsed = urllib.parse.urlsplit(self.url)
        self.base = f"{parsed.scheme}://{parsed.netloc}"
        self.port = parsed.port
        self.token: str | None = self.document["token"]

    def cpu_seconds(self) -> float:
        """The CPU time the server's process has taken so far (user and system, from
        ``/proc``): what it spent on the requests, whatever else the machine runs."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def link(self, path: str = "/") -> str:
        """The address of ``path`` with a fresh single-use code, as a browser opens it."""
        if self.token is None:
            return self.base + path
        status, body, _ = self.post("/api/v1/codes", None)
        assert status == 200, body
        return f"{self.base}{path}#code={body['code']}"

    def post(
        self,
        path: str,
        document: object,
        *,
        headers: dict[str, str] | None = None,
        token: bool = True,
    ) -> tuple[int, Any, dict[str, str]]:
        """``(status, body, headers)`` of a POST of ``document`` as JSON."""
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token and self.token:
            sent.setdefault("Authorization", f"Bearer {self.token}")
        data = b"" if document is None else json.dumps(document).encode()
        request = urllib.request.Request(self.base + path, data=data, headers=sent, method="POST")
        return _sent(request)  # fmt: skip

    def get(
        self,
        path: str,
        params: dict[str, object] | None = None,
        *,
        headers: dict[str, str] | None = None,
        token: bool = True,
    ) -> tuple[int, Any, dict[str, str]]:
        """``(status, body, headers)`` of a GET; the body parsed as JSON when it is JSON."""
        query = "" if not params else "?" + urllib.parse.urlencode(params)
        sent = dict(headers or {})
        if token and self.token:
            sent.setdefault("Authorization", f"Bearer {self.token}")
        request = urllib.request.Request(self.base + path + query, headers=sent)
        return _sent(request)

    def answer(self, path: str, **params: object) -> Any:
        """The JSON of a question that must succeed."""
        status, body, _ = self.get(path, params or None)
        assert status == 200, (path, params, status, body)
        return body

    def every_match(self, path: str, **params: object) -> list[Any]:
        """Every match of a search (``/api/v1/search`` or a session's), page after page: a
        page holds what was found within its time budget, so where one page ends depends
        on the machine's load, and only the whole answer does not."""
        matches: list[Any] = []
        after: object = params.pop("after", None)
        while True:
            page = self.answer(path, **params, **({} if after is None else {"after": after}))
            matches += page["matches"]
            after = page["next"]
            if after is None:
                return matches

    def stop(self, how: int = signal.SIGTERM) -> tuple[int, str]:
        """Stop it with ``how``; its exit status and what it wrote on stderr."""
        if self.process.poll() is None:
            self.process.send_signal(how)
        try:
            _, stderr = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate()
            raise AssertionError(f"the server did not stop on signal {how}: {stderr}") from None
        assert "Traceback" not in stderr, stderr
        return self.process.returncode, stderr


def _sent(request: urllib.request.Request) -> tuple[int, Any, dict[str, str]]:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            status, body, got = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        status, body, got = error.code, error.read(), dict(error.headers)
    if got.get("content-type", "").startswith("application/json"):
        return status, json.loads(body), got
    return status, body.decode("utf-8", "replace"), got


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def demo_store(directory: Path, sessions: int, invocations: int) -> Path:
    """What ``correx-tools demo`` writes, as ``directory/demo.sqlite``: the generated
    sessions and the real transcript (each size written once in a process, then copied)."""

    def demo(path: Path) -> None:
        correx("demo", "--db", path.name, "--sessions", str(sessions),
               "--invocations", str(invocations), cwd=path.parent, check=True)  # fmt: skip

    return copy_of(f"demo {sessions} x {invocations}", demo, directory / "demo.sqlite")


def wait_for(check: Any, timeout: float = 10.0, every: float = 0.05) -> Any:
    """Poll ``check()`` until it gives something true (or fail after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {check}")
        time.sleep(every)
