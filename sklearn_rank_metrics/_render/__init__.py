"""The output layer: one renderer per format over a plain :class:`~._table.Table`.

- :mod:`._table`: :class:`Table` (a header, rows, how many leading columns are
  labels) and its cells: a plain ``str`` is user text (a model, metric, query or file
  name, a caption) and is escaped by every renderer for its format;
  :class:`Verbatim` text (a number already formatted) and :class:`Marks` (the runs a
  mean is better than) are written by each format its own way.
- :mod:`._escape`: the escaping of user text, one function per format.
- :mod:`._text`, :mod:`._markdown`, :mod:`._latex`, :mod:`._csv`: a table (or
  several, under one caption) as aligned text, pipe tables, a booktabs ``table``, CSV.
- :mod:`._json`: :func:`~._json.json_safe` (NaN as null) and JSON text.
- :mod:`._trec_eval`: per-query values and means in ``trec_eval -q``'s layout.

The renderers import nothing above ``_engine``: results in ``_metrics`` and ``_stats``
and the command line call them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._engine._validation import Interval
from . import _latex, _markdown, _text
from ._table import Table

FORMATS = ("text", "markdown", "latex")

# The most digits after the decimal point a mean is printed with: ``digits`` of every
# ``to_*`` method and of ranking_report, and the command line's --digits. A float64
# has 17 significant digits at most (repr never needs more to read back the same
# number), so 17 after the point show every digit of a mean in [0.1, 1); more print
# only the binary expansion's noise, and digits=10**9 would take gigabytes.
MAX_DIGITS = 17
DIGITS = Interval(int, 0, MAX_DIGITS)  # the constraint every entry point checks

RENDERERS: dict[str, Callable[[str | None, Sequence[Table]], str]] = {
    "text": _text.render,
    "markdown": _markdown.render,
    "latex": _latex.render,
}


def render(style: str, caption: str | None, tables: Sequence[Table]) -> str:
    """``tables`` under ``caption`` in ``style`` (one of :data:`FORMATS`)."""
    if style not in FORMATS:
        raise ValueError(f"The format must be one of {FORMATS}; got {style!r}.")
    return RENDERERS[style](caption, tables)
