"""NDCG with the ideal DCG taken from the model's own top k, exact under tied scores.

With ``ideal="top_k"`` the ideal DCG is that of the rows placed within the cutoff,
so when a block of tied rows straddles the cutoff, *which* of its rows fall inside
changes both the DCG and its normaliser. The expectation is then a sum over the
compositions of the inside part: with ``n_g`` rows of label level ``g`` in the
block and ``T`` of its positions inside, the inside rows hold ``c_g`` rows of level
``g`` with multivariate hypergeometric probability ``prod_g C(n_g, c_g) / C(m, T)``;
given that, the expected DCG is ``A + (sum_g c_g gain_g) / T * D`` (``A``: the fully
inside blocks, ``D``: the discounts of the ``T`` positions) and the ideal DCG is
that of the inside rows' level counts. Compositions are enumerated level by level,
vectorised over all such queries; their number is small for graded labels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._ranked_groups import RankedGroups
from ._combinatorics import log_comb, safe_divide
from ._graded import (
    _MAX_LEVELS,
    GainModel,
    expected_dcg,
    ideal_dcg_of_top_k,
)


def _label_levels(
    ranked: RankedGroups
) -> tuple[np.ndarray, np.ndarray]:
    """Level index of every sorted row and the label of every level."""
    levels, level_of_row = np.unique(ranked.labels, return_inverse=True)
    if len(levels) > _MAX_LEVELS:
        raise ValueError(
            f"ndcg_score with ideal='top_k' and ties='average' enumerates label levels and "
            f"supports at most {_MAX_LEVELS} distinct labels in {caller_name()}; got "
            f"{len(levels)}. Pass ties='input', 'optimistic' or 'pessimistic'."
        )
    return level_of_row.reshape(-1), levels


def _compositions(
    block_counts: np.ndarray, block_size: np.ndarray, inside: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every way to fill the inside positions from each query's straddling block.

    ``block_counts[q, g]``: rows of label level ``g`` in query ``q``'s straddling
    block, ``inside[q]``: the block's positions inside the cutoff. Enumerates the
    compositions ``(c_g)`` one level at a time; returns, per composition, its query
    (index into the rows of ``block_counts``), the counts ``c_g`` and its
    (hypergeometric) probability.
    """
    n_queries, n_levels = block_counts.shape
    owner = np.arange(n_queries)
    remaining = inside.copy()
    left_in_block = block_size.copy()
    log_probability = np.zeros(n_queries)
    chosen = np.zeros((n_queries, n_levels), dtype=np.intp)
    for level in range(n_levels):
        available = block_counts[owner, level]
        left_in_block = left_in_block - available
        low = np.maximum(0, remaining - left_in_block)
        high = np.minimum(available, remaining)
        n_choices = high - low + 1
        expand = np.repeat(np.arange(len(owner)), n_choices)
        first = np.cumsum(n_choices) - n_choices
        count = low[expand] + np.arange(len(expand)) - first[expand]
        owner, remaining, left_in_block = owner[expand], remaining[expand], left_in_block[expand]
        log_probability = log_probability[expand] + log_comb(available[expand], count)
        chosen = chosen[expand]
        chosen[:, level] = count
        remaining = remaining - count
    probability = np.exp(log_probability - log_comb(block_size[owner], inside[owner]))
    return owner, chosen, probability


def ndcg_of_top_k(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    gain: Any,
    discount: str,
) -> tuple[np.ndarray, np.ndarray]:
    """Expected NDCG@k (ideal from the top k) and the probability that it is undefined.

    Returns the expectation over the tie orders in which the ideal DCG is positive
    (the undefined orders contribute 0) and, per query, the probability of an order
    whose top k holds no row with positive gain.
    """
    model = GainModel(gain, discount, 2)
    dcg = expected_dcg(ranked, ties, k, model)
    # Under "average" the rows inside the cutoff are the same in every order except
    # in queries with a straddling block, which are recomputed below.
    best = ideal_dcg_of_top_k(ranked, ties, k, model)
    undefined = best <= 0
    values = safe_divide(dcg, best)
    undefined_share = undefined.astype(np.float64)
    straddling = ranked.straddles_cutoff(ties, k)
    if ties != "average" or not straddling.any():
        return values, undefined_share

    arrangement = ranked.arrangement(ties)
    in_cut = ranked.in_cutoff(k)
    discounts = model.discounts(int(ranked.n_rows_per_query.max()))
    row_discount = discounts[ranked.rank]
    gains = model.gains(arrangement.labels, ranked.input_labels)
    full_inside = in_cut & ~straddling
    fixed_part = ranked.query_sum(
        arrangement.block_mean_per_row(gains) * row_discount * full_inside
    )
    straddling_discount = ranked.query_sum(row_discount * (in_cut & straddling))

    level_of_row, levels = _label_levels(ranked)
    n_levels = len(levels)
    level_gain = model.gains(levels)
    query_of_row = ranked.query_of_row
    queries = np.unique(query_of_row[straddling])
    slot = np.full(ranked.n_queries, -1)
    slot[queries] = np.arange(len(queries))

    def level_counts(rows: np.ndarray) -> np.ndarray:
        cell = slot[query_of_row[rows]] * n_levels + level_of_row[rows]
        return np.bincount(cell, minlength=len(queries) * n_levels).reshape(len(queries), n_levels)

    full_rows = np.flatnonzero(full_inside & (slot[query_of_row] >= 0))
    inside_counts = level_counts(full_rows)
    block_counts = level_counts(np.flatnonzero(straddling))
    block_size = block_counts.sum(axis=1)
    inside = ranked.depth(k)[queries] - inside_counts.sum(axis=1)

    owner, chosen, probability = _compositions(block_counts, block_size, inside)

    by_gain = np.argsort(-level_gain, kind="stable")
    union = (inside_counts[owner] + chosen)[:, by_gain]
    end = np.cumsum(union, axis=1)
    cumulative = np.concatenate(([0.0], np.cumsum(discounts)))
    # row sums of elementwise products, not matrix products: BLAS would start threads
    ideal = ((cumulative[end] - cumulative[end - union]) * level_gain[by_gain]).sum(axis=1)
    query = queries[owner]
    chosen_gain = (chosen * level_gain).sum(axis=1)
    expected = fixed_part[query] + chosen_gain / inside[owner] * straddling_discount[query]
    defined = ideal > 0
    ratio = safe_divide(expected, ideal)
    values[queries] = np.bincount(owner, weights=probability * ratio, minlength=len(queries))
    undefined_share[queries] = np.bincount(
        owner, weights=probability * ~defined, minlength=len(queries)
    )
    return values, undefined_share
