"""A model's text built to make a pattern backtrack costs time linear in its size.

Each reader matches patterns over what the model wrote (a Cline message's tags and
``<thinking>``, an Aider history's lines). Python's patterns backtrack: 80 KB of unclosed
``<thinking>`` took a Cline import 4 s, and the time grew with the square of the size. The
readers use RE2 now (``tests/test_architecture.py`` keeps `re` away from them), and these
tests hold a real sample given 64 KB and then 256 KB of such text to linear growth
(`growth.grows_linearly`, in CPU time: a busy machine cannot fail it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from returns.result import Success

from correx_tools import InMemoryEventStore
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .growth import grows_linearly
from .transcript_samples import DATA

SMALL, LARGE = 64 * 1024, 256 * 1024
CLINE = DATA / "cline" / "tasks" / "1763448130251" / "api_conversation_history.json"
AIDER = DATA / "aider" / "synth" / ".aider.chat.history.md"


def imported(path: Path) -> Callable[[], object]:
    def run() -> None:
        done = import_transcripts(path, InMemoryEventStore())
        assert all(isinstance(one, Success) for one in done) and done

    return run


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


def test_unclosed_thinking_and_tool_tags_in_a_cline_message(tmp_path: Path) -> None:
    for name, unit in (("thinking", "<thinking>"), ("tags", "<read_file>"),
                       ("cwd", "# Current Working Directory (")):  # fmt: skip

        def hostile(size: int, name: str = name, unit: str = unit) -> Callable[[], object]:
            text = unit * (size // len(unit))
            return imported(cline_with(tmp_path, f"{name}-{size}", text))

        grows_linearly(hostile, SMALL, LARGE)


def test_a_run_prompt_line_of_spaces_in_an_aider_history(tmp_path: Path) -> None:
    lines = AIDER.read_text(encoding="utf-8")

    def aider_with(size: int) -> Callable[[], object]:
        folder = tmp_path / str(size)
        folder.mkdir()
        path = folder / AIDER.name
        path.write_text(f"{lines}\n> Run shell command? :{' ' * size}a b\n", encoding="utf-8")
        return imported(path)

    grows_linearly(aider_with, SMALL, LARGE)
