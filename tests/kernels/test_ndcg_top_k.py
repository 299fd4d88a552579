"""NDCG with the ideal of the model's own top k (``_kernels/_ndcg_top_k.py``), called directly.

``ideal="top_k"``: the DCG@k of the ranking over the DCG of the rows it placed within
the cutoff, re-sorted by gain; a query whose top k holds no gain is undefined. Under
``ties="average"`` a tied block that straddles the cutoff changes which rows are
inside, so the expectation is over every order of the tied rows
(``tests/support/tie_orders.py``): the mean of the ratio over the orders where it is
defined (the others count 0), and the share of orders where it is not.
"""

import math

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _ndcg_top_k
from tests.support.tie_orders import flat_rows, per_query

QUERIES = {
    "a": ([1, 3, 0, 2], [0.9, 0.8, 0.7, 0.6]),
    "b": ([2, 0, 3, 1, 1, 0], [0.9, 0.5, 0.5, 0.5, 0.5, 0.1]),  # a block of 4 at ranks 2-5
    "c": ([0, 0, 1, 0], [0.3, 0.3, 0.3, 0.3]),  # all tied, one row with gain
}
GAINS = {"linear": lambda y: y, "exponential": lambda y: 2.0**y - 1}


def _ranked():
    group, y_true, y_score = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group)


def _dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def _of_top_k(k, gain, part):
    def value(labels, scores, order):
        gains = [GAINS[gain](labels[row]) for row in order][:k]
        ideal = _dcg(sorted(gains, reverse=True))
        if part == "undefined":
            return float(ideal <= 0)
        return _dcg(gains) / ideal if ideal > 0 else 0.0

    return value


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 4])
@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ndcg_of_top_k_and_its_undefined_share(ties, k, gain):
    values, undefined = _ndcg_top_k.ndcg_of_top_k(_ranked(), ties, k, gain, "log(rank+1)")
    expected = per_query(QUERIES, _of_top_k(k, gain, "value"), ties)
    np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15)
    expected = per_query(QUERIES, _of_top_k(k, gain, "undefined"), ties)
    np.testing.assert_allclose(undefined, expected, rtol=1e-12, atol=1e-15)


def test_by_hand():
    ranked = _ranked()
    # a at k = 2: the top 2 hold labels 1, 3: (1 + 3 / log2 3) / (3 + 1 / log2 3)
    value = _ndcg_top_k.ndcg_of_top_k(ranked, "input", 2, "linear", "log(rank+1)")[0][0]
    log3 = math.log2(3)
    assert value == pytest.approx((1 + 3 / log3) / (3 + 1 / log3), rel=1e-15)
    # c at k = 1: its one row with gain is first in 1 of the 4 orders (NDCG 1), the
    # other 3 have no gain in the top 1 (undefined)
    values, undefined = _ndcg_top_k.ndcg_of_top_k(ranked, "average", 1, "linear", "log(rank+1)")
    assert (values[2], undefined[2]) == (pytest.approx(1 / 4), pytest.approx(3 / 4))
