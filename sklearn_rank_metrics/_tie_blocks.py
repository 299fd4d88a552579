"""One entry per block of tied rows: the block-level form of the tie-averaged kernels.

Under ``ties="average"`` a block of ``m`` tied rows starting at 0-based rank ``s``
is in a random order. The expected value of a metric that is a sum of per-position
terms is a sum over blocks of closed forms in the block's size, start and counts
(``r`` relevant rows, ``c`` relevant rows in earlier blocks of the query, ``T``
positions within the cutoff), so the kernels here work on arrays with one entry
per block, plus one ``reduceat`` over the rows for the counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._grouping import RankedGroups


@dataclass(frozen=True)
class TieBlocks:
    """The blocks of one ``ties`` arrangement with tied rows, in rank order.

    Attributes
    ----------
    first_row : ndarray of shape (n_blocks,)
        Sorted row index of each block's first row.
    size : ndarray of shape (n_blocks,)
        ``m``, rows in the block (float64).
    start_rank : ndarray of shape (n_blocks,)
        ``s``, 0-based rank of the block's first row in its query (float64).
    query : ndarray of shape (n_blocks,)
        Query index of each block.
    query_first_block : ndarray of shape (n_queries + 1,)
        Query ``q`` owns blocks ``query_first_block[q]:query_first_block[q + 1]``.
    """

    first_row: np.ndarray
    size: np.ndarray
    start_rank: np.ndarray
    query: np.ndarray
    query_first_block: np.ndarray

    def sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of per-row ``values`` (sorted order) over each block."""
        return np.add.reduceat(values, self.first_row)

    def query_sum(self, block_values: np.ndarray) -> np.ndarray:
        """Sum of per-block values over each query (every query has a block)."""
        return np.add.reduceat(block_values, self.query_first_block[:-1])

    def before_in_query(self, block_values: np.ndarray) -> np.ndarray:
        """Sum of ``block_values`` over the earlier blocks of the same query."""
        running = np.cumsum(block_values)
        running -= block_values
        return running - running[self.query_first_block[:-1]][self.query]

    def inside(self, depth: np.ndarray) -> np.ndarray:
        """``T``: positions of each block within its query's cutoff ``depth``."""
        return np.clip(depth[self.query] - self.start_rank, 0.0, self.size)


def tie_blocks(ranked: RankedGroups, ties: str) -> TieBlocks:
    """The :class:`TieBlocks` of an arrangement that has tied rows (cached per mode)."""

    def compute() -> TieBlocks:
        first_row = ranked.arrangement(ties).block_first_row
        size = np.diff(first_row, append=len(ranked.labels)).astype(np.float64)
        query = ranked.query_of_row[first_row]
        # every query starts a block, so its first block is found exactly
        query_first_block = np.searchsorted(first_row, ranked.offsets)
        return TieBlocks(
            first_row=first_row,
            size=size,
            start_rank=ranked.rank[first_row].astype(np.float64),
            query=query,
            query_first_block=query_first_block,
        )

    return ranked.cached(("tie_blocks", ties), compute)


def harmonic_sums(blocks: TieBlocks, inside: np.ndarray, longest: int) -> np.ndarray:
    """``A = sum_{t=1..T} 1 / (s + t)`` per block, from a table of harmonic numbers.

    One-position blocks take ``1 / (s + 1)`` directly, so tie-free stretches are exact.
    """
    harmonic = np.zeros(longest + 1)
    np.cumsum(1.0 / np.arange(1, longest + 1), out=harmonic[1:])
    start = blocks.start_rank.astype(np.intp)
    sums = harmonic[start + inside.astype(np.intp)] - harmonic[start]
    single = inside == 1
    sums[single] = 1.0 / (blocks.start_rank[single] + 1.0)
    return sums
