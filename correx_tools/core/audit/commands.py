"""A shell command's own plainly stated effects: what it fetches, removes and redirects to.

Agent-written commands are hostile input: the command is split into words once, as a
shell would (`shell_words`: one linear scan of at most `MAX_COMMAND` characters, no
regex, no recursion), and each simple command's name is looked at:

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

from ..tools.shell_words import program_at, shell_tokens
from .unquoted import unquoted

_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
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
    tokens, cut = shell_tokens(text)
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
        cut=cut,
    )  # fmt: skip


def _simple(words: list[str], urls: list[str], removed: list[str]) -> None:
    """The effects of one simple command's words."""
    start = program_at(words)
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
