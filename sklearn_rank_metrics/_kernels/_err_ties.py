"""ERR under ``ties="average"``: the chance of reaching each position of a tied block.

A block of ``m`` tied rows is in a uniformly random order. With ``x_i = 1 - R_i``
the probability of passing row ``i`` without stopping, the user reaches position
``t`` (0-based) of the block, having passed the rows of the block in front of it,
with probability ``e_t``: the mean, over the t-subsets of the block's rows, of the
product of their ``x``. ERR needs ``e_t - e_{t+1}`` (stopping at position ``t``)
for every position of the block within the cutoff.

Cost and memory
---------------
Rows with ``x = 1`` (label 0: the user never stops there) only dilute the block.
With ``r`` rows of ``x < 1``, ``o = m - r`` rows of ``x = 1`` and ``f_a`` the
subset means of the ``r`` rows alone,
``e_t = sum_a C(r, a) C(o, t - a) / C(m, t) f_a`` (a hypergeometric mixture: the
t-subset holds ``a`` of the ``r`` rows). ``f_a`` falls at least geometrically
(``f_{a+1} <= max(x) f_a``), so it is computed only up to the depth ``D`` where it
drops below ``2**-60 / m`` and taken as 0 beyond. ``e_t`` then errs by at most
that much for every ``t``, and the block's ERR term, which is at least
``reach / (s + m)`` once ``f_D`` is that small, by a relative ``2**-59``.

Per block the work is O(r * D) for ``f`` (built a row at a time, or by pairwise
merges for more than 64 rows, O(log r) NumPy steps) and O(T * D) for the mixture
over its ``T`` positions in the cutoff; ``D <= min(r, T)``. Graded labels make
``D`` small (about 60 for labels 1-4 with ``max_grade=4``); it reaches ``r`` only
when every ``x`` is close to 1 (tiny fractional labels). Memory is linear in the
rows of the blocks: ``f`` is stored up to each block's own depth, the merges keep
only the columns a part of their size can fill, and blocks are handled in classes
of similar depth.
"""

from __future__ import annotations

import numpy as np

from .._engine._segments import segment_positions, segment_rows
from ._combinatorics import log_comb_of_integers, log_factorials

# f_D below this, divided by the block's size, ends the block's subset means
NEGLIGIBLE_SUBSET_MEAN = 2.0**-60
_FIRST_DEPTH = 64
_ROW_BY_ROW_MAX_SIZE = 64


def stopping_chances(
    keep: np.ndarray, sizes: np.ndarray, owner: np.ndarray, offset: np.ndarray
) -> np.ndarray:
    """``e_b[t] - e_b[t+1]`` at each block position ``(owner, offset) = (b, t)``.

    ``keep`` holds the ``x`` of every row of the blocks, block after block,
    ``sizes[b]`` rows each. Positions ``t`` range over ``0 .. sizes[b] - 1``.
    """
    sizes = sizes.astype(np.intp)
    n_blocks = len(sizes)
    if not n_blocks or not len(owner):
        return np.zeros(len(owner))
    starts = np.cumsum(sizes) - sizes
    stopping = keep != 1.0
    n_stopping = np.add.reduceat(stopping.astype(np.intp), starts)
    # the subset means are needed up to degree offset + 1 <= largest offset + 1
    needed = np.zeros(n_blocks, dtype=np.intp)
    np.maximum.at(needed, owner, offset + 1)
    needed = np.minimum(needed, n_stopping)
    means, means_start, depth = _truncated_subset_means(
        keep[stopping], n_stopping, needed, sizes
    )
    # e_b[t] for t = 0 .. (largest offset + 1) of each block, then the differences
    n_points = np.zeros(n_blocks, dtype=np.intp)
    np.maximum.at(n_points, owner, offset + 2)
    point_start = np.cumsum(n_points) - n_points
    mix = _OnesMixture(means, means_start, depth, n_stopping, sizes)
    reach = np.zeros(int(n_points.sum()))
    # e_t is non-increasing in t: once it is negligible, the later points stay 0.
    # The mixture at t is centred on a = t r / m, so e_t is negligible soon after
    # t = D m / r; points are computed in spans that double until it is.
    computed = np.zeros(n_blocks, dtype=np.intp)
    span = np.minimum(
        n_points, 2 * (depth + 1) * ((sizes + 1) // (n_stopping + 1) + 1) + _FIRST_DEPTH
    )
    pending = np.flatnonzero(n_points > 0)
    while len(pending):
        upto = np.minimum(n_points[pending], computed[pending] + span[pending])
        count = upto - computed[pending]
        point_owner = np.repeat(pending, count)
        degree = segment_positions(count) + np.repeat(computed[pending], count)
        reach[point_start[point_owner] + degree] = mix.at(point_owner, degree)
        computed[pending] = upto
        last = reach[point_start[pending] + upto - 1]
        going = (upto < n_points[pending]) & (last > NEGLIGIBLE_SUBSET_MEAN / sizes[pending])
        pending = pending[going]
        span[pending] *= 2
    point = point_start[owner] + offset
    return reach[point] - reach[point + 1]


class _OnesMixture:
    """``e_b[t]`` from the subset means ``f`` of block ``b``'s rows with ``x < 1``."""

    def __init__(self, means, means_start, depth, n_stopping, sizes):
        self.means, self.means_start, self.depth = means, means_start, depth
        self.n_stopping, self.sizes = n_stopping, sizes
        self.log_factorial = log_factorials(int(sizes.max()))

    def at(self, owner: np.ndarray, degree: np.ndarray) -> np.ndarray:
        r, m = self.n_stopping[owner], self.sizes[owner]
        ones = m - r
        # a runs over max(0, t - o) .. min(D, t); positions sorted by their top a,
        # so the positions still summing at step a are a leading slice
        top = np.minimum(self.depth[owner], degree)
        order = np.argsort(-top, kind="stable")
        r, m, ones, degree, top = r[order], m[order], ones[order], degree[order], top[order]
        first = self.means_start[owner[order]]
        log_total = log_comb_of_integers(m, degree, self.log_factorial)
        total = np.zeros(len(owner))
        largest = int(top[0]) if len(top) else -1
        for a in range(largest + 1):
            n_active = int(np.searchsorted(-top, -a, side="right"))  # top >= a
            d = degree[:n_active]
            log_weight = (
                log_comb_of_integers(r[:n_active], np.intp(a), self.log_factorial)
                + log_comb_of_integers(ones[:n_active], d - a, self.log_factorial)
                - log_total[:n_active]
            )
            # C(o, t - a) is 0 (log -inf) where t - a > o: no such subset
            total[:n_active] += np.exp(log_weight) * self.means[first[:n_active] + a]
        result = np.empty_like(total)
        result[order] = total
        return result


def _truncated_subset_means(
    values: np.ndarray, counts: np.ndarray, needed: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Subset means ``f_b[0 .. D_b]`` of each block's ``values``, flat, block after block.

    ``D_b = needed[b]`` unless ``f_b`` falls below ``NEGLIGIBLE_SUBSET_MEAN /
    sizes[b]`` earlier: each pass computes the pending blocks to a depth twice
    the last one's and keeps those that have fallen that low (or are complete).
    Returns the flat means, where each block's start in them, and ``D``.
    """
    starts = np.cumsum(counts) - counts
    depth = needed.copy()
    pieces: list[tuple[np.ndarray, np.ndarray]] = []  # (blocks, their means, 0-padded)
    pending = np.flatnonzero(needed > 0)
    pass_depth = _FIRST_DEPTH
    while len(pending):
        for blocks, means in _means_by_depth_class(
            values, starts, counts, pending, np.minimum(needed[pending], pass_depth)
        ):
            pass_depth_of = np.minimum(needed[blocks], pass_depth)
            columns = np.arange(means.shape[1])
            negligible = (means <= (NEGLIGIBLE_SUBSET_MEAN / sizes[blocks])[:, None]) & (
                columns[None, :] <= pass_depth_of[:, None]
            )
            small = negligible.any(axis=1)
            done = (pass_depth_of == needed[blocks]) | small
            # the first negligible column ends the block (f only falls after it)
            first_small = np.where(small, negligible.argmax(axis=1), pass_depth_of)
            depth[blocks[done]] = first_small[done]
            pieces.append((blocks[done], means[done]))
        finished = np.concatenate([blocks for blocks, _ in pieces])
        pending = np.setdiff1d(pending, finished, assume_unique=True)
        pass_depth *= 2
    means_start = np.cumsum(depth + 1) - (depth + 1)
    flat = np.zeros(int(np.sum(depth + 1)))
    flat[means_start[needed == 0]] = 1.0  # f_0 = 1
    for blocks, means in pieces:
        width = depth[blocks] + 1
        columns = np.arange(means.shape[1])
        within_depth = columns[None, :] < width[:, None]
        flat[segment_rows(means_start[blocks], width)] = means[within_depth]
    return flat, means_start, depth


def _means_by_depth_class(values, starts, counts, blocks, degrees):
    """Yield ``(blocks, means)`` for classes of blocks whose degree is within a factor
    of two, each ``means`` of shape ``(len(blocks), class degree + 1)``."""
    depth_class = np.ceil(np.log2(np.maximum(degrees, 1))).astype(np.intp)
    for c in np.unique(depth_class):  # one step per class (about log2 of the depth)
        chosen = depth_class == c
        members = blocks[chosen]
        degree = int(degrees[chosen].max())
        member_counts = counts[members]
        yield members, subset_product_means(
            values[segment_rows(starts[members], member_counts)], member_counts, degree
        )


def subset_product_means(values: np.ndarray, sizes: np.ndarray, degree: int) -> np.ndarray:
    """``e[b, d]`` for ``d <= degree``: mean over the d-subsets of block ``b``'s values
    of their product (0 when ``d`` exceeds the block's size).

    The ``values`` hold the blocks one after the other, ``sizes[b]`` each. Blocks of
    up to :data:`_ROW_BY_ROW_MAX_SIZE` values take one row at a time
    (:func:`_subset_means_row_by_row`, one step per row of the largest block); larger
    ones are merged pairwise (:func:`_subset_means_by_merging`, one step per halving).
    """
    sizes = np.asarray(sizes, dtype=np.intp)
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
    merged = _subset_means_by_merging(
        values[segment_rows(starts[large_blocks], large_sizes)],
        np.repeat(np.arange(len(large_blocks)), large_sizes),
        len(large_blocks),
        degree,
    )
    means[large_blocks] = 0.0
    means[large_blocks, : merged.shape[1]] = merged
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
    (a convex combination, so no overflow). ``owner`` must be sorted. Each round
    keeps only the ``min(degree, size) + 1`` columns its parts can fill, so memory
    stays linear in the values. Returns ``min(degree, largest owner) + 1`` columns.
    """
    means = np.ones((len(values), min(degree, 1) + 1))
    if degree >= 1:
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
        width = min(degree, 2 * int(sizes.max())) + 1
        kept = np.zeros((int(even.sum()), width))
        kept[:, : means.shape[1]] = means[even]
        kept_row_of_left = np.searchsorted(np.flatnonzero(even), left)
        kept[kept_row_of_left] = _merge_subset_means(
            means[left], sizes[left], means[right], sizes[right], width - 1, log_factorial
        )
        sizes[left] += sizes[right]
        means, sizes, owner = kept, sizes[even], owner[even]
    return means


def _merge_subset_means(
    left: np.ndarray,
    left_size: np.ndarray,
    right: np.ndarray,
    right_size: np.ndarray,
    degree: int,
    log_factorial: np.ndarray,
) -> np.ndarray:
    """Subset means of the unions, ``degree + 1`` columns; the parts' columns beyond
    their own sizes are 0, and only degrees up to the largest union size are summed."""
    merged = np.zeros((len(left), degree + 1))
    # the weights depend on the two sizes only, and most pairs of a round share them
    pairs, pair_of_row = np.unique(
        np.stack((left_size, right_size), axis=1), axis=0, return_inverse=True
    )
    pair_of_row = pair_of_row.ravel()
    pair_left, pair_right = pairs[:, 0], pairs[:, 1]
    pair_total = pair_left + pair_right
    top = min(degree, int(pair_total.max()))
    d = np.arange(top + 1)
    log_total = log_comb_of_integers(pair_total[:, None], d[None, :], log_factorial)
    right_width = right.shape[1]
    for a in range(min(degree, int(left_size.max()), left.shape[1] - 1) + 1):
        upto = min(top, a + right_width - 1)  # right[:, d - a] exists for d <= upto
        span = d[a : upto + 1]
        log_weight = (
            log_comb_of_integers(pair_left, np.intp(a), log_factorial)[:, None]
            + log_comb_of_integers(pair_right[:, None], span[None, :] - a, log_factorial)
        )
        valid = np.isfinite(log_weight) & np.isfinite(log_total[:, a : upto + 1])
        log_weight -= np.where(valid, log_total[:, a : upto + 1], 0.0)
        weight = np.exp(np.where(valid, log_weight, -np.inf))[pair_of_row]
        weight *= left[:, a, None]
        weight *= right[:, : upto + 1 - a]
        merged[:, a : upto + 1] += weight
    return merged
