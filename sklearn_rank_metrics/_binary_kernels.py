"""Kernels of the binary-relevance metrics: hits@k, AP, RR, hit, per-query AUC.

Every kernel maps a :class:`~._grouping.RankedGroups` to one value per query with
vectorised NumPy over all queries at once. Each computes the exact expected value
over the random orders of the arrangement's blocks (``ties="average"``); with
singleton blocks the formulas reduce to the plain metric.

Notation, per row of a block: ``m`` rows in the block, ``r`` of them relevant,
``c`` relevant rows in earlier blocks of the query, ``t`` the row's 1-based offset
in its block, ``i`` its 1-based rank in the query.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._combinatorics import comb_ratio, hypergeometric_pmf, safe_divide
from ._grouping import Arrangement, RankedGroups
from ._segments import segment_positions, segment_sums
from ._tie_blocks import harmonic_sums, tie_blocks


def relevance(labels: np.ndarray, relevance_level: float | None) -> np.ndarray:
    """1.0 for a relevant row (``y_true > 0``, or ``>= relevance_level``), else 0.0."""
    relevant = labels > 0 if relevance_level is None else labels >= relevance_level
    return relevant.astype(np.float64)


def n_relevant(
    ranked: RankedGroups, relevance_level: float | None, known: np.ndarray | None = None
) -> np.ndarray:
    """Relevant rows per query, the unretrieved (``-inf``) ones included (cached).

    ``known``, when given, is that count already computed by the caller.
    """
    return ranked.cached(
        ("n_relevant", relevance_level),
        lambda: ranked.query_sum(relevance(ranked.labels, relevance_level))
        if known is None
        else known,
    )


def block_relevance(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per block of a tied arrangement: ``r`` relevant rows and ``c`` in earlier blocks.

    Cached per ties mode and level; also fills the ``n_relevant`` cache.
    """

    def compute() -> tuple[np.ndarray, np.ndarray]:
        blocks = tie_blocks(ranked, ties)
        relevant_in_block = blocks.sum(relevance(ranked.arrangement(ties).labels, relevance_level))
        n_relevant(ranked, relevance_level, blocks.query_sum(relevant_in_block))
        return relevant_in_block, blocks.before_in_query(relevant_in_block)

    return ranked.cached(("block_relevance", ties, relevance_level), compute)


@dataclass(frozen=True)
class BlockCounts:
    """Per-row block statistics of the relevant rows for one arrangement."""

    relevant: np.ndarray  # 0/1 per row, rank order
    relevant_in_block: np.ndarray  # r
    block_size: np.ndarray  # m
    relevant_before_block: np.ndarray  # c
    offset_in_block: np.ndarray  # t (1-based)
    block_start_rank: np.ndarray  # 0-based rank of the block's first row


def block_counts(ranked: RankedGroups, ties: str, relevance_level: float | None) -> BlockCounts:
    """Block statistics shared by AP, RR and hit rate (cached per ties mode and level)."""

    def compute() -> BlockCounts:
        arrangement: Arrangement = ranked.arrangement(ties)
        relevant = relevance(arrangement.labels, relevance_level)
        cumulative = np.concatenate(([0.0], np.cumsum(relevant)))
        query_start = ranked.offsets[:-1][ranked.query_of_row]
        return BlockCounts(
            relevant=relevant,
            relevant_in_block=arrangement.block_total_per_row(relevant),
            block_size=arrangement.block_size,
            relevant_before_block=cumulative[arrangement.block_start] - cumulative[query_start],
            offset_in_block=arrangement.offset + 1,
            block_start_rank=ranked.block_start_rank(ties),
        )

    return ranked.cached(("block_counts", ties, relevance_level), compute)


def expected_hits(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """E[relevant rows within the cutoff]: each position holds its block's mean relevance."""

    def compute() -> np.ndarray:
        arrangement = ranked.arrangement(ties)
        rows = ranked.cutoff_rows(k)
        if rows is None:
            relevant = relevance(arrangement.labels, relevance_level)
            return ranked.query_sum(arrangement.block_mean_per_row(relevant))
        if arrangement.singletons:
            return ranked.cutoff_sum(relevance(arrangement.labels[rows], relevance_level), k)
        relevant = relevance(arrangement.labels, relevance_level)
        return ranked.cutoff_sum(arrangement.block_mean_at(relevant, rows), k)

    return ranked.cached(("expected_hits", ties, k, relevance_level), compute)


@dataclass(frozen=True)
class CutoffRows:
    """The rows within the cutoff of a tie-free arrangement, compacted query by query."""

    relevant: np.ndarray  # 0/1 per compact row
    query: np.ndarray  # query index per compact row
    rank: np.ndarray  # 0-based rank per compact row
    length: np.ndarray  # compact rows per query: min(k, n_retrieved)


def cutoff_relevance(
    ranked: RankedGroups, arrangement: Arrangement, k: int | None, relevance_level: float | None
) -> CutoffRows:
    """Relevance of the rows within the cutoff when every row is its own block."""
    rows = ranked.cutoff_rows(k)
    if rows is None:
        labels, query, rank = arrangement.labels, ranked.query_of_row, ranked.rank
    else:
        labels, query, rank = arrangement.labels[rows], ranked.query_of_row[rows], ranked.rank[rows]
    return CutoffRows(relevance(labels, relevance_level), query, rank, ranked.depth(k))


def _precision_terms(counts: BlockCounts, rank: np.ndarray) -> np.ndarray:
    """E[rel(i) * hits@i / i] per row: ``(r/m) (c + 1 + (t-1)(r-1)/(m-1)) / i``.

    Given that the row at offset ``t`` is relevant, each of the ``t - 1`` block
    positions before it is relevant with probability ``(r-1)/(m-1)``.
    """
    r = counts.relevant_in_block
    m = counts.block_size
    others_before = (counts.offset_in_block - 1) * (r - 1) / np.maximum(m - 1, 1)
    return (r / m) * (counts.relevant_before_block + 1 + others_before) / (rank + 1)


def average_precision(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    relevance_level: float | None,
    denominator: str,
) -> np.ndarray:
    """Expected AP@k per query for the three denominators (see ``mean_average_precision_score``)."""
    arrangement = ranked.arrangement(ties)
    if arrangement.singletons:
        return _average_precision_without_ties(
            ranked, cutoff_relevance(ranked, arrangement, k, relevance_level), k,
            relevance_level, denominator,
        )
    if denominator != "n_relevant_in_top_k":
        precision_sum = _precision_sum_of_blocks(ranked, ties, k, relevance_level)
        n_rel = n_relevant(ranked, relevance_level)
        if denominator == "n_relevant":
            return safe_divide(precision_sum, n_rel)
        return safe_divide(precision_sum, n_rel if k is None else np.minimum(n_rel, k))
    counts = block_counts(ranked, ties, relevance_level)
    in_cut = ranked.in_cutoff(k)
    terms = _precision_terms(counts, ranked.rank) * in_cut
    return _average_precision_over_retrieved(ranked, ties, counts, in_cut, terms, k)


def _precision_sum_of_blocks(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """``E[sum over relevant rows i <= k of hits@i / i]`` per query, block by block.

    Summing :func:`_precision_terms` over the ``T`` positions of a block within the
    cutoff gives ``(r/m) ((c + 1) A + (r - 1)/(m - 1) B)`` with
    ``A = sum_{t=1..T} 1/(s + t)`` and ``B = sum_{t=1..T} (t - 1)/(s + t) = T - (s + 1) A``.
    """
    blocks = tie_blocks(ranked, ties)
    r, c = block_relevance(ranked, ties, relevance_level)
    inside = blocks.inside(ranked.depth(k))
    first_terms = harmonic_sums(blocks, inside, int(ranked.n_rows_per_query.max()))
    later_terms = inside - (blocks.start_rank + 1.0) * first_terms
    later_terms *= (r - 1.0) / np.maximum(blocks.size - 1.0, 1.0)
    first_terms *= c + 1.0
    first_terms += later_terms
    first_terms *= r / blocks.size
    return blocks.query_sum(first_terms)


def _average_precision_without_ties(
    ranked: RankedGroups,
    cut: CutoffRows,
    k: int | None,
    relevance_level: float | None,
    denominator: str,
) -> np.ndarray:
    """AP@k of fixed orders: ``sum over relevant rows i <= k of hits@i / i``, divided.

    ``hits@i`` is a running sum of the relevance over the compact cutoff rows that
    restarts at each query: the first row of a query also subtracts the previous
    (non-empty) query's total.
    """
    hits_in_cutoff = segment_sums(cut.relevant, cut.length)
    hits_through = cut.relevant.copy()
    filled = np.flatnonzero(cut.length)
    first = np.cumsum(cut.length)
    first -= cut.length  # first compact row of each query
    hits_through[first[filled[1:]]] -= hits_in_cutoff[filled[:-1]]
    np.cumsum(hits_through, out=hits_through)
    hits_through *= cut.relevant
    hits_through /= cut.rank + 1
    precision_sum = segment_sums(hits_through, cut.length)
    if denominator == "n_relevant_in_top_k":
        limit = hits_in_cutoff
    else:
        every_row = ranked.cutoff_rows(k) is None
        limit = n_relevant(ranked, relevance_level, hits_in_cutoff if every_row else None)
        if denominator == "min(k,n_relevant)" and k is not None:
            limit = np.minimum(limit, k)
    return safe_divide(precision_sum, limit)


def _average_precision_over_retrieved(
    ranked: RankedGroups,
    ties: str,
    counts: BlockCounts,
    in_cut: np.ndarray,
    terms: np.ndarray,
    k: int | None,
) -> np.ndarray:
    """E[S / H] where H = relevant rows in the top k (AP = 0 when H = 0).

    Only the block that straddles the cutoff makes H random. Condition on the number
    ``j`` of its relevant rows that land inside (hypergeometric): blocks fully inside
    contribute ``S_full`` and ``c`` relevant rows; the straddling block's ``T``
    inside positions (ranks ``s+1..s+T``) contribute
    ``j/T (c+1) A + j(j-1)/(T(T-1)) B`` with ``A = sum 1/i`` and ``B = sum (t-1)/i``.
    """
    depth_of_row = ranked.per_row(ranked.depth(k))
    straddling = ranked.straddles_cutoff(ties, k)
    full = in_cut & ~straddling
    sum_full = ranked.query_sum(terms * full)
    hits_full = ranked.query_sum(counts.relevant * full)
    values = safe_divide(sum_full, hits_full)
    straddling_in_cut = straddling & in_cut
    if not straddling_in_cut.any():
        return values

    inverse_rank = 1.0 / (ranked.rank + 1)
    sum_inverse_rank = ranked.query_sum(inverse_rank * straddling_in_cut)
    sum_offset_over_rank = ranked.query_sum(
        (counts.offset_in_block - 1) * inverse_rank * straddling_in_cut
    )
    lead = np.flatnonzero(straddling & (counts.offset_in_block == 1))
    query = ranked.query_of_row[lead]
    r = counts.relevant_in_block[lead]
    m = counts.block_size[lead]
    c = counts.relevant_before_block[lead]
    inside = (depth_of_row[lead] - counts.block_start_rank[lead]).astype(np.float64)

    n_outcomes = (np.minimum(r, inside) + 1).astype(np.intp)
    pair = np.repeat(np.arange(len(lead)), n_outcomes)
    j = segment_positions(n_outcomes)
    probability = hypergeometric_pmf(j, m[pair], r[pair], inside[pair])
    numerator = (
        sum_full[query][pair]
        + j / inside[pair] * (c[pair] + 1) * sum_inverse_rank[query][pair]
        + j
        * (j - 1)
        / (inside[pair] * np.maximum(inside[pair] - 1, 1))
        * sum_offset_over_rank[query][pair]
    )
    hits = c[pair] + j
    ratio = np.divide(numerator, hits, out=np.zeros_like(numerator), where=hits > 0)
    values[query] = np.bincount(pair, weights=probability * ratio, minlength=len(lead))
    return values


def _first_relevant_blocks(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> np.ndarray:
    """Index of the first block (in rank order) holding a relevant row, per query that has one."""
    relevant_in_block, relevant_before = block_relevance(ranked, ties, relevance_level)
    return np.flatnonzero((relevant_before == 0) & (relevant_in_block > 0))


def reciprocal_rank(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """Expected RR@k: ``sum_t P(first relevant at offset t) / i`` over the first relevant block.

    ``P(t) = C(m - t, r - 1) / C(m, r)``: the row at offset ``t`` is relevant and the
    ``t - 1`` rows before it are not.
    """
    arrangement = ranked.arrangement(ties)
    if arrangement.singletons:
        cut = cutoff_relevance(ranked, arrangement, k, relevance_level)
        hit_rows = np.flatnonzero(cut.relevant)
        query = cut.query[hit_rows]
        is_first = np.ones(len(query), dtype=bool)
        np.not_equal(query[1:], query[:-1], out=is_first[1:])
        first = hit_rows[is_first]
        values = np.zeros(ranked.n_queries)
        values[cut.query[first]] = 1.0 / (cut.rank[first] + 1)
        return values
    blocks = tie_blocks(ranked, ties)
    first = _first_relevant_blocks(ranked, ties, relevance_level)
    inside = blocks.inside(ranked.depth(k))[first].astype(np.intp)
    # one entry per position t = 1..T of each first relevant block within the cutoff
    owner = np.repeat(np.arange(len(first)), inside)
    t = segment_positions(inside) + 1.0
    block = first[owner]
    m = blocks.size[block]
    r = block_relevance(ranked, ties, relevance_level)[0][block]
    probability = comb_ratio(m - t, r - 1, m, r)
    return np.bincount(
        blocks.query[block],
        weights=probability / (blocks.start_rank[block] + t),
        minlength=ranked.n_queries,
    )


def hit(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """P(at least one relevant row within the cutoff), per query.

    Only the first block holding a relevant row matters: if ``T`` of its ``m``
    positions are within the cutoff, ``P(hit) = 1 - C(m - r, T) / C(m, T)``.
    """
    if ranked.arrangement(ties).singletons:
        return (expected_hits(ranked, ties, k, relevance_level) > 0).astype(np.float64)
    blocks = tie_blocks(ranked, ties)
    first = _first_relevant_blocks(ranked, ties, relevance_level)
    m = blocks.size[first]
    r = block_relevance(ranked, ties, relevance_level)[0][first]
    inside = blocks.inside(ranked.depth(k))[first]
    values = np.zeros(ranked.n_queries)
    values[blocks.query[first]] = 1.0 - comb_ratio(m - r, inside, m, inside)
    return values


def roc_auc(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-query ROC AUC (Mann-Whitney), with positive and negative counts.

    ``AUC = sum over positive rows of (negatives in later blocks + 1/2 negatives in
    its own block) / (n_pos n_neg)``; a tied (positive, negative) pair counts 1/2,
    its expected value over both orders. ``-inf`` rows rank last, tied together.
    Computed as ``n_pos n_neg`` less the negatives above the positives: with the
    ``j``-th positive (0-based) at 0-based rank ``i``, ``sum (i - j) = sum i -
    n_pos (n_pos - 1) / 2``, and under ties each ``i`` is the expected rank, the
    block's mid-rank ``s + (m - 1) / 2``.
    """
    arrangement = ranked.arrangement(ties)
    positive = relevance(arrangement.labels, relevance_level)
    n_positive = ranked.query_sum(positive)
    n_negative = ranked.n_rows_per_query - n_positive
    if arrangement.singletons:
        # pairs won = n_pos n_neg - sum over positive rows of the negatives above them;
        # the j-th positive (0-based) at 0-based rank i has i - j negatives above it
        positive *= ranked.rank
        negatives_above = ranked.query_sum(positive)
        negatives_above -= n_positive * (n_positive - 1) / 2
        pairs_won = n_positive * n_negative - negatives_above
        return safe_divide(pairs_won, n_positive * n_negative), n_positive, n_negative
    # the same count in expectation: a positive row's expected rank is its block's
    # mid-rank s + (m - 1)/2, and the positives above it still number j
    blocks = tie_blocks(ranked, ties)
    positive_in_block = blocks.sum(positive)
    mid_rank = blocks.size - 1.0
    mid_rank *= 0.5
    mid_rank += blocks.start_rank
    mid_rank *= positive_in_block
    negatives_above = blocks.query_sum(mid_rank)
    negatives_above -= n_positive * (n_positive - 1) / 2
    pairs_won = n_positive * n_negative - negatives_above
    return safe_divide(pairs_won, n_positive * n_negative), n_positive, n_negative
