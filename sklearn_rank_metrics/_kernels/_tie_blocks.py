"""The blocks of tied rows within the cutoff: where ``ties="average"`` differs from a fixed order.

Under ``ties="average"`` a block of ``m`` tied rows starting at 0-based rank ``s``
is in a random order. The metrics are sums of per-position terms, and a term at a
position outside every tied block does not depend on the order inside the blocks
(it sees earlier blocks only through order-free totals: relevant rows, gain sums,
products of ``1 - R``). So a kernel computes the terms of the fixed sorted order,
then overwrites the terms at the positions of tied blocks with their expected
values. The work beyond the tie-free kernel is O(rows in tied blocks).

A metric with a cutoff needs only the blocks that start within it, and only their
positions within it; the compact cutoff rows of a query are its first
``depth = min(k, n_retrieved)`` sorted rows, so block ``b`` of query ``q`` holds
the compact positions ``compact_start[q] + s + t`` for ``t < T``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .._engine._present import present
from .._engine._ranked_groups import RankedGroups
from .._engine._segments import segment_of_sorted, segment_positions


@dataclass(frozen=True)
class TiedBlocks:
    """The blocks of two or more tied rows that start within the cutoff, in rank order.

    Attributes
    ----------
    size : ndarray of shape (n_blocks,)
        ``m``, rows in the block (float64), all of them, also past the cutoff.
    start_rank : ndarray of shape (n_blocks,)
        ``s``, 0-based rank of the block's first row in its query.
    inside : ndarray of shape (n_blocks,)
        ``T``, positions of the block within the cutoff: ``min(m, depth - s)``.
    query : ndarray of shape (n_blocks,)
        Query index of each block.
    first_row : ndarray of shape (n_blocks,)
        The sorted row of each block's first row.
    block_position : ndarray of shape (n_blocks,)
        Compact cutoff index of each block's first position.
    every_row : bool
        Whether the compact rows are all rows (every block lies wholly inside).

    Built on first use (and kept), one entry per row of the blocks or per position
    within the cutoff, so a kernel that needs per-block values only (AUC, RR, hit)
    never pays for them:

    rows : ndarray of shape (n_block_rows,)
        The sorted rows of every block, block by block.
    row_start : ndarray of shape (n_blocks,)
        Where each block's rows start in ``rows``.
    position : ndarray of shape (n_positions,)
        Compact cutoff index of every block position within the cutoff, block by block.
    owner : ndarray of shape (n_positions,)
        Block of each of those positions.
    offset : ndarray of shape (n_positions,)
        ``t``, 0-based offset of each of those positions in its block.
    """

    size: np.ndarray
    start_rank: np.ndarray
    inside: np.ndarray
    query: np.ndarray
    first_row: np.ndarray
    block_position: np.ndarray
    every_row: bool

    def __len__(self) -> int:
        return len(self.size)

    @cached_property
    def _int_size(self) -> np.ndarray:
        return self.size.astype(np.intp)

    @cached_property
    def _offset_in_block(self) -> np.ndarray:
        return segment_positions(self._int_size)

    @cached_property
    def _owner_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.size)), self._int_size)

    @cached_property
    def rows(self) -> np.ndarray:
        return self._offset_in_block + self.first_row[self._owner_of_row]

    @cached_property
    def row_start(self) -> np.ndarray:
        row_start = np.cumsum(self._int_size)
        row_start -= self._int_size
        return row_start

    @cached_property
    def offset(self) -> np.ndarray:
        if self.every_row:  # every position is inside, at its own row
            return self._offset_in_block
        return segment_positions(self.inside)

    @cached_property
    def owner(self) -> np.ndarray:
        if self.every_row:
            return self._owner_of_row
        return np.repeat(np.arange(len(self.size)), self.inside)

    @cached_property
    def position(self) -> np.ndarray:
        if self.every_row:
            return self.rows
        return self.offset + self.block_position[self.owner]

    def sum(self, values_at_rows: np.ndarray) -> np.ndarray:
        """Sum over each block of values given at :attr:`rows`."""
        if not len(self.size):
            return np.zeros(0)
        return np.add.reduceat(values_at_rows, self.row_start)


def tied_blocks(
    ranked: RankedGroups, ties: str, k: int | None, *, every_row: bool = False
) -> TiedBlocks:
    """The :class:`TiedBlocks` of an arrangement with tied rows (cached).

    Within the cutoff ``min(k, n_retrieved)`` of each query, whose compact rows are
    :meth:`RankedGroups.cutoff_rows`; with ``every_row``, all rows (the ``-inf``
    ones too) are the compact rows, as for per-query AUC.
    """

    scope = cutoff_scope(ranked, k, every_row)

    def compute() -> TiedBlocks:
        first_row, size, start_rank, query = _tied_runs(ranked, ties)
        if scope == EVERY_ROW:
            depth = ranked.n_rows_per_query
            compact_start = ranked.offsets[:-1]
        else:
            depth = ranked.depth(k)
            compact_start = np.cumsum(depth)
            compact_start -= depth
        block_depth = depth[query]
        within = np.flatnonzero(start_rank < block_depth)
        if len(within) < len(first_row):
            first_row, size, start_rank, query = (
                first_row[within], size[within], start_rank[within], query[within]
            )
            block_depth = block_depth[within]
        inside = np.minimum(size, block_depth - start_rank)
        return TiedBlocks(
            size=size.astype(np.float64),
            start_rank=start_rank,
            inside=inside,
            query=query,
            first_row=first_row,
            block_position=compact_start[query] + start_rank,
            every_row=scope == EVERY_ROW,
        )

    return ranked.cached(("tied_blocks", ties, scope), compute)


EVERY_ROW = "every row"


def cutoff_scope(ranked: RankedGroups, k: int | None, every_row: bool) -> int | str | None:
    """The rows a cutoff ``k`` ranks, as a cache key: :data:`EVERY_ROW`, or ``k``.

    A cutoff that keeps every row of every query (``k=None`` without ``-inf`` rows,
    or ``k`` at least the largest query) ranks the same rows as ``every_row``, so
    they share their cached intermediates.
    """
    return EVERY_ROW if every_row or ranked.cutoff_rows(k) is None else k


def _tied_runs(
    ranked: RankedGroups, ties: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """First row, size, start rank and query of every run of two or more tied rows (cached).

    Only ``ties="average"`` has such runs: found from the sort's tied rows alone,
    in O(tied rows).
    """

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        # runs of consecutive tied rows; each run continues the row just before it
        tied_rows = present(ranked.tied_rows, "RankedGroups.tied_rows")
        continues = np.zeros(len(tied_rows), dtype=np.bool_)
        np.equal(tied_rows[1:], tied_rows[:-1] + 1, out=continues[1:])
        run_start = np.flatnonzero(~continues)
        first_row = tied_rows[run_start] - 1
        size = np.diff(run_start, append=len(tied_rows)) + 1
        query = segment_of_sorted(first_row, ranked.offsets[:-1])
        return first_row, size, first_row - ranked.offsets[query], query

    return ranked.cached(("tied_runs", ties), compute)
