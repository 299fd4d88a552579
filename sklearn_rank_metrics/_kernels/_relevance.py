"""Which rows are relevant, and how many: the relevance helpers of both metric families.

Relevance is ``y_true > 0`` (or ``>= relevance_level``). The helpers count relevant
rows per query, per block of tied rows and before each block, and give the expected
number of relevant rows within a cutoff when a block straddles it; the binary kernels
(:mod:`._binary`) and the graded ones that need relevant rows build on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._engine._ranked_groups import Arrangement, RankedGroups
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


_RANK_CHUNK = 1 << 15


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
    one_row_per_query: bool = False  # then every rank is 0

    def rank(self, dtype: type = np.intp) -> np.ndarray:
        """0-based rank of every relevant row in its query (built on each call).

        Written straight into an array of ``dtype``, chunk by chunk: no second array
        of ranks in ``intp`` is held beside it.
        """
        if self.one_row_per_query:
            return np.zeros(len(self.position), dtype=dtype)
        rank: np.ndarray = np.empty(len(self.position), dtype=dtype)
        for start in range(0, len(rank), _RANK_CHUNK):
            stop = min(start + _RANK_CHUNK, len(rank))
            self.rank_into(rank[start:stop], start)
        return rank

    def rank_into(self, out: np.ndarray, start: int) -> np.ndarray:
        """Write the 0-based ranks of relevant rows ``start .. start + len(out) - 1``
        into ``out`` (any numeric dtype) and return it."""
        if self.one_row_per_query:
            out[...] = 0
            return out
        stop = start + len(out)
        np.subtract(
            self.position[start:stop],
            self.compact_start[self.query[start:stop]],
            out=out,
            casting="unsafe",  # integers below 2**53: exact in float64
        )
        return out


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
        if ranked.one_row_per_query and len(relevant) == ranked.n_queries:
            # every query ranks its one row: compact rows and queries coincide
            count = relevant.astype(np.intp)
            first = np.cumsum(count)
            first -= count
            # the query starts 0 .. n - 1 are the offsets themselves: a view, no copy
            return RelevantRows(position, position, count, first, ranked.offsets[:-1], True)
        compact_start = np.cumsum(depth)
        compact_start -= depth
        running = running_count(relevant)
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
        running = running_count(relevant)  # relevant rows before each compact row
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


def running_count(flags: np.ndarray) -> np.ndarray:
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
    (as float but ``r``; cached within a cutoff, rebuilt on each use without one).
    """

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        blocks = tied_blocks(ranked, ties, k)
        first = relevant_rows(ranked, ties, k, relevance_level).first
        lo, hi = relevant_in_tied_blocks(ranked, ties, k, relevance_level)
        if blocks.every_row:  # every block lies wholly inside: its hits are all of it
            in_block = hi - lo
        else:
            in_block = blocks.sum(sorted_relevance(ranked, ties, relevance_level)[blocks.rows])
        before = (lo - first[blocks.query]).astype(np.float64)
        return in_block, before, (hi - lo).astype(np.float64)

    if cutoff_scope(ranked, k, False) == EVERY_ROW:
        # O(blocks) from cached counts, and three arrays per block: rebuilt on each
        # use rather than held beside the per-row arrays of every later metric
        return compute()
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
