"""Tables as one LaTeX ``table`` of booktabs ``tabular``s (``\\usepackage{booktabs}``)."""

from __future__ import annotations

from collections.abc import Sequence

from ._escape import latex as escape
from ._table import Marks, Table, rows_text


def marks(cell: Marks) -> str:
    """Superscripts: ``$^{ab}$``, or run numbers ``\\textsuperscript{2--7,9}``."""
    if cell.letters:
        return f"$^{{{cell.text}}}$"
    return rf"\textsuperscript{{{cell.text.replace('-', '--')}}}"


def table_lines(table: Table) -> list[str]:
    """A ``tabular`` with booktabs rules: labels ``l``, numbers ``r``."""
    header, rows = rows_text(table, escape, marks)
    spec = "l" * table.left + "r" * (len(header) - table.left)
    lines = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & ".join(header) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return lines


def render(caption: str | None, tables: Sequence[Table]) -> str:
    """A ``table`` float: the ``\\caption``, then each ``tabular`` after ``\\medskip``.

    The text ends with a line break, as a ``.tex`` file does (and pandas' ``to_latex``).
    """
    lines = [r"% \usepackage{booktabs}", r"\begin{table}", r"\centering"]
    if caption is not None:
        lines.append(rf"\caption{{{escape(caption)}}}")
    for position, table in enumerate(tables):
        if position:
            lines += [r"\medskip", ""]
        lines += table_lines(table)
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
