"""Per-query values and means as the text ``trec_eval -q`` prints.

The layout is that of trec_eval 10 (``trec_eval.c``: ``print_single_meas`` for every
query inside the evaluation loop, then ``print_final_and_cleanup_meas`` of every
measure; ``meas_print_single.c``, ``meas_print_final.c``, ``m_runid.c``,
``m_num_q.c``):

* one line per query and measure, ``%-22s\\t%s\\t%6.4f`` (the measure name padded
  to 22 characters, the query id, the value with 4 decimals; the counts
  ``num_rel``, ``num_ret``, ``num_rel_ret`` as integers, ``%ld``), queries in byte
  order of their ids (trec_eval sorts them with ``strcmp``);
* then the summary, query id ``all``: ``runid`` (the run's tag) and ``num_q`` (the
  number of queries averaged) first, as trec_eval's measure table lists them first,
  then every measure's mean (the counts: their sum).

Measure names, query ids and the run's tag are written through
:func:`._escape.text`: a control character (a tab, a line break, ESC) is shown as
its escape (``\\t``), so that no id can add a field or a line.

Under ``-c`` trec_eval 10 prints a line for every query of the qrels, an unanswered
one with its zeros ("-c mode now prints out skipped queries in -q mode", its
CHANGELOG); trec_eval 9 printed lines only for the answered queries. The rows decide
which queries there are: :func:`read_trec` keeps the qrels' queries by default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

from ._escape import text as escape


class MeasureValues(Protocol):
    """What the layout reads of a metric's result (``MetricDetail`` has it)."""

    @property
    def values(self) -> np.ndarray:
        """Per query, NaN where skipped."""

    @property
    def mean(self) -> float:
        """The mean (a count: the sum) over queries."""

    @property
    def total(self) -> bool:
        """Whether the measure is a count, summed over queries."""

# trec_eval's "%-22s" and "%6.4f"
_NAME = "{:<22}"


def _value_text(value: float, total: bool) -> str:
    # trec_eval prints its counts (num_rel, ...) with "%ld"
    if total and float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:6.4f}"


def trec_eval_lines(
    query_ids: np.ndarray,
    details: Mapping[str, MeasureValues],
    *,
    run_id: str | None = None,
) -> str:
    """Per-query values and means in ``trec_eval -q``'s layout (see the module docstring).

    Parameters
    ----------
    query_ids : ndarray of shape (n_queries,)
        The queries of ``details``' per-query values, in their order.
    details : dict of str to MetricDetail
        The measures, by the name to print, in the order to print them (trec_eval
        prints its own measures in the order of its measure table; ours keep the
        order given). A query a metric skipped (NaN) has no line for it.
    run_id : str or None, default=None
        The run's tag (the sixth field of a TREC run file's last line), printed as
        the ``runid`` summary line; None leaves that line out.

    Returns
    -------
    text : str
        The lines, each ending with a newline.
    """
    queries = np.array([str(query) for query in query_ids.tolist()])
    # str order is code point order, which is the byte order of the UTF-8 text
    order = np.argsort(queries, kind="stable")
    columns = [
        (_NAME.format(escape(name)), detail.values[order].tolist(), detail.total)
        for name, detail in details.items()
    ]
    lines = [
        f"{name}\t{escape(query)}\t{_value_text(column[position], total)}"
        for position, query in enumerate(queries[order].tolist())
        for name, column, total in columns
        if column[position] == column[position]  # NaN: the metric skipped the query
    ]
    if run_id is not None:
        lines.append(f"{_NAME.format('runid')}\tall\t{escape(run_id)}")
    lines.append(f"{_NAME.format('num_q')}\tall\t{len(queries)}")
    lines += [
        f"{_NAME.format(escape(name))}\tall\t{_value_text(detail.mean, detail.total)}"
        for name, detail in details.items()
    ]
    return "\n".join(lines) + "\n"
