"""Interpolated precision at recall levels: trec_eval's ``iprec_at_recall`` and ``11pt_avg``.

A query holds ``R`` relevant rows (its unretrieved ``-inf`` ones too); its ``n``
retrieved relevant rows sit at ranks ``pos_1 < ... < pos_n``. At recall level ``X``
trec_eval rounds ``X R`` to a number of relevant rows ``c = (long)(X R + 0.9)``
and takes the best precision at any rank at or below the ``c``-th of them:

    IP(X) = max_{max(c, 1) <= j <= n} j / pos_j        (0 when max(c, 1) > n)

(precision rises only at a relevant row, so the ranks between them never hold the
maximum). In a fixed order that is a suffix maximum over the relevant rows of the
query, one NumPy scan for every query at once.

``ties="average"``: the exact expectation
-----------------------------------------
The orders of the tied blocks are independent, and ``IP(X)`` is the largest of the
values each block contributes: ``D``, the largest ``j / pos_j`` at the relevant
rows that are not in a random block (single rows, and blocks all of whose rows are
relevant), and one random ``Y_b`` per block ``b`` of ``m`` rows, ``r`` of them
relevant (``0 < r < m``), that holds relevant rows ``j >= c``. So

    E[IP] = D + integral_D^1 (1 - prod_b P(Y_b <= x)) dx,

and ``P(Y_b <= x)`` is a step function of ``x`` with steps only at the values
``(K + t) / (N + s)`` that a relevant row can take in the block (``K`` relevant and
``N`` rows before it, the ``t``-th relevant of the block at its ``s``-th position).
The integral is therefore an exact finite sum over those steps.

``P(Y_b <= x)`` counts the orders of the block whose relevant rows from the
``c' = max(1, c - K)``-th on all lie on or below the line ``precision = x``: a
lattice path that adds a row at a time (``i`` rows, ``k`` relevant so far; the
next row is relevant with probability ``(r - k) / (m - i)``). One backward pass
gives ``V(i, k)``, the chance that no later relevant row rises above ``x``, for every
``(i, k)``; then ``P(Y_b <= x) = sum_s P(pos of the c'-th relevant = s) [(K + c') /
(N + s) <= x] V(s, c')``, with the negative hypergeometric
``P(s) = C(s - 1, c' - 1) C(m - s, r - c') / C(m, r)``, for every ``c'`` at once.
There is no closed form for this lattice-path count, so the work is
``O(m r)`` per step value and ``O(m^2 r^2)`` per block: trivial for the small tied
blocks of real scores, heavy for a query whose scores are all equal. Past
:data:`MAX_TIE_WORK` lattice cells the kernel refuses with a ``ValueError`` that
names the query, instead of running for hours; the other ``ties`` modes are exact
and fast on the same input.
"""

from __future__ import annotations

import numpy as np

from .._engine._ranked_groups import RankedGroups
from .._engine._segments import segment_positions, segment_rows
from ._combinatorics import log_comb_of_integers, log_factorials
from ._relevance import block_relevance, n_relevant, relevant_in_tied_blocks, relevant_rows
from ._tie_blocks import tied_blocks

# trec_eval's 11 recall levels (m_11pt_avg.c), written as the same double literals
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
# lattice cells the ties="average" expectation may visit in one call (~20 s on 2 cores)
MAX_TIE_WORK = 10**9
# lattice cells per step of one chunk of the backward passes (memory: ~8 bytes each)
_CHUNK_CELLS = 2**21


def relevant_count_at_recall(total: np.ndarray, recall_levels: np.ndarray) -> np.ndarray:
    """trec_eval's ``c = (long)(X R + 0.9)`` per query and level, at least 1 (int)."""
    counts = np.floor(recall_levels[None, :] * total[:, None] + 0.9)
    return np.maximum(counts, 1.0).astype(np.intp)


def interpolated_precision(
    ranked: RankedGroups,
    ties: str,
    relevance_level: float | None,
    recall_levels: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Expected ``IP(X)`` per query and level (``(n_queries, n_levels)``), and ``R``."""
    total = n_relevant(ranked, relevance_level)
    relevant = relevant_rows(ranked, ties, None, relevance_level)
    cutoff = relevant_count_at_recall(total, np.asarray(recall_levels, dtype=np.float64))
    defined = cutoff <= relevant.count[:, None]
    index_in_query = np.arange(len(relevant.position)) - relevant.first[relevant.query]
    precision = (index_in_query + 1.0) / (relevant.rank() + 1.0)
    random = _random_blocks(ranked, ties, relevance_level)
    if random is not None:
        lo, hi = random.relevant_lo, random.relevant_hi
        precision[segment_rows(lo, hi - lo)] = 0.0  # their rows are not fixed: in Y_b
    best_below = _suffix_max_in_segments(precision, relevant.query, ranked.n_queries)
    values = np.zeros(cutoff.shape)
    if len(best_below):
        at = np.where(defined, relevant.first[:, None] + cutoff - 1, 0)
        values[defined] = best_below[at[defined]]
    if random is not None:
        query, level = np.nonzero(defined)
        values[query, level] = _expected_with_random_blocks(
            random, query, cutoff[query, level], values[query, level]
        )
    return values, total


def _suffix_max_in_segments(
    values: np.ndarray, segment: np.ndarray, n_segments: int
) -> np.ndarray:
    """``max(values[i:end of its segment])`` for every ``i``; segments ascending, consecutive.

    Exact: the values are replaced by their dense ranks and every segment is lifted
    above all those before it in the reversed scan, so that one
    ``np.maximum.accumulate`` restarts at each segment.
    """
    if not len(values):
        return values.astype(np.float64)
    distinct, codes = np.unique(values, return_inverse=True)
    lifted = codes.astype(np.int64) + (n_segments - 1 - segment).astype(np.int64) * len(distinct)
    suffix = np.maximum.accumulate(lifted[::-1])[::-1]
    suffix -= (n_segments - 1 - segment).astype(np.int64) * len(distinct)
    return distinct[suffix]


class _RandomBlocks:
    """The tied blocks whose order changes ``IP``: ``0 < r < m`` relevant rows of ``m``."""

    def __init__(self, ranked, blocks, which, relevant_in, relevant_before, lo, hi):
        self.query = blocks.query[which]
        self.rows = blocks.size[which].astype(np.intp)  # m
        self.relevant = relevant_in[which].astype(np.intp)  # r
        self.relevant_before = relevant_before[which].astype(np.intp)  # K
        self.rank_before = blocks.start_rank[which].astype(np.intp)  # N
        self.relevant_lo, self.relevant_hi = lo[which], hi[which]
        self.query_ids = ranked.query_ids


def _random_blocks(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> _RandomBlocks | None:
    if ranked.arrangement(ties).singletons:
        return None
    blocks = tied_blocks(ranked, ties, None)
    relevant_in, relevant_before, _ = block_relevance(ranked, ties, None, relevance_level)
    which = np.flatnonzero((relevant_in > 0) & (relevant_in < blocks.size))
    if not len(which):
        return None
    lo, hi = relevant_in_tied_blocks(ranked, ties, None, relevance_level)
    return _RandomBlocks(ranked, blocks, which, relevant_in, relevant_before, lo, hi)


def _expected_with_random_blocks(
    random: _RandomBlocks, query: np.ndarray, cutoff: np.ndarray, fixed_best: np.ndarray
) -> np.ndarray:
    """``D + integral_D^1 (1 - prod_b P(Y_b <= x)) dx`` for each (query, level) pair.

    ``fixed_best`` is ``D`` (0 when no fixed relevant row lies at or below ``c``).
    """
    n_pairs = len(query)
    if not n_pairs:
        return fixed_best
    # the blocks a pair involves: its query's random blocks with a relevant row j >= c,
    # a suffix of them (K + r grows along the query)
    reach = random.relevant_before + random.relevant
    width = int(max(reach.max(), cutoff.max())) + 2
    key = random.query.astype(np.int64) * width + reach
    first = np.searchsorted(key, query.astype(np.int64) * width + cutoff, side="left")
    stop = np.searchsorted(random.query, query, side="right")
    n_involved = np.maximum(stop - first, 0)
    pair = np.repeat(np.arange(n_pairs), n_involved)
    block = segment_rows(first, n_involved)
    if not len(block):
        return fixed_best
    needed = np.maximum(cutoff[pair] - random.relevant_before[block], 1)  # c'
    threshold = fixed_best[pair]
    _check_work(random, np.unique(block))
    grid, grid_start, grid_size, grids, column = _step_grids(random, block, needed, threshold)
    chances = _chances_at_most(grid, grid_start, grid_size, grids)
    # one event per (involvement, grid value >= D): block b's factor becomes P(Y_b <= x)
    in_grid = grid_size[block]
    event_owner = np.repeat(np.arange(len(block)), in_grid)
    event_index = segment_rows(grid_start[block], in_grid)
    event_x = grid[event_index]
    keep = event_x >= threshold[event_owner]
    event_owner, event_index, event_x = event_owner[keep], event_index[keep], event_x[keep]
    event_chance = chances[event_index, column[event_owner]]
    event_pair = pair[event_owner]
    # the factor it replaces: the owner's previous event, or 1 before its first
    previous = np.ones(len(event_chance))
    same = np.zeros(len(event_chance), dtype=bool)
    np.equal(event_owner[1:], event_owner[:-1], out=same[1:])
    previous[1:][same[1:]] = event_chance[:-1][same[1:]]
    order = np.lexsort((event_x, event_pair))
    event_pair, event_x = event_pair[order], event_x[order]
    new, old = event_chance[order], previous[order]
    # running product over the blocks, as a log of its non-zero factors and a zero count
    log_new = np.log(np.where(new > 0, new, 1.0))
    log_old = np.log(np.where(old > 0, old, 1.0))
    log_product = np.cumsum(log_new - log_old)
    zeros = np.cumsum((new == 0).astype(np.int64) - (old == 0))
    pair_start = np.flatnonzero(np.r_[True, event_pair[1:] != event_pair[:-1]])
    starts_at = np.repeat(pair_start, np.diff(np.r_[pair_start, len(event_pair)]))
    log_before = np.where(starts_at > 0, log_product[starts_at - 1], 0.0)
    zeros_before = np.where(starts_at > 0, zeros[starts_at - 1], 0)
    product = np.where(
        zeros - zeros_before == 0, np.exp(log_product - log_before), 0.0
    )
    next_x = np.r_[event_x[1:], 1.0]
    last = np.r_[event_pair[1:] != event_pair[:-1], True]
    next_x[last] = 1.0
    area = np.bincount(
        event_pair, weights=(next_x - event_x) * (1.0 - product), minlength=n_pairs
    )
    return np.clip(fixed_best + area, 0.0, 1.0)


def _step_grids(random, block, needed, threshold):
    """Per involved block: the sorted distinct values ``x`` where ``P(Y_b <= x)`` may step.

    The values ``(K + t) / (N + s)`` of every lattice cell a relevant row can reach,
    those below the smallest ``D`` of the pairs that involve the block dropped, and
    those ``D`` added (the integral starts there): ``grid``, with each random block's
    ``grid_start`` and ``grid_size`` (0 for a block no pair involves). Also the
    :class:`_Grids` of the involved blocks (their shapes and the distinct ``c'`` each
    needs) and each involvement's column among its block's ``c'``.
    """
    blocks, involvement_block = np.unique(block, return_inverse=True)
    lowest = np.full(len(blocks), np.inf)
    np.minimum.at(lowest, involvement_block, threshold)
    m = random.rows[blocks]
    r = random.relevant[blocks]
    K = random.relevant_before[blocks]
    N = random.rank_before[blocks]
    span = m - r + 1  # positions s = t .. t + m - r of the t-th relevant row
    n_cells = r * span
    owner = np.repeat(np.arange(len(blocks)), n_cells)
    cell = segment_positions(n_cells)
    t = cell // span[owner] + 1
    s = t + cell % span[owner]
    value = (K[owner] + t) / (N[owner] + s).astype(np.float64)
    keep = value >= lowest[owner]
    values = np.r_[value[keep], threshold]
    owners = np.r_[owner[keep], involvement_block]
    order = np.lexsort((values, owners))
    values, owners = values[order], owners[order]
    distinct = np.r_[True, (values[1:] != values[:-1]) | (owners[1:] != owners[:-1])]
    values, owners = values[distinct], owners[distinct]
    size = np.bincount(owners, minlength=len(blocks))
    start = np.cumsum(size) - size
    # the c' columns of each block
    pairs = np.unique(np.c_[involvement_block, needed], axis=0)
    column_start = np.searchsorted(pairs[:, 0], np.arange(len(blocks)))
    column = (
        np.searchsorted(
            pairs[:, 0].astype(np.int64) * (int(pairs[:, 1].max()) + 1) + pairs[:, 1],
            involvement_block.astype(np.int64) * (int(pairs[:, 1].max()) + 1) + needed,
        )
        - column_start[involvement_block]
    )
    n_columns = np.bincount(pairs[:, 0], minlength=len(blocks))
    grids = _Grids(blocks, m, r, K, N, pairs[:, 1], column_start, n_columns)
    full_start = np.zeros(random.rows.shape, dtype=np.intp)
    full_size = np.zeros(random.rows.shape, dtype=np.intp)
    full_start[blocks], full_size[blocks] = start, size
    return values, full_start, full_size, grids, column


class _Grids:
    """Per involved block (in :func:`_step_grids` order): shape and the ``c'`` it needs."""

    def __init__(self, blocks, m, r, K, N, columns, column_start, n_columns):
        self.blocks, self.m, self.r, self.K, self.N = blocks, m, r, K, N
        self.columns, self.column_start, self.n_columns = columns, column_start, n_columns


def _check_work(random: _RandomBlocks, blocks: np.ndarray) -> None:
    """Refuse when the backward passes would visit more than :data:`MAX_TIE_WORK` cells.

    A block of ``m`` rows, ``r`` relevant, has at most ``r (m - r + 1)`` step values
    and ``m (r + 1)`` lattice cells per value.
    """
    m = random.rows[blocks].astype(np.float64)
    r = random.relevant[blocks].astype(np.float64)
    work = r * (m - r + 1) * m * (r + 1)
    if work.sum() > MAX_TIE_WORK:
        worst = blocks[int(np.argmax(work))]
        query = random.query_ids[random.query[worst]].tolist()
        raise ValueError(
            "Interpolated precision with ties='average' is an exact expectation over the "
            "orders of every tied block, whose cost grows as m^2 r^2 for a block of m tied "
            f"rows holding r relevant ones. Query {query!r} has a "
            f"block of {int(random.rows[worst])} tied rows holding "
            f"{int(random.relevant[worst])} relevant ones, and this call would visit "
            f"{work.sum():,.0f} lattice cells (at most {MAX_TIE_WORK:,}). Pass "
            "ties='input', 'optimistic' or 'pessimistic', or break the ties in the scores."
        )


def _chances_at_most(grid, grid_start, grid_size, grids: _Grids) -> np.ndarray:
    """``P(Y_b^(c') <= x)`` for every grid value ``x`` and needed ``c'`` of its block.

    Rows follow ``grid``; column ``j`` is the block's ``j``-th needed ``c'``. The
    backward passes of all (block, x) pairs run together, in chunks of pairs sorted
    by block size so that the pairs still inside their block at step ``u`` (``u``
    rows from the block's end) are a prefix of the chunk.
    """
    n_width = int(grids.n_columns.max())
    chances = np.zeros((len(grid), n_width))
    local = np.repeat(np.arange(len(grids.blocks)), grid_size[grids.blocks])
    pair_rows = segment_rows(grid_start[grids.blocks], grid_size[grids.blocks])
    order = np.argsort(-grids.m[local], kind="stable")
    local, pair_rows = local[order], pair_rows[order]
    log_factorial = log_factorials(int(grids.m.max()))
    start = 0
    while start < len(local):
        # a chunk of pairs whose (pairs x states) fits the cell budget: the states
        # of a pair are at most m + 1, and m only falls along the pairs
        stop = start + max(1, _CHUNK_CELLS // (int(grids.m[local[start]]) + 2))
        rows = pair_rows[start:stop]
        chances[rows] = _backward_passes(
            grids, local[start:stop], grid[rows], log_factorial, n_width
        )
        start = stop
    return chances


def _backward_passes(grids, local, x, log_factorial, n_width):
    m, r = grids.m[local], grids.r[local]
    K, N = grids.K[local].astype(np.float64), grids.N[local].astype(np.float64)
    n_pairs, n_states = len(local), int(r.max()) + 1
    states = np.arange(n_states)
    # column j of a pair: its block's j-th needed c' (0 where the block needs fewer)
    j = np.arange(n_width)
    has_column = j < grids.n_columns[local][:, None]
    cprime = np.where(
        has_column,
        grids.columns[np.minimum(grids.column_start[local][:, None] + j, len(grids.columns) - 1)],
        0,
    )
    log_all = log_comb_of_integers(m, r, log_factorial)
    survive = np.zeros((n_pairs, n_states + 1))
    survive[np.arange(n_pairs), r] = 1.0  # V(m, r) = 1: the block is complete
    result = np.zeros((n_pairs, n_width))
    active = n_pairs
    for u in range(0, int(m.max())):
        while active and m[active - 1] <= u:  # pairs sorted by m, descending
            active -= 1
        a = slice(0, active)
        i = (m[a] - u)[:, None]  # V(i, .), built from V(i + 1, .) after the first step
        if u:
            up = np.clip((r[a, None] - states) / u, 0.0, 1.0)
            rises_above = (K[a, None] + states + 1) / (N[a, None] + i + 1) > x[a, None]
            later = survive[a]
            survive[a, :n_states] = (
                np.where(rises_above, 0.0, up * later[:, 1:]) + (1.0 - up) * later[:, :n_states]
            )
        # the c'-th relevant row at position s = i: record its share
        s = i
        at_s = has_column[a]
        c = cprime[a]
        log_position = (
            log_comb_of_integers(s - 1, c - 1, log_factorial)
            + log_comb_of_integers(m[a, None] - s, r[a, None] - c, log_factorial)
            - log_all[a, None]
        )
        below = (K[a, None] + c) / np.maximum(N[a, None] + s, 1.0) <= x[a, None]
        share = np.exp(np.where(at_s & below, log_position, -np.inf))
        result[a] += share * np.take_along_axis(survive[a], c, axis=1)
    return result
