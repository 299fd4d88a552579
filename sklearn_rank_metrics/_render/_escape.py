"""One escaping function per output format, for every user-supplied string.

Run and model names, metric names, file names and captions come from the user
(a run file's name, a CSV column header, a mapping key). Each renderer passes
every cell and caption through the function of its format, so that no such
string can change the document's structure:

- :func:`latex`: every character with a meaning to LaTeX is written as the
  command that prints it, line breaks become spaces; there is no math-mode or
  command passthrough for user text.
- :func:`markdown`: inline Markdown (a pipe-table cell or a caption line): the
  characters of inline markup, ``|`` and the backslash are backslash-escaped
  (CommonMark allows escaping any ASCII punctuation), line breaks become spaces,
  and block syntax at the start (``#``, ``>``, ``-``, ``1.``, ...) is escaped.
- :func:`text`: aligned plain text: control characters and line separators are
  shown as Python's escapes (``\\n``, ``\\t``, ``\\x1b``), so that a name cannot break
  a line or send terminal control sequences.
"""

from __future__ import annotations

import re

_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # brackets: a row that began with "[" would be read as the optional argument
    # of the previous row's "\\"
    "[": "{[}",
    "]": "{]}",
}
# line breaks and other control characters (a blank line is \par, an error in a cell)
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_LATEX_SPECIAL = re.compile("[" + re.escape("".join(_LATEX)) + "]")

# inline markup of CommonMark and GitHub Flavored Markdown (tables, strikethrough,
# autolinks, raw HTML, entities, math)
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]<>|~&$!])")
# block syntax that a line may start with (a caption starts a line)
_MARKDOWN_BLOCK = re.compile(r"^(?:([#>+=-])|(\d+)([.)]))")


def _str(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def latex(value: object) -> str:
    """``value`` as LaTeX text: printed as written, never interpreted.

    ``\\ { } $ & # ^ _ % ~ < > | [ ]`` become the commands that print them (``\\&``,
    ``\\textbackslash{}``, ...); newlines and other control characters become a space.
    """
    flat = _BREAKS.sub(" ", _str(value))
    return _LATEX_SPECIAL.sub(lambda match: _LATEX[match.group()], flat)


def markdown(value: object) -> str:
    """``value`` as inline Markdown text (a table cell or a caption), shown as written.

    The backslash, ``|`` and the characters of inline markup (`` ` * _ [ ] < > ~ & $ !``)
    are backslash-escaped; newlines and other control characters become a space;
    leading and trailing blanks are dropped (a cell is trimmed anyway, and four
    spaces would start a code block); block syntax at the start (``#``, ``>``,
    ``+``, ``=``, ``-``, ``1.``, ``1)``) is escaped too.
    """
    # leading and trailing blanks: cells are trimmed, and four spaces would start code
    flat = _BREAKS.sub(" ", _str(value)).strip(" \t")
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", flat)

    def block(match: re.Match) -> str:
        marker, number, delimiter = match.groups()
        return f"\\{marker}" if marker is not None else f"{number}\\{delimiter}"

    return _MARKDOWN_BLOCK.sub(block, escaped, count=1)


def _visible(match: re.Match) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def text(value: object) -> str:
    """``value`` for aligned plain text: control characters shown as escapes.

    ``"a\\nb"`` is shown as ``a\\nb`` (a backslash and ``n``), ESC as ``\\x1b``; every
    other character is kept.
    """
    return _BREAKS.sub(_visible, _str(value))
