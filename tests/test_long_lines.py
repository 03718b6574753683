"""A transcript's long strings are cut out of its text before it is parsed, each held as a
`LongText`: the import gives what reading the whole text gives, and costs a few megabytes.

The trimmed read is held to the whole one three ways: a drawn JSON Lines text, trimmed
with the lengths lowered so that every drawn string may be long, restores to the values
the text holds; every sample transcript, its longest string grown past what an event
holds, imports to the same events either way; and (slow) auditing a transcript with an
output of 100 MB, or serving one of 50 MB, stays within the 200 MB the issue sets, where
the whole read took 432 MB and 378 MB.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from correx_tools import InMemoryEventStore
from correx_tools.shell.stores.codec.strict_json import EnvelopeError, loads_strict
from correx_tools.shell.transcripts import recognising
from correx_tools.shell.transcripts.common import long_text, sealing, string_pieces, trimming
from correx_tools.shell.transcripts.common.lines import loads_cut
from correx_tools.shell.transcripts.common.long_text import LongText, Untrimmable
from correx_tools.shell.transcripts.common.trimming import BytesSource, trimmed
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .hostile_calls import WORKSPACE
from .recorded_samples import grown
from .serving import Served
from .transcript_samples import DATA

SHORT = 8
"""The characters kept of a long string in the drawn texts (1 MiB in use)."""

_KEYS = st.text(max_size=4)
_STRINGS = st.text(max_size=3 * SHORT)  # lone surrogates too: written escaped
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _STRINGS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=10,
)
_NOISE = st.sampled_from(['{"a": "' + "x" * 20, '"' + "y" * 30, "]", '{"a":1,"a":2}', "NaN"])


def _short_kept(patch: pytest.MonkeyPatch) -> None:
    """Strings longer than `SHORT` characters held as long texts, read in blocks and
    decoded in pieces of a few bytes, so that each boundary falls inside drawn strings."""
    for module in (long_text, trimming, string_pieces):
        patch.setattr(module, "KEPT", SHORT)
    patch.setattr(trimming, "_BLOCK", 5)
    patch.setattr(string_pieces, "_PIECE", 3)


def _whole(value: Any) -> Any:
    """``value`` with each long text in it read whole (and checked against its counts)."""
    if isinstance(value, LongText):
        text = "".join(value.pieces())
        assert len(text) == len(value) > SHORT
        assert str.__str__(value) == text[:SHORT]
        assert value.size == len(text.encode("utf-8", "surrogatepass"))
        return text
    if isinstance(value, dict):
        return {key: _whole(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_whole(inner) for inner in value]
    return value


def _outcome(read: Any) -> tuple[str, Any]:
    try:
        return "value", _whole(read())
    except EnvelopeError:
        return "refused", None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_VALUES, st.booleans()) | _NOISE, min_size=1, max_size=6), st.booleans())
def test_a_trimmed_text_restores_to_the_values_the_text_holds(
    lines: list[tuple[Any, bool] | str], crlf: bool
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        _short_kept(patch)
        _restores(lines, crlf)


def _restores(lines: list[tuple[Any, bool] | str], crlf: bool) -> None:
    written = [
        line if isinstance(line, str) else json.dumps(line[0], ensure_ascii=line[1] or None)
        for line in lines
    ]
    try:
        data = ("\r\n" if crlf else "\n").join(written).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate written raw: no UTF-8 file holds one
        return
    cut = trimmed(BytesSource(data))
    well_formed = all(not isinstance(line, str) for line in lines)
    if cut is None:  # a long string it could not cut safely: only in a damaged text
        assert not well_formed
        return
    text = cut.data.decode("utf-8")
    assert text.count("\n") == len(written) - 1  # no line joined to another, none split
    start = 0
    for original in data.decode("utf-8").split("\n"):
        stop = text.index("\n", start) if "\n" in text[start:] else len(text)
        try:
            restored = _outcome(partial(loads_cut, text, start, stop, cut))
        except Untrimmable:  # a damaged line around a long string: the file is read whole
            assert cut.holds_cut(text, start, stop)
        else:
            assert restored == _outcome(partial(loads_strict, original))
        start = stop + 1


def _files() -> Iterator[Path]:
    """Every sample transcript written as JSON text (not a database, not Markdown)."""
    for path in sorted(DATA.rglob("*")):
        if path.suffix in (".json", ".jsonl", ".traj") and not path.name.endswith("expected.json"):
            yield path


def _longest(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[int, tuple[Any, ...]]]:
    if isinstance(value, str):
        yield len(value), path
    elif isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, inner in items:
            yield from _longest(inner, (*path, key))


def _grown(source: Path, folder: Path) -> Path:
    """A copy of ``source`` (with the files beside it) whose longest string is grown past
    what an event holds."""
    shutil.copytree(source.parent, folder)
    text = source.read_text(encoding="utf-8")
    lines = source.suffix == ".jsonl"
    values = [json.loads(line) for line in text.splitlines()] if lines else [json.loads(text)]
    _, path = max(_longest(values))
    place: Any = values
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = grown(place[path[-1]])
    written = [json.dumps(value, ensure_ascii=False) for value in values]
    copy = folder / source.name
    copy.write_text("\n".join(written) + "\n" if lines else written[0], encoding="utf-8")
    return copy


def _imported(path: Path) -> list[object]:
    store = InMemoryEventStore()
    found: list[object] = []
    for result in import_transcripts(path, store):
        if isinstance(result, Success):
            found.append([stored.event for stored in store.read(result.unwrap().session_id)])
        else:
            found.append(str(result.failure()))
    return found


@pytest.mark.parametrize("source", list(_files()), ids=lambda path: path.name)
def test_a_sample_with_a_long_string_imports_as_its_whole_text_does(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _grown(source, tmp_path / "sample")
    trimmed_events = _imported(path)
    monkeypatch.setattr(trimming, "trimmed", lambda source: None)
    assert trimmed_events == _imported(path)


@pytest.mark.parametrize("kept", [30, 300])
def test_every_sample_read_with_few_characters_kept_is_the_sample_read_whole(kept: int) -> None:
    # Nearly every string past a few hundred characters held as a long text: a reader that
    # derived a value from a long text's first characters alone would differ here.
    read_trimmed = []
    for path in _files():
        with pytest.MonkeyPatch.context() as patch:
            for module in (long_text, trimming, string_pieces, recognising):
                patch.setattr(module, "KEPT", kept)
            patch.setattr(long_text, "_LOOKED_AT", kept // 2)
            patch.setattr(trimming, "_BLOCK", 7)
            patch.setattr(string_pieces, "_PIECE", 5)
            sealed = sealing.sealed
            patch.setattr(sealing, "sealed", _counting(sealed, read_trimmed, path.name))
            trimmed_read = _loaded(path)
            patch.setattr(trimming, "trimmed", lambda source: None)
            assert trimmed_read == _loaded(path), path.name
    assert len(read_trimmed) >= 3, read_trimmed  # not every sample sent back to the whole


def _loaded(path: Path) -> object:
    try:
        return recognising.load(path, "auto", path.stem)
    except Exception as error:  # the same refusal either way
        return f"{type(error).__name__}: {error}"


def test_a_claude_code_transcript_with_a_long_output_is_read_trimmed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _grown(DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl", tmp_path / "s")
    whole = []
    monkeypatch.setattr(recognising, "_parse", _counting(recognising._parse, whole))
    assert all(isinstance(found, list) for found in _imported(path))
    assert whole == [True]  # read once, trimmed; not read again whole


def _counting(function: Any, calls: list[Any], note: Any = None) -> Any:
    """``function``, noting each call in ``calls``: ``note``, or whether it was given a cut
    (``_parse``'s fifth argument)."""

    def counted(*args: Any) -> Any:
        calls.append(note if note is not None else len(args) == 5 and args[4] is not None)
        return function(*args)

    return counted


def _huge_transcript(path: Path, megabytes: int) -> None:
    """A Claude Code session at ``path``: a denied command, then one whose output is
    ``megabytes`` MB."""
    base = {"sessionId": "huge", "cwd": WORKSPACE, "version": "2.1.38"}
    output = "line of output 0123456789 abcdefghij é\n" * (megabytes * 1_000_000 // 40)
    records = [{**base, "type": "user", "uuid": "p", "timestamp": "2026-11-20T10:00:00Z",
                "message": {"role": "user", "content": "look"}}]  # fmt: skip
    for n, (command, result) in enumerate((("rm -rf /", "done"), ("cat big.log", output))):
        use, at = f"toolu_{n}", f"2026-11-20T10:00:0{n + 1}Z"
        records.append(
            {
                **base,
                "type": "assistant",
                "uuid": f"a{n}",
                "timestamp": at,
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": use,
                            "name": "Bash",
                            "input": {"command": command},
                        }
                    ],
                },
            }
        )
        records.append({**base, "type": "user", "uuid": f"r{n}", "timestamp": at,
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use, "content": result}]}})  # fmt: skip
    with path.open("w", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps(record) + "\n")
    del records, output


@pytest.mark.slow
def test_auditing_an_output_of_100_mb_stays_within_200_mb(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    _huge_transcript(path, 100)
    launched = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, sys.executable, "-m", "correx_tools", "audit",
         str(path), "--json", "--no-cache"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    status, peak = launched.stdout.split()
    assert status == "1"  # rm -rf / found
    assert int(peak) / 1024 <= 200  # 432 MB when the file and its output were held whole


@pytest.mark.slow
def test_serving_an_output_of_50_mb_stays_within_200_mb(tmp_path: Path) -> None:
    # The issue measured 378 MB: the transcript's output held whole, then its views.
    folder = tmp_path / "agent"
    folder.mkdir()
    _huge_transcript(folder / "huge.jsonl", 50)
    served = Served(folder, "--cache", str(tmp_path / "cache.sqlite"))
    try:
        (row,) = served.answer("/api/v1/sessions")["sessions"]
        state = served.answer(f"/api/v1/sessions/{row['ref']}/state")
        assert [call["status"] for call in state["invocations"]] == ["completed", "completed"]
        for call in ("toolu_1/view", "toolu_1/history"):
            served.answer(f"/api/v1/sessions/{row['ref']}/invocations/{call}")
        status = Path(f"/proc/{served.process.pid}/status").read_text(encoding="utf-8")
        (peak,) = [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")]
    finally:
        served.stop()
    assert int(peak) / 1024 <= 200


_LAUNCHER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
