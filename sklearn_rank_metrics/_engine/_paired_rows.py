"""Two rankings of the same rows, checked once: :class:`PairedRows` and :class:`RankedList`.

The agreement measures (rank-biased overlap, Kendall's tau, overlap at k) compare two
score columns over one set of rows: ``y_score_a`` and ``y_score_b`` rank the rows of
every query, and a row one ranking did not return scores ``-inf`` there. The door
(:func:`checked_pair`) checks both columns, the query ids and the weights once, naming
the argument and the first bad row, as :func:`~._rows.checked_rows` does for labels
and scores; :func:`ranked_list` sorts one column into the positions and tie blocks the
kernels read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._caller import caller_name
from ._inputs import (
    as_float,
    check_pandas_indexes,
    check_shapes,
    factorize_groups_with_sizes,
    first_bad,
    format_index,
    row_weights,
    to_numpy,
)
from ._ranking_rows import RankingRows
from ._rows import Queries, _queries, _query_weight

_EXACT_INTEGERS = 2**53  # float64 holds every integer up to this magnitude


@dataclass(frozen=True, eq=False)
class PairedRows:
    """The checked columns of a call that compares two rankings of the same rows.

    ``scores_a``, ``scores_b``: float64, flat (2-D input row by row), ``-inf`` for a
    row the ranking did not return; ``queries``: the query of every row;
    ``query_weight``: each query's ``sample_weight`` (a broadcast 1 without);
    ``shape``: the inputs' shape, to name a flat row as the caller passed it
    (:meth:`row_name`).
    """

    scores_a: np.ndarray
    scores_b: np.ndarray
    queries: Queries
    query_weight: np.ndarray
    shape: tuple[int, ...]

    @property
    def n_rows(self) -> int:
        return len(self.scores_a)

    @property
    def query_ids(self) -> np.ndarray:
        return self.queries.ids

    def row_name(self, row: int) -> str:
        """Flat row ``row`` as the errors name it: ``"row 4"``, or with 2-D input
        ``"row 1, column 1"`` (the package's ``format_index``)."""
        return format_index(row, self.shape)


def _scores(value: Any, name: str) -> np.ndarray:
    """One score column as float64 (integers beyond 2**53 by their dense ranks, which
    keep their order and ties exactly; a ranking reads nothing but the order)."""
    if isinstance(value, RankingRows):  # rows whole, where one score column belongs
        raise TypeError(
            f"{name} of {caller_name()} is one score column, not a {type(value).__name__}: "
            "pass the two rankings' scores of the same rows and their query ids, "
            f"{caller_name()}(runs.scores['a'], runs.scores['b'], runs.group) for an "
            "AlignedRuns, or (data_a.y_score, data_b.y_score, data_a.group) for two "
            "RankingData whose rows are the same, in the same order."
        )
    array = to_numpy(value, name)
    if array.dtype.kind in "iu" and array.size:
        low, high = array.min(), array.max()
        if high > _EXACT_INTEGERS or low < -_EXACT_INTEGERS:
            _, ranks = np.unique(array, return_inverse=True)
            return ranks.reshape(array.shape).astype(np.float64)
    return as_float(array, name)


def checked_pair(
    y_score_a: Any, y_score_b: Any, group: Any, *, sample_weight: Any = None
) -> PairedRows:
    """Check and convert the inputs of a comparison of two rankings, once.

    Errors name the function called, the argument and the first bad row. ``NaN`` is
    refused; ``-inf`` marks a row the ranking did not return, ``+inf`` is a score.
    2-D input ``(n_queries, n_docs)`` with ``group=None``: every row is a query.
    """
    check_pandas_indexes(
        {"y_score_a": y_score_a, "y_score_b": y_score_b, "group": group,
         "sample_weight": sample_weight}
    )
    a = _scores(y_score_a, "y_score_a")
    b = _scores(y_score_b, "y_score_b")
    check_shapes(a, b, ("y_score_a", "y_score_b"))
    for name, scores in (("y_score_a", a), ("y_score_b", b)):
        bad = first_bad(np.isnan(scores))
        if bad is not None:
            raise ValueError(
                f"{name} of {caller_name()} must not be NaN; got NaN at "
                f"{format_index(bad, scores.shape)} (a row the ranking did not return "
                "scores -inf)."
            )
    two_dimensional = a.ndim == 2
    if two_dimensional:
        if group is not None:
            raise ValueError(
                f"group of {caller_name()} must be None for 2-D input (each row of "
                "y_score_a is a query); pass flat 1-D arrays to use query ids."
            )
        n_queries, n_docs = a.shape
        queries = _queries(None, np.arange(n_queries), np.full(n_queries, n_docs), a.size)
    elif group is None:
        raise ValueError(
            f"The 'group' parameter of {caller_name()} is required with flat (1-D) scores: "
            "pass the query id of every row, e.g. group=qid. To compare all rows as ONE "
            "query on purpose, say so with group=np.zeros(len(y_score_a))."
        )
    else:
        queries = _queries(*factorize_groups_with_sizes(group, len(a)), len(a))
    weights = row_weights(sample_weight, queries, two_dimensional)
    return PairedRows(
        scores_a=a.reshape(-1),
        scores_b=b.reshape(-1),
        queries=queries,
        query_weight=_query_weight(weights, queries, two_dimensional),
        shape=a.shape,
    )


@dataclass(frozen=True, eq=False)
class RankedList:
    """One score column as a ranked list per query (every array per row, input order).

    A row scored ``-inf`` is not in the list (``present`` False); the others hold
    positions ``1 .. length[q]`` of their query, by score descending, tied rows in
    input order. ``top`` and ``bottom``: the first and last position of the row's
    block of tied scores (equal for a row without a tie, or when ties are broken).
    """

    position: np.ndarray
    top: np.ndarray
    bottom: np.ndarray
    present: np.ndarray
    length: np.ndarray


def ranked_list(
    codes: np.ndarray, offsets: np.ndarray, scores: np.ndarray, *, break_ties: bool = False
) -> RankedList:
    """The ranked list of ``scores`` in every query (see :class:`RankedList`).

    ``codes``: the query of every row; ``offsets``: the first row of every query in
    the order by query (``Queries.offsets``). ``break_ties``: tied rows take their
    input order as their own positions (no tie block spans two positions).
    One stable sort by (query, score descending).
    """
    n_rows = len(scores)
    order = np.lexsort((-scores, codes))
    sorted_codes = codes[order]
    sorted_scores = scores[order]
    position0 = np.arange(n_rows) - offsets[sorted_codes]
    if break_ties:
        top_sorted = position0 + 1
        bottom_sorted = top_sorted
    else:
        new_block = np.ones(n_rows, dtype=bool)
        new_block[1:] = (sorted_scores[1:] != sorted_scores[:-1]) | (position0[1:] == 0)
        starts = np.flatnonzero(new_block)
        sizes = np.diff(starts, append=n_rows)
        block = np.cumsum(new_block) - 1
        top_sorted = position0[starts][block] + 1
        bottom_sorted = top_sorted + sizes[block] - 1
    position = np.empty(n_rows, dtype=np.intp)
    top = np.empty(n_rows, dtype=np.intp)
    bottom = np.empty(n_rows, dtype=np.intp)
    position[order] = position0 + 1
    top[order] = top_sorted
    bottom[order] = bottom_sorted
    present = scores > -np.inf
    n_queries = len(offsets) - 1
    length = np.bincount(codes[present], minlength=n_queries).astype(np.intp)
    return RankedList(position, top, bottom, present, length)
