"""A plain table for the renderers: header, rows and cells of three kinds.

A cell is a ``str`` (user text: escaped by each renderer for its format), a
:class:`Verbatim` (written as is: a formatted number, a fixed label), a :class:`Marks`
(the runs a mean is significantly better than: each format writes them its own way),
or a tuple of those, rendered part by part and joined (``"a", " vs ", "b"``: each name
escaped on its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias


class Verbatim(str):
    """Text written as is, never escaped: a number as formatted, a fixed label."""

    __slots__ = ()


@dataclass(frozen=True)
class Marks:
    """The labels of the runs a mean is better than, after the mean.

    ``letters`` (``"ab"``) up to 25 runs, shown as superscripts; else ``numbers``, run
    numbers in ranges (``"2-7,9"``).
    """

    text: str
    letters: bool


Part: TypeAlias = str | Marks
Cell: TypeAlias = Part | tuple[Part, ...]


@dataclass(frozen=True)
class Table:
    """A header and rows of cells; the first ``left`` columns are labels (left-aligned
    in text, ``l`` in LaTeX, ``---`` in Markdown), the others numbers."""

    header: Sequence[Cell]
    rows: Sequence[Sequence[Cell]]
    left: int = 1


def cell_text(cell: Cell, escape: Callable[[str], str], marks: Callable[[Marks], str]) -> str:
    """One cell as text of a format: user text through ``escape``, :class:`Marks`
    through ``marks``, :class:`Verbatim` as is."""
    if isinstance(cell, tuple):
        return "".join(cell_text(part, escape, marks) for part in cell)
    if isinstance(cell, Marks):
        return marks(cell)
    if isinstance(cell, Verbatim):
        return str(cell)
    return escape(cell)


def rows_text(
    table: Table, escape: Callable[[str], str], marks: Callable[[Marks], str]
) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of ``table`` as text of a format."""
    header = [cell_text(cell, escape, marks) for cell in table.header]
    rows = [[cell_text(cell, escape, marks) for cell in row] for row in table.rows]
    return header, rows
