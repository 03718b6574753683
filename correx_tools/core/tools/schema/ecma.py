"""JSON Schema patterns are ECMA-262 regular expressions; RE2 reads a different dialect.

Patterns run on RE2 so that a hostile one cannot stall validation, but where
the two dialects spell or mean a construct differently, the pattern is
translated first, so that it matches what its author (and every other
validator) meant:

* ``\\s`` is Unicode white space in ECMA-262 (U+000B, U+00A0, U+2003,
  U+2029, the BOM...) and ASCII-only in RE2; ``\\S`` the other way round;
* ``.`` stops at every ECMA-262 line terminator, not only at ``\\n``;
* ``\\p{Letter}``, ``\\p{General_Category=Decimal_Number}``,
  ``\\p{Script=Greek}``: RE2 knows the short names (``\\pL``, ``\\p{Nd}``,
  ``\\p{Greek}``) only;
* ``\\uXXXX``, ``\\u{X...}``, ``\\cX`` and ``\\0`` are written ``\\x{...}``;
  ``(?<name>...)`` is written ``(?P<name>...)``.

What RE2 cannot run in linear time is refused naming the construct:
lookahead, lookbehind and backreferences.
"""

from __future__ import annotations

_WHITE_SPACE = (
    r"\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}"
    r"\x{3000}\x{FEFF}"
)
"""ECMA-262's WhiteSpace and LineTerminator code points, as the inside of an RE2 class."""

_NOT_LINE_TERMINATOR = r"[^\n\r\x{2028}\x{2029}]"

_CATEGORIES = {
    "letter": "L", "cased_letter": "L", "uppercase_letter": "Lu", "lowercase_letter": "Ll",
    "titlecase_letter": "Lt", "modifier_letter": "Lm", "other_letter": "Lo",
    "mark": "M", "combining_mark": "M", "nonspacing_mark": "Mn", "spacing_mark": "Mc",
    "enclosing_mark": "Me", "number": "N", "decimal_number": "Nd", "digit": "Nd",
    "letter_number": "Nl", "other_number": "No", "punctuation": "P", "punct": "P",
    "connector_punctuation": "Pc", "dash_punctuation": "Pd", "open_punctuation": "Ps",
    "close_punctuation": "Pe", "initial_punctuation": "Pi", "final_punctuation": "Pf",
    "other_punctuation": "Po", "symbol": "S", "math_symbol": "Sm", "currency_symbol": "Sc",
    "modifier_symbol": "Sk", "other_symbol": "So", "separator": "Z", "space_separator": "Zs",
    "line_separator": "Zl", "paragraph_separator": "Zp", "other": "C", "control": "Cc",
    "cntrl": "Cc", "format": "Cf", "surrogate": "Cs", "private_use": "Co", "unassigned": "Cn",
}  # fmt: skip
"""Unicode general category names (long and alias) to the short names RE2 knows."""


class Unsupported(Exception):
    """A construct of the pattern RE2 cannot run; the message names it."""


def ecma_to_re2(pattern: str) -> str:
    """``pattern`` (ECMA-262) in RE2's dialect; raises `Unsupported` naming what cannot be.

    >>> print(ecma_to_re2(r"^\\p{Letter}+\\u00e9$"))
    ^\\pL+\\x{00e9}$
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            written, i = _escape(pattern, i, in_class=False)
        elif char == "[":
            written, i = _class(pattern, i)
        elif char == ".":
            written, i = _NOT_LINE_TERMINATOR, i + 1
        elif pattern.startswith("(?", i):
            written, i = _group(pattern, i)
        else:
            written, i = char, i + 1
        out.append(written)
    return "".join(out)


def _class(pattern: str, i: int) -> tuple[str, int]:
    """The character class opening at ``i`` in RE2's spelling, and the index after it.

    ECMA-262 ends a class at its first unescaped ``]``: ``[]`` matches nothing
    and ``[^]`` any character, where RE2 would read that ``]`` as a member. A
    class with ``\\S`` in it (``[\\s\\S]``, "any character") is the union of
    its other members and of everything but white space, which RE2 writes as
    an alternation.
    """
    negated = pattern.startswith("[^", i)
    j = i + (2 if negated else 1)
    members: list[str] = []
    not_space = False
    while j < len(pattern) and pattern[j] != "]":
        if pattern.startswith("\\S", j):
            not_space, j = True, j + 2
        elif pattern[j] == "\\":
            written, j = _escape(pattern, j, in_class=True)
            members.append(written)
        else:
            members.append(pattern[j])
            j += 1
    if j >= len(pattern):
        raise Unsupported("a character class [ is not closed")
    inside = "".join(members)
    if not_space and negated:
        raise Unsupported(r"\S inside a negated class [^...] has no RE2 equivalent")
    if not_space:
        return (f"(?:[{inside}]|[^{_WHITE_SPACE}])" if inside else f"[^{_WHITE_SPACE}]"), j + 1
    if not inside:
        return (r"[\x{0}-\x{10FFFF}]" if negated else r"[^\x{0}-\x{10FFFF}]"), j + 1
    return f"[{'^' if negated else ''}{inside}]", j + 1


def _group(pattern: str, i: int) -> tuple[str, int]:
    """The opening of a ``(?...`` group at ``i`` in RE2's spelling, and the index after it."""
    for opening, name in (
        ("(?=", "lookahead"),
        ("(?!", "negative lookahead"),
        ("(?<=", "lookbehind"),
        ("(?<!", "negative lookbehind"),
    ):
        if pattern.startswith(opening, i):
            raise Unsupported(f"{name} {opening}...) cannot run in linear time")
    if pattern.startswith("(?<", i):
        return "(?P<", i + 3
    return "(?", i + 2


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The escape at ``i`` in RE2's spelling, and the index after it."""
    if i + 1 >= len(pattern):
        raise Unsupported("the pattern ends with a lone backslash")
    letter = pattern[i + 1]
    if letter == "s":
        return (_WHITE_SPACE if in_class else f"[{_WHITE_SPACE}]"), i + 2
    if letter == "S":  # inside a class, `_class` takes it apart first
        return f"[^{_WHITE_SPACE}]", i + 2
    if letter in "pP":
        return _property(pattern, i, negated=letter == "P")
    if letter == "u":
        return _unicode_escape(pattern, i)
    if (
        letter == "c"
        and i + 2 < len(pattern)
        and pattern[i + 2].isascii()
        and pattern[i + 2].isalpha()
    ):
        return f"\\x{{{ord(pattern[i + 2]) % 32:02X}}}", i + 3
    if letter == "0" and not pattern[i + 2 : i + 3].isdigit():
        return r"\x{0}", i + 2
    if letter.isdigit() and letter != "0":
        raise Unsupported(f"the backreference \\{letter} cannot run in linear time")
    if letter == "k" and pattern.startswith("<", i + 2):
        raise Unsupported("the named backreference \\k<...> cannot run in linear time")
    return pattern[i : i + 2], i + 2


def _property(pattern: str, i: int, *, negated: bool) -> tuple[str, int]:
    r"""``\p{...}`` or ``\P{...}`` at ``i`` with a name RE2 knows."""
    letter = "P" if negated else "p"
    if not pattern.startswith("{", i + 2):
        return pattern[i : i + 3], i + 3  # \pL: already RE2's
    end = pattern.find("}", i + 3)
    if end < 0:
        raise Unsupported(f"\\{letter}{{ is not closed")
    name = pattern[i + 3 : end]
    key, _, value = name.partition("=")
    if value and key.lower() in ("general_category", "gc"):
        name = value
    elif value and key.lower() in ("script", "sc", "script_extensions", "scx"):
        return f"\\{letter}{{{value}}}", end + 1
    short = _CATEGORIES.get(name.lower().replace(" ", "_"), name)
    if len(short) == 1:
        return f"\\{letter}{short}", end + 1
    return f"\\{letter}{{{short}}}", end + 1


def _unicode_escape(pattern: str, i: int) -> tuple[str, int]:
    r"""``\uXXXX`` or ``\u{X...}`` at ``i`` as ``\x{...}``."""
    if pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        digits = pattern[i + 3 : end] if end > 0 else ""
        if not digits or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise Unsupported(r"\u{...} needs hexadecimal digits")
        return f"\\x{{{digits}}}", end + 1
    digits = pattern[i + 2 : i + 6]
    if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
        raise Unsupported(r"\u needs four hexadecimal digits")
    return f"\\x{{{digits}}}", i + 6
