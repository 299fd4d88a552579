"""The rank-biased precision kernel (``_kernels/_rbp.py``), called directly.

``RBP = (1 - p) sum_{i <= d} p^(i-1) g_i`` over the ``d = min(k, n_retrieved)`` top
ranks, ``g_i`` 1 for a relevant row (its label when ``graded``); the residual is
``(1 - p) sum_{i <= d, unjudged} p^(i-1) + p^d``; the upper bound is their sum (Moffat
and Zobel 2008). By hand for a query without ties; under ``ties="average"`` the mean
over every order of the tied rows (``tests/support/tie_orders.py``).
"""

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _rbp
from tests.support.tie_orders import flat_rows, per_query

INF = float("inf")
# query id: (labels, scores, judged)
QUERIES = {
    "a": ([0, 2, 0, 1, 3], [0.9, 0.8, 0.7, 0.6, 0.5], [1, 1, 0, 1, 1]),
    "b": ([1, 0, 2, 0, 1], [0.9, 0.5, 0.5, 0.5, -INF], [1, 0, 1, 1, 1]),
}


def _ranked():
    group, y_true, y_score, judged = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group, judged=judged == 1)


def _rbp_of(k, p, graded, part):
    def value(labels, scores, judged, order):
        ranked = [row for row in order if scores[row] > -INF][:k]
        gain = [labels[row] if graded else labels[row] > 0 for row in ranked]
        gains = sum(p**i * g for i, g in enumerate(gain))
        unjudged = sum(p**i for i, row in enumerate(ranked) if not judged[row])
        residual = (1 - p) * unjudged + p ** len(ranked)
        return {"value": (1 - p) * gains, "residual": residual,
                "upper": (1 - p) * gains + residual}[part]  # fmt: skip

    return value


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 2, 3])
@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("part", ["value", "residual", "upper"])
def test_rbp_its_residual_and_its_upper_bound(ties, k, graded, part):
    got, n_relevant = _rbp.rbp(_ranked(), ties, k, 0.5, graded, None, part)
    expected = per_query(QUERIES, _rbp_of(k, 0.5, graded, part), ties)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(n_relevant, [3, 3])


def test_the_query_without_ties_by_hand():
    # query a, p = 1/2: relevant at ranks 2, 4, 5 (labels 2, 1, 3), unjudged at rank 3
    ranked = _ranked()
    value = _rbp.rbp(ranked, "input", None, 0.5, False, None, "value")[0][0]
    assert value == 0.5 * (1 / 2 + 1 / 8 + 1 / 16)
    graded = _rbp.rbp(ranked, "input", None, 0.5, True, None, "value")[0][0]
    assert graded == 0.5 * (2 / 2 + 1 / 8 + 3 / 16)
    residual = _rbp.rbp(ranked, "input", None, 0.5, False, None, "residual")[0][0]
    assert residual == 0.5 * (1 / 4) + 1 / 32
    # at k = 2 the rest weighs p^2 = 1/4, and rank 3 is past the cutoff
    assert _rbp.rbp(ranked, "input", 2, 0.5, False, None, "residual")[0][0] == 1 / 4
    # relevance_level=2 keeps the labels 2 and 3 (ranks 2 and 5)
    assert _rbp.rbp(ranked, "input", None, 0.5, True, 2.0, "value")[0][0] == 0.5 * (1 + 3 / 16)


def test_every_row_judged_leaves_the_weight_past_the_cutoff():
    ranked = rank_groups([1.0, 0.0, 1.0], [0.3, 0.2, 0.1], np.zeros(3))  # no judged mask
    assert _rbp.rbp(ranked, "input", None, 0.8, False, None, "residual")[0][0] == (
        pytest.approx(0.8**3, rel=1e-15)
    )
