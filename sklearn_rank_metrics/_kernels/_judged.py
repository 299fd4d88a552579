"""Measures that tell judged from unjudged rows: bpref and Judged@k.

Both read :attr:`RankedGroups.judged` (input order; None: every row judged) in the
rank order of the ``ties`` mode. With ``ties="average"`` they are the exact
expectation over the orders of every tied block, in closed form.
"""

from __future__ import annotations

import numpy as np

from .._engine._ranked_groups import RankedGroups
from ._combinatorics import safe_divide
from ._relevance import is_relevant


def judged_in_rank_order(ranked: RankedGroups, ties: str) -> np.ndarray:
    """Judged flag of every row in the rank order of ``ties`` (bool).

    The ``judged`` mask as given: a row with a negative label counts as judged here
    (ir_measures' Judged@k, cwl_eval's RBP residual); bpref applies trec_eval's rule
    on top (:func:`bpref`). The presets fold their tool's rule into the mask.
    """
    if ranked.judged is None:
        return np.ones(ranked.n_rows, dtype=bool)
    return ranked.in_rank_order(ranked.judged, ties)


def _exclusive_running_count(ranked: RankedGroups, flags: np.ndarray) -> np.ndarray:
    """Per row (rank order): the flagged rows of its query ranked before it."""
    running = np.cumsum(flags, dtype=np.int64)
    running -= flags  # flagged rows before each row, over all queries
    return running - ranked.per_row(running[ranked.offsets[:-1]])


def _sum_of_min(first: np.ndarray, last: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """``sum_{v = first}^{last} min(v, cap)`` for integers ``first <= last`` (float)."""
    first, last, cap = (np.asarray(a, dtype=np.float64) for a in (first, last, cap))
    below = (first + last) * (last - first + 1) / 2  # every v <= cap
    above = cap * (last - first + 1)  # every v >= cap
    straddle = (first + cap) * (cap - first + 1) / 2 + cap * (last - cap)
    return np.where(last <= cap, below, np.where(first >= cap, above, straddle))


def bpref(
    ranked: RankedGroups, ties: str, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """bpref of every query, its relevant rows R and judged non-relevant rows N.

    A row with a negative label (TREC Web's -2) is in the pool but not judged, as
    trec_eval reads it (``form_res_rels.c``: ``RELVALUE_UNJUDGED``; ``m_bpref.c``
    skips it and leaves it out of ``N``). Walking the retrieved rows in rank order
    and skipping unjudged ones, a relevant
    row with ``n`` judged non-relevant rows above it adds
    ``1 - min(n, R) / min(N, R)`` (1 when ``N = 0``); the sum is divided by ``R``.
    Under ``ties="average"``, a relevant row of a block holding ``m`` judged
    non-relevant retrieved rows, ``c`` of them above the block, has ``n = c + X``
    with ``X`` uniform on ``0..m`` (its place among those ``m`` rows is uniform), so
    its expected ``min(n, R)`` is ``sum_{x=0}^{m} min(c + x, R) / (m + 1)``.
    """
    arrangement = ranked.arrangement(ties)
    labels = arrangement.labels
    judged = judged_in_rank_order(ranked, ties) & ~(labels < 0)
    relevant = judged & is_relevant(labels, relevance_level)
    nonrelevant = judged & ~relevant
    del judged  # per-row temporaries go as soon as they are used: memory of a few rows
    n_relevant = ranked.query_sum(relevant.astype(np.float64))
    n_nonrelevant = ranked.query_sum(nonrelevant.astype(np.float64))
    retrieved = ranked.rank < ranked.per_row(ranked.n_retrieved)
    counted = nonrelevant & retrieved
    relevant &= retrieved  # only retrieved relevant rows add to the sum
    del nonrelevant, retrieved
    above = _exclusive_running_count(ranked, counted)
    cap = ranked.per_row(n_relevant)
    if not arrangement.singletons:  # tied blocks: ties="average"
        in_block = arrangement.block_total_per_row(counted.astype(np.int64))
        before_block = above[arrangement.block_start]  # above the block's first row
        del above, counted
        expected_min = _sum_of_min(before_block, before_block + in_block, cap) / (in_block + 1)
        del in_block, before_block
    else:
        del counted
        expected_min = np.minimum(above, cap).astype(np.float64)
        del above
    del cap
    denominator = ranked.per_row(np.minimum(n_nonrelevant, n_relevant))
    share = np.where(denominator > 0, 1.0 - safe_divide(expected_min, denominator), 1.0)
    del expected_min, denominator
    share[~relevant] = 0.0
    gains = ranked.query_sum(share)
    return safe_divide(gains, n_relevant), n_relevant, n_nonrelevant


def judged_at_k(ranked: RankedGroups, ties: str, k: int | None) -> np.ndarray:
    """Share of judged rows among the ``min(k, n_retrieved)`` top-ranked rows.

    Under ``ties="average"``, a block with ``J`` judged rows of its ``m`` that has
    ``T`` positions within the cutoff puts ``T J / m`` judged rows there in
    expectation. 0 for a query that retrieved nothing.
    """
    arrangement = ranked.arrangement(ties)
    judged = judged_in_rank_order(ranked, ties).astype(np.float64)
    depth = ranked.depth(k)
    start = ranked.block_start_rank(ties)
    size = arrangement.block_size
    inside = np.clip(ranked.per_row(depth) - start, 0, size)
    expected = ranked.query_sum(judged * inside / size)
    return safe_divide(expected, depth.astype(np.float64))
