"""libpq's own ways to give the team's store a password and to ask for TLS work as they do
for ``psql``: ``PGPASSWORD``, a password file, a service file, ``sslmode`` (issue 56).

A server of the test's own asks the user for a password (SCRAM) over TLS only, as a
team's server would; the tests' shared server trusts loopback, so it could not tell.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .commands import correx
from .teams import machine_folder

psycopg = pytest.importorskip("psycopg")

PASSWORD = "s3cret-for-anna"


def _own(path: Path) -> None:
    """A file the server reads: the server's user's, as it runs as that user under root."""
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


@pytest.fixture
def guarded(own_server: tuple[str, str]) -> str:
    """The URL of ``anna``, a pushing role, on a server that wants her password, over TLS
    only (no password in it)."""
    dsn, directory = own_server
    data = Path(directory) / "data"
    key, certificate = data / "server.key", data / "server.crt"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=127.0.0.1", "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True,
    )  # fmt: skip
    key.chmod(0o600)
    (data / "pg_hba.conf").write_text(
        "local all all trust\n"
        "host all postgres 127.0.0.1/32 trust\n"
        "hostssl all anna 127.0.0.1/32 scram-sha-256\n"
        "hostnossl all anna 127.0.0.1/32 reject\n"
    )
    for path in (key, certificate, data / "pg_hba.conf"):
        _own(path)
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE anna LOGIN PASSWORD '{PASSWORD}'")
        admin.execute("ALTER SYSTEM SET ssl = on")
        admin.execute("SELECT pg_reload_conf()")
    correx("init-db", dsn, "--pusher", "anna", "--reader", "anna", check=True)
    return dsn.replace("postgres@", "anna@")


def test_without_a_password_the_server_refuses_in_one_line(tmp_path: Path, guarded: str) -> None:
    ran = correx("push", str(machine_folder(tmp_path / "m")), "--to", guarded + "?sslmode=require",
                 env={"PGPASSWORD": None, "PGPASSFILE": str(tmp_path / "none")})  # fmt: skip
    assert ran.returncode == 1 and len(ran.stderr.splitlines()) == 1, ran.stderr
    assert "password" in ran.stderr


def test_pgpassword_gives_the_password(tmp_path: Path, guarded: str) -> None:
    ran = correx("push", str(machine_folder(tmp_path / "m")), "--to", guarded + "?sslmode=require",
                 "--machine", "m", env={"PGPASSWORD": PASSWORD})  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert PASSWORD not in ran.stdout + ran.stderr


def test_a_password_file_gives_it(tmp_path: Path, guarded: str) -> None:
    passwords = tmp_path / "pgpass"
    passwords.write_text(f"127.0.0.1:*:*:anna:{PASSWORD}\n")
    passwords.chmod(0o600)
    env = {"PGPASSWORD": None, "PGPASSFILE": str(passwords)}
    folder = machine_folder(tmp_path / "m")
    ran = correx("push", str(folder), "--to", guarded + "?sslmode=require", "--machine", "m",
                 env=env)  # fmt: skip
    assert ran.returncode == 0, ran.stderr


def test_a_service_file_gives_everything_and_sslmode_is_kept(tmp_path: Path, guarded: str) -> None:
    from psycopg.conninfo import conninfo_to_dict  # noqa: PLC0415

    params = conninfo_to_dict(guarded)
    services = tmp_path / "pg_service.conf"
    services.write_text(
        f"[team]\nhost={params['host']}\nport={params['port']}\ndbname=postgres\nuser=anna\n"
        f"password={PASSWORD}\nsslmode=require\n"
    )
    env = {"PGSERVICEFILE": str(services), "PGPASSWORD": None}
    folder = machine_folder(tmp_path / "m")
    ran = correx("push", str(folder), "--to", "postgresql://?service=team", "--machine", "m",
                 "--json", env=env)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert PASSWORD not in ran.stdout
    listed = correx("sessions", "postgresql://?service=team", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    # The server refuses anna without TLS: sslmode=disable in the URL wins over the file.
    plain = correx("sessions", "postgresql://?service=team&sslmode=disable", env=env)
    assert plain.returncode == 1 and len(plain.stderr.splitlines()) == 1
    assert PASSWORD not in plain.stderr
