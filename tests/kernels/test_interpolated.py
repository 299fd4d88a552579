"""The interpolated-precision kernel (``_kernels/_interpolated.py``), called directly.

trec_eval's ``iprec_at_recall``: at recall level ``X`` a query of ``R`` relevant rows
needs ``c`` of them, ``floor(X R + 0.9)`` (trec_eval 9, pytrec_eval) or ``lround(X
R)`` (trec_eval 10), at least 1; ``IP(X)`` is the best precision ``j / pos_j`` over
its ``j``-th retrieved relevant rows with ``j >= c`` (0 when it has fewer than ``c``).
By hand for a query without ties; under ``ties="average"`` the mean over every order
of the tied rows (``tests/support/tie_orders.py``), each order's value from that
definition. (The metric's tests, with large tied blocks, are in
``tests/metrics/test_interpolated.py``.)
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _interpolated
from tests.support.tie_orders import flat_rows, per_query

INF = float("inf")
LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
QUERIES = {
    "a": ([1, 1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5]),
    "b": ([0, 1, 1, 0, 1, 0, 1], [0.9, 0.5, 0.5, 0.5, 0.5, 0.2, -INF]),
    "c": ([0, 0], [0.2, 0.1]),  # no relevant row
}
ROUNDINGS = {
    "floor(X*R+0.9)": lambda product: math.floor(product + 0.9),
    # C's lround of a double >= 0: the nearest integer, halves up (exact fractions)
    "round(X*R)": lambda product: math.floor(Fraction(product) + Fraction(1, 2)),
}


def _ranked():
    group, y_true, y_score = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group)


def _needed(total, level, rounding):
    return max(ROUNDINGS[rounding](level * total), 1)


def _iprec_of(level, rounding):
    def value(labels, scores, order):
        total = sum(label > 0 for label in labels)
        ranks = [i for i, row in enumerate((r for r in order if scores[r] > -INF), start=1)
                 if labels[row] > 0]  # fmt: skip
        c = _needed(total, level, rounding)
        return max((j / rank for j, rank in enumerate(ranks, start=1) if j >= c), default=0.0)

    return value


@pytest.mark.parametrize("rounding", sorted(ROUNDINGS))
def test_relevant_count_at_recall(rounding):
    total = np.array([3.0, 5.0, 0.0, 7.0])
    got = _interpolated.relevant_count_at_recall(total, np.array(LEVELS), rounding)
    expected = [[_needed(t, level, rounding) for level in LEVELS] for t in total]
    np.testing.assert_array_equal(got, expected)


def test_the_two_roundings_differ_where_trec_eval_9_and_10_do():
    # R = 7, X = 0.2: X R = 1.4, floor(1.4 + 0.9) = 2 but lround(1.4) = 1; R = 3,
    # X = 0.7: X R = 2.0999999999999996 in double, so floor(X R + 0.9) = 2, not 3
    total, level = np.array([7.0, 3.0]), np.array([0.2, 0.7])
    floor = _interpolated.relevant_count_at_recall(total, level)
    nearest = _interpolated.relevant_count_at_recall(total, level, "round(X*R)")
    assert (floor[0, 0], nearest[0, 0]) == (2, 1)
    assert (floor[1, 1], nearest[1, 1]) == (2, 2)


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("rounding", sorted(ROUNDINGS))
def test_interpolated_precision_at_every_level(ties, rounding):
    got, total = _interpolated.interpolated_precision(
        _ranked(), ties, None, np.array(LEVELS), rounding
    )
    expected = np.column_stack([per_query(QUERIES, _iprec_of(level, rounding), ties)
                                for level in LEVELS])  # fmt: skip
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(total, [3, 4, 0])


def test_the_query_without_ties_by_hand():
    # a: R = 3, relevant at ranks 1, 2, 5: precisions 1, 1, 3/5; c = 1 up to X = 0.3,
    # 2 from X = 0.4 (floor(2.1) = 2) and 3 from X = 0.8 (floor(3.3) = 3)
    got = _interpolated.interpolated_precision(_ranked(), "input", None, np.array(LEVELS))[0][0]
    np.testing.assert_allclose(got, [1.0] * 8 + [3 / 5] * 3, rtol=1e-15)
