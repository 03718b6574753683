"""A shell command split into words, as a shell would split it, for the parts of the package
that read what agents ran (the audit's effects, a comparison's meaning of a call).

Agent-written commands are hostile input, so this is one linear scan of at most
`MAX_COMMAND` characters, with a cap on the words kept: no regex, no recursion. Quotes
and backslashes are honoured; ``;``, ``&&``, ``||``, ``|``, ``&``, newlines, ``$(``,
backticks and parentheses end a simple command (a ``sep`` token); ``>``, ``>>``, ``&>``,
``>|`` are redirections (the word after names where to). With ``heredocs``, a here-document
(``<<EOF`` up to the line ``EOF``) is one ``heredoc`` token holding its text, after the
redirections of its line; without, its lines are read as commands, as a shell would if it
were fed them.

>>> shell_tokens("grep 'a b' x.py > out")[0]
[('word', 'grep'), ('word', 'a b'), ('word', 'x.py'), ('redirect', '>'), ('word', 'out')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

MAX_COMMAND = 16_384
"""Characters of a command scanned; the rest is not (the scan says ``cut``)."""
MAX_WORDS = 512
"""Words kept of one command; those after are skipped (the scan says ``cut``)."""

TokenKind: TypeAlias = Literal["word", "sep", "redirect", "heredoc"]
Token: TypeAlias = tuple[TokenKind, str]

_SEPARATORS = frozenset(";|&\n()`")
PREFIXES = frozenset({"sudo", "env", "command", "exec", "time", "nohup", "builtin", "xargs"})
"""Words that run the command after them (its program is the next word)."""
REDIRECTS = frozenset({">", ">>", "&>", ">|", "&>>"})
_NOT_PLAIN = frozenset("'\"\\<>|&;()$`\n\t\r")
"""Characters that make a command more than words between spaces: quotes, escapes,
separators, redirections, and the other spaces the scan splits on."""
"""The redirections that write to the word after them."""


def shell_tokens(text: str, *, heredocs: bool = False) -> tuple[list[Token], bool]:
    """The first `MAX_COMMAND` characters of ``text`` as tokens, and whether anything was cut
    (characters past the limit, or words past `MAX_WORDS`). One pass, each character looked
    at once."""
    head = text[:MAX_COMMAND]
    if _NOT_PLAIN.isdisjoint(head):
        # Most commands are words between spaces, and nothing else: what the scan gives
        # them, without a step a character (a property test holds the two to each other).
        words = [word for word in head.split(" ") if word]
        tokens: list[Token] = [("word", word) for word in words[:MAX_WORDS]]
        return tokens, len(words) > MAX_WORDS or len(text) > MAX_COMMAND
    tokens, cut = scanned(head, heredocs=heredocs)
    return tokens, cut or len(text) > MAX_COMMAND


def scanned(text: str, *, heredocs: bool = False) -> tuple[list[Token], bool]:
    """``text`` as tokens by the scan itself, a character at a step, and whether words
    past `MAX_WORDS` were left out (what `shell_tokens` answers for any text)."""
    scan = _Scan(text, heredocs)
    while scan.i < len(scan.text):
        scan.step()
    scan.end_word()
    return scan.tokens, scan.cut


def command_text(value: Any) -> str:
    """A command as an argument holds it: a string, or an argv list (``bash -lc X``: X);
    ``""`` for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence) and all(isinstance(part, str) for part in value):
        parts = list(value)
        if len(parts) >= 3 and parts[1] in {"-c", "-lc", "-ic"}:
            return str(parts[2])
        return " ".join(parts)
    return ""


def program_at(words: list[str]) -> int:
    """Where a simple command's program is among its words: after the variables it sets
    (``A=1``) and the words that run what follows (`PREFIXES`); ``len(words)`` if none."""
    start = 0
    while start < len(words) and ("=" in words[start].split("/")[0] or words[start] in PREFIXES):
        start += 1
    return start


class _Scan:
    """The state of one scan: the tokens so far, the word being read, the open quote, the
    here-documents announced on the current line."""

    def __init__(self, text: str, heredocs: bool) -> None:
        self.text = text
        self.i = 0
        self.tokens: list[Token] = []
        self.word: list[str] = []
        self.in_word = False
        self.quote = ""
        self.escaped = False
        self.words = 0
        self.cut = False
        self.heredocs = heredocs
        self.pending: list[str] = []  # delimiters of here-documents whose text is next
        self.delimiter_next = False

    def end_word(self) -> None:
        if self.in_word:
            word = "".join(self.word)
            if self.heredocs and self._heredoc_word(word):
                self.word.clear()
                self.in_word = False
                return
            self.words += 1
            if self.words <= MAX_WORDS:
                self.tokens.append(("word", word))
            else:
                self.cut = True
        self.word.clear()
        self.in_word = False

    def _heredoc_word(self, word: str) -> bool:
        """Whether ``word`` announces a here-document (``<<EOF``, ``<<-'EOF'``, or ``<<``
        with the delimiter as the next word): kept aside, not as a word."""
        if self.delimiter_next:
            self.delimiter_next = False
            self.pending.append(word)
            return True
        if word.startswith("<<") and not word.startswith("<<<"):
            rest = word[2:].removeprefix("-")
            if rest:
                self.pending.append(rest)
            else:
                self.delimiter_next = True
            return True
        return False

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
        elif char == "\n":
            self.end_word()  # which may announce a here-document (<<EOF at the line's end)
            self.tokens.append(("sep", char))
            if self.pending:
                self.bodies()
        elif char in _SEPARATORS:
            self.end_word()
            self.tokens.append(("sep", char))
        else:
            self.word.append(char)
            self.in_word = True

    def bodies(self) -> None:
        """The text of each here-document announced on the line just ended, up to the line
        that is its delimiter (or the end of the command)."""
        text = self.text
        for delimiter in self.pending:
            lines: list[str] = []
            while self.i < len(text):
                end = text.find("\n", self.i)
                end = len(text) if end < 0 else end
                line = text[self.i : end]
                self.i = end + 1
                if line.strip() == delimiter:
                    break
                lines.append(line)
            self.tokens.append(("heredoc", "".join(line + "\n" for line in lines)))
        self.pending.clear()

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
        self.tokens.append(("redirect", op if op in REDIRECTS else ">"))
