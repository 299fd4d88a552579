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
from ._tie_blocks import tied_blocks


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
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per block of :func:`tied_blocks` ``(k)``: ``r`` relevant rows, ``c`` before the block.

    ``c`` counts the relevant rows of the query at the ranks before the block, which
    are within the cutoff and the same in every order of the blocks (cached).
    """

    def compute() -> tuple[np.ndarray, np.ndarray]:
        cut = cutoff_relevance(ranked, ties, k, relevance_level)
        return (
            relevant_in_blocks(ranked, ties, k, relevance_level),
            tied_blocks(ranked, ties, k).before_block(cut.relevant),
        )

    return ranked.cached(("block_relevance", ties, k, relevance_level), compute)


def relevant_in_blocks(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """``r``, the relevant rows of each block of :func:`tied_blocks` ``(k)`` (cached)."""

    def compute() -> np.ndarray:
        blocks = tied_blocks(ranked, ties, k)
        labels = ranked.arrangement(ties).labels[blocks.rows]
        return blocks.sum(relevance(labels, relevance_level))

    return ranked.cached(("relevant_in_blocks", ties, k, relevance_level), compute)


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
    """E[relevant rows within the cutoff]: a tied position holds its block's mean ``r/m``."""

    def compute() -> np.ndarray:
        arrangement = ranked.arrangement(ties)
        relevant = cutoff_relevance(ranked, ties, k, relevance_level).relevant
        if not arrangement.singletons:
            # a position in a tied block is relevant with probability r / m
            blocks = tied_blocks(ranked, ties, k)
            share = block_relevance(ranked, ties, k, relevance_level)[0] / blocks.size
            relevant = relevant.copy()
            relevant[blocks.position] = share[blocks.owner]
        return ranked.cutoff_sum(relevant, k)

    return ranked.cached(("expected_hits", ties, k, relevance_level), compute)


@dataclass(frozen=True)
class CutoffRows:
    """The rows within the cutoff of a tie-free arrangement, compacted query by query."""

    relevant: np.ndarray  # 0/1 per compact row
    query: np.ndarray  # query index per compact row
    rank: np.ndarray  # 0-based rank per compact row
    length: np.ndarray  # compact rows per query: min(k, n_retrieved)


def cutoff_relevance(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> CutoffRows:
    """Relevance of the rows within the cutoff in the fixed order of ``ties`` (cached)."""

    def compute() -> CutoffRows:
        arrangement = ranked.arrangement(ties)
        rows = ranked.cutoff_rows(k)
        if rows is None:
            labels, query, rank = arrangement.labels, ranked.query_of_row, ranked.rank
        else:
            labels = arrangement.labels[rows]
            query, rank = ranked.query_of_row[rows], ranked.rank[rows]
        return CutoffRows(relevance(labels, relevance_level), query, rank, ranked.depth(k))

    return ranked.cached(("cutoff_relevance", ties, k, relevance_level), compute)


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
    if arrangement.singletons or denominator != "n_relevant_in_top_k":
        return _average_precision_of_positions(
            ranked, ties, cutoff_relevance(ranked, ties, k, relevance_level), k,
            relevance_level, denominator,
        )
    counts = block_counts(ranked, ties, relevance_level)
    in_cut = ranked.in_cutoff(k)
    terms = _precision_terms(counts, ranked.rank) * in_cut
    return _average_precision_over_retrieved(ranked, ties, counts, in_cut, terms, k)


def _average_precision_of_positions(
    ranked: RankedGroups,
    ties: str,
    cut: CutoffRows,
    k: int | None,
    relevance_level: float | None,
    denominator: str,
) -> np.ndarray:
    """AP@k as ``sum over relevant rows i <= k of hits@i / i``, divided.

    ``hits@i`` is a running sum of the relevance over the compact cutoff rows that
    restarts at each query: the first row of a query also subtracts the previous
    (non-empty) query's total. Under ``ties="average"`` the term at offset ``t``
    (0-based) of a tied block is its expectation
    ``(r/m) (c + 1 + t (r - 1)/(m - 1)) / (s + t + 1)``: given that the position is
    relevant, each of the ``t`` block positions before it is relevant with
    probability ``(r - 1)/(m - 1)``. (Not for the ``n_relevant_in_top_k`` denominator,
    whose value is not a sum of terms.)
    """
    hits_in_cutoff = segment_sums(cut.relevant, cut.length)
    hits_through = cut.relevant.copy()
    filled = np.flatnonzero(cut.length)
    first = np.cumsum(cut.length)
    first -= cut.length  # first compact row of each query
    hits_through[first[filled[1:]]] -= hits_in_cutoff[filled[:-1]]
    np.cumsum(hits_through, out=hits_through)
    tied_terms = None
    if not ranked.arrangement(ties).singletons:
        blocks = tied_blocks(ranked, ties, k)
        # c: the running hits at the block's first position, less that position's own
        start = blocks.block_position
        c = (hits_through[start] - cut.relevant[start])[blocks.owner]
        r = relevant_in_blocks(ranked, ties, k, relevance_level)[blocks.owner]
        m, t = blocks.size[blocks.owner], blocks.offset
        terms = (r - 1.0) / (m - 1.0)
        terms *= t
        terms += c + 1.0
        terms *= r / m
        terms /= blocks.start_rank[blocks.owner] + t + 1.0
        tied_terms = (blocks.position, terms)
    hits_through *= cut.relevant
    hits_through /= cut.rank + 1
    if tied_terms is not None:
        hits_through[tied_terms[0]] = tied_terms[1]
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
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """The tied blocks within the cutoff that hold their query's first relevant rows.

    Indices into :func:`tied_blocks` ``(k)``: blocks with ``r > 0`` and ``c = 0``.
    A query whose first relevant row within the cutoff is not tied has the same
    first relevant rank in every order.
    """
    relevant_in_block, relevant_before = block_relevance(ranked, ties, k, relevance_level)
    return np.flatnonzero((relevant_before == 0) & (relevant_in_block > 0))


def reciprocal_rank(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """Expected RR@k: ``1 / i`` of the first relevant row within the cutoff (0 if none).

    When that row is in a tied block, the block's expectation replaces it:
    ``sum_t P(first relevant at offset t) / (s + t)`` over the block's ``T``
    positions within the cutoff, with ``P(t) = C(m - t, r - 1) / C(m, r)`` (the row at
    offset ``t`` is relevant and the ``t - 1`` rows before it are not).
    """
    arrangement = ranked.arrangement(ties)
    cut = cutoff_relevance(ranked, ties, k, relevance_level)
    hit_rows = np.flatnonzero(cut.relevant)
    query = cut.query[hit_rows]
    is_first = np.ones(len(query), dtype=bool)
    np.not_equal(query[1:], query[:-1], out=is_first[1:])
    first = hit_rows[is_first]
    values = np.zeros(ranked.n_queries)
    values[cut.query[first]] = 1.0 / (cut.rank[first] + 1)
    if arrangement.singletons:
        return values
    blocks = tied_blocks(ranked, ties, k)
    first = _first_relevant_blocks(ranked, ties, k, relevance_level)
    inside = blocks.inside[first]
    # one entry per position t = 1..T of each first relevant block within the cutoff
    owner = np.repeat(np.arange(len(first)), inside)
    t = segment_positions(inside) + 1.0
    block = first[owner]
    m = blocks.size[block]
    r = block_relevance(ranked, ties, k, relevance_level)[0][block]
    probability = comb_ratio(m - t, r - 1, m, r)
    values[blocks.query[first]] = np.bincount(
        owner, weights=probability / (blocks.start_rank[block] + t), minlength=len(first)
    )
    return values


def hit(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """P(at least one relevant row within the cutoff), per query.

    Only the first block holding a relevant row matters: if ``T`` of its ``m``
    positions are within the cutoff, ``P(hit) = 1 - C(m - r, T) / C(m, T)`` (1 for a
    single row).
    """
    values = (expected_hits(ranked, ties, k, relevance_level) > 0).astype(np.float64)
    if ranked.arrangement(ties).singletons:
        return values
    blocks = tied_blocks(ranked, ties, k)
    first = _first_relevant_blocks(ranked, ties, k, relevance_level)
    m = blocks.size[first]
    r = block_relevance(ranked, ties, k, relevance_level)[0][first]
    inside = blocks.inside[first]
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
    block's mid-rank ``s + (m - 1) / 2``: each row of a tied block contributes
    ``(r / m) (s + (m - 1) / 2)``.
    """
    arrangement = ranked.arrangement(ties)
    positive = relevance(arrangement.labels, relevance_level)
    n_positive = ranked.query_sum(positive)
    n_negative = ranked.n_rows_per_query - n_positive
    # pairs won = n_pos n_neg - sum over positive rows of the negatives above them;
    # the j-th positive (0-based) at 0-based rank i has i - j negatives above it
    if arrangement.singletons:
        positive *= ranked.rank
    else:
        blocks = tied_blocks(ranked, ties, None, every_row=True)
        positive_in_block = blocks.sum(positive[blocks.rows])
        positive *= ranked.rank
        mid_rank = blocks.size - 1.0
        mid_rank *= 0.5
        mid_rank += blocks.start_rank
        mid_rank *= positive_in_block / blocks.size
        positive[blocks.rows] = mid_rank[blocks.owner]
    negatives_above = ranked.query_sum(positive)
    negatives_above -= n_positive * (n_positive - 1) / 2
    pairs_won = n_positive * n_negative - negatives_above
    return safe_divide(pairs_won, n_positive * n_negative), n_positive, n_negative
