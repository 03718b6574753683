"""A Claude Code projects folder of many sessions, generated: the many-sessions benchmark's
input and the tests' (small).

``write_folder(root, sessions=10_000)`` writes ``root/<project>/<session id>.jsonl`` files
laid out as Claude Code writes them under ``~/.claude/projects``: each session a prompt,
then turns of an assistant message (its model, id, request id and usage) with a tool call
(Bash, Read, Edit, Grep) and the user's tool result, one in twelve an error, one Bash in
nine exiting non-zero. Sessions are spread over ``projects`` projects, ``days`` days
(ending at ``end``) and ``models`` models, each a deterministic function of the seed, so
two runs write the same bytes. About 4 KB a session at the default size.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

MODELS = ("claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001",
          "claude-sonnet-4-20250514")  # fmt: skip
END = datetime(2026, 12, 1, tzinfo=UTC)
PROMPTS = ("fix the failing tests in {module}", "add a --json flag to {module}",
           "why does {module} hang on start", "refactor {module} into smaller functions",
           "the CI is red after my change to {module}")  # fmt: skip
MODULES = ("parser", "server", "cache", "cli", "store", "auth", "billing", "search")


@dataclass(frozen=True)
class Written:
    """What `write_folder` wrote: the files, and the totals a reader must find in them."""

    files: list[Path]
    sessions: int
    records: int
    bytes: int


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _session(rng: random.Random, number: int, *, cwd: str, start: datetime,
             models: tuple[str, ...], turns: int) -> list[dict[str, Any]]:  # fmt: skip
    session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    model = models[number % len(models)]
    common = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": session_id,
              "version": "2.1.38", "gitBranch": "main"}  # fmt: skip
    at = start
    parent: str | None = None
    records: list[dict[str, Any]] = []

    def record(kind: str, **fields: Any) -> str:
        nonlocal parent
        own = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        records.append({"parentUuid": parent, **common, "type": kind, **fields, "uuid": own,
                        "timestamp": _stamp(at)})  # fmt: skip
        parent = own
        return own

    module = MODULES[rng.randrange(len(MODULES))]
    record("user", message={"role": "user",
                            "content": PROMPTS[number % len(PROMPTS)].format(module=module)})  # fmt: skip
    for turn in range(turns):
        at += timedelta(seconds=rng.randint(2, 40))
        call = f"toolu_{rng.getrandbits(64):016x}"
        tool, tool_input = _call(rng, turn, module)
        usage = {"input_tokens": rng.randint(1, 9), "output_tokens": rng.randint(20, 900),
                 "cache_creation_input_tokens": rng.randint(0, 4_000),
                 "cache_read_input_tokens": rng.randint(5_000, 60_000)}  # fmt: skip
        content: list[dict[str, Any]] = [
            {"type": "text", "text": f"Looking at {module} (step {turn + 1})."},
            {"type": "tool_use", "id": call, "name": tool, "input": tool_input},
        ]
        assistant = record(
            "assistant",
            message={"model": model, "id": f"msg_{rng.getrandbits(80):020x}", "type": "message",
                     "role": "assistant", "content": content, "stop_reason": "tool_use",
                     "usage": usage},
            requestId=f"req_{rng.getrandbits(80):020x}",
        )  # fmt: skip
        at += timedelta(seconds=rng.randint(1, 20))
        failed = rng.randrange(12) == 0
        exit_code = 1 if tool == "Bash" and rng.randrange(9) == 0 else 0
        output = f"Exit code {exit_code}\nok {turn}" if exit_code else f"done {turn}\n" * 3
        record(
            "user",
            message={"role": "user", "content": [
                {"tool_use_id": call, "type": "tool_result", "content": output,
                 "is_error": failed or bool(exit_code)}]},
            toolUseResult={"stdout": output, "stderr": "", "interrupted": False},
            sourceToolAssistantUUID=assistant,
        )  # fmt: skip
    return records


def _call(rng: random.Random, turn: int, module: str) -> tuple[str, dict[str, Any]]:
    match turn % 4:
        case 0:
            return "Read", {"file_path": f"/src/{module}/main.py"}
        case 1:
            return "Grep", {"pattern": f"def {module}_", "path": "/src"}
        case 2:
            return "Edit", {"file_path": f"/src/{module}/main.py", "old_string": "a = 1",
                            "new_string": f"a = {turn}"}  # fmt: skip
        case _:
            return "Bash", {"command": f"pytest tests/test_{module}.py -q", "description": "tests"}


def write_folder(root: Path, sessions: int = 10_000, *, projects: int = 25, days: int = 60,
                 models: int = 4, turns: int = 4, seed: int = 7,
                 end: datetime = END) -> Written:  # fmt: skip
    """Write ``sessions`` Claude Code sessions under ``root`` (one folder a project)."""
    rng = random.Random(seed)
    chosen = MODELS[: max(1, min(models, len(MODELS)))]
    files: list[Path] = []
    records = size = 0
    for number in range(sessions):
        project = number % projects
        cwd = f"/home/dev/work/project-{project:03d}"
        folder = root / cwd.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        start = end - timedelta(days=rng.randrange(days), seconds=rng.randrange(86_400))
        written = _session(rng, number, cwd=cwd, start=start, models=chosen, turns=turns)
        path = folder / f"{written[0]['sessionId']}.jsonl"
        text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in written)
        path.write_text(text, encoding="utf-8")
        files.append(path)
        records += len(written)
        size += len(text.encode("utf-8"))
    return Written(files, sessions, records, size)


def main() -> None:
    """``python -m benchmarks.claude_folder DIR [--sessions N]``: write a folder to try."""
    import argparse  # noqa: PLC0415 - the script's own

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--projects", type=int, default=6)
    parser.add_argument("--days", type=int, default=21)
    args = parser.parse_args()
    done = write_folder(args.folder, args.sessions, projects=args.projects, days=args.days)
    print(f"wrote {done.sessions:,} sessions ({done.bytes / 1e6:.1f} MB) under {args.folder}")


if __name__ == "__main__":
    main()
