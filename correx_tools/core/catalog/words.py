"""The words of what agents did, as the full-text index keeps them and a search asks for them.

One tokenizer for every store: a value's **words** are its runs of letters and digits
(`str.isalnum`), lower-cased. SQLite's FTS5 and PostgreSQL's ``tsvector`` index these
words as they are (neither database splits the text its own way), so both answer a
search alike, and a plain scan of the events (`matches`) answers it the same again.

Agent-written text is hostile: the work per value is bounded. Only its first
`MAX_CHARS` characters are read, a word longer than `MAX_WORD` is cut to it (a query's
word is cut the same way, so it still finds it), and no more than `MAX_WORDS` words are
kept (PostgreSQL numbers a word's position up to 16,383).

A search's text is a list of **terms**: each word outside quotes is a term of one word,
and a ``"quoted phrase"`` is one term of its words in order. A value matches when it
holds every term (AND); a phrase's words must be consecutive there.

>>> words("Fix the TESTS: git push --force")
['fix', 'the', 'tests', 'git', 'push', 'force']
>>> terms('push "--force origin"')
(('push',), ('force', 'origin'))
>>> matches(words("git push --force origin main"), terms('"force origin" git'))
True
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_CHARS = 200_000
"""The characters of a value that are read for its words."""
MAX_WORD = 64
"""The longest word kept; a longer run of letters and digits is cut to it."""
MAX_WORDS = 10_000
"""The words kept of one value."""

Term = tuple[str, ...]
"""One term of a search: a word, or a phrase's words in order."""


class _Spaces(dict[int, str]):
    """`str.translate`'s table: each character that is no letter or digit becomes a space
    (found once per character and kept: the table grows only with the characters seen)."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        kept = char if char.isalnum() else " "
        self[code] = kept
        return kept


_SPACES = _Spaces()


def words(text: str) -> list[str]:
    """The words of ``text`` (see the module docstring), in order."""
    # Lower-cased first: a lower case letter may be two characters (a letter and a
    # combining mark), and what is indexed must be letters and digits only.
    found = text[:MAX_CHARS].lower().translate(_SPACES).split()
    return [word[:MAX_WORD] for word in found[:MAX_WORDS]]


def terms(text: str) -> tuple[Term, ...]:
    """A search's terms: its words, and its quoted phrases whole (an unclosed quote runs
    to the end); terms with no word are dropped, and a term asked twice is kept once."""
    found: list[Term] = []
    for number, part in enumerate(text[:MAX_CHARS].split('"')):
        said = words(part)
        if number % 2:
            found.append(tuple(said))
        else:
            found += [(word,) for word in said]
    return tuple(dict.fromkeys(term for term in found if term))


def matches(said: Sequence[str], asked: Sequence[Term]) -> bool:
    """Whether a value of words ``said`` holds every term ``asked`` (no term: no match)."""
    if not asked:
        return False
    present = set(said)
    for term in asked:
        if not present.issuperset(term):
            return False
        if len(term) > 1 and not _consecutive(said, term):
            return False
    return True


def _consecutive(said: Sequence[str], term: Term) -> bool:
    first, size = term[0], len(term)
    return any(
        word == first and tuple(said[start : start + size]) == term
        for start, word in enumerate(said)
    )


def first_at(text: str, asked: Sequence[Term]) -> int:
    """Where in ``text`` the first word of the first term begins (0 when it is not found
    as it is indexed: then a snippet shows the beginning)."""
    if not asked:
        return 0
    lowered = text[:MAX_CHARS].lower()
    found = lowered.find(asked[0][0])
    return max(found, 0)
