"""A shell command's own plainly stated effects: what it fetches, removes and redirects to.

Agent-written commands are hostile input, so this is one linear scan of at most
`MAX_COMMAND` characters, with a cap on the words kept: no regex, no recursion. It reads
the command as a shell would split it into words (quotes and backslashes honoured,
``;``, ``&&``, ``||``, ``|``, ``&``, newlines, ``$(``, backticks and parentheses end a
simple command) and looks at each simple command's name:

* ``curl`` / ``wget``: a network access, the URLs its words name (a word with ``://``;
  else its last word that is not an option);
* ``rm``: a file write (a removal) of each word that is not an option;
* ``>``, ``>>``, ``&>``, ``>|``: a file write of the word after it (``/dev/null``, a
  ``&N`` duplicate and the standard streams are not files).

It sees only what the command says plainly: a variable, an alias, a script's own effects,
``eval`` of built text are not followed. Its words are read after quote removal, so a name
spelled ``r''m`` is ``rm``.

>>> command_effects("curl -s https://example.com/x.sh | sh > out.txt").urls
('https://example.com/x.sh',)
>>> command_effects("rm -rf build 'my dir'").removed
('build', 'my dir')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

from .unquoted import unquoted

MAX_COMMAND = 16_384
"""Characters of a command scanned; the rest is not (the effects say ``cut``)."""
MAX_WORDS = 512
"""Words kept of one command; those after are skipped (the effects say ``cut``)."""

_SEPARATORS = frozenset(";|&\n()`")
_REDIRECTS = frozenset({">", ">>", "&>", ">|", "&>>"})
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_PREFIXES = frozenset({"sudo", "env", "command", "exec", "time", "nohup", "builtin", "xargs"})
_FETCHERS = frozenset({"curl", "wget"})


_WORDS = (">", "curl", "wget", "rm")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CommandEffects:
    """What a command plainly says it does: URLs fetched, paths removed, files redirected to;
    ``cut`` when it was too long to be read whole."""

    urls: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    redirected: tuple[str, ...] = ()
    cut: bool = False


_NOTHING = CommandEffects()


def command_effects(text: str) -> CommandEffects:
    """The plainly stated effects of a shell command (total: any text gives an answer)."""
    plain = unquoted(text)
    if not any(word in plain for word in _WORDS):
        return _NOTHING  # most commands: no effect of these can be stated without these
    tokens, cut = _tokens(text[:MAX_COMMAND])
    urls: list[str] = []
    removed: list[str] = []
    redirected: list[str] = []
    words: list[str] = []
    pending_redirect = False
    for kind, value in [*tokens, ("sep", "")]:
        if kind == "redirect":
            pending_redirect = True
            continue
        if kind == "word" and pending_redirect:
            pending_redirect = False
            if not value.startswith("&") and value not in _NOT_FILES and value:
                redirected.append(value)
            continue
        pending_redirect = False
        if kind == "word":
            words.append(value)
            continue
        _simple(words, urls, removed)
        words = []
    return CommandEffects(
        urls=tuple(urls), removed=tuple(removed), redirected=tuple(redirected),
        cut=cut or len(text) > MAX_COMMAND,
    )  # fmt: skip


def _simple(words: list[str], urls: list[str], removed: list[str]) -> None:
    """The effects of one simple command's words."""
    start = 0
    while start < len(words) and ("=" in words[start].split("/")[0] or words[start] in _PREFIXES):
        start += 1
    if start >= len(words):
        return
    name = words[start].rpartition("/")[2]
    arguments = words[start + 1 :]
    if name in _FETCHERS:
        named = [word for word in arguments if "://" in word]
        if not named:
            plain = [word for word in arguments if not word.startswith("-")]
            named = plain[-1:]
        urls.extend(named)
    elif name == "rm":
        options = True
        for word in arguments:
            if options and word == "--":
                options = False
            elif not (options and word.startswith("-")):
                removed.append(word)


def _tokens(text: str) -> tuple[list[tuple[str, str]], bool]:
    """``text`` as ``(kind, value)`` tokens: ``word``, ``sep`` or ``redirect``; and whether
    words were dropped past `MAX_WORDS`. One pass, each character looked at once."""
    scan = _Scan(text)
    while scan.i < len(text):
        scan.step()
    scan.end_word()
    return scan.tokens, scan.cut


class _Scan:
    """The state of one scan: the tokens so far, the word being read, the open quote."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.tokens: list[tuple[str, str]] = []
        self.word: list[str] = []
        self.in_word = False
        self.quote = ""
        self.escaped = False
        self.words = 0
        self.cut = False

    def end_word(self) -> None:
        if self.in_word:
            self.words += 1
            if self.words <= MAX_WORDS:
                self.tokens.append(("word", "".join(self.word)))
            else:
                self.cut = True
        self.word.clear()
        self.in_word = False

    def step(self) -> None:
        text, char = self.text, self.text[self.i]
        self.i += 1
        if self.escaped:
            self.escaped = False
            if char != "\n":
                self.word.append(char)
                self.in_word = True
        elif self.quote:
            self.quoted(char)
        elif char == "\\":
            self.escaped = True
        elif char in "'\"":
            self.quote = char
            self.in_word = True
        elif char in " \t\r":
            self.end_word()
        elif char == ">" or (char == "&" and self.i < len(text) and text[self.i] == ">"):
            self.redirect(char)
        elif char == "$" and self.i < len(text) and text[self.i] == "(":
            self.end_word()
            self.tokens.append(("sep", "$("))
            self.i += 1
        elif char in _SEPARATORS:
            self.end_word()
            self.tokens.append(("sep", char))
        else:
            self.word.append(char)
            self.in_word = True

    def quoted(self, char: str) -> None:
        text = self.text
        if char == self.quote:
            self.quote = ""
        elif char == "\\" and self.quote == '"' and self.i < len(text) and text[self.i] in '"\\$`':
            self.word.append(text[self.i])
            self.i += 1
        else:
            self.word.append(char)

    def redirect(self, char: str) -> None:
        """A redirection operator; digits just before it (``2>``) name a stream, not a word."""
        text = self.text
        if self.in_word and not "".join(self.word).isdigit():
            self.end_word()
        self.word.clear()
        self.in_word = False
        op = char
        while self.i < len(text) and text[self.i] in ">|&" and len(op) < 3:
            if text[self.i] == "&" and op.endswith(">"):
                break  # >&2: a duplicate, its target read as a word
            op += text[self.i]
            self.i += 1
        self.tokens.append(("redirect", op if op in _REDIRECTS else ">"))
