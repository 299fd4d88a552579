"""Consecutive segments of a flat array: sums, positions within a segment, row ranges.

A segment list is given by its ``lengths`` (some may be 0); segment ``s`` holds the
``lengths[s]`` elements after those of the earlier segments. Queries in sorted
order, the compact cutoff rows and the positions of a tied block are all such lists.
"""

from __future__ import annotations

import numpy as np


def segment_sums(values: np.ndarray, lengths: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """Sums of consecutive segments of ``values`` of the given lengths (0 for empty ones).

    The sums are of type ``dtype`` (so boolean values can be counted).
    """
    if not len(lengths):
        return np.zeros(0, dtype=dtype)
    if lengths.max() <= 1:  # at most one element per segment: the sums are the elements
        if len(values) == len(lengths):
            return values.astype(dtype, copy=True)
        sums: np.ndarray = np.zeros(len(lengths), dtype=dtype)
        sums[lengths.astype(bool)] = values
        return sums
    starts = np.cumsum(lengths)
    starts -= lengths
    sums = np.zeros(len(lengths), dtype=dtype)
    filled = lengths > 0
    if len(values):
        sums[filled] = np.add.reduceat(values, starts[filled], dtype=dtype)
    return sums


def segment_positions(lengths: np.ndarray) -> np.ndarray:
    """0-based position of every element within its segment: ``0..lengths[s] - 1`` each."""
    lengths = np.asarray(lengths, dtype=np.intp)
    positions = np.arange(int(lengths.sum()), dtype=np.intp)
    positions -= np.repeat(np.cumsum(lengths) - lengths, lengths)
    return positions


def segment_rows(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The rows ``starts[s] .. starts[s] + lengths[s] - 1`` of every segment, concatenated."""
    rows = segment_positions(lengths)
    rows += np.repeat(starts, lengths)
    return rows


def segment_of_sorted(items: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The segment of every item of ascending ``items`` (indices into the flat array),
    the segments starting at ascending ``starts`` (``starts[0] <= items[0]``).

    ``np.searchsorted(starts, items, side="right") - 1``, found the other way round:
    where each segment starts among the items (one search per segment, not one per
    item), then each segment's index repeated over its items.
    """
    first_item = np.searchsorted(items, starts)
    return np.repeat(np.arange(len(starts)), np.diff(first_item, append=len(items)))


_ZERO_CHUNK = 1 << 14


def zero_segments(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Set ``values[lo[s]:hi[s]]`` to 0 for every segment ``s``, in place.

    The covered indices are listed :data:`_ZERO_CHUNK` segments at a time, so the
    index arrays stay cache-sized (and small beside ``values``) however many rows the
    segments cover; a fixed number of steps for the segment count, never one per
    segment.
    """
    lengths = hi - lo
    for start in range(0, len(lo), _ZERO_CHUNK):
        stop = start + _ZERO_CHUNK
        values[segment_rows(lo[start:stop], lengths[start:stop])] = 0


def sums_before_in_segment(values: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """For every element, the sum of the elements before it in its segment (0 for the first).

    ``positions`` is each element's 0-based position within its segment (segments are
    consecutive). The sums are built by doubling: pass ``j`` adds, to every element
    with at least ``2**j`` predecessors, the partial sum ``2**j`` places back. Which
    numbers are added, and in what order, depends only on the element's position in
    its segment, so every result is a function of its own segment alone, bit for bit;
    a running sum over all elements minus the segment's start value would carry the
    rounding error of every earlier segment instead. Cost: one pass over the
    elements per doubling, ``ceil(log2(longest segment))`` passes.
    """
    sums = np.zeros(len(values))
    if len(values) == 0:
        return sums
    later = positions > 0
    sums[1:][later[1:]] = values[:-1][later[1:]]  # the element just before, in-segment
    shift = 1
    longest = int(positions.max()) + 1
    while shift < longest - 1:
        reaches = positions[shift:] > shift  # an in-segment partial sum `shift` back
        sums[shift:] += np.where(reaches, sums[:-shift], 0.0)
        shift *= 2
    return sums


def query_blocks(offsets: np.ndarray, block_rows: int) -> list[tuple[int, int]]:
    """Blocks of consecutive whole queries of about ``block_rows`` rows each.

    ``(first, stop)`` pairs: queries ``first .. stop - 1``, in order, covering every
    query; a block ends at the first query that reaches the next multiple of
    ``block_rows`` rows, so a query larger than that is a block of its own (or ends
    one). Their number is fixed by the row count, never one per query, so that a loop
    over them keeps its temporary arrays cache-sized.
    """
    n_rows, n_queries = int(offsets[-1]), len(offsets) - 1
    cuts = np.searchsorted(offsets[1:], np.arange(block_rows, n_rows, block_rows)) + 1
    cuts = np.unique(np.concatenate(([0], cuts, [n_queries])))
    return list(zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True))
