"""Rank-biased precision (Moffat & Zobel 2008) and its residual.

RBP is linear in the gain at each rank, so under ``ties="average"`` every position of
a tied block takes the block's mean gain (and mean unjudged share,
``Arrangement.block_mean_per_row``): the expectation over the block's orders, exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._engine._ranked_groups import RankedGroups
from ._judged import judged_in_rank_order
from ._relevance import is_relevant

_FLOAT64_MAX = float(np.finfo(np.float64).max)


def rbp(
    ranked: RankedGroups,
    ties: str,
    k: int | None,
    p: float,
    graded: bool,
    relevance_level: float | None,
    part: str,
) -> tuple[np.ndarray, np.ndarray]:
    """RBP, its residual or its upper bound per query, and the relevant rows R.

    ``RBP = (1 - p) sum_{i <= d} p^(i-1) g_i`` over the ``d = min(k, n)`` top ranks;
    the residual is ``(1 - p) sum_{i <= d, unjudged} p^(i-1) + p^d``, the weight of
    the unjudged ranks and of every rank past ``d``; the upper bound is their sum.
    ``g_i`` is 1 for a relevant row, or its label when ``graded`` (ranx's RBP), and 0
    below the relevance level. The residual reads the ``judged`` mask as given (a
    negative label counts as judged, as in cwl_eval); the trec_eval presets make a
    negative qrels grade unjudged in the mask, as ``rbp_resid`` counts it.
    """
    arrangement = ranked.arrangement(ties)
    labels = arrangement.labels
    relevant = is_relevant(labels, relevance_level)
    n_relevant = ranked.query_sum(relevant.astype(np.float64))
    depth = ranked.depth(k)
    rank = ranked.rank
    inside = rank < ranked.per_row(depth)
    weight = np.where(inside, (1.0 - p) * np.power(p, rank.astype(np.float64)), 0.0)
    values = np.zeros(ranked.n_queries)
    if part in ("value", "upper"):
        gains = np.where(relevant, labels, 0.0) if graded else relevant.astype(np.float64)
        values += _weighted_gain(ranked, arrangement, weight, gains)
    if part in ("residual", "upper"):
        if ranked.judged is not None:
            unjudged = (~judged_in_rank_order(ranked, ties)).astype(np.float64)
            values += ranked.query_sum(weight * arrangement.block_mean_per_row(unjudged))
        values += np.power(p, depth.astype(np.float64))
    return values, n_relevant


def _weighted_gain(
    ranked: RankedGroups, arrangement: Any, weight: np.ndarray, gains: np.ndarray
) -> np.ndarray:
    """``sum_i weight_i * gain_i`` per query, each gain its tie block's mean, never inf.

    A tied block sums its gains before dividing by its size: graded labels near the
    largest float would overflow that sum and give ``inf``. When the rows could
    overflow it (largest gain times the row count beyond the float64 range), the
    gains are scaled by a power of two (exact) below 1 and the result scaled back.
    RBP never exceeds its largest gain (the weights sum to at most 1), which bounds
    the result, so it is finite whenever the labels are.
    """
    top = float(gains.max()) if gains.size else 0.0
    if top <= _FLOAT64_MAX / max(gains.size, 1):
        return ranked.query_sum(weight * arrangement.block_mean_per_row(gains))
    exponent = int(np.frexp(top)[1])
    scaled = np.ldexp(gains, -exponent)
    values = ranked.query_sum(weight * arrangement.block_mean_per_row(scaled))
    return np.minimum(np.ldexp(values, exponent), top)
