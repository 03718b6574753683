"""A model's text built to make a pattern backtrack costs what ordinary text of its size costs.

Each reader matches patterns over what the model wrote (a Cline message's tags and
``<thinking>``, an Aider history's lines). Python's patterns backtrack: 80 KB of unclosed
``<thinking>`` took a Cline import 4 s, and the time grew with the square of the size. The
readers use RE2 now (``tests/test_architecture.py`` keeps `re` away from them), and these
tests hold a real sample, given 256 KB of such text, to a small multiple of the same sample
given 256 KB of ordinary text: a quadratic reader is hundreds of times slower.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from returns.result import Success

from correx_tools import InMemoryEventStore
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .transcript_samples import DATA

SIZE = 256 * 1024
CLINE = DATA / "cline" / "tasks" / "1763448130251" / "api_conversation_history.json"
AIDER = DATA / "aider" / "synth" / ".aider.chat.history.md"


def cost(path: Path) -> float:
    """The least of three imports' times, in seconds."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        imported = import_transcripts(path, InMemoryEventStore())
        assert all(isinstance(one, Success) for one in imported) and imported
        times.append(time.perf_counter() - started)
    return min(times)


def cline_with(tmp_path: Path, name: str, text: str) -> Path:
    """The real Cline task, its second message's text preceded by ``text``."""
    messages = json.loads(CLINE.read_text(encoding="utf-8"))
    block = messages[1]["content"][0]
    block["text"] = text + block["text"]
    folder = tmp_path / name
    folder.mkdir()
    path = folder / CLINE.name
    path.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
    return path


def hostile_against_ordinary(make: Callable[[str, str], Path], hostile: str) -> float:
    ordinary = make("ordinary", ("lorem ipsum dolor sit amet " * SIZE)[: len(hostile)])
    return cost(make("hostile", hostile)) / max(cost(ordinary), 1e-3)


def test_unclosed_thinking_and_tool_tags_in_a_cline_message(tmp_path: Path) -> None:
    for name, unit in (("thinking", "<thinking>"), ("tags", "<read_file>"),
                       ("cwd", "# Current Working Directory (")):  # fmt: skip
        hostile = unit * (SIZE // len(unit))
        ratio = hostile_against_ordinary(
            lambda kind, text, name=name: cline_with(tmp_path, f"{name}-{kind}", text), hostile
        )
        assert ratio < 5, (name, ratio)


def test_a_run_prompt_line_of_spaces_in_an_aider_history(tmp_path: Path) -> None:
    lines = AIDER.read_text(encoding="utf-8")

    def aider_with(kind: str, text: str) -> Path:
        folder = tmp_path / kind
        folder.mkdir()
        path = folder / AIDER.name
        path.write_text(f"{lines}\n> Run shell command? :{text}a b\n", encoding="utf-8")
        return path

    assert hostile_against_ordinary(aider_with, " " * SIZE) < 5
