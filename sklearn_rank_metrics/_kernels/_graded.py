"""Kernels of the graded metrics: DCG (and CG), ideal DCG, ERR.

Expected values over random block orders: every position of a block holds the
block's mean gain in expectation, so the expected DCG is
``sum_i mean_gain(block(i)) * discount(i)`` (scikit-learn's tie-averaged DCG).
ERR is not linear in the order; its kernel is in :func:`expected_reciprocal_rank`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._errors import RowValueError
from .._engine._inputs import first_bad
from .._engine._ranked_groups import Arrangement, RankedGroups
from .._engine._segments import query_blocks, sums_before_in_segment
from ._err_ties import stopping_chances
from ._tie_blocks import TiedBlocks, tied_blocks

GAINS = ("linear", "exponential", "binary")
DISCOUNTS = ("log(rank+1)", "max(1,log(rank))", "none")


def check_labels_non_negative(ranked: RankedGroups) -> None:
    """Graded metrics need ``y_true >= 0``: a ValueError naming the first bad row.

    The first bad row is found once per :class:`RankedGroups` (``evaluate`` of several
    graded metrics scans the labels once); each metric then raises in its own name.
    """
    row = ranked.cached("first_negative_label", lambda: first_bad(ranked.input_labels < 0))
    if row is None:
        return
    where = (
        f"row {row // ranked.n_rows_per_query[0]}, column {row % ranked.n_rows_per_query[0]}"
        if ranked.two_dimensional
        else f"row {row}"
    )
    raise RowValueError(
        f"y_true of {caller_name()} must be >= 0 (graded relevance); got "
        f"{ranked.input_labels[row]} at {where}. A negative grade (TREC's -2 for spam) "
        "has no gain in trec_eval, ir_measures and ranx: pass their convention (e.g. "
        "convention='trec_eval'), or clip the labels yourself (np.maximum(y_true, 0)).",
        row,
    )


def gain_values(
    labels: np.ndarray, gain: str | Any, input_labels: np.ndarray | None = None
) -> np.ndarray:
    """Gain of every label.

    ``"linear"``: ``y``; ``"exponential"``: ``2**y - 1``; ``"binary"``: 1 for
    ``y > 0``, else 0 (MLlib's ``ndcgAt``: a row is in the ground-truth set or
    not); ``G[y]`` for an array ``G``; ``f(y)`` for a callable.
    """
    if isinstance(gain, str):
        if gain == "linear":
            return labels
        if gain == "binary":  # a scaled label keeps its sign
            return (labels > 0).astype(np.float64)
        checked = labels if input_labels is None else input_labels
        if len(checked) and checked.max() >= 1024:
            raise ValueError(
                f"y_true of {caller_name()} must be < 1024 with gain='exponential' "
                f"(2**y - 1 overflows float64); got {checked.max():g}."
            )
        return np.exp2(labels) - 1.0
    if callable(gain):
        values = np.asarray(gain(labels.copy()), dtype=np.float64)
        if values.shape != labels.shape:
            raise ValueError(
                f"The 'gain' callable of {caller_name()} must return one gain per row "
                f"(shape {labels.shape}); got shape {values.shape}."
            )
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        if len(bad):
            raise ValueError(
                f"The 'gain' callable of {caller_name()} must return finite gains >= 0; "
                f"got {values[bad[0]]} for label {labels[bad[0]]}."
            )
        return values
    table = np.asarray(gain, dtype=np.float64)
    if table.ndim != 1 or len(table) == 0 or not np.all(np.isfinite(table)) or np.any(table < 0):
        raise ValueError(
            f"The 'gain' array of {caller_name()} must be 1-D with finite gains >= 0, indexed "
            f"by integer label; got {gain!r}."
        )
    checked = labels if input_labels is None else input_labels
    bad = np.flatnonzero((checked != np.floor(checked)) | (checked >= len(table)))
    if len(bad):
        raise RowValueError(
            f"With a 'gain' array of length {len(table)}, y_true of {caller_name()} must hold "
            f"integers in [0, {len(table) - 1}]; got {checked[bad[0]]} at row {int(bad[0])}.",
            int(bad[0]),
        )
    return table[labels.astype(np.intp)]


def discount_table(length: int, discount: str, log_base: float) -> np.ndarray:
    """Discount of 0-based rank ``p`` (1-based rank ``i = p + 1``).

    ``"log(rank+1)"``: ``1 / log_b(i + 1)``; ``"max(1,log(rank))"``:
    ``1 / max(1, log_b(i))`` (Järvelin & Kekäläinen 2002); ``"none"``: 1.
    """
    rank = np.arange(1, length + 1, dtype=np.float64)
    if discount == "none":
        return np.ones(length)
    if discount == "log(rank+1)":
        return np.log(log_base) / np.log(rank + 1)
    return 1.0 / np.maximum(1.0, np.log(rank) / np.log(log_base))


@dataclass(frozen=True)
class GainModel:
    """What a position adds to DCG: the gain of its label times its rank's discount.

    ``gain``: see :func:`gain_values`; ``discount`` and ``log_base``: see
    :func:`discount_table`.
    """

    gain: str | Any
    discount: str
    log_base: float

    def gains(self, labels: np.ndarray, input_labels: np.ndarray | None = None) -> np.ndarray:
        """:func:`gain_values` of ``labels`` under this model's gain."""
        return gain_values(labels, self.gain, input_labels)

    def discounts(self, length: int) -> np.ndarray:
        """:func:`discount_table` of ``length`` ranks under this model's discount."""
        return discount_table(length, self.discount, self.log_base)


def expected_dcg(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    model: GainModel,
) -> np.ndarray:
    """Expected DCG@k per query: each position holds its block's mean gain.

    Only the rows within the cutoff are visited (plus, under ``ties="average"``, the
    other rows of a tied block that straddles the cutoff): a position of a tied
    block with gain sum ``G`` over its ``m`` rows holds ``G / m``.
    """
    arrangement = ranked.arrangement(ties)
    longest = int(ranked.n_rows_per_query.max())
    discounts = model.discounts(longest if k is None else min(k, longest))
    if ranked.one_row_per_query:  # the row at rank 0 (k >= 1), if it was retrieved
        dcg = model.gains(arrangement.labels, ranked.input_labels)
        dcg = dcg * discounts[0]
        dcg[ranked.n_retrieved == 0] = 0.0
        return dcg
    depth = ranked.common_depth(k) if arrangement.singletons else None
    if depth is not None:  # the cutoff rows are the first `depth` columns of a 2-D array
        return _dcg_of_columns(ranked, arrangement, depth, discounts, model)
    rows = ranked.cutoff_rows(k)
    if arrangement.singletons and isinstance(model.gain, str):
        # a named gain is a function of each label alone: gathered, not computed
        in_rank_order = _rows_in_rank_order(ranked, arrangement)
        gains = _input_gains(ranked, model).take(
            in_rank_order if rows is None else in_rank_order[rows]
        )
    else:
        labels = arrangement.labels if rows is None else arrangement.labels[rows]
        gains = model.gains(labels, ranked.input_labels)
    if not arrangement.singletons:
        blocks = tied_blocks(ranked, ties, k)
        block_gains = model.gains(arrangement.labels[blocks.rows], ranked.input_labels)
        if gains is arrangement.labels:  # the linear gain is the labels themselves
            gains = gains.copy()
        gains[blocks.position] = (blocks.sum(block_gains) / blocks.size)[blocks.owner]
    # each cutoff row's discount (kept with the cutoff rows, see _label_side)
    row_discounts = ranked.cached(
        ("cutoff_discounts", k, model.discount, model.log_base),
        lambda: discounts[ranked.cutoff_rank(k)],
    )
    return ranked.cutoff_sum(gains * row_discounts, k)


def _input_gains(ranked: RankedGroups, model: GainModel) -> np.ndarray:
    """The named gain of every row, in input order (cached: the labels' alone)."""
    return ranked.cached(("input_gains", model.gain), lambda: model.gains(ranked.input_labels))


def _rows_in_rank_order(ranked: RankedGroups, arrangement: Arrangement) -> np.ndarray:
    """The input row at each rank position of ``arrangement``."""
    if arrangement.permutation is None:
        return ranked.order
    return ranked.order[arrangement.permutation]


def _dcg_of_columns(
    ranked: RankedGroups,
    arrangement: Arrangement,
    depth: int,
    discounts: np.ndarray,
    model: GainModel,
) -> np.ndarray:
    """DCG of the first ``depth`` rows of every query, all queries of one size.

    Every query holds ``n_rows / n_queries`` rows, all retrieved, each its own block
    (:meth:`RankedGroups.common_depth`): the rows within the cutoff are the first
    ``depth`` columns of the ``(n_queries, width)`` array of the rows in rank order,
    where the rank of a column is its index, so each gain meets its discount by
    broadcasting, with no rank per row. A named gain (a function of each label
    alone) is computed once on the input rows (kept with the labels, see
    :data:`~.._model_selection._label_side.LABEL_ONLY_KEYS`) and gathered for the
    cutoff rows only. The gains, the products and the per-query sums
    (``np.add.reduceat`` of the same segments) are those of the general path, bit
    for bit.
    """
    n_queries = ranked.n_queries
    if isinstance(model.gain, str):
        rows = _rows_in_rank_order(ranked, arrangement).reshape(n_queries, -1)[:, :depth]
        terms = _input_gains(ranked, model).take(rows).reshape(-1)
    else:
        top = arrangement.labels.reshape(n_queries, -1)[:, :depth].reshape(-1)
        terms = np.array(model.gains(top, ranked.input_labels), dtype=np.float64)
    # each row's discount, laid out as the rows are (the layout's: kept with it)
    terms *= ranked.cached(
        ("column_discounts", depth, model.discount, model.log_base),
        lambda: np.tile(discounts[:depth], n_queries),
    )
    return np.add.reduceat(terms, np.arange(0, len(terms), depth))


def _sorted_descending_within_queries(values: np.ndarray, query: np.ndarray) -> np.ndarray:
    return values[np.lexsort((-values, query))]


_MAX_LEVELS = 64
_LEVEL_COUNT_BLOCK_ROWS = 1 << 17


def _label_level_counts(ranked: RankedGroups) -> np.ndarray | None:
    """Rows per (integer label, query) when labels are small ints, else None (cached)."""

    def compute() -> np.ndarray | None:
        labels = ranked.labels  # >= 0: checked before any graded kernel runs
        top = labels.max()
        if top >= _MAX_LEVELS or ranked.n_rows_per_query.max() >= 2**31:
            return None
        n_levels = int(top) + 1
        # int32 holds any query's count (queries of 2**31 rows use the sorted path)
        counts = np.empty((n_levels, ranked.n_queries), dtype=np.int32)
        sizes = ranked.n_rows_per_query
        # cell = label * queries + query, counted block by block of whole queries
        for first, stop in query_blocks(ranked.offsets, _LEVEL_COUNT_BLOCK_ROWS):
            block_labels = labels[ranked.offsets[first] : ranked.offsets[stop]]
            cell = block_labels.astype(np.intp)  # exact for integers in [0, 64)
            if np.any(cell != block_labels):
                return None
            cell *= stop - first
            cell += np.repeat(np.arange(stop - first), sizes[first:stop])
            counts[:, first:stop] = np.bincount(cell, minlength=(stop - first) * n_levels).reshape(
                n_levels, stop - first
            )
        return counts

    return ranked.cached("label_level_counts", compute)


def ideal_dcg(
    ranked: RankedGroups,
    k: int | None,
    model: GainModel,
) -> np.ndarray:
    """DCG@k of each query's rows (all judged rows, ``-inf`` ones too) sorted by gain.

    For small integer labels no sort is needed: with ``n_g`` rows of gain level
    ``g`` per query, the ideal order puts them at positions ``[start_g, start_g +
    n_g)``, with the higher gains first, and contributes ``gain_g * (C(end) -
    C(start))`` where ``C`` is the cumulative discount (both clipped at ``k``).
    Otherwise the rows are sorted by gain within each query.
    """
    if isinstance(model.gain, str):  # of the labels alone: kept with them
        best = ranked.cached(("ideal_dcg", k, model), lambda: _ideal_dcg(ranked, k, model))
        return best.copy()
    return _ideal_dcg(ranked, k, model)


def _ideal_dcg(ranked: RankedGroups, k: int | None, model: GainModel) -> np.ndarray:
    """:func:`ideal_dcg`, computed."""
    longest = int(ranked.n_rows_per_query.max())
    discounts = model.discounts(longest)
    if ranked.one_row_per_query:  # the ideal order is the row itself (k >= 1)
        return model.gains(ranked.labels, ranked.input_labels) * discounts[0]
    counts = _label_level_counts(ranked)
    if counts is None:
        gains = model.gains(ranked.labels, ranked.input_labels)
        gains = _sorted_descending_within_queries(gains, ranked.query_of_row)
        rank = ranked.rank
        weights = discounts[rank]
        if k is not None:
            weights = weights * (rank < k)
        return ranked.query_sum(gains * weights)
    level_gains = model.gains(np.arange(len(counts), dtype=np.float64), ranked.input_labels)
    cumulative = np.concatenate(([0.0], np.cumsum(discounts)))
    limit = len(discounts) if k is None else min(k, len(discounts))
    best = np.zeros(ranked.n_queries)
    start = np.zeros(ranked.n_queries, dtype=np.intp)
    end = np.empty_like(start)
    # one level at a time, best gain first; levels with gain 0 add nothing
    for level in np.argsort(-level_gains, kind="stable"):
        if level_gains[level] <= 0:
            break
        np.add(start, counts[level], out=end)
        np.minimum(end, limit, out=end)
        best += level_gains[level] * (cumulative[end] - cumulative[start])
        start, end = end, start
    return best


def ideal_dcg_of_top_k(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    model: GainModel,
) -> np.ndarray:
    """DCG of the rows the model placed within the cutoff, re-sorted by gain.

    Under ``ties="average"`` this is exact only for queries where no tied block
    straddles the cutoff (``_ndcg_top_k`` handles the others).
    """
    arrangement = ranked.arrangement(ties)
    inside = np.flatnonzero(ranked.in_cutoff(k))
    gains = model.gains(arrangement.labels[inside])
    query = ranked.query_of_row[inside]
    gains = _sorted_descending_within_queries(gains, query)
    discounts = model.discounts(int(ranked.n_rows_per_query.max()))
    return np.bincount(
        query, weights=gains * discounts[ranked.rank[inside]], minlength=ranked.n_queries
    )


# ----------------------------------------------------------------------------- ERR


# the top grade of the five-grade scale (0-4) of the ERR paper, gdeval, LETOR and MSLR
DEFAULT_MAX_GRADE = 4


def stop_probability(labels: np.ndarray, max_grade: float) -> np.ndarray:
    """Chapelle et al.'s ``R(g) = (2**g - 1) / 2**max_grade``."""
    return (np.exp2(labels) - 1.0) / np.exp2(max_grade)


def expected_reciprocal_rank(
    ranked: RankedGroups, ties: str, k: int | None, max_grade: float
) -> np.ndarray:
    """Expected ERR@k per query.

    With ``S_i`` the probability that the user passes ranks ``1..i`` without
    stopping, ``ERR = sum_i (S_{i-1} - S_i) / i``. Blocks are independent, so
    ``E[S_i] = (product of (1 - R) over earlier blocks) * e_t`` where ``e_t`` is the
    mean, over all ``t``-subsets of the block, of the product of ``(1 - R)``
    (a normalised elementary symmetric polynomial); see
    :func:`~._err_ties.stopping_chances` for how, and for its cost: linear
    memory, and time O(T * D) per block of ``T`` positions in the cutoff, with ``D``
    about 60 for graded labels (at most the block's rows with a label above 0).
    """
    arrangement = ranked.arrangement(ties)
    if arrangement.singletons:
        return _err_of_cutoff_rows(ranked, arrangement.labels, k, max_grade, None)
    return _err_of_cutoff_rows(
        ranked, arrangement.labels, k, max_grade, tied_blocks(ranked, ties, k)
    )


def _err_of_cutoff_rows(
    ranked: RankedGroups,
    labels: np.ndarray,
    k: int | None,
    max_grade: float,
    blocks: TiedBlocks | None,
) -> np.ndarray:
    """ERR@k from the rows within the cutoff only (all rows when there is no cutoff).

    The cutoff rows hold each query's first ``depth`` sorted rows, consecutively, each
    at its rank ``r`` within the query: the probability of reaching it is
    ``exp(L)`` with ``L`` the sum of ``log(1 - R)`` over the rows before it in its
    query (:func:`sums_before_in_segment`, so that a query's value never depends on
    the rows of other queries). The positions of tied ``blocks`` then take their
    expected terms ``reach(s) (e_t - e_{t+1}) / (s + t + 1)``.
    """
    if ranked.one_row_per_query:  # rank 0, reached with certainty: ERR is R(label)
        terms = stop_probability(labels, max_grade)
        terms[ranked.n_retrieved == 0] = 0.0  # a -inf row is not retrieved
        return terms
    rows = ranked.cutoff_rows(k)
    rank = ranked.cutoff_rank(k)
    stop = stop_probability(labels if rows is None else labels[rows], max_grade)
    log_reach = sums_before_in_segment(np.log1p(-stop), rank)
    terms = np.exp(log_reach) * stop / (rank + 1)
    if blocks is not None and len(blocks):
        reach_block = np.exp(log_reach[blocks.block_position])
        keep = 1.0 - stop_probability(labels[blocks.rows], max_grade)
        owner, offset = blocks.owner, blocks.offset
        expected = stopping_chances(keep, blocks.size, owner, offset)
        expected *= reach_block[owner]
        expected /= blocks.start_rank[owner] + offset + 1.0
        terms[blocks.position] = expected
    return ranked.cutoff_sum(terms, k)


# a DCG with linear gain is at most (rows of the query) * (largest label): every
# discount is at most 1. Below this bound on that product it cannot overflow.
_DCG_SAFE_BOUND = 2.0**1000


def labels_scaled_where_dcg_could_overflow(ranked: RankedGroups) -> RankedGroups:
    """``ranked`` with each query whose DCG could overflow rescaled by ``2**-e``.

    ``e`` is the binary exponent of the query's largest label; other queries keep
    their labels, so a query's value never depends on the others.
    """
    rows = ranked.n_rows_per_query
    if not ranked.n_rows or ranked.input_labels.max() < _DCG_SAFE_BOUND / rows.max():
        return ranked
    labels = ranked.labels
    largest = np.zeros(ranked.n_queries)
    filled = rows > 0
    largest[filled] = np.maximum.reduceat(labels, ranked.offsets[:-1][filled])
    at_risk = largest >= _DCG_SAFE_BOUND / np.maximum(rows, 1)
    exponent = np.where(at_risk, np.frexp(largest)[1], 0)
    scaled = labels * np.repeat(np.ldexp(1.0, -exponent), rows)
    input_scaled = np.empty_like(scaled)
    input_scaled[ranked.order] = scaled
    return replace(ranked, input_labels=input_scaled, sorted_labels=lambda: scaled, _cache={})
