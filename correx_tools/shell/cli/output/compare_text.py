"""What ``compare`` says of two runs as text: each run and how it ended, the counts of each
kind of row, the first divergence, what each run left of its files, and the rows."""

from __future__ import annotations

import json
from typing import Any

from .readable import counted, cut_middle
from .render import one_line, shown_id, table

BRIEF = 60
"""How much of a call's arguments a row of the table shows."""
SHOWN_LINES = 40
"""Lines of one run's change of one file the text shows (``--json`` has them all)."""


def pair_text(document: dict[str, Any]) -> str:
    """The comparison ``compare A B`` prints."""
    a, b = document["a"], document["b"]
    lines = [line for name, side in (("a", a), ("b", b)) for line in _run(name, side)]
    kinds = document["rows_by_kind"]
    lines.append(
        f"{counted(kinds['same'], 'matched call')} "
        f"({document['by_meaning']:,} by meaning, "
        f"{document['same_with_differences']:,} with differences), "
        f"{kinds['changed']:,} changed, {kinds['only_a']:,} only in a, "
        f"{kinds['only_b']:,} only in b"
    )
    divergence = document["first_divergence"]
    if divergence is None:
        lines.append("no divergence: the two sessions made the same calls")
    else:
        lines.append(
            f"first divergence after {counted(divergence['a']['position'], 'matched call')}:"
        )
        for name, side, about in (("a", divergence["a"], a), ("b", divergence["b"], b)):
            lines.append(f"  {name}: {_divergent(side, about['session_id'])}")
    lines += workspace_lines(document["workspace"], a["session_id"], b["session_id"])
    rows = document["rows"]
    if rows:
        lines.append("")
        lines.append(
            table(
                ("row", "what", "a", "a outcome", "b", "b outcome", "differs"),
                [
                    (
                        str(document["rows_from"] + number),
                        _what(row),
                        _brief(row["a"], a["session_id"]),
                        _outcome(row["a"]),
                        _brief(row["b"], b["session_id"]),
                        _outcome(row["b"]),
                        _differs(row),
                    )
                    for number, row in enumerate(rows)
                ],
                squeeze=("what", "a", "b"),
            )
        )
    return "\n".join(lines)


def _run(name: str, side: dict[str, Any]) -> list[str]:
    """One run: its session, source and calls, its agent and workspace, how it ended."""
    said = f"{name}: {one_line(side['session_id'])} of {one_line(side['source'])} "
    said += f"({counted(side['calls'], 'call')}"
    if side.get("format"):
        said += f", {side['format']}"
    if side.get("root"):
        said += f", in {one_line(side['root'])}"
    lines = [said + ")"]
    outcome = side.get("outcome")
    if outcome is not None:
        lines.append(f"   outcome: {outcome_said(outcome)}")
    return lines


def outcome_said(outcome: dict[str, Any]) -> str:
    """An outcome in a line: the verdict and where it was read, the task, how the run
    stopped, its cost."""
    said = [outcome["verdict"]]
    if outcome["evaluated_by"]:
        said[0] += f" ({one_line(outcome['evaluated_by'])})"
    if outcome["task"]:
        said.append(f"task {one_line(outcome['task'])}")
    if outcome["exit_status"]:
        said.append(f"exit {one_line(outcome['exit_status'])}")
    if outcome["submitted"] is not None:
        said.append("a patch submitted" if outcome["submitted"] else "no patch")
    if outcome["cost"] is not None:
        said.append(f"${outcome['cost']:,.2f}")
    if outcome["model_calls"] is not None:
        said.append(counted(outcome["model_calls"], "model call"))
    return "; ".join(said)


def _divergent(side: dict[str, Any], session: str) -> str:
    state = side["state"]
    before = "" if state is None else _state(state)
    call = side["call"]
    if call is None:
        return f"had no more calls (at event {side['at']:,}: {before})"
    return f"{_brief(call, session)} (before it, at event {side['at']:,}: {before})"


def _state(state: dict[str, Any]) -> str:
    statuses = state["statuses"]
    said = [f"{count:,} {status}" for status, count in statuses.items() if count]
    if state["exited_nonzero"]:
        said.append(f"{state['exited_nonzero']:,} exited non-zero")
    return ", ".join(said) or "no calls yet"


def _what(row: dict[str, Any]) -> str:
    """What the row's calls did: a's kind and target (b's where a has none)."""
    call = row["a"] or row["b"]
    target = " ".join(str(call["target"]).split())
    return f"{call['kind']} {cut_middle(target, BRIEF)}".rstrip()


def _brief(call: dict[str, Any] | None, session: str) -> str | None:
    if call is None:
        return None
    arguments = call["arguments"]
    words = " ".join(
        str(value) if isinstance(value, str) else _compact(value)
        for value in (arguments or {}).values()
    )
    name = shown_id(session, call["invocation_id"])
    tool = call["tool_name"]
    words = " ".join(words.split())
    if words.startswith(tool + " "):  # a SWE-agent command written whole names its tool
        words = words[len(tool) + 1 :]
    return f"{name} {tool} {cut_middle(words, BRIEF)}".rstrip()


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _outcome(call: dict[str, Any] | None) -> str | None:
    if call is None:
        return None
    said = call["status"]
    if call["exit_code"]:
        said += f" exit {call['exit_code']}"
    if call["duration"] is not None:
        said += f" {call['duration']:.1f}s"
    return str(said)


def _differs(row: dict[str, Any]) -> str:
    if row["kind"] == "only_a":
        return "only in a"
    if row["kind"] == "only_b":
        return "only in b"
    said = [difference.replace("_", " ") for difference in row["differs"]]
    if row["by"] == "meaning":
        said.insert(0, "spelled otherwise")
    return ", ".join(said) or "-"


def workspace_lines(workspace: dict[str, Any], a: str, b: str) -> list[str]:
    """The files each run changed, where they first differ, and each file's final change
    in both runs where they differ or are not known alike."""
    lines = []
    for name, files in (("a", workspace["a_files"]), ("b", workspace["b_files"])):
        said = ", ".join(f"{one_line(f['path'])} ({_made(f, workspace['patches'][name])})"
                         for f in files) or "none"  # fmt: skip
        lines.append(f"files {name} changed: {said}")
    alike, differing, unknown = workspace["alike"], workspace["differing"], workspace["unknown"]
    if alike:
        lines.append(f"both changed {', '.join(map(one_line, alike))} the same way")
    if not differing and not unknown:
        lines.append("the two runs' files never differ" if not alike else
                     "the two runs' final changes never differ")  # fmt: skip
        return lines
    first = workspace["first_difference"]
    if first is not None:
        where = [f"{name}'s {_brief(call, session)}" for name, call, session
                 in (("a", first["a"], a), ("b", first["b"], b)) if call is not None]  # fmt: skip
        lines.append(f"files first differ after row {first['row']:,}: {' / '.join(where)}")
    if differing:
        lines.append(f"the runs' final changes differ in: {', '.join(map(one_line, differing))}")
    if unknown:
        lines.append(f"not known whether they differ in: {', '.join(map(one_line, unknown))}")
    for change in workspace["changes"]:
        if change["same"] is not True:
            lines += _change_lines(change)
    return lines


def _made(file: dict[str, Any], patched: bool) -> str:
    """How a run's final change of a file is known."""
    edits = counted(file["edits"], "edit")
    return {
        "patch": f"final patch; {edits}" if file["edits"] else "final patch",
        "deleted": f"deleted; {edits}",
        "unknown": f"{edits}, its text not said",
    }.get(file["change"], edits)


def _change_lines(change: dict[str, Any]) -> list[str]:
    """One file's final change in each run (or the diff between their texts)."""
    path = one_line(change["path"])
    if change["diff"] is not None:
        lines = [f"--- a/{path}  (its text)", f"+++ b/{path}"]
        return lines + _hunk_lines(change["diff"])
    lines = []
    for name in ("a", "b"):
        side = change[name]
        if side is None:
            lines.append(f"{name}: {path}: not changed")
        elif side["of"] == "unknown":
            by = f" (by {cut_middle(one_line(side['by']), BRIEF)})" if side["by"] else ""
            lines.append(f"{name}: {path}: changed{by}; what it became is not known")
        elif side["of"] == "deleted":
            lines.append(f"{name}: {path}: deleted")
        else:
            told = {"patch": "its final patch", "text": "its text", "edits": "its edits"}
            lines.append(f"{name}: {path}: {told[side['of']]}")
            lines += ["   " + line for line in _hunk_lines(side)]
    return lines


def _hunk_lines(change: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for hunk in change["hunks"]:
        if hunk["old"] is not None or hunk["new"] is not None:
            lines.append(f"@@ -{hunk['old'] or '?'} +{hunk['new'] or '?'} @@")
        lines += [op + text for op, text in hunk["lines"]]
    if len(lines) > SHOWN_LINES:
        lines = [*lines[:SHOWN_LINES], f"({len(lines) - SHOWN_LINES:,} more lines in --json)"]
    if change["cut"]:
        lines.append("(cut: the change is longer than the comparison keeps)")
    return lines
