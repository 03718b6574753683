"""Where the secrets of a text are, by the rules (`secret_rules`): what makes masking fast.

What it is equal to: for every rule, every match of its regex over the whole
text (as UTF-8), its secret kept unless its entropy is too low or an allowlist
lets it through, exactly as gitleaks decides a finding. What makes it fast, and
never slower than linear in the text:

* every rule is RE2, which reads a text in time linear in its length whatever
  the text holds (there is no backtracking to provoke), and releases the
  interpreter while it reads, so other threads run meanwhile;
* one pass of an RE2 set of every rule's keywords (any case) says which
  keywords the text holds, and a rule none of whose keywords it holds is not
  tried (gitleaks does the same): ordinary text wakes a handful of rules;
* a rule is compiled the first time a text wakes it.

``tests/test_secret_rules.py`` holds the scan to the rules (a text masked by
each rule on its own and by the scan alike) and measures it on hostile text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, final

import re2

from .re2_spans import Spans, after, compiled, finds, groups_of, match_at, search, without_groups
from .secret_rules import Allowlist, Rule

Span = tuple[int, int]
"""Where a secret is in a text's UTF-8 bytes: ``[start, end)``."""

LINE_REACH = 1_000
"""How far from a match an allowlist looks at its line: a value of one long line would
otherwise have the whole of it searched again for each match in it."""

RULE_MEMORY = 4 << 20
"""The most memory RE2 may keep for one rule's automata (it starts again when full)."""

NARROW_BYTES, NARROW_RULES = 64 * 1024, 16
"""A text of at least so many bytes that wakes more than so many rules is first read by a
set of every rule, and only the rules that match somewhere in it are run."""

RUN_GAP = 256
"""Past the findings checked, findings at most this many bytes apart are masked as one run
(the bytes between them too: a text this dense with them is made of them)."""

LONGEST_READ = 8_192
"""Bytes of a match past which its groups are not read: it is masked whole (a name that
says secret with it)."""


def line_of(data: bytes, match: Span) -> bytes:
    """The line ``match`` is on, as far as `LINE_REACH` either side of it."""
    start = max(data.rfind(b"\n", 0, match[0]) + 1, match[0] - LINE_REACH)
    end = data.find(b"\n", match[1], match[1] + LINE_REACH)
    return data[start : match[1] + LINE_REACH if end < 0 else end]


@final
class _Allowed:
    """An allowlist compiled: one regex for all its regexes, one for its stopwords."""

    __slots__ = ("every", "regexes", "stopwords", "target")

    def __init__(self, allowlist: Allowlist, rule: str) -> None:
        self.target, self.every = allowlist.target, allowlist.every
        joined = "|".join(f"(?:{regex})" for regex in allowlist.regexes)
        self.regexes = compiled(joined, f"{rule}: allowlist") if joined else None
        words = "|".join(re2.escape(word) for word in allowlist.stopwords)
        self.stopwords = compiled(f"(?i:{words})", f"{rule}: stopwords") if words else None

    def allows(self, data: bytes, secret: Span, match: Span) -> bool:
        if self.target == "secret":
            target = data[secret[0] : secret[1]]
        elif self.target == "match":
            target = data[match[0] : match[1]]
        else:
            target = line_of(data, match)
        checks = []
        if self.regexes is not None:
            checks.append(bool(target) and finds(self.regexes, target))
        if self.stopwords is not None:
            checks.append(finds(self.stopwords, data[secret[0] : secret[1]]))
        return all(checks) if self.every else any(checks)


@final
class _Compiled:
    """One rule, compiled: ``spotter`` (its regex without groups) finds the matches, and
    ``regex`` reads the secret's group from each."""

    __slots__ = ("allowed", "by_line", "entropy", "group", "pattern", "regex", "run", "spotter")

    def __init__(self, rule: Rule) -> None:
        self.regex = compiled(rule.regex, rule.id, RULE_MEMORY)
        groups: int = self.regex.groups
        self.group = rule.secret_group
        if self.group is not None and self.group > groups:
            raise ValueError(f"{rule.id}: secretGroup {self.group} is past its groups")
        self.pattern = without_groups(rule.regex)
        if groups == 0 or self.group == 0:
            self.group, self.spotter = 0, self.regex
        else:
            self.spotter = compiled(self.pattern, rule.id, RULE_MEMORY)
        self.run: Any = None
        self.entropy = rule.entropy
        self.allowed = tuple(_Allowed(allowlist, rule.id) for allowlist in rule.allowlists)
        # a finding's line is read by some allowlists: the same finding on two lines may differ
        self.by_line = any(allowlist.target == "line" for allowlist in rule.allowlists)

    def find(self, data: bytes, found: list[Span]) -> None:
        """Add the secrets this rule finds in ``data`` to ``found``.

        A match longer than `LONGEST_READ` is masked whole, its groups not read. Past
        `checked_findings` findings in one text, the rest are masked whole and unchecked
        (no groups, entropy or allowlist), each run of them that follow one another as one
        (``run``: the rule's regex repeated, matched where the run starts). So a text that
        is nothing but findings, or one long finding, costs RE2's reading and a step a
        run, not an NFA's reading or a dozen searches a finding.
        """
        checks = checked_findings(len(data))
        plain, checked = self.group == 0, bool(self.entropy or self.allowed)
        decided: dict[tuple[bytes, bytes, bytes], bool] = {}  # a text that repeats a finding
        pos = 0
        while (spans := search(self.spotter, data, pos)) is not None:
            start, end = spans[0]
            pos = after(spans[0])
            checks -= 1
            if checks < 0:  # unchecked: the whole run from here, at once
                run = match_at(self._run(), data, start)
                end = end if run is None else max(end, run[0][1])
                pos = after((start, end))
            if start < end and (data[start] == 10 or data[end - 1] == 10):
                start, end = _trimmed(data, start, end)  # as gitleaks trims a match
            if start >= end:
                continue
            if checks < 0 or (plain and not checked):
                found.append((start, end))
                continue
            if plain or end - start > LONGEST_READ:
                secret = (start, end)
            else:
                secret = self._secret(groups_of(self.regex, data, *spans[0]), (start, end))
            if secret[0] >= secret[1]:
                continue
            if checked:
                key = (data[secret[0] : secret[1]], data[start:end], self._line(data, start, end))
                refused = decided.get(key)
                if refused is None:
                    refused = decided[key] = self._refused(data, secret, (start, end))
                if refused:
                    continue
            found.append(secret)

    def _line(self, data: bytes, start: int, end: int) -> bytes:
        """The finding's line, as far as an allowlist reads it (nothing if none does)."""
        return line_of(data, (start, end)) if self.by_line else b""

    def _run(self) -> Any:
        if self.run is None:
            gap = f"(?s:.){{0,{RUN_GAP}}}?"
            pattern = f"(?:{self.pattern})(?:{gap}(?:{self.pattern}))*"
            self.run = compiled(pattern, "a run", RULE_MEMORY)
        return self.run

    def _refused(self, data: bytes, secret: Span, match: Span) -> bool:
        """Whether the finding's entropy is too low or an allowlist lets it through."""
        if self.entropy:
            found = data[secret[0] : secret[1]]
            # ASCII: at most log2 of how many different characters it has, a quick no
            if found.isascii() and math.log2(len(set(found))) <= self.entropy:
                return True
            if entropy(found) <= self.entropy:
                return True
        return any(allowed.allows(data, secret, match) for allowed in self.allowed)

    def _secret(self, spans: Spans, whole: Span) -> Span:
        if self.group is not None:
            return _span(spans[self.group])
        for group in range(1, len(spans)):
            span = _span(spans[group])
            if span[0] < span[1]:
                return span
        return whole


def _trimmed(data: bytes, start: int, end: int) -> Span:
    while start < end and data[start] == 10:
        start += 1
    while end > start and data[end - 1] == 10:
        end -= 1
    return start, end


def _span(span: tuple[int, int]) -> Span:
    return (span[0], span[1]) if span[0] >= 0 else (0, 0)


def checked_findings(size: int) -> int:
    """How many findings of one rule in a text of ``size`` bytes are checked against the
    rule's entropy and allowlists: 256, and four more a KiB (ordinary text has fewer)."""
    return 256 + size // 256


def entropy(secret: bytes) -> float:
    """Shannon entropy of the characters of ``secret``, per byte of it (as gitleaks counts)."""
    if not secret:
        return 0.0
    text = secret.decode("utf-8", "replace")
    length = len(secret)
    return -sum(n / length * math.log2(n / length) for n in Counter(text).values())


@final
class Scanner:
    """The rules, ready to find secrets in any number of texts (safe to share by threads)."""

    __slots__ = ("_compiled", "_everyone", "_keywords", "_rules", "_unconditional", "_woken_by")

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._rules = tuple(rules)
        # Compiled when first needed; two threads may both compile a rule, and either
        # result serves (a list slot is set at once).
        self._compiled: list[_Compiled | None] = [None] * len(self._rules)
        keywords = sorted({k for rule in self._rules for k in rule.keywords})
        index = {keyword: n for n, keyword in enumerate(keywords)}
        self._woken_by: list[list[int]] = [[] for _ in keywords]
        self._unconditional: list[int] = []
        for n, rule in enumerate(self._rules):
            if not rule.keywords:
                self._unconditional.append(n)
            for keyword in set(rule.keywords):
                self._woken_by[index[keyword]].append(n)
        self._keywords = keyword_set(keywords) if keywords else None
        self._everyone: list[Any] = []  # the set of every rule, once a text needs it

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in the order they are tried."""
        return self._rules

    def check(self) -> None:
        """Compile every rule now: a ``ValueError`` names the first RE2 refuses."""
        for n in range(len(self._rules)):
            self._rule(n)

    def woken(self, data: bytes) -> list[int]:
        """The rules ``data`` wakes: those without keywords, and those with one it holds."""
        if self._keywords is None:
            return list(self._unconditional)
        found = self._keywords.Match(data)
        sentinel = len(self._woken_by)
        if found == [sentinel]:  # no keyword: most short strings
            return list(self._unconditional)
        if sentinel not in found:  # the set gave up (out of memory): try all
            return list(range(len(self._rules)))
        woken = set(self._unconditional)
        for keyword in found:
            if keyword < sentinel:
                woken.update(self._woken_by[keyword])
        return sorted(woken)

    def find(self, data: bytes, rules: Iterable[int] | None = None) -> list[Span]:
        """Every secret in ``data`` (UTF-8), as spans in no particular order, found by
        ``rules`` (by position; all that ``data`` wakes if not given)."""
        chosen = self.woken(data) if rules is None else list(rules)
        if rules is None and len(data) >= NARROW_BYTES and len(chosen) > NARROW_RULES:
            chosen = self._narrowed(data, chosen)
        found: list[Span] = []
        for n in chosen:
            self._rule(n).find(data, found)
        return found

    def _narrowed(self, data: bytes, woken: list[int]) -> list[int]:
        """Those of the ``woken`` rules that match somewhere in ``data``, by one pass of an RE2
        set of every rule (each without the ``[\\w.-]{0,50}?`` that begins many of them: it
        widens a match to the left, never makes one); all of them if the set gives up."""
        if not self._everyone:
            self._everyone.append(_rule_set(self._rules))
        everyone = self._everyone[0]
        if everyone is None:
            return woken
        found = everyone.Match(data) or ()
        if len(self._rules) not in found:  # the set gave up (out of memory)
            return woken
        matched = set(found)
        return [n for n in woken if n in matched]

    def allows(self, n: int, data: bytes, secret: Span, match: Span) -> bool:
        """Whether rule ``n``'s allowlists let through the finding ``secret`` of ``match``."""
        return any(allowed.allows(data, secret, match) for allowed in self._rule(n).allowed)

    def _rule(self, n: int) -> _Compiled:
        rule = self._compiled[n]
        if rule is None:
            rule = self._compiled[n] = _Compiled(self._rules[n])
        return rule


_WIDENING = (r"(?i)[\w.-]{0,50}?", "(?i)"), (r"[\w.-]{0,50}?(?i:[\w.-]{0,50}?", "(?i:")


def _rule_set(rules: Sequence[Rule]) -> Any:
    """An RE2 set of every rule (without groups or a leading widening) and, last, a pattern
    every text matches; ``None`` if RE2 cannot build it."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20
    everyone = re2.Set.SearchSet(options)
    try:
        for rule in rules:
            pattern = without_groups(rule.regex)
            for widening, kept in _WIDENING:
                if pattern.startswith(widening):
                    pattern = kept + pattern[len(widening) :]
            everyone.Add(pattern.encode("utf-8"))
        everyone.Add(rb"\z")
        everyone.Compile()
    except re2.error:
        return None
    return everyone


def keyword_set(keywords: list[str]) -> Any:
    """An RE2 set of the keywords (any case) and, last, a pattern every text matches: a set
    that runs out of memory gives up without it, and is then not believed. Its ``Match``
    gives the positions of the keywords a text holds (a list)."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 32 << 20
    found = re2.Set.SearchSet(options)
    for keyword in keywords:
        found.Add(b"(?i:" + re2.escape(keyword.encode("utf-8")) + b")")
    found.Add(rb"\z")
    found.Compile()
    # RE2's own set, called directly: the binding's wrapper adds half of the time a short
    # string takes (it answers the same list)
    return getattr(found, "_set", None) or _ListingSet(found)


@final
class _ListingSet:
    """A binding's set whose ``Match`` gives ``None`` for no match: as a list."""

    __slots__ = ("found",)

    def __init__(self, found: Any) -> None:
        self.found = found

    def Match(self, data: bytes) -> list[int]:  # RE2's own name
        return list(self.found.Match(data) or ())


def masked_bytes(data: bytes, spans: Iterable[Span], mask: bytes) -> bytes:
    """``data`` with each span (widened to whole UTF-8 characters, overlapping ones joined)
    replaced by ``mask``."""
    parts: list[bytes] = []
    done = 0
    for first, last in sorted(spans):
        if first >= last:
            continue
        start, end = first, last
        while start > 0 and 0x80 <= data[start] < 0xC0:
            start -= 1
        while end < len(data) and 0x80 <= data[end] < 0xC0:
            end += 1
        if parts and start <= done:  # overlaps or touches the span masked before: joined
            done = max(done, end)
            continue
        parts += (data[done:start], mask)
        done = end
    parts.append(data[done:])
    return b"".join(parts)
