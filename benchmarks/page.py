"""The performance page, written whole from the recorded rows and the notes beside them.

Three files make ``docs/performance.md``, and nothing else does:

* ``benchmarks/results.json``: the rows of each group's latest recorded run, each naming
  that run (its date, commit, machine and command). The benchmark writes it; a run of some
  groups replaces those groups' rows and keeps the others with their own runs.
* ``benchmarks/notes.toml``: for each row, the issue that set its target and, where the
  row misses it, why and the floor under it (what no change of ours can go below). A
  note belongs to every row whose name begins with its key, the longest key winning.
* ``benchmarks/page.md``: the prose around the tables, with a line for each generated part.

Edit the last two by hand and run ``python -m benchmarks --rewrite-page``; never the page.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from .table import Row, machine, markdown, met_cell, ratio_cell

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results.json"
NOTES = ROOT / "benchmarks" / "notes.toml"
TEMPLATE = ROOT / "benchmarks" / "page.md"
PAGE = ROOT / "docs" / "performance.md"

TITLES = {
    "startup": "Start-up",
    "folds": "Folding in memory",
    "masking": "Masking secrets",
    "stored": "Stored sessions and the command",
    "seals": "Reads held to the events' seals",
    "parallel": "Replaying on every core",
    "transcripts": "Importing transcripts",
    "sources": "Transcripts as sources",
    "compare": "Comparing runs",
    "audit": "The audit",
    "many": "Many sessions",
    "catalog": "Many sessions in a database store",
    "team": "A team's store",
}
"""Each group's heading on the page, in the page's order (the ``--only`` groups)."""


@dataclass(frozen=True)
class Run:
    """One run of the benchmark: what every row it measured cites."""

    key: str
    """When it started (UTC, to the minute): the name the rows cite it by."""
    commit: str
    machine: str
    command: str
    note: str = ""
    """What the run's own output cannot say (the machine shared, what ran beside it)."""


@dataclass(frozen=True)
class Recorded:
    """A row of the table, with its group and the run that measured it."""

    group: str
    run: str
    row: Row


@dataclass(frozen=True)
class Results:
    """Every group's latest recorded rows and the runs they came from."""

    runs: tuple[Run, ...]
    rows: tuple[Recorded, ...]


@dataclass(frozen=True)
class Note:
    """What the page says beside a row: who set its target, and why a missed one is missed."""

    issue: str
    why: str = ""
    floor: str = ""
    judged: str = ""
    """How the target is judged, where an issue settled it otherwise than it reads."""


def load(path: Path) -> Results:
    """The results recorded at ``path``."""
    return parse(path.read_text(encoding="utf-8"))


def parse(text: str) -> Results:
    """The results ``dump`` wrote as ``text``."""
    data = json.loads(text)
    return Results(
        runs=tuple(Run(**run) for run in data["runs"]),
        rows=tuple(
            Recorded(row["group"], row["run"], Row(**{k: row[k] for k in ROW_FIELDS}))
            for row in data["rows"]
        ),
    )


ROW_FIELDS = ("name", "size", "ours", "baseline", "ratio", "target", "met")


def dump(results: Results) -> str:
    """``results`` as JSON, a run or a row to a line (so a run's change reads as a diff)."""
    runs = [json.dumps(asdict(run), ensure_ascii=False) for run in results.runs]
    rows = [
        json.dumps({"group": r.group, "run": r.run, **asdict(r.row)}, ensure_ascii=False)
        for r in results.rows
    ]
    return '{\n"runs": [\n' + ",\n".join(runs) + '\n],\n"rows": [\n' + ",\n".join(rows) + "\n]\n}\n"


def record(results: Results, run: Run, groups: Iterable[str], rows: Sequence[Recorded]) -> Results:
    """``results`` with the rows of ``groups`` replaced by ``rows`` (measured by ``run``), in
    the page's order of groups; a run no row cites any longer is dropped."""
    replaced = set(groups)
    kept = [r for r in results.rows if r.group not in replaced] + list(rows)
    order = {group: i for i, group in enumerate(TITLES)}
    kept.sort(key=lambda r: order.get(r.group, len(order)))  # stable: a group keeps its order
    cited = {r.run for r in kept}
    runs = [r for r in results.runs if r.key != run.key] + [run]
    return Results(runs=tuple(r for r in runs if r.key in cited), rows=tuple(kept))


def this_run(argv: Sequence[str], started: datetime, note: str = "") -> Run:
    """The run starting now: its time, the commit checked out, the machine and the command."""
    return Run(
        key=f"{started:%Y-%m-%d %H:%M}",
        commit=_commit(),
        machine=machine(),
        command=shlex.join(["python", "-m", "benchmarks", *argv]),
        note=note,
    )


def _commit() -> str:
    def git(*words: str) -> str:
        return subprocess.run(
            ["git", *words], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{head} with uncommitted changes" if changed else head


def load_notes(path: Path) -> dict[str, Note]:
    """The notes at ``path``, by the beginning of the row names they belong to."""
    with path.open("rb") as file:
        data = tomllib.load(file)
    return {key: Note(**fields) for key, fields in data.items()}


def matches(name: str, key: str) -> bool:
    """Whether a row named ``name`` begins with ``key``, each ``*`` in it standing for any
    text.

    >>> matches("import-transcript (aider), growth of the ratio", "import-transcript (*), growth")
    True
    >>> matches("import-transcript (aider), into memory", "import-transcript (*), growth")
    False
    """
    first, *rest = key.split("*")
    if not name.startswith(first):
        return False
    at = len(first)
    for part in rest:
        found = name.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def note_for(name: str, notes: Mapping[str, Note]) -> tuple[str, Note] | None:
    """The note of the row ``name`` with its key: the longest key that matches it."""
    keys = [key for key in notes if matches(name, key)]
    if not keys:
        return None
    key = max(keys, key=len)
    return key, notes[key]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _tables(results: Results, notes: Mapping[str, Note]) -> str:
    parts = []
    for group, title in TITLES.items():
        rows = [r for r in results.rows if r.group == group]
        if not rows:
            continue
        cells = []
        for recorded in rows:
            row, found = recorded.row, note_for(recorded.row.name, notes)
            cells.append([_cell(c) for c in (
                row.name, row.size, row.ours, row.baseline, ratio_cell(row.ratio), row.target,
                met_cell(row.met), found[1].issue if found else "-", recorded.run,
            )])  # fmt: skip
        headers = ["benchmark", "size", "correx_tools", "baseline", "ratio", "target", "met",
                   "issue", "run"]  # fmt: skip
        parts.append(f"### {title}\n\n{markdown(headers, cells)}")
    return "\n\n".join(parts)


def _runs(results: Results) -> str:
    cells = [
        [_cell(run.key + " UTC"), _cell(run.commit), _cell(run.machine), f"`{run.command}`",
         _cell(run.note or "-")]
        for run in results.runs
    ]  # fmt: skip
    return markdown(["run", "commit", "machine", "command", "note"], cells)


def _shown(key: str) -> str:
    """A note's key as the page names the rows it covers."""
    return key.strip().replace("*", "…")


def _unmet(results: Results, notes: Mapping[str, Note]) -> str:
    missed: dict[str, list[Recorded]] = {}
    for recorded in results.rows:
        if recorded.row.met is False:
            found = note_for(recorded.row.name, notes)
            missed.setdefault(found[0] if found else recorded.row.name, []).append(recorded)
    if not missed:
        return "Every row with a target meets it."
    items = []
    for key, rows in missed.items():
        note = notes.get(key, Note(issue="-"))
        measured = "; ".join(
            ("" if r.row.name == key else f"{r.row.name}, ")
            + f"{r.row.size}: {r.row.ours}, ratio {ratio_cell(r.row.ratio)}"
            for r in rows
        )
        targets = sorted({r.row.target for r in rows})
        why = note.why or "not written yet (add it to `benchmarks/notes.toml`)."
        floor = note.floor or "not written yet."
        items.append(
            f"* **{_shown(key)}** (issue {note.issue}; target {', '.join(targets)}). "
            f"{measured}.\n  *Why:* {_indented(why)}\n  *Floor:* {_indented(floor)}"
        )
    return "\n".join(items)


def _judged(notes: Mapping[str, Note]) -> str:
    return "\n".join(
        f"* **{_shown(key)}** (issue {note.issue}): {_indented(note.judged)}"
        for key, note in notes.items()
        if note.judged
    )


def _indented(text: str) -> str:
    """A note's text inside a list item: one paragraph, its lines joined."""
    return " ".join(text.split())


def render_page(results: Results, notes: Mapping[str, Note], template: str) -> str:
    """The page: ``template`` with each generated part's line replaced by the part."""
    lines = []
    for line in template.splitlines():
        match line.strip():
            case "{{runs}}":
                lines.append(_runs(results))
            case "{{rows}}":
                lines.append(_tables(results, notes))
            case "{{unmet}}":
                lines.append(_unmet(results, notes))
            case "{{judged}}":
                lines.append(_judged(notes))
            case _:
                lines.append(line)
    return "\n".join(lines) + "\n"


def write_page(results_path: Path, page_path: Path) -> None:
    """Write the page at ``page_path`` from the results at ``results_path``, the notes and
    the template."""
    page = render_page(load(results_path), load_notes(NOTES), TEMPLATE.read_text(encoding="utf-8"))
    page_path.write_text(page, encoding="utf-8")
    print(f"# wrote {page_path}", file=sys.stderr)
