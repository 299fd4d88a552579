"""Interpolated precision at recall levels: trec_eval's ``iprec_at_recall`` and ``11pt_avg``.

A query holds ``R`` relevant rows (its unretrieved ``-inf`` ones too); its ``n``
retrieved relevant rows sit at ranks ``pos_1 < ... < pos_n``. At recall level ``X``
trec_eval rounds ``X R`` to a number of relevant rows ``c`` and takes the best
precision at any rank at or below the ``c``-th of them. trec_eval 10
(``m_iprec_at_recall.c``, ``m_11pt_avg.c``) takes ``c = lround(X R)``, the nearest
integer with halves away from zero (``"round(X*R)"``); trec_eval 9 and before, so
pytrec_eval, ir_measures and ranx, take ``c = (long)(X R + 0.9)``
(``"floor(X*R+0.9)"``), both of ``X R`` in double precision:

    IP(X) = max_{max(c, 1) <= j <= n} j / pos_j        (0 when max(c, 1) > n)

(precision rises only at a relevant row, so the ranks between them never hold the
maximum). In a fixed order that is a suffix maximum over the relevant rows of the
query, one NumPy scan for every query at once.

``ties="average"``: the exact expectation
-----------------------------------------
The orders of the tied blocks are independent, and ``IP(X)`` is the largest of the
values each block contributes: ``D``, the largest ``j / pos_j`` over the relevant
rows ``j >= c`` that are not in a random block (single rows, and blocks all of whose
rows are relevant; 0 if there are none), and one random ``Y_b`` per block ``b`` of
``m`` rows, ``r`` of them relevant (``0 < r < m``), that holds relevant rows ``j >= c``
(the largest ``j / pos_j`` among them). So

    E[IP] = D + integral_D^1 (1 - prod_b P(Y_b <= x)) dx,

and ``P(Y_b <= x)`` is a step function of ``x`` with steps only at the values
``(K + t) / (N + s)`` that a relevant row can take in the block (``K`` relevant and
``N`` rows before it, the ``t``-th relevant of the block at its ``s``-th position).
The integral is therefore an exact finite sum over those steps.

``P(Y_b <= x)`` is the share of the orders of the block whose relevant rows from the
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
:data:`MAX_TIE_WORK` lattice cells in one call the kernel refuses with a
``ValueError`` that names the largest block, instead of running for hours; the
other ``ties`` modes are exact and fast on the same input.

Cost, memory and rounding
-------------------------
The backward passes of all (block, ``x``) pairs run together, a step ``i`` at a
time, in chunks of about :data:`_CHUNK_CELLS` states; the (query, level) targets are
handled in parts of about :data:`_EVENTS_PER_PART` step values, so memory stays
bounded on any input. ``P(s)`` comes from ``betaln`` (see
:func:`._combinatorics.log_comb_by_betaln`). The
result is exact up to rounding: against enumeration of the tie orders it agrees to
about 1e-14 on blocks of tens of rows; the relative error grows with the block (to
about 1e-10 at thousands of tied rows with few relevant ones, where the value is
small and ``1 - prod`` cancels).
"""

from __future__ import annotations

import numpy as np

from .._engine._ranked_groups import RankedGroups
from .._engine._segments import (
    query_blocks,
    segment_positions,
    segment_rows,
    sums_before_in_segment,
)
from ._combinatorics import log_comb_by_betaln
from ._relevance import block_relevance, n_relevant, relevant_in_tied_blocks, relevant_rows
from ._tie_blocks import tied_blocks

# trec_eval's 11 recall levels (m_11pt_avg.c), written as the same double literals
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
# lattice cells the ties="average" expectation may visit in one call (tens of
# seconds on 2 cores at most)
MAX_TIE_WORK = 10**9
# float64 values per step of one chunk of backward passes (about 16 MiB)
_CHUNK_CELLS = 2**21
# step values (events) of the targets handled together
_EVENTS_PER_PART = 2**20


# the rules for c, the relevant rows that reach recall level X (module notes)
ROUNDINGS = ("floor(X*R+0.9)", "round(X*R)")


def relevant_count_at_recall(
    total: np.ndarray, recall_levels: np.ndarray, rounding: str = "floor(X*R+0.9)"
) -> np.ndarray:
    """``c`` per query and level, at least 1 (int), by one of :data:`ROUNDINGS`.

    ``"round(X*R)"`` is C's ``lround`` of the double ``X R >= 0``: ``floor`` plus
    one when the fraction is at least 1/2 (exact: the fraction of a double is).
    """
    product = recall_levels[None, :] * total[:, None]
    if rounding == "round(X*R)":
        whole = np.floor(product)
        counts = whole + (product - whole >= 0.5)
    else:
        counts = np.floor(product + 0.9)
    return np.maximum(counts, 1.0).astype(np.intp)


def interpolated_precision(
    ranked: RankedGroups,
    ties: str,
    relevance_level: float | None,
    recall_levels: np.ndarray,
    rounding: str = "floor(X*R+0.9)",
) -> tuple[np.ndarray, np.ndarray]:
    """Expected ``IP(X)`` per query and level (``(n_queries, n_levels)``), and ``R``."""
    total = n_relevant(ranked, relevance_level)
    relevant = relevant_rows(ranked, ties, None, relevance_level)
    levels = np.asarray(recall_levels, dtype=np.float64)
    cutoff = relevant_count_at_recall(total, levels, rounding)
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
        _add_random_blocks(random, values, cutoff, defined)
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
    lift = (n_segments - 1 - segment).astype(np.int64) * len(distinct)
    suffix = np.maximum.accumulate((codes + lift)[::-1])[::-1]
    return distinct[suffix - lift]


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

    @property
    def reach(self) -> np.ndarray:
        """``K + r``: the last relevant row (``j``) of each block."""
        return self.relevant_before + self.relevant

    @property
    def step_values(self) -> np.ndarray:
        """``r (m - r + 1)``: how many values ``(K + t) / (N + s)`` each block's cells take."""
        return self.relevant * (self.rows - self.relevant + 1)


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


def _add_random_blocks(
    random: _RandomBlocks, values: np.ndarray, cutoff: np.ndarray, defined: np.ndarray
) -> None:
    """Replace ``values[q, l] = D`` by ``E[IP]`` for every defined (query, level) target.

    A block takes part in a target when it holds a relevant row ``j >= c``; the
    targets are handled in parts of whole queries, each part about
    :data:`_EVENTS_PER_PART` step values, so that memory is bounded.
    """
    lowest_cutoff = np.where(defined, cutoff, np.iinfo(np.intp).max).min(axis=1)
    involved = lowest_cutoff[random.query] <= random.reach
    _check_work(random, involved)
    events = np.bincount(
        random.query[involved],
        weights=(random.step_values[involved] + 1) * cutoff.shape[1],
        minlength=len(values),
    )
    query, level = np.nonzero(defined)  # query by query
    for first, stop in query_blocks(np.r_[0.0, np.cumsum(events)], _EVENTS_PER_PART):
        lo, hi = np.searchsorted(query, [first, stop])
        if lo < hi:
            q, lv = query[lo:hi], level[lo:hi]
            values[q, lv] = _expected_with_random_blocks(random, q, cutoff[q, lv], values[q, lv])


def _check_work(random: _RandomBlocks, involved: np.ndarray) -> None:
    """Refuse when the backward passes would visit more than :data:`MAX_TIE_WORK` cells.

    A block of ``m`` rows, ``r`` relevant, has at most ``r (m - r + 1)`` step values
    (and the ``D`` of its targets) and ``m (r + 1)`` lattice cells per value.
    """
    work = np.where(
        involved,
        random.step_values.astype(np.float64) * random.rows * (random.relevant + 1),
        0.0,
    )
    if work.sum() > MAX_TIE_WORK:
        worst = int(np.argmax(work))
        query = random.query_ids[random.query[worst]].tolist()
        raise ValueError(
            "Interpolated precision with ties='average' is an exact expectation over the "
            "orders of every tied block, whose cost grows as m^2 r^2 for a block of m tied "
            f"rows holding r relevant ones. The tied blocks of this call would visit "
            f"{work.sum():,.0f} lattice cells (at most {MAX_TIE_WORK:,}); the largest is "
            f"a block of {int(random.rows[worst])} tied rows holding "
            f"{int(random.relevant[worst])} relevant ones in query {query!r}. Pass "
            "ties='input', 'optimistic' or 'pessimistic', or break the ties in the scores."
        )


def _expected_with_random_blocks(
    random: _RandomBlocks, query: np.ndarray, cutoff: np.ndarray, fixed_best: np.ndarray
) -> np.ndarray:
    """``D + integral_D^1 (1 - prod_b P(Y_b <= x)) dx`` for each (query, level) target.

    ``fixed_best`` is each target's ``D``. An *involvement* is a (target, block) pair
    whose block holds a relevant row ``j >= c`` of the target's query.
    """
    n_targets = len(query)
    # a target's blocks: a suffix of its query's random blocks (K + r grows along it)
    width = int(max(random.reach.max(), cutoff.max())) + 2
    key = random.query.astype(np.int64) * width + random.reach
    first = np.searchsorted(key, query.astype(np.int64) * width + cutoff, side="left")
    stop = np.searchsorted(random.query, query, side="right")
    n_involved = np.maximum(stop - first, 0)
    target = np.repeat(np.arange(n_targets), n_involved)
    block = segment_rows(first, n_involved)
    if not len(block):
        return fixed_best
    needed = np.maximum(cutoff[target] - random.relevant_before[block], 1)  # c'
    threshold = fixed_best[target]
    grids = _StepGrids(random, block, needed, threshold)
    chances = _chances_at_most(grids)
    # one event per (involvement, step value x >= D): the block's factor becomes
    # P(Y_b <= x); it replaces the involvement's previous factor (1 before the first)
    owner = np.repeat(np.arange(len(block)), grids.size[grids.involvement_block])
    at = segment_rows(grids.start[grids.involvement_block], grids.size[grids.involvement_block])
    keep = grids.values[at] >= threshold[owner]
    owner, at = owner[keep], at[keep]
    event_x = grids.values[at]
    new = chances[at, grids.involvement_column[owner]]
    old = np.ones(len(new))
    same = np.r_[False, owner[1:] == owner[:-1]]
    old[same] = new[:-1][same[1:]]
    event_target = target[owner]
    order = np.lexsort((event_x, event_target))
    event_target, event_x, new, old = event_target[order], event_x[order], new[order], old[order]
    # the running product over the blocks of a target: the log of its non-zero
    # factors and a count of zero factors, summed within the target alone (bit for
    # bit the same whatever other targets share the call)
    first_event = np.r_[True, event_target[1:] != event_target[:-1]]
    start = np.flatnonzero(first_event)
    n_events = np.diff(np.r_[start, len(new)])  # per target
    position = segment_positions(n_events)
    log_factor = np.log(np.where(new > 0, new, 1.0) / np.where(old > 0, old, 1.0))
    log_product = sums_before_in_segment(log_factor, position) + log_factor
    zeros = np.cumsum((new == 0).astype(np.int64) - (old == 0))  # integers: exact
    zeros_before = np.repeat(zeros[start] - (new[start] == 0), n_events)
    product = np.where(zeros == zeros_before, np.exp(log_product), 0.0)
    # each event's product holds until the target's next event (or x = 1)
    next_x = np.r_[event_x[1:], 1.0]
    next_x[np.r_[first_event[1:], True]] = 1.0
    area = np.bincount(
        event_target, weights=(next_x - event_x) * (1.0 - product), minlength=n_targets
    )
    return np.clip(fixed_best + area, 0.0, 1.0)


class _StepGrids:
    """The blocks of a part's involvements: their step values and what they need.

    Attributes (``j`` indexes the involved blocks, in :attr:`blocks` order)
    -----------------------------------------------------------------------
    blocks, m, r, K, N : per involved block, its index in :class:`_RandomBlocks`
        and its shape.
    values, start, size : the sorted distinct step values of every block, block after
        block (``values[start[j] : start[j] + size[j]]``): the ``(K + t) / (N + s)``
        of every cell a relevant row can reach, those below the smallest ``D`` of the
        block's targets dropped, and those ``D`` added (the integral starts there).
    columns, column_start, n_columns : the distinct ``c'`` each block needs.
    chance, chance_start : ``P(pos of the c'-th relevant = s)`` of each block, row
        ``chance_start[j] + s - 1`` for ``s = 1 .. m``, column as in ``columns``.
    involvement_block, involvement_column : per involvement, its block ``j`` and
        the column of its ``c'``.
    """

    def __init__(self, random, block, needed, threshold):
        self.blocks, self.involvement_block = np.unique(block, return_inverse=True)
        n_blocks = len(self.blocks)
        self.m, self.r = random.rows[self.blocks], random.relevant[self.blocks]
        self.K = random.relevant_before[self.blocks]
        self.N = random.rank_before[self.blocks]
        lowest = np.full(n_blocks, np.inf)
        np.minimum.at(lowest, self.involvement_block, threshold)
        # the cells: the t-th relevant row at position s = t .. t + m - r
        span = self.m - self.r + 1
        n_cells = self.r * span
        owner = np.repeat(np.arange(n_blocks), n_cells)
        cell = segment_positions(n_cells)
        t = cell // span[owner] + 1
        s = t + cell % span[owner]
        value = (self.K[owner] + t) / (self.N[owner] + s).astype(np.float64)
        keep = value >= lowest[owner]
        values = np.r_[value[keep], threshold]
        owners = np.r_[owner[keep], self.involvement_block]
        order = np.lexsort((values, owners))
        values, owners = values[order], owners[order]
        distinct = np.r_[True, (values[1:] != values[:-1]) | (owners[1:] != owners[:-1])]
        self.values, owners = values[distinct], owners[distinct]
        self.size = np.bincount(owners, minlength=n_blocks)
        self.start = np.cumsum(self.size) - self.size
        # the c' of each block, and each involvement's column among them
        needed_by_block = np.unique(np.c_[self.involvement_block, needed], axis=0)
        self.columns = needed_by_block[:, 1]
        self.column_start = np.searchsorted(needed_by_block[:, 0], np.arange(n_blocks))
        self.n_columns = np.bincount(needed_by_block[:, 0], minlength=n_blocks)
        scale = int(self.columns.max()) + 1
        self.involvement_column = np.searchsorted(
            needed_by_block[:, 0].astype(np.int64) * scale + self.columns,
            self.involvement_block.astype(np.int64) * scale + needed,
        ) - self.column_start[self.involvement_block]
        self.width = int(self.n_columns.max())
        # P(pos of the c'-th relevant = s): C(s - 1, c' - 1) C(m - s, r - c') / C(m, r)
        self.chance_start = np.cumsum(self.m) - self.m
        row_block = np.repeat(np.arange(n_blocks), self.m)
        position = segment_positions(self.m)[:, None] + 1
        c = self.column_matrix(row_block)
        m, r = self.m[row_block][:, None], self.r[row_block][:, None]
        log_chance = (
            log_comb_by_betaln(position - 1, c - 1)
            + log_comb_by_betaln(m - position, r - c)
            - log_comb_by_betaln(m, r)
        )
        self.chance = np.where(c > 0, np.exp(log_chance), 0.0)

    def column_matrix(self, block: np.ndarray) -> np.ndarray:
        """``c'`` of each block's columns, padded with 0 to :attr:`width` (int)."""
        j = np.arange(self.width)
        has = j < self.n_columns[block][:, None]
        where = np.minimum(self.column_start[block][:, None] + j, len(self.columns) - 1)
        return np.where(has, self.columns[where], 0)


def _chances_at_most(grids: _StepGrids) -> np.ndarray:
    """``P(Y_b^(c') <= x)`` for every step value ``x`` and needed ``c'`` of its block.

    Rows follow ``grids.values``; column ``j`` is the block's ``j``-th needed ``c'``.
    The backward passes of all (block, ``x``) pairs run together, in chunks of pairs
    sorted by block size so that the pairs still inside their block at step ``u``
    (``u`` rows from the block's end) are a prefix of the chunk.
    """
    chances = np.zeros((len(grids.values), grids.width))
    block = np.repeat(np.arange(len(grids.blocks)), grids.size)
    order = np.argsort(-grids.m[block], kind="stable")
    block, rows = block[order], order  # rows: index into grids.values
    # per pair: r + 2 states, and the columns of the result and its temporaries
    cells = grids.r[block] + 2 + 3 * grids.width
    start = 0
    while start < len(block):
        stop = start + max(1, _CHUNK_CELLS // int(cells[start]))
        stop = start + max(1, _CHUNK_CELLS // int(cells[start:stop].max()))
        part = rows[start:stop]
        chances[part] = _backward_passes(grids, block[start:stop], grids.values[part])
        start = stop
    return chances


def _backward_passes(grids: _StepGrids, block: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(Y_b^(c') <= x)`` of (block, ``x``) pairs whose blocks are sorted by ``m``, descending.

    ``survive[:, k]`` holds ``V(i, k)`` for the current ``i``, starting at ``i = m``
    (``V(m, r) = 1``) and stepping back to ``i = 1``; at each ``i`` every needed ``c'``
    adds ``P(pos of the c'-th relevant = i) [(K + c') / (N + i) <= x] V(i, c')``.
    """
    m, r = grids.m[block], grids.r[block]
    K, N = grids.K[block].astype(np.float64), grids.N[block].astype(np.float64)
    n_pairs, n_states = len(block), int(r.max()) + 1
    states = np.arange(n_states)
    column = grids.column_matrix(block)  # c' (0: no such column)
    survive = np.zeros((n_pairs, n_states + 1))
    survive[np.arange(n_pairs), r] = 1.0
    result = np.zeros((n_pairs, grids.width))
    active = n_pairs
    for u in range(int(m.max())):  # u rows after position i = m - u
        while active and m[active - 1] <= u:
            active -= 1
        a = slice(0, active)
        i = (m[a] - u)[:, None]
        if u:  # V(i, .) from V(i + 1, .): the next row is relevant w.p. (r - k) / u
            up = np.clip((r[a, None] - states) / u, 0.0, 1.0)
            rises_above = (K[a, None] + states + 1) / (N[a, None] + i + 1) > x[a, None]
            later = survive[a]
            survive[a, :n_states] = (
                np.where(rises_above, 0.0, up * later[:, 1:]) + (1.0 - up) * later[:, :n_states]
            )
        c = column[a]
        below = (K[a, None] + c) / (N[a, None] + i) <= x[a, None]
        chance = grids.chance[grids.chance_start[block[a], None] + i - 1, np.arange(grids.width)]
        result[a] += np.where(below, chance, 0.0) * np.take_along_axis(survive[a], c, axis=1)
    return result
