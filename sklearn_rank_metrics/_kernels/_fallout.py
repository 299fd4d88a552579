"""Fall-out@k: the share of a query's non-relevant rows ranked within the cutoff.

Fall-out is linear in the relevance at each rank: the non-relevant rows within the
cutoff are ``depth - hits``, so under ``ties="average"`` it takes the expected hits
of :func:`~._relevance.expected_hits` and is the exact expectation over the orders of
the tied rows.
"""

from __future__ import annotations

import numpy as np

from .._engine._ranked_groups import RankedGroups
from ._combinatorics import safe_divide
from ._relevance import expected_hits, n_relevant


def fallout(
    ranked: RankedGroups, ties: str, k: int | None, relevance_level: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Fall-out@k per query, and the non-relevant rows of each query.

    The non-relevant rows are every row of the query that is not relevant, the
    unretrieved (``-inf``) ones included, as recall counts every relevant row; a
    query without one has fall-out 0 here (the caller calls it undefined).
    """
    n_non_relevant = ranked.n_rows_per_query - n_relevant(ranked, relevance_level)
    retrieved_non_relevant = ranked.depth(k) - expected_hits(ranked, ties, k, relevance_level)
    # an average over tie orders may leave the difference a rounding step below 0
    np.maximum(retrieved_non_relevant, 0.0, out=retrieved_non_relevant)
    return safe_divide(retrieved_non_relevant, n_non_relevant), n_non_relevant
