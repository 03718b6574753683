"""What an evaluation harness wrote beside a run: whether it resolved its task.

A run a harness ran (a transcript whose reader gives an `Outcome`: SWE-agent's,
mini-swe-agent's, OpenHands') is looked for in the verdict files its evaluation
writes, each read by its own rule, the first found winning:

* SWE-bench's ``report.json`` (``resolved``, at its top or under the task's id): in the
  run's own folder, or at ``logs/<task>/report.json`` in the folder above it or the one
  above that (SWE-bench's experiments lay a run out as ``trajs/<task>/…`` beside
  ``logs/<task>/``);
* OpenHands' evaluation log of the task (``eval_instance_<task>.log`` or
  ``instance_<task>.log`` in the run's folder; ``output.swebench_eval.logs/
  instance_<task>.log`` two folders up, beside ``llm_completions/<task>/``), whose line
  ``Result for <task>: resolved: True`` says it.

The task is what the transcript says (an ``instance_id``), else its folder's name under
``llm_completions``, else its file's name without ``.traj`` (SWE-agent names a
trajectory ``<task>.traj``), else the task of the one OpenHands evaluation log beside
it (among the folder's first `SCANNED` entries). A cache notices a verdict file that
appears or changes later by the paths its file's name gives (`stamp_files`); one found
only by that last look is noticed when the run's own file changes. Each file is read
whole up to `MAX_BYTES`, by plain text search (no regex): the harness's files are not
the agent's, but a folder of runs is anyone's.

*Decision*: the verdict files are found by these layouts only; a harness that writes its
verdicts elsewhere gives runs whose outcome says ``not evaluated``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a folder's listing asks `is_verdict` of every name: this stays light
    from ..model import Transcript

MAX_BYTES = 4 << 20
"""Bytes of a verdict file read; a larger one is not read (no report is that long)."""
SCANNED = 256
"""Entries of a run's folder looked through for its one evaluation log."""
_SUFFIXES = (".traj.json", ".traj")
_LOGS = ("eval_instance_", "instance_")
_COMPLETIONS = "llm_completions"
_EVALUATION_LOGS = "output.swebench_eval.logs"


def evaluated(transcript: Transcript, path: Path) -> Transcript:
    """``transcript`` with its task and verdict from the files beside ``path``, where its
    reader gave it an outcome (see the module's docstring)."""
    outcome = transcript.outcome
    if outcome is None:
        return transcript
    task = outcome.task or task_of(path) or _one_log(path.parent)
    for candidate in verdict_files(path, task):
        found = _verdict(candidate, task)
        if found is not None:
            resolved, named = found
            outcome = dataclasses.replace(
                outcome, task=task or named, resolved=resolved, evaluated_by=candidate.name
            )
            break
    else:
        outcome = dataclasses.replace(outcome, task=task)
    return dataclasses.replace(transcript, outcome=outcome)


def task_of(path: Path) -> str | None:
    """The task a run's file names: its folder's under ``llm_completions``, else its name
    without ``.traj`` or ``.traj.json`` (``None``: it names none)."""
    if path.parent.parent.name == _COMPLETIONS:
        return path.parent.name
    for suffix in _SUFFIXES:
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return path.name[: -len(suffix)]
    return None


def _one_log(folder: Path) -> str | None:
    """The task of the one OpenHands evaluation log among the first `SCANNED` entries of
    ``folder`` (``None``: none, or several)."""
    found: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for number, entry in enumerate(entries):
                if number >= SCANNED:
                    break
                for prefix in _LOGS:
                    if entry.name.startswith(prefix) and entry.name.endswith(".log"):
                        found.append(entry.name[len(prefix) : -len(".log")])
                        break
    except OSError:
        return None
    return found[0] if len(found) == 1 and found[0] else None


def verdict_files(path: Path, task: str | None) -> Iterator[Path]:
    """Where the verdict of the run at ``path`` may be, in the order looked at (whether
    each is there or not)."""
    folder = path.parent
    yield folder / "report.json"
    if not task or "/" in task or task in (".", ".."):
        return
    for prefix in _LOGS:
        yield folder / f"{prefix}{task}.log"
    for up in (folder.parent, folder.parent.parent):
        yield up / "logs" / task / "report.json"
    yield folder.parent.parent / _EVALUATION_LOGS / f"instance_{task}.log"


def _verdict(candidate: Path, task: str | None) -> tuple[bool, str | None] | None:
    """What one verdict file says of ``task`` (resolved, and the task it names), if it is
    there and says it."""
    try:
        if not candidate.is_file() or candidate.stat().st_size > MAX_BYTES:
            return None
        data = candidate.read_bytes()
    except OSError:
        return None
    text = data.decode("utf-8", "replace")
    if candidate.suffix == ".log":
        return _from_log(text, task)
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _from_report(document, task)


def _from_report(document: Any, task: str | None) -> tuple[bool, str | None] | None:
    """SWE-bench's report: ``{"resolved": …}``, or ``{"<task>": {"resolved": …}}``."""
    if not isinstance(document, dict):
        return None
    if isinstance(document.get("resolved"), bool):
        return document["resolved"], None
    entries = [(key, value) for key, value in document.items() if isinstance(value, dict)]
    for key, value in entries:
        if (key == task or len(entries) == 1) and isinstance(value.get("resolved"), bool):
            return value["resolved"], key
    return None


def _from_log(text: str, task: str | None) -> tuple[bool, str | None] | None:
    """OpenHands' evaluation log: its line ``Result for <task>: resolved: True``."""
    marker = "Result for "
    at = text.rfind(marker)
    while at >= 0:
        line = text[at + len(marker) :].split("\n", 1)[0]
        named, _, said = line.partition(": resolved: ")
        if said.strip() in ("True", "False") and (task is None or named == task):
            return said.strip() == "True", named
        at = text.rfind(marker, 0, at)
    return None


def is_verdict(name: str) -> bool:
    """Whether a file so named is an evaluation's verdict (read with the run it judges, never
    as a transcript of its own)."""
    return name == "report.json" or (name.endswith(".log") and name.startswith(_LOGS))


def stamp_files(path: Path) -> list[Path]:
    """The verdict files a cache's stamp of ``path`` covers: those of the tasks its name and
    folder give (a file of the suffixes a harness writes; no other is looked at)."""
    if not path.name.endswith((".traj", ".json")):
        return []
    return list(verdict_files(path, task_of(path)))
