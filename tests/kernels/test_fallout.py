"""The fall-out kernel (``_kernels/_fallout.py``), called directly.

Fall-out@k: the non-relevant rows within ``min(k, n_retrieved)`` over every
non-relevant row of the query (unretrieved ``-inf`` ones too). By hand for a query
without ties; under ``ties="average"`` the mean over every order of the tied rows
(``tests/support/tie_orders.py``), each order's value from the definition.
"""

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _fallout
from tests.support.tie_orders import flat_rows, per_query

INF = float("inf")
QUERIES = {
    "a": ([0, 1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, 0.5]),
    "b": ([0, 1, 0, 1, 0, 0], [0.9, 0.5, 0.5, 0.5, 0.1, -INF]),
    "c": ([1, 1], [0.2, 0.1]),  # no non-relevant row: 0, and 0 of them
}


def _ranked():
    group, y_true, y_score = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group)


def _fallout_of(k):
    def value(labels, scores, order):
        retrieved = [row for row in order if scores[row] > -INF][:k]
        non_relevant = sum(label <= 0 for label in labels)
        return sum(labels[row] <= 0 for row in retrieved) / non_relevant if non_relevant else 0.0

    return value


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5])
def test_fallout_and_the_non_relevant_rows(ties, k):
    got, n_non_relevant = _fallout.fallout(_ranked(), ties, k, None)
    expected = per_query(QUERIES, _fallout_of(k), ties)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(n_non_relevant, [2, 4, 0])


def test_the_query_without_ties_by_hand():
    # query a: non-relevant at ranks 1 and 3 of 5
    ranked = _ranked()
    for k, expected in ((1, 1 / 2), (2, 1 / 2), (3, 1.0), (None, 1.0)):
        assert _fallout.fallout(ranked, "input", k, None)[0][0] == expected
    # relevance_level=1.5: every row of a is non-relevant (labels 0 and 1): 2 of 5 at k=2
    assert _fallout.fallout(ranked, "input", 2, 1.5)[0][0] == 2 / 5
