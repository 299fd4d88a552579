"""Tables as Markdown pipe tables, the caption as a paragraph above them."""

from __future__ import annotations

from collections.abc import Sequence

from ._escape import markdown as escape
from ._table import Table, rows_text
from ._text import marks


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table_lines(table: Table) -> list[str]:
    """A pipe table: labels ``---``, numbers right-aligned ``---:``."""
    header, rows = rows_text(table, escape, marks)
    rule = ["---" if i < table.left else "---:" for i in range(len(header))]
    return [_line(header), _line(rule), *(_line(row) for row in rows)]


def render(caption: str | None, tables: Sequence[Table]) -> str:
    """The caption, then each table, separated by empty lines."""
    lines = [] if caption is None else [escape(caption)]
    for table in tables:
        if lines:
            lines.append("")
        lines += table_lines(table)
    return "\n".join(lines)
