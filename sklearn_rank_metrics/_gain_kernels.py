"""Kernels of the graded metrics: DCG (and CG), ideal DCG, ERR.

Expected values over random block orders: every position of a block holds the
block's mean gain in expectation, so the expected DCG is
``sum_i mean_gain(block(i)) * discount(i)`` (scikit-learn's tie-averaged DCG).
ERR is not linear in the order; its kernel is in :func:`expected_reciprocal_rank`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._combinatorics import log_comb_of_integers, log_factorials
from ._grouping import RankedGroups
from ._segments import query_blocks, segment_rows, sums_before_in_segment
from ._tie_blocks import TiedBlocks, tied_blocks

GAINS = ("linear", "exponential")
DISCOUNTS = ("log(rank+1)", "max(1,log(rank))", "none")


def check_labels_non_negative(ranked: RankedGroups, function_name: str) -> None:
    """Graded metrics need ``y_true >= 0``: a ValueError naming the first bad row."""
    bad = np.flatnonzero(ranked.input_labels < 0)
    if len(bad):
        row = int(bad[0])
        where = (
            f"row {row // ranked.n_rows_per_query[0]}, column {row % ranked.n_rows_per_query[0]}"
            if ranked.two_dimensional
            else f"row {row}"
        )
        raise ValueError(
            f"y_true of {function_name} must be >= 0 (graded relevance); got "
            f"{ranked.input_labels[row]} at {where}."
        )


def gain_values(
    labels: np.ndarray, gain: str | Any, function_name: str, input_labels: np.ndarray | None = None
) -> np.ndarray:
    """Gain of every label: ``y``, ``2**y - 1``, ``G[y]`` for an array ``G``, or ``f(y)``."""
    if isinstance(gain, str):
        if gain == "linear":
            return labels
        checked = labels if input_labels is None else input_labels
        if len(checked) and checked.max() >= 1024:
            raise ValueError(
                f"y_true of {function_name} must be < 1024 with gain='exponential' "
                f"(2**y - 1 overflows float64); got {checked.max():g}."
            )
        return np.exp2(labels) - 1.0
    if callable(gain):
        values = np.asarray(gain(labels.copy()), dtype=np.float64)
        if values.shape != labels.shape:
            raise ValueError(
                f"The 'gain' callable of {function_name} must return one gain per row "
                f"(shape {labels.shape}); got shape {values.shape}."
            )
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        if len(bad):
            raise ValueError(
                f"The 'gain' callable of {function_name} must return finite gains >= 0; "
                f"got {values[bad[0]]} for label {labels[bad[0]]}."
            )
        return values
    table = np.asarray(gain, dtype=np.float64)
    if table.ndim != 1 or len(table) == 0 or not np.all(np.isfinite(table)) or np.any(table < 0):
        raise ValueError(
            f"The 'gain' array of {function_name} must be 1-D with finite gains >= 0, indexed "
            f"by integer label; got {gain!r}."
        )
    checked = labels if input_labels is None else input_labels
    bad = np.flatnonzero((checked != np.floor(checked)) | (checked >= len(table)))
    if len(bad):
        raise ValueError(
            f"With a 'gain' array of length {len(table)}, y_true of {function_name} must hold "
            f"integers in [0, {len(table) - 1}]; got {checked[bad[0]]} at row {int(bad[0])}."
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


def expected_dcg(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    gain: str | Any,
    discount: str,
    log_base: float,
    function_name: str,
) -> np.ndarray:
    """Expected DCG@k per query: each position holds its block's mean gain.

    Only the rows within the cutoff are visited (plus, under ``ties="average"``, the
    other rows of a tied block that straddles the cutoff): a position of a tied
    block with gain sum ``G`` over its ``m`` rows holds ``G / m``.
    """
    arrangement = ranked.arrangement(ties)
    rows = ranked.cutoff_rows(k)
    longest = int(ranked.n_rows_per_query.max())
    discounts = discount_table(longest if k is None else min(k, longest), discount, log_base)
    labels = arrangement.labels if rows is None else arrangement.labels[rows]
    gains = gain_values(labels, gain, function_name, ranked.input_labels)
    if not arrangement.singletons:
        blocks = tied_blocks(ranked, ties, k)
        block_gains = gain_values(
            arrangement.labels[blocks.rows], gain, function_name, ranked.input_labels
        )
        if gains is arrangement.labels:  # the linear gain is the labels themselves
            gains = gains.copy()
        gains[blocks.position] = (blocks.sum(block_gains) / blocks.size)[blocks.owner]
    rank = ranked.cutoff_rank(k)
    return ranked.cutoff_sum(gains * discounts[rank], k)


def _sorted_descending_within_queries(values: np.ndarray, query: np.ndarray) -> np.ndarray:
    return values[np.lexsort((-values, query))]


_MAX_LEVELS = 64
_LEVEL_COUNT_BLOCK_ROWS = 1 << 17


def _label_level_counts(ranked: RankedGroups) -> np.ndarray | None:
    """Rows per (integer label, query) when labels are small ints, else None (cached)."""

    def compute() -> np.ndarray | None:
        labels = ranked.labels  # >= 0: checked before any graded kernel runs
        top = labels.max()
        if top >= _MAX_LEVELS:
            return None
        n_levels = int(top) + 1
        counts = np.empty((n_levels, ranked.n_queries), dtype=np.intp)
        sizes = ranked.n_rows_per_query
        # cell = label * queries + query, counted block by block of whole queries
        for first, stop in query_blocks(ranked.offsets, _LEVEL_COUNT_BLOCK_ROWS):
            block_labels = labels[ranked.offsets[first] : ranked.offsets[stop]]
            cell = block_labels.astype(np.intp)  # exact for integers in [0, 64)
            if np.any(cell != block_labels):
                return None
            cell *= stop - first
            cell += np.repeat(np.arange(stop - first), sizes[first:stop])
            counts[:, first:stop] = np.bincount(
                cell, minlength=(stop - first) * n_levels
            ).reshape(n_levels, stop - first)
        return counts

    return ranked.cached("label_level_counts", compute)


def ideal_dcg(
    ranked: RankedGroups,
    k: int | None,
    gain: str | Any,
    discount: str,
    log_base: float,
    function_name: str,
) -> np.ndarray:
    """DCG@k of each query's rows (all judged rows, ``-inf`` ones too) sorted by gain.

    For small integer labels no sort is needed: with ``n_g`` rows of gain level
    ``g`` per query, the ideal order puts them at positions ``[start_g, start_g +
    n_g)``, with the higher gains first, and contributes ``gain_g * (C(end) -
    C(start))`` where ``C`` is the cumulative discount (both clipped at ``k``).
    Otherwise the rows are sorted by gain within each query.
    """
    longest = int(ranked.n_rows_per_query.max())
    discounts = discount_table(longest, discount, log_base)
    counts = _label_level_counts(ranked)
    if counts is None:
        gains = gain_values(ranked.labels, gain, function_name, ranked.input_labels)
        gains = _sorted_descending_within_queries(gains, ranked.query_of_row)
        rank = ranked.rank
        weights = discounts[rank]
        if k is not None:
            weights = weights * (rank < k)
        return ranked.query_sum(gains * weights)
    level_gains = gain_values(
        np.arange(len(counts), dtype=np.float64), gain, function_name, ranked.input_labels
    )
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
    gain: str | Any,
    discount: str,
    log_base: float,
    function_name: str,
) -> np.ndarray:
    """DCG of the rows the model placed within the cutoff, re-sorted by gain.

    Under ``ties="average"`` this is exact only for queries where no tied block
    straddles the cutoff (``_ndcg_top_k`` handles the others).
    """
    arrangement = ranked.arrangement(ties)
    inside = np.flatnonzero(ranked.in_cutoff(k))
    gains = gain_values(arrangement.labels[inside], gain, function_name)
    query = ranked.query_of_row[inside]
    gains = _sorted_descending_within_queries(gains, query)
    discounts = discount_table(int(ranked.n_rows_per_query.max()), discount, log_base)
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
    (a normalised elementary symmetric polynomial). ``e_t`` is built from the
    block's rows one at a time (blocks of up to 64 rows) or by pairwise merges
    (larger ones): cost O(m * min(m, k)) per block of ``m`` tied rows that starts
    within the cutoff (see :func:`_subset_product_means`).
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
    rows = ranked.cutoff_rows(k)
    rank = ranked.cutoff_rank(k)
    stop = stop_probability(labels if rows is None else labels[rows], max_grade)
    log_reach = sums_before_in_segment(np.log1p(-stop), rank)
    terms = np.exp(log_reach) * stop / (rank + 1)
    if blocks is not None and len(blocks):
        reach_block = np.exp(log_reach[blocks.block_position])
        keep = 1.0 - stop_probability(labels[blocks.rows], max_grade)
        subset_means = _subset_product_means(
            keep, blocks.size.astype(np.intp), int(blocks.inside.max())
        )
        owner, offset = blocks.owner, blocks.offset
        expected = subset_means[owner, offset] - subset_means[owner, offset + 1]
        expected *= reach_block[owner]
        expected /= blocks.start_rank[owner] + offset + 1.0
        terms[blocks.position] = expected
    return ranked.cutoff_sum(terms, k)


_ROW_BY_ROW_MAX_SIZE = 64


def _subset_product_means(values: np.ndarray, sizes: np.ndarray, degree: int) -> np.ndarray:
    """``e[b, d]`` for ``d <= degree``: mean over the d-subsets of block ``b``'s values
    of their product (0 when ``d`` exceeds the block's size).

    The ``values`` hold the blocks one after the other, ``sizes[b]`` each. Blocks of
    up to :data:`_ROW_BY_ROW_MAX_SIZE` values take one row at a time
    (:func:`_subset_means_row_by_row`, one step per row of the largest block); larger
    ones are merged pairwise (:func:`_subset_means_by_merging`, one step per halving).
    """
    starts = np.cumsum(sizes)
    starts -= sizes
    small = sizes <= _ROW_BY_ROW_MAX_SIZE
    if small.all():
        return _subset_means_row_by_row(values, starts, sizes, degree)
    means = np.empty((len(sizes), degree + 1))
    small_blocks = np.flatnonzero(small)
    means[small_blocks] = _subset_means_row_by_row(
        values, starts[small_blocks], sizes[small_blocks], degree
    )
    large_blocks = np.flatnonzero(~small)
    large_sizes = sizes[large_blocks]
    means[large_blocks] = _subset_means_by_merging(
        values[segment_rows(starts[large_blocks], large_sizes)],
        np.repeat(np.arange(len(large_blocks)), large_sizes),
        len(large_blocks),
        degree,
    )
    return means


def _subset_means_row_by_row(
    values: np.ndarray, starts: np.ndarray, sizes: np.ndarray, degree: int
) -> np.ndarray:
    """Subset means of each block ``values[starts[b]:starts[b] + sizes[b]]``, a row at a time.

    With ``E_d(j)`` the mean over the d-subsets of a block's first ``j`` values,
    ``C(j, d) E_d(j) = C(j-1, d) E_d(j-1) + x_j C(j-1, d-1) E_{d-1}(j-1)`` (a subset
    leaves out the j-th value or takes it), that is
    ``E_d(j) = (j-d)/j E_d(j-1) + d/j x_j E_{d-1}(j-1)``: a convex combination, so no
    overflow. Blocks are processed largest first, so the blocks that still have a
    j-th value are a leading slice, updated in place.
    """
    by_size = np.argsort(-sizes, kind="stable")
    sorted_sizes, sorted_starts = sizes[by_size], starts[by_size]
    means = np.zeros((len(sizes), degree + 1))
    means[:, 0] = 1.0
    d = np.arange(1.0, degree + 1.0)
    largest = int(sorted_sizes[0]) if len(sizes) else 0
    for j in range(1, largest + 1):
        n_active = int(np.searchsorted(-sorted_sizes, -j, side="right"))  # sizes >= j
        current = means[:n_active]
        taken = current[:, :-1] * values[sorted_starts[:n_active] + (j - 1)][:, None]
        taken *= d / j
        current[:, 1:] *= (j - d) / j  # 0 past the j values seen: E_d(j-1) is 0 there
        current[:, 1:] += taken
    result = np.empty_like(means)
    result[by_size] = means
    return result


def _subset_means_by_merging(
    values: np.ndarray, owner: np.ndarray, n_owners: int, degree: int
) -> np.ndarray:
    """``e[b, d]``: mean over the d-subsets of owner ``b``'s values of their product.

    Pairwise merging, all owners at once: the mean over d-subsets of a union is the
    hypergeometric mixture ``sum_a C(m1,a) C(m2,d-a) / C(m1+m2,d) e1[a] e2[d-a]``
    (a convex combination, so no overflow). ``owner`` must be sorted.
    """
    means = np.zeros((len(values), degree + 1))
    means[:, 0] = 1.0
    means[:, 1] = values
    sizes = np.ones(len(values), dtype=np.intp)
    count = np.bincount(owner, minlength=n_owners)
    log_factorial = log_factorials(int(count.max(initial=1)))
    while len(owner) > n_owners:
        first_item = np.searchsorted(owner, np.arange(n_owners))
        position = np.arange(len(owner)) - first_item[owner]
        count = np.bincount(owner, minlength=n_owners)
        even = position % 2 == 0
        left = np.flatnonzero(even & (position + 1 < count[owner]))
        right = left + 1
        means[left] = _merge_subset_means(
            means[left], sizes[left], means[right], sizes[right], degree, log_factorial
        )
        sizes[left] += sizes[right]
        means, sizes, owner = means[even], sizes[even], owner[even]
    return means


def _merge_subset_means(
    left: np.ndarray,
    left_size: np.ndarray,
    right: np.ndarray,
    right_size: np.ndarray,
    degree: int,
    log_factorial: np.ndarray,
) -> np.ndarray:
    """Subset means of the unions; only degrees up to the largest union size are computed.

    A d-subset exists only for ``d <= size``, so the columns past the largest size
    stay 0: early merges of small parts cost O(size**2) per row, not O(degree**2).
    """
    merged = np.zeros_like(left)
    total_size = left_size + right_size
    top = min(degree, int(total_size.max()))
    d = np.arange(top + 1)
    log_total = log_comb_of_integers(total_size[:, None], d[None, :], log_factorial)
    for a in range(min(degree, int(left_size.max())) + 1):
        log_weight = (
            log_comb_of_integers(left_size, np.intp(a), log_factorial)[:, None]
            + log_comb_of_integers(right_size[:, None], d[None, a:] - a, log_factorial)
        )
        valid = np.isfinite(log_weight) & np.isfinite(log_total[:, a:])
        log_weight -= np.where(valid, log_total[:, a:], 0.0)
        weight = np.exp(np.where(valid, log_weight, -np.inf))
        merged[:, a : top + 1] += weight * left[:, a, None] * right[:, : top + 1 - a]
    return merged
