"""Tables as aligned plain text: labels left-aligned, numbers right-aligned."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from ._escape import text as escape
from ._table import Marks, Table, rows_text

# the letters that have a superscript form (no "q")
_SUPERSCRIPT = dict(zip("abcdefghijklmnoprstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ", strict=True))
CAPTION_WIDTH = 100


def marks(cell: Marks) -> str:
    """Letters as superscripts (``ᵃᵇ``), run numbers in parentheses (`` (2-7,9)``)."""
    if cell.letters:
        return "".join(_SUPERSCRIPT[letter] for letter in cell.text)
    return f" ({cell.text})"


def aligned_lines(
    header: list[str], rows: list[list[str]], left: int, *, gap: int = 2
) -> list[str]:
    """Columns padded to their widest cell: the first ``left`` left-aligned, the rest
    right; two spaces between columns, ``gap`` between the labels and the numbers."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            text.ljust(width) if i < left else text.rjust(width)
            for i, (text, width) in enumerate(zip(row, widths, strict=True))
        ]
        labels, numbers = "  ".join(cells[:left]), "  ".join(cells[left:])
        joined = labels + " " * gap + numbers if 0 < left < len(cells) else labels + numbers
        lines.append(joined.rstrip())
    return lines


def table_lines(table: Table, *, gap: int = 2, blank_after_header: bool = False) -> list[str]:
    """One table's lines; ``blank_after_header`` puts an empty line under the header."""
    header, rows = rows_text(table, escape, marks)
    lines = aligned_lines(header, rows, table.left, gap=gap)
    return lines[:1] + [""] + lines[1:] if blank_after_header else lines


def render(
    caption: str | None,
    tables: Sequence[Table],
    *,
    gap: int = 2,
    blank_after_header: bool = False,
) -> str:
    """The caption wrapped at 100 columns, then each table after an empty line."""
    lines: list[str] = []
    if caption is not None:
        lines = textwrap.wrap(escape(caption), CAPTION_WIDTH, break_on_hyphens=False)
    for position, table in enumerate(tables):
        if caption is not None or position:
            lines.append("")
        lines += table_lines(table, gap=gap, blank_after_header=blank_after_header)
    return "\n".join(lines)
