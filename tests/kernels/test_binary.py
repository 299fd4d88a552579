"""The binary-relevance kernels (``_kernels/_binary.py``), called directly.

AP (its three denominators), RR, R-precision, hit and per-query AUC, each on
``RankedGroups`` of three queries: one without ties (values by hand below), one with
a block of tied rows and an unretrieved relevant row, one whose rows are all tied.
Under ``ties="average"`` the expected value is the mean of the metric over every
order of the tied rows (``tests/support/tie_orders.py``), each computed from the
definition written here; AUC counts its pairs from the scores directly.
"""

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _binary
from tests.support.tie_orders import flat_rows, per_query

INF = float("inf")
# query id: (labels, scores), rows in input order
QUERIES = {
    "a": ([0, 1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, 0.5]),
    "b": ([0, 1, 0, 1, 0, 1], [0.9, 0.5, 0.5, 0.5, 0.1, -INF]),
    "c": ([0, 0, 1, 0], [0.3, 0.3, 0.3, 0.3]),
}
# query a by hand: relevant at ranks 2, 4 and 5 of 5, R = 3; non-relevant at ranks 1, 3
HAND_A = {
    "ap": (1 / 2 + 2 / 4 + 3 / 5) / 3,
    "ap@3": (1 / 2) / 3,  # the n_relevant and min(k, n_relevant) denominators: 3
    "ap@3 of the hits": 1 / 2,  # the n_relevant_in_top_k denominator: 1 hit
    "rr": 1 / 2,
    "rr@1": 0.0,
    "rprec": 1 / 3,  # one relevant row among the top R = 3
    "hit@1": 0.0,
    "hit@2": 1.0,
    "auc": 1 / 6,  # of the 3 x 2 pairs only (rank 2, rank 3) puts the relevant row first
}


def _ranked():
    group, y_true, y_score = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group)


def _per_query(value, ties):
    return np.array(per_query(QUERIES, value, ties))


def _retrieved(labels, scores, order):
    return [labels[row] > 0 for row in order if scores[row] > -INF]


def _ap(k, denominator):
    def value(labels, scores, order):
        relevant = _retrieved(labels, scores, order)[:k]
        hits, total = 0, 0.0
        for rank, is_relevant in enumerate(relevant, start=1):
            hits += is_relevant
            total += hits / rank if is_relevant else 0.0
        n_relevant = sum(label > 0 for label in labels)
        limit = {"n_relevant": n_relevant, "min(k,n_relevant)": min(k or n_relevant, n_relevant),
                 "n_relevant_in_top_k": hits}[denominator]  # fmt: skip
        return total / limit if limit else 0.0

    return value


def _rr(k):
    def value(labels, scores, order):
        relevant = _retrieved(labels, scores, order)[:k]
        return next((1 / rank for rank, r in enumerate(relevant, start=1) if r), 0.0)

    return value


def _rprec(labels, scores, order):
    n_relevant = sum(label > 0 for label in labels)
    return sum(_retrieved(labels, scores, order)[:n_relevant]) / n_relevant


def _hit(k):
    def value(labels, scores, order):
        return float(any(_retrieved(labels, scores, order)[:k]))

    return value


def _auc_by_pairs(labels, scores):
    """Mann-Whitney over the (relevant, non-relevant) pairs: 1 won, 1/2 tied, 0 lost."""
    positive = [s for y, s in zip(labels, scores, strict=True) if y > 0]
    negative = [s for y, s in zip(labels, scores, strict=True) if y <= 0]
    won = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positive for n in negative)
    return won / (len(positive) * len(negative))


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("denominator", ["n_relevant", "min(k,n_relevant)", "n_relevant_in_top_k"])
def test_average_precision(ties, k, denominator):
    got = _binary.average_precision(_ranked(), ties, k, None, denominator)
    np.testing.assert_allclose(got, _per_query(_ap(k, denominator), ties), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 4])
def test_reciprocal_rank(ties, k):
    got = _binary.reciprocal_rank(_ranked(), ties, k, None)
    np.testing.assert_allclose(got, _per_query(_rr(k), ties), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("ties", ["average", "input"])
def test_r_precision_and_the_relevant_rows(ties):
    got, n_relevant = _binary.r_precision(_ranked(), ties, None)
    np.testing.assert_allclose(got, _per_query(_rprec, ties), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(n_relevant, [3, 3, 1])  # b's -inf row is relevant


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3])
def test_hit(ties, k):
    got = _binary.hit(_ranked(), ties, k, None)
    np.testing.assert_allclose(got, _per_query(_hit(k), ties), rtol=1e-12, atol=1e-15)


def test_roc_auc_counts_tied_pairs_as_one_half():
    got, n_positive, n_negative = _binary.roc_auc(_ranked(), "average", None)
    expected = [_auc_by_pairs(*QUERIES[query]) for query in sorted(QUERIES)]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(n_positive, [3, 3, 1])
    np.testing.assert_array_equal(n_negative, [2, 3, 3])


def test_the_query_without_ties_by_hand():
    ranked = _ranked()
    for ties in ("average", "input", "optimistic", "pessimistic"):
        assert _binary.average_precision(ranked, ties, None, None, "n_relevant")[0] == (
            pytest.approx(HAND_A["ap"], rel=1e-15)
        )
        for denominator in ("n_relevant", "min(k,n_relevant)"):
            got = _binary.average_precision(ranked, ties, 3, None, denominator)[0]
            assert got == pytest.approx(HAND_A["ap@3"], rel=1e-15)
        got = _binary.average_precision(ranked, ties, 3, None, "n_relevant_in_top_k")[0]
        assert got == pytest.approx(HAND_A["ap@3 of the hits"], rel=1e-15)
        assert _binary.reciprocal_rank(ranked, ties, None, None)[0] == HAND_A["rr"]
        assert _binary.reciprocal_rank(ranked, ties, 1, None)[0] == HAND_A["rr@1"]
        assert _binary.r_precision(ranked, ties, None)[0][0] == pytest.approx(HAND_A["rprec"])
        assert _binary.hit(ranked, ties, 1, None)[0] == HAND_A["hit@1"]
        assert _binary.hit(ranked, ties, 2, None)[0] == HAND_A["hit@2"]
        assert _binary.roc_auc(ranked, ties, None)[0][0] == pytest.approx(HAND_A["auc"])


def test_the_bounds_put_the_relevant_tied_rows_last_or_first():
    # query c: the one relevant row among four tied ones is ranked 4th (pessimistic)
    # or 1st (optimistic); its mean over the 4 places is (1 + 1/2 + 1/3 + 1/4) / 4
    ranked = _ranked()
    assert _binary.reciprocal_rank(ranked, "pessimistic", None, None)[2] == 1 / 4
    assert _binary.reciprocal_rank(ranked, "optimistic", None, None)[2] == 1.0
    average = _binary.reciprocal_rank(ranked, "average", None, None)[2]
    assert average == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 4) / 4, rel=1e-15)


def test_relevance_level_decides_which_grades_are_relevant():
    # one query, grades 3 0 1 2 by score: with relevance_level=2 the grades 2 and 3
    # are relevant, at ranks 1 and 4: AP (1/1 + 2/4) / 2, RR 1; with the default
    # (y > 0) grades 1 too: relevant at ranks 1, 3, 4, AP (1 + 2/3 + 3/4) / 3
    ranked = rank_groups([3.0, 0.0, 1.0, 2.0], [0.4, 0.3, 0.2, 0.1], np.zeros(4))
    assert _binary.average_precision(ranked, "input", None, 2.0, "n_relevant")[0] == 0.75
    got = _binary.average_precision(ranked, "input", None, None, "n_relevant")[0]
    assert got == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, rel=1e-15)
    assert _binary.reciprocal_rank(ranked, "input", None, 2.0)[0] == 1.0
