"""Secrets planted in a real Claude Code transcript: one of each kind the masking must know.

`planted_transcript` copies the real Claude Code sample (its provenance is in
``data/transcripts/claude-code/PROVENANCE.txt``) and adds calls an agent makes
every day — ``Write`` a key file, ``Edit`` an ``.env``, ``Bash`` with a token in
its command or its output — each carrying a secret. `LEAKS` are the strings no
view may show: the secrets themselves, or, where a secret is short, the secret
with the name before it (``password=ox9``). `KEPT` are strings around them that
every view keeps, so that a test also sees the masking did not take everything.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.masking import ordinary

from .transcript_samples import DATA

SOURCE = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
SESSION = "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"

RSA_BODY = "MIIEowIBAAKCAQEAv3Zq8Lk2Jf9XwT0aHn4mPe7sY1cR5dUb6oGiKjQlMnVpWx"
RSA_KEY = (
    f"-----BEGIN RSA PRIVATE KEY-----\n{RSA_BODY}\n{RSA_BODY[::-1]}\n"
    "-----END RSA PRIVATE KEY-----\n"
)
PGP_BODY = "lQOYBGX0aBcBCAC7vXq9RmT2kP4sLw8nYh3jZc6uDf1eGb5oQiNa0MtKrSxVy"
PGP_KEY = (
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
    f"{PGP_BODY}\n{PGP_BODY[::-1]}\n=Xq7Z\n-----END PGP PRIVATE KEY BLOCK-----\n"
)
PUTTY_PRIVATE = "AAAAIFf8qZ0xT2rkWm9LpVb3Nc7Hd5Js1Gy4Ke6Ra8Ut0Oi"
PUTTY_KEY = (
    "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@ci\n"
    "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIHq7m0Lw2Zx\nPx9Kf3Ts8Vb1Nc5Rd\n"
    f"Private-Lines: 1\n{PUTTY_PRIVATE}\nPrivate-MAC: 5e7b0c1d9a3f2e8b4c6d\n"
)
ENV_FILE = (
    "DB_PASS=Tr0ub4dor3x\nMYSQL_PWD=zebra42\nJWT_SIGNING_KEY=jwt-sapphire\n"
    "ENCRYPTION_KEY=enc-marigold-77\nAUTH=letmein-otter\n"
)
SLACK_HOOK = "https://hooks.slack.com/services/T024BE7LD/B02K9EXAMPLE/Xk9fP2mQ7vLs4Rt8Wn3YhJ6a"
AWS_ID, AWS_SECRET = "AKIAZ3MXQ7EXAMPLE4QP", "Hx8vR2mK9pLq3TzW7nYb5cFd1gJs6uAe0iOk4Wy+"
ANTHROPIC = "sk-ant-api03-" + "Lq2w" * 10
GITHUB = "ghp_" + "Xq7Lm2Zp9Kd4Wv8Rt3Ny6Bc1Fh5Js0Ga2Ue7"
CUT_AT = 200_000
"""Where the terminal view cuts a shell call's output: a token is planted across it."""

LEAKS = {
    "RSA private key body (Write)": RSA_BODY,
    "PGP private key body (Write)": PGP_BODY,
    "PuTTY private key (Write)": PUTTY_PRIVATE,
    "DB_PASS= (Edit)": "Tr0ub4dor3x",
    "MYSQL_PWD= (Edit)": "MYSQL_PWD=zebra42",
    "JWT_SIGNING_KEY= (Edit)": "jwt-sapphire",
    "ENCRYPTION_KEY= (Edit)": "enc-marigold-77",
    "AUTH= (Edit)": "letmein-otter",
    "private key in an Edit's new text": RSA_BODY[::-1],
    "short Bearer credential": "Bearer q7Zk",
    "short password= value": "password=ox9",
    "Slack webhook URL": "Xk9fP2mQ7vLs4Rt8Wn3YhJ6a",
    "AWS access key id": AWS_ID,
    "bare AWS secret key next to its id": AWS_SECRET,
    "JSON password member in a log line": '"password": "x"',
    "JSON auth member in a log line": "basic-otter-99",
    "Anthropic key in a command": ANTHROPIC,
    "GitHub token across the terminal view's cut": GITHUB[:12],
}
KEPT = ["DB_PASS=", "MYSQL_PWD=", "Authorization: Bearer", "/w/keys/id_rsa", "curl -X POST"]


AGENT_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"
"""The agent's own session id in the sample: `SESSION` is it with the subagent's name."""


def _record(kind: str, at: str, content: list[dict[str, Any]], number: int, session: str) -> str:
    base = {
        "sessionId": session,
        "cwd": "/w",
        "version": "2.1.39",
        "isSidechain": True,
        "agentId": "a2898e3",
        "uuid": f"planted-{number}",
    }
    message = {"role": "assistant" if kind == "assistant" else "user", "content": content}
    return json.dumps({**base, "type": kind, "timestamp": at, "message": message})


def calls() -> list[tuple[str, dict[str, Any], str]]:
    """Each planted call: its tool, its input and what it gave back."""
    long_output = "." * (CUT_AT - 16) + GITHUB + "\n"  # ghp_ and 12 characters before the cut
    return [
        ("Write", {"file_path": "/w/keys/id_rsa", "content": RSA_KEY}, "File created"),
        ("Write", {"file_path": "/w/keys/pgp.asc", "content": PGP_KEY}, "File created"),
        ("Write", {"file_path": "/w/keys/deploy.ppk", "content": PUTTY_KEY}, "File created"),
        ("Edit", {"file_path": "/w/.env", "old_string": "DB_PASS=\n", "new_string": ENV_FILE},
         "The file /w/.env has been updated."),
        ("Edit", {"file_path": "/w/keys/old", "old_string": "KEY\n", "new_string": RSA_KEY},
         "The file /w/keys/old has been updated."),
        ("Bash", {"command": "curl -sH 'Authorization: Bearer q7Zk' https://api.example.com/me"},
         '{"id": 7, "name": "me"}'),
        ("Bash", {"command": "mysql --password=ox9 -u root -e 'select 1'"}, "1\n1"),
        ("Bash", {"command": f"curl -X POST -d '{{\"text\":\"hi\"}}' {SLACK_HOOK}"}, "ok"),
        ("Bash", {"command": "cat ~/Downloads/new_user_credentials.csv"},
         f"User name,Access key ID,Secret access key\ndeploy,{AWS_ID},{AWS_SECRET}\n"),
        ("Bash", {"command": "tail -n 2 logs/app.log"},
         '2026-02-12T16:10:01Z POST /login body={"password": "x", "user": "me"}\n'
         '2026-02-12T16:10:02Z upstream {"auth": "basic-otter-99"} ok\n'),
        ("Bash", {"command": f"ANTHROPIC_API_KEY={ANTHROPIC} claude -p hi"}, "hi"),
        ("Bash", {"command": "python gen.py"}, long_output),
    ]  # fmt: skip


def planted_transcript(folder: Path) -> Path:
    """The real transcript with the planted calls added at its end, in ``folder``."""
    return transcript_with(folder, calls())


def transcript_with(
    folder: Path,
    added: list[tuple[str, dict[str, Any], str]],
    *,
    session: str = AGENT_SESSION,
    name: str = SOURCE.name,
) -> Path:
    """The real transcript with ``added`` calls (tool, input, output) at its end, as
    ``folder/name``; its session id made ``session`` (the session is then ``session``
    with the subagent's name, ``/agent-a2898e3``)."""
    path = folder / name
    text = SOURCE.read_text(encoding="utf-8")
    path.write_text(text.replace(AGENT_SESSION, session), encoding="utf-8")
    lines = []
    for n, (tool, arguments, output) in enumerate(added):
        use = {"type": "tool_use", "id": f"toolu_planted{n:02d}", "name": tool, "input": arguments}
        result = {"type": "tool_result", "tool_use_id": f"toolu_planted{n:02d}", "content": output}
        at = f"2026-02-12T17:00:{n:02d}"
        lines.append(_record("assistant", f"{at}.000Z", [use], 2 * n, session))
        lines.append(_record("user", f"{at}.500Z", [result], 2 * n + 1, session))
    with path.open("a", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


def leaked(text: str) -> list[str]:
    """The kinds of planted secret ``text`` shows, as they are or escaped as in JSON."""
    return [kind for kind, leak in LEAKS.items() if leak in text or json.dumps(leak)[1:-1] in text]


def ordinary_text(size: int) -> str:
    """``size`` characters of what the real sample's tools gave back (files read, listings,
    command output), repeated: ordinary text to measure hostile text against (the masking
    benchmark's own, over the same sample)."""
    return ordinary(size)
