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

from dataclasses import dataclass

import numpy as np

from .._engine._ranked_groups import Arrangement, RankedGroups
from .._engine._segments import segment_positions, segment_rows, segment_sums
from ._combinatorics import comb_ratio, hypergeometric_pmf, safe_divide
from ._tie_blocks import EVERY_ROW, cutoff_scope, tied_blocks


def is_relevant(labels: np.ndarray, relevance_level: float | None) -> np.ndarray:
    """True for a relevant row (``y_true > 0``, or ``>= relevance_level``)."""
    return labels > 0 if relevance_level is None else labels >= relevance_level


def sorted_relevance(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> np.ndarray:
    """:func:`is_relevant` of every row, in the rank order of ``ties`` (cached).

    Gathered as booleans from the input order, so a metric that needs only the
    relevance never builds the float labels in sorted order.
    """
    return ranked.cached(
        ("sorted_relevance", _rank_order_key(ranked, ties), relevance_level),
        lambda: ranked.in_rank_order(is_relevant(ranked.input_labels, relevance_level), ties),
    )


def _rank_order_key(ranked: RankedGroups, ties: str) -> str:
    """``ties``, or ``"sorted"`` for every mode whose rank order is the sorted order."""
    return ties if ranked.arrangement(ties).permutation is not None else "sorted"


@dataclass(frozen=True)
class RelevantRows:
    """The relevant rows among the rows each query ranks, in rank order.

    Those rows are the first ``depth[q]`` rows of each query ``q``: ``min(k,
    n_retrieved)`` for a cutoff ``k``, or every row. Numbered query after query they
    are the *compact* rows; query ``q``'s start at ``compact_start[q]``, as in
    :class:`~._tie_blocks.TiedBlocks`. A binary metric gains only at relevant rows, so
    its tie-free kernel costs O(relevant rows), not O(rows).
    """

    position: np.ndarray  # compact index of every relevant row, ascending
    query: np.ndarray  # its query
    count: np.ndarray  # relevant rows per query
    first: np.ndarray  # per query: index (into ``position``) of its first relevant row
    compact_start: np.ndarray  # per query: compact index of its first ranked row

    def rank(self, dtype: type = np.intp) -> np.ndarray:
        """0-based rank of every relevant row in its query (built on each call)."""
        rank = self.compact_start[self.query]
        np.subtract(self.position, rank, out=rank)
        return rank.astype(dtype, copy=False)


def relevant_rows(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    relevance_level: float | None,
    *,
    every_row: bool = False,
) -> RelevantRows:
    """The :class:`RelevantRows` within the cutoff ``k`` (cached).

    With ``every_row``, all rows are ranked (the ``-inf`` ones too), as for
    per-query AUC.
    """

    scope = cutoff_scope(ranked, k, every_row)

    def compute() -> RelevantRows:
        relevant, depth = _compact_relevance(ranked, ties, k, relevance_level, scope)
        position = np.flatnonzero(relevant)
        compact_start = np.cumsum(depth)
        compact_start -= depth
        running = _running_count(relevant)
        count = (running[compact_start + depth] - running[compact_start]).astype(np.intp)
        del running
        first = np.cumsum(count)
        first -= count
        query = np.repeat(np.arange(ranked.n_queries), count)
        return RelevantRows(position, query, count, first, compact_start)

    key = ("relevant_rows", _rank_order_key(ranked, ties), scope, relevance_level)
    return ranked.cached(key, compute)


def n_relevant(
    ranked: RankedGroups, relevance_level: float | None, known: np.ndarray | None = None
) -> np.ndarray:
    """Relevant rows per query (float), the unretrieved (``-inf``) ones included (cached).

    ``known``, when given, is that count already computed by the caller.
    """

    def compute() -> np.ndarray:
        if known is not None:
            return known.astype(np.float64)
        every_row = relevant_rows(ranked, "average", None, relevance_level, every_row=True)
        return every_row.count.astype(np.float64)

    return ranked.cached(("n_relevant", relevance_level), compute)


def relevant_in_tied_blocks(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    relevance_level: float | None,
    *,
    every_row: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Per block of :func:`tied_blocks`, the relevant rows at its positions (cached).

    They are ``position[lo:hi]`` of :func:`relevant_rows` (same ``k``, ``every_row``),
    in the fixed sorted order.
    """

    scope = cutoff_scope(ranked, k, every_row)

    def compute() -> tuple[np.ndarray, np.ndarray]:
        blocks = tied_blocks(ranked, ties, k, every_row=every_row)
        relevant, _ = _compact_relevance(ranked, ties, k, relevance_level, scope)
        running = _running_count(relevant)  # relevant rows before each compact row
        lo = running[blocks.block_position].astype(np.intp)
        hi = running[blocks.block_position + blocks.inside].astype(np.intp)
        return lo, hi

    key = ("relevant_in_tied_blocks", ties, scope, relevance_level)
    return ranked.cached(key, compute)


def _compact_relevance(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    relevance_level: float | None,
    scope: int | str | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Relevance of the compact rows of ``scope`` (see :func:`relevant_rows`), and depths."""
    relevant = sorted_relevance(ranked, ties, relevance_level)
    if scope == EVERY_ROW:
        return relevant, ranked.n_rows_per_query
    return relevant[ranked.cutoff_rows(k)], ranked.depth(k)


def _running_count(flags: np.ndarray) -> np.ndarray:
    """``running[i]``: true ``flags`` before index ``i`` (``n + 1`` entries).

    32-bit when the count fits: half the memory traffic of a 64-bit running sum.
    """
    dtype = np.int32 if len(flags) < 2**31 else np.int64
    running = np.zeros(len(flags) + 1, dtype=dtype)
    np.cumsum(flags, dtype=dtype, out=running[1:])
    return running


def block_relevance(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per block of :func:`tied_blocks` ``(k)``: ``r``, ``c`` and the fixed order's hits in it.

    ``r`` counts the relevant rows of the block (also past the cutoff); ``c`` the
    relevant rows of the query at the ranks before the block, which are within the
    cutoff and the same in every order of the blocks; the third item the relevant
    rows the fixed sorted order puts at the block's positions within the cutoff
    (all as float, cached).
    """

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        blocks = tied_blocks(ranked, ties, k)
        first = relevant_rows(ranked, ties, k, relevance_level).first
        lo, hi = relevant_in_tied_blocks(ranked, ties, k, relevance_level)
        in_block = blocks.sum(sorted_relevance(ranked, ties, relevance_level)[blocks.rows])
        before = (lo - first[blocks.query]).astype(np.float64)
        return in_block, before, (hi - lo).astype(np.float64)

    return ranked.cached(("block_relevance", ties, k, relevance_level), compute)


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
    """Block statistics for the ``n_relevant_in_top_k`` AP under ties (cached per mode, level)."""

    def compute() -> BlockCounts:
        arrangement: Arrangement = ranked.arrangement(ties)
        relevant = sorted_relevance(ranked, ties, relevance_level).astype(np.float64)
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
    """E[relevant rows within the cutoff]: a tied position holds its block's mean ``r/m``.

    The fixed order's count, less the relevant rows it puts at the ``T`` positions of
    each tied block within the cutoff, plus ``T r / m`` for the block.
    """

    def compute() -> np.ndarray:
        hits = relevant_rows(ranked, ties, k, relevance_level).count.astype(np.float64)
        if not ranked.arrangement(ties).singletons:
            # a position in a tied block is relevant with probability r / m
            blocks = tied_blocks(ranked, ties, k)
            r, _, fixed = block_relevance(ranked, ties, k, relevance_level)
            hits += np.bincount(
                blocks.query, weights=blocks.inside * r / blocks.size - fixed,
                minlength=ranked.n_queries,
            )
        return hits

    return ranked.cached(("expected_hits", ties, k, relevance_level), compute)


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
        return _average_precision_of_positions(ranked, ties, k, relevance_level, denominator)
    counts = block_counts(ranked, ties, relevance_level)
    in_cut = ranked.in_cutoff(k)
    terms = _precision_terms(counts, ranked.rank) * in_cut
    return _average_precision_over_retrieved(ranked, ties, counts, in_cut, terms, k)


def _average_precision_of_positions(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    relevance_level: float | None,
    denominator: str,
) -> np.ndarray:
    """AP@k as ``sum over relevant rows i <= k of hits@i / i``, divided.

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
    relevant = relevant_rows(ranked, ties, k, relevance_level)
    terms = np.arange(1.0, len(relevant.position) + 1.0)
    terms -= relevant.first[relevant.query]  # j = hits@i at the relevant row
    rank_plus_one = relevant.rank(np.float64)
    rank_plus_one += 1.0
    terms /= rank_plus_one
    del rank_plus_one
    if ranked.arrangement(ties).singletons:
        precision_sum = segment_sums(terms, relevant.count)
    else:
        blocks = tied_blocks(ranked, ties, k)
        lo, hi = relevant_in_tied_blocks(ranked, ties, k, relevance_level)
        terms[segment_rows(lo, hi - lo)] = 0.0  # the fixed order's terms inside blocks
        precision_sum = segment_sums(terms, relevant.count)
        # per block: (r/m) (c + 1) + t (r/m)(r - 1)/(m - 1), over s + 1 + t
        r, c, _ = block_relevance(ranked, ties, k, relevance_level)
        share = r / blocks.size
        slope = share * (r - 1.0) / (blocks.size - 1.0)
        intercept = share * (c + 1.0)
        owner, t = blocks.owner, blocks.offset
        expected = slope[owner]
        expected *= t
        expected += intercept[owner]
        rank_plus_one = (blocks.start_rank + 1.0)[owner]
        rank_plus_one += t
        expected /= rank_plus_one
        del rank_plus_one
        precision_sum += np.bincount(
            blocks.query[owner], weights=expected, minlength=ranked.n_queries
        )
    if denominator == "n_relevant_in_top_k":
        limit = relevant.count.astype(np.float64)
    else:
        every_row = ranked.cutoff_rows(k) is None
        limit = n_relevant(ranked, relevance_level, relevant.count if every_row else None)
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
        rank[segment_rows(lo, hi - lo)] = 0.0
        negatives_above = segment_sums(rank, positive.count)
        mid_rank = blocks.size - 1.0
        mid_rank *= 0.5
        mid_rank += blocks.start_rank
        mid_rank *= hi - lo
        negatives_above += np.bincount(blocks.query, weights=mid_rank, minlength=ranked.n_queries)
    negatives_above -= n_positive * (n_positive - 1) / 2
    pairs_won = n_positive * n_negative - negatives_above
    return safe_divide(pairs_won, n_positive * n_negative), n_positive, n_negative
