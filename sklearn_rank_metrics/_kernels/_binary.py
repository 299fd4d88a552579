"""Kernels of the binary-relevance metrics: hits@k, AP, RR, hit, per-query AUC.

Every kernel maps a :class:`~.._engine._ranked_groups.RankedGroups` to one value per query with
vectorised NumPy over all queries at once. Each computes the exact expected value
over the random orders of the arrangement's blocks (``ties="average"``); with
singleton blocks the formulas reduce to the plain metric.

Notation, per row of a block: ``m`` rows in the block, ``r`` of them relevant,
``c`` relevant rows in earlier blocks of the query, ``t`` the row's 1-based offset
in its block, ``i`` its 1-based rank in the query.
"""

from __future__ import annotations

import numpy as np

from .._engine._present import present
from .._engine._ranked_groups import RankedGroups
from .._engine._segments import query_blocks, segment_positions, segment_sums, zero_segments
from ._combinatorics import comb_ratio, hypergeometric_pmf, safe_divide
from ._relevance import (
    BlockCounts,
    RelevantRows,
    block_counts,
    block_relevance,
    expected_hits,
    n_relevant,
    relevant_in_tied_blocks,
    relevant_rows,
    running_count,
    sorted_relevance,
)
from ._tie_blocks import TiedBlocks, tied_blocks


def _precision_terms(counts: BlockCounts, rank: np.ndarray) -> np.ndarray:
    """E[rel(i) * hits@i / i] per row: ``(r/m) (c + 1 + (t-1)(r-1)/(m-1)) / i``.

    Given that the row at offset ``t`` is relevant, each of the ``t - 1`` block
    positions before it is relevant with probability ``(r-1)/(m-1)``.
    """
    r = counts.relevant_in_block
    m = counts.block_size
    others_before = (counts.offset_in_block - 1) * (r - 1) / np.maximum(m - 1, 1)
    return (r / m) * (counts.relevant_before_block + 1 + others_before) / (rank + 1)


def _average_precision_of_tied_top_k(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> np.ndarray:
    """Expected AP@k with the ``n_relevant_in_top_k`` denominator under tied blocks."""
    counts = block_counts(ranked, ties, relevance_level)
    in_cut = ranked.in_cutoff(k)
    terms = _precision_terms(counts, ranked.rank) * in_cut
    return _average_precision_over_retrieved(ranked, ties, counts, in_cut, terms, k)


def average_precision(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    relevance_level: float | None,
    denominator: str,
) -> np.ndarray:
    """Expected AP@k per query for the three denominators (see ``mean_average_precision_score``).

    AP@k as ``sum over relevant rows i <= k of hits@i / i``, divided (with tied
    blocks and the ``n_relevant_in_top_k`` denominator: see
    :func:`_average_precision_of_tied_top_k`).

    The ``j``-th relevant row (1-based) of a query within the cutoff has
    ``hits@i = j``, so the sum runs over the relevant rows only. Under
    ``ties="average"`` the terms at the positions of a tied block are replaced by
    their expectations: at offset ``t`` (0-based) of a block of ``m`` rows, ``r`` of
    them relevant, starting at 0-based rank ``s`` after ``c`` relevant rows,
    ``(r/m) (c + 1 + t (r - 1)/(m - 1)) / (s + t + 1)`` (given that the position is
    relevant, each of the ``t`` block positions before it is relevant with
    probability ``(r - 1)/(m - 1)``). (Not for the ``n_relevant_in_top_k``
    denominator, whose value is not a sum of terms.)
    """
    if not ranked.arrangement(ties).singletons and denominator == "n_relevant_in_top_k":
        return _average_precision_of_tied_top_k(ranked, ties, k, relevance_level)
    relevant = relevant_rows(ranked, ties, k, relevance_level)
    terms = _precision_at_relevant_rows(relevant)
    if ranked.arrangement(ties).singletons:
        precision_sum = segment_sums(terms, relevant.count)
    else:
        blocks = tied_blocks(ranked, ties, k)
        lo, hi = relevant_in_tied_blocks(ranked, ties, k, relevance_level)
        zero_segments(terms, lo, hi)  # the fixed order's terms inside blocks
        precision_sum = segment_sums(terms, relevant.count)
        del terms  # one float per relevant row: not held beside the per-block arrays
        # per block: (r/m) (c + 1) + t (r/m)(r - 1)/(m - 1), over s + 1 + t
        r, c, _ = block_relevance(ranked, ties, k, relevance_level)
        _add_tied_precision(precision_sum, blocks, r, c)
    if denominator == "n_relevant_in_top_k":
        limit = relevant.count.astype(np.float64)
    else:
        every_row = ranked.cutoff_rows(k) is None
        limit = n_relevant(ranked, relevance_level, relevant.count if every_row else None)
        if denominator == "min(k,n_relevant)" and k is not None:
            limit = np.minimum(limit, k)
    return safe_divide(precision_sum, limit)


# positions of tied blocks handled at a time by _add_tied_precision (cache-sized)
_TIED_CHUNK_POSITIONS = 1 << 15


def _precision_at_relevant_rows(relevant: RelevantRows) -> np.ndarray:
    """``hits@i / i`` at every relevant row: ``j / (rank + 1)`` for the ``j``-th relevant
    row (1-based) of its query at 0-based ``rank``.

    Computed chunk by chunk (the ``j`` and the ranks of a chunk only), so no other
    array over the relevant rows is held beside the result.
    """
    n_relevant_rows = len(relevant.position)
    terms = np.empty(n_relevant_rows)
    rank_plus_one = np.empty(min(_TIED_CHUNK_POSITIONS, n_relevant_rows))
    for start in range(0, n_relevant_rows, _TIED_CHUNK_POSITIONS):
        stop = min(start + _TIED_CHUNK_POSITIONS, n_relevant_rows)
        chunk = terms[start:stop]
        chunk[:] = np.arange(start + 1.0, stop + 1.0)
        chunk -= relevant.first[relevant.query[start:stop]]  # j = hits@i at the row
        ranks = relevant.rank_into(rank_plus_one[: stop - start], start)
        ranks += 1.0
        chunk /= ranks
    return terms


def _add_tied_precision(
    precision_sum: np.ndarray, blocks: TiedBlocks, r: np.ndarray, c: np.ndarray
) -> None:
    """Add, in place, each query's expected precision terms at its tied positions.

    At offset ``t`` of block ``b`` (``m`` rows, ``r`` relevant, ``c`` relevant rows
    before it, first at 0-based rank ``s``) the term is ``(slope t + intercept) / (s +
    1 + t)`` with ``slope = (r/m)(r - 1)/(m - 1)`` and ``intercept = (r/m)(c + 1)``; a
    query's terms are summed in position order (``np.bincount``) and added to its
    ``precision_sum`` once. Blocks and positions are taken chunk by chunk, each chunk
    whole queries of about :data:`_TIED_CHUNK_POSITIONS` positions, so no array over
    every tied position or block is held, and each query's sum is the same, bit for
    bit, as that of one ``np.bincount`` over all positions.
    """
    inside = blocks.inside
    for first, stop in _whole_query_chunks(blocks.query, inside, _TIED_CHUNK_POSITIONS):
        size, chunk_r = blocks.size[first:stop], r[first:stop]
        share = chunk_r / size
        slope = share * (chunk_r - 1.0) / (size - 1.0)
        intercept = share * (c[first:stop] + 1.0)
        count = inside[first:stop]
        owner = np.repeat(np.arange(stop - first), count)
        t = segment_positions(count)
        expected = slope[owner]
        expected *= t
        expected += intercept[owner]
        rank_plus_one = (blocks.start_rank[first:stop] + 1.0)[owner]
        rank_plus_one += t
        expected /= rank_plus_one
        del rank_plus_one
        low, high = int(blocks.query[first]), int(blocks.query[stop - 1]) + 1
        query = blocks.query[first:stop][owner]
        query -= low
        precision_sum[low:high] += np.bincount(query, weights=expected, minlength=high - low)


def _whole_query_chunks(query: np.ndarray, count: np.ndarray, target: int) -> list[tuple[int, int]]:
    """``(first, stop)`` block ranges of about ``target`` counted items, never splitting
    a query's blocks (``query`` is non-decreasing); a fixed number of them for the
    item count, never one per query."""
    if not len(query):
        return []
    # each query's first block, and the items before it: query_blocks' offsets
    bounds = np.append(np.flatnonzero(np.diff(query, prepend=query[0] - 1)), len(query))
    items_before = np.concatenate(([0], np.cumsum(count)))[bounds]
    return [
        (int(bounds[first]), int(bounds[stop]))
        for first, stop in query_blocks(items_before, target)
    ]


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
    relevant_in_block, relevant_before, _ = block_relevance(ranked, ties, k, relevance_level)
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
    relevant = relevant_rows(ranked, ties, k, relevance_level)
    found = relevant.count > 0
    if ranked.one_row_per_query:  # a relevant row is the first row: 1 / 1
        return found.astype(np.float64)
    values = np.zeros(ranked.n_queries)
    first_rank = relevant.position[relevant.first[found]] - relevant.compact_start[found]
    values[found] = 1.0 / (first_rank + 1)
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


def r_precision(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Expected R-precision per query, and ``R`` (relevant rows, unretrieved ones too).

    The hits within the first ``d = min(R, n_retrieved)`` ranks, divided by ``R``:
    a cutoff of its own for every query. From a running count of the relevant rows
    in rank order, the fixed order's hits are ``running[start + d] -
    running[start]``. Under ``ties="average"`` the one block that straddles rank
    ``d`` (``m`` rows, ``r`` relevant, first at row ``b``) counts the relevant rows
    before it plus ``(start + d - b) r / m`` (each of its positions inside holds
    the block's share), which is exact.
    """
    total = n_relevant(ranked, relevance_level)
    relevant = sorted_relevance(ranked, ties, relevance_level)
    running = running_count(relevant)
    start = ranked.offsets[:-1]
    boundary = start + np.minimum(total.astype(np.intp), ranked.n_retrieved)
    hits = (running[boundary] - running[start]).astype(np.float64)
    if ties == "average" and ranked.tied_rows is not None:
        # blocks in random order: the block that holds the rows on both sides of
        # the boundary straddles it (the boundary row is then a tied row)
        tied = ranked.tied_rows
        where = np.searchsorted(tied, boundary)
        straddling = np.flatnonzero(
            (where < len(tied)) & (tied[np.minimum(where, len(tied) - 1)] == boundary)
        )
        if len(straddling):
            runs = present(ranked.tie_first_rows, "RankedGroups.tie_first_rows")
            at = np.searchsorted(runs, boundary[straddling], side="right") - 1
            block_start = runs[at]
            block_end = np.append(runs, len(relevant))[at + 1]
            share = (running[block_end] - running[block_start]) / (block_end - block_start)
            hits[straddling] = (
                running[block_start] - running[start[straddling]]
                + (boundary[straddling] - block_start) * share
            )
    return safe_divide(hits, total), total


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
    positive = relevant_rows(ranked, ties, None, relevance_level, every_row=True)
    n_positive = positive.count.astype(np.float64)
    if ranked.one_row_per_query:  # one class per query: no pair, AUC undefined everywhere
        return np.zeros(ranked.n_queries), n_positive, 1.0 - n_positive
    n_negative = ranked.n_rows_per_query - n_positive
    # pairs won = n_pos n_neg - sum over positive rows of the negatives above them;
    # the j-th positive (0-based) at 0-based rank i has i - j negatives above it
    rank = positive.rank(np.float64)
    if arrangement.singletons:
        negatives_above = segment_sums(rank, positive.count)
    else:
        # every block lies wholly among the rows: its positives are position[lo:hi]
        blocks = tied_blocks(ranked, ties, None, every_row=True)
        lo, hi = relevant_in_tied_blocks(ranked, ties, None, relevance_level, every_row=True)
        zero_segments(rank, lo, hi)
        negatives_above = segment_sums(rank, positive.count)
        del rank  # one float per relevant row: not held beside the per-block arrays
        mid_rank = blocks.size - 1.0
        mid_rank *= 0.5
        mid_rank += blocks.start_rank
        mid_rank *= hi - lo
        negatives_above += np.bincount(blocks.query, weights=mid_rank, minlength=ranked.n_queries)
    negatives_above -= n_positive * (n_positive - 1) / 2
    pairs_won = n_positive * n_negative - negatives_above
    return safe_divide(pairs_won, n_positive * n_negative), n_positive, n_negative
