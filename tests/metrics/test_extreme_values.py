"""Values at the limits of float64: an error that names the argument, or an exact value.

Labels, scores, weights and parameters near the largest float (or denormal), integer
scores beyond 2**53, and means of per-query values whose sum overflows: each call
raises a ValueError naming what overflows, or returns the value computed by hand
here, never a warning followed by a number.
"""

import warnings

import numpy as np
import pytest

from sklearn_rank_metrics import RankingEvaluator, dcg_score, evaluate, rbp_score
from sklearn_rank_metrics._metrics._aggregate import (
    mean_of_scaled_sum,
    scaled_sum,
    weighted_mean,
)


def test_integer_scores_beyond_two_to_the_53_rank_exactly():
    from sklearn_rank_metrics import ndcg_score, sampled_ranks

    # nanosecond timestamps: distinct as integers, equal as float64
    stamps = [1700000000000000001, 1700000000000000002, 1700000000000000003]
    assert float(stamps[0]) == float(stamps[2])
    one = [0, 0, 0]  # one query
    assert ndcg_score([0, 0, 1], stamps, one) == 1.0  # the relevant row has the largest score
    assert ndcg_score([1, 0, 0], stamps, one) == pytest.approx(1 / np.log2(4))
    huge = np.array([2**63 - 1, 2**63 - 2, 5], dtype=np.int64)
    assert evaluate([1, 0, 0], huge, one, metrics=["mrr", "gauc"]) == {"mrr": 1.0, "gauc": 1.0}
    assert sampled_ranks([0, 1, 0], stamps, one).rank.tolist() == [2]


def test_overflow_is_an_error_or_a_stable_value():
    from sklearn_rank_metrics import dcg_score, fbeta_at_k_score, ndcg_score

    y, s, g = [1, 0, 1, 0], [0.4, 0.3, 0.2, 0.1], [1, 1, 2, 2]
    with pytest.raises(ValueError, match="must be < 1024 with gain='exponential'"):
        ndcg_score([1024, 0], [0.1, 0.2], [0, 0], gain="exponential")
    with pytest.raises(ValueError, match="must be < 1024 with gain='exponential'"):
        dcg_score([1100, 0], [0.1, 0.2], [0, 0], gain="exponential")
    one = [0] * 4  # one query
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error, not a warning and then a number
        with pytest.raises(ValueError, match="overflows float64.*divide y_true"):
            dcg_score([1e308] * 4, [0.1, 0.2, 0.3, 0.4], one)
        # NDCG with linear gain is scale-invariant: labels near the largest float give
        # the NDCG of the labels divided by 1e308 (the label-1 row ranks first),
        # also with ideal="top_k", and beside a query of ordinary labels
        discount = 1 / np.log2(np.arange(2, 6))
        expected = (1e-308 + discount[1:].sum()) / (discount[:3].sum() + 1e-308 * discount[3])
        huge, scores = [1e308] * 3 + [1], [0.1, 0.2, 0.3, 0.4]
        assert ndcg_score(huge, scores, one) == pytest.approx(expected, rel=1e-15)
        got = ndcg_score(huge, scores, one, ideal="top_k", k=4)
        assert got == pytest.approx(expected, rel=1e-15)
        assert ndcg_score(huge, scores, one) == ndcg_score(np.ldexp(huge, -1024), scores, one)
        both = evaluate(huge + [0, 1], scores + [0.2, 0.1], [1] * 4 + [2] * 2,
                        metrics=["ndcg"], per_query=True)
        np.testing.assert_allclose(np.asarray(both["ndcg"]), [expected, 1 / np.log2(3)])
    with pytest.raises(ValueError, match="'log_base' parameter of dcg_score"):
        dcg_score(y, s, g, log_base=np.inf)
    with pytest.raises(ValueError, match="'beta' parameter of fbeta_at_k_score"):
        fbeta_at_k_score(y, s, g, k=2, beta=np.inf)
    # a finite beta whose square overflows was a bare OverflowError: refused, naming beta
    for beta in (1e200, 1e160):
        with pytest.raises(ValueError, match=r"'beta' parameter of fbeta_at_k_score.*1e\+150"):
            fbeta_at_k_score(y, s, g, k=2, beta=beta)
    # a beta near the largest accepted weighs recall alone: one query of two relevant
    # rows, one of them in the top 1: P@1 = 1, R@1 = 1/2, F = (1 + b^2) / (2 b^2 + 1)
    assert fbeta_at_k_score([1, 1, 0, 0], s, one, k=1, beta=1e149) == 0.5
    # weights near the largest float, and denormal ones: the weighted mean by hand
    # (query 1: RR 1; query 2: RR 1/2)
    y2 = [1, 0, 0, 1]
    assert evaluate(y2, s, g, metrics=["mrr"], sample_weight=[5e307] * 4)["mrr"] == 0.75
    tiny = [1e-320, 1e-320, 3e-320, 3e-320]
    assert evaluate(y2, s, g, metrics=["mrr"], sample_weight=tiny)["mrr"] == (1 + 1.5) / 4


def test_graded_rbp_of_huge_tied_labels_is_finite_and_exact():
    # two tied rows of gain 1e308 at ranks 1 and 2 (p = 0.5): each position takes the
    # block's mean gain 1e308, so RBP = (0.5 + 0.25) * 1e308; the block's sum of
    # gains (2e308) used to overflow to inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rbp_score([1e308, 1e308, 0.0], [1.0, 1.0, 0.0], [0, 0, 0], graded=True, p=0.5)
    assert got == pytest.approx(0.75e308, rel=1e-15)
    top = float(np.finfo(np.float64).max)
    got = rbp_score([top] * 3, [1.0] * 3, [0] * 3, graded=True, p=0.5)
    assert np.isfinite(got) and got == pytest.approx(0.875 * top, rel=1e-15)


def test_graded_rbp_of_ordinary_labels_is_unchanged():
    # hand computation, p = 0.5, ties averaged: the block {3, 1} at ranks 1-2 gains
    # 2 each, then 0 and 2: 0.5 * (2 + 0.5 * 2 + 0.25 * 0 + 0.125 * 2)
    got = rbp_score([3.0, 1.0, 0.0, 2.0], [0.9, 0.9, 0.5, 0.1], [0] * 4, graded=True, p=0.5)
    assert got == 0.5 * (2 + 0.5 * 2 + 0.25 * 0 + 0.125 * 2)


# ---------------------------------------------------------------------------
# Means of per-query values whose sum overflows float64
# ---------------------------------------------------------------------------


BIG = 1.7e308  # two of these overflow float64 when summed


def _rbp_by_hand(grades, p):
    """Graded RBP of one query, ranked as given: (1 - p) * sum_i p**(i-1) * g_i."""
    return sum((1 - p) * p**i * g for i, g in enumerate(grades))  # no partial sum overflows


def test_rbp_mean_of_huge_values_is_finite():
    # before: inf (the sum of the per-query values overflowed, not their mean)
    one_query = _rbp_by_hand([BIG] * 3, 0.5)  # 0.875 * 1.7e308
    assert one_query == pytest.approx(1.4875e308, rel=1e-15)
    got = rbp_score([BIG] * 6, [3, 2, 1] * 2, group=[0, 0, 0, 1, 1, 1], graded=True, p=0.5)
    assert got == pytest.approx(one_query, rel=1e-15)
    # two different queries: (0.875 + 0.5) / 2 * 1.7e308
    second = _rbp_by_hand([BIG, 0, 0], 0.5)
    got = rbp_score([BIG] * 4 + [0, 0], [3, 2, 1] * 2, group=[0, 0, 0, 1, 1, 1],
                    graded=True, p=0.5)
    assert got == pytest.approx((one_query / 2 + second / 2), rel=1e-15)
    assert got == pytest.approx(1.16875e308, rel=1e-15)


def test_dcg_mean_of_huge_values_is_finite():
    # one row per query: DCG = label / log2(2) = label
    got = dcg_score([1.5e308, BIG], [1.0, 1.0], group=[0, 1])
    assert got == pytest.approx(1.6e308, rel=1e-15)
    got = evaluate([1.5e308, BIG], [1.0, 1.0], group=[0, 1], metrics=["dcg"])["dcg"]
    assert got == pytest.approx(1.6e308, rel=1e-15)
    largest = np.finfo(np.float64).max
    # three queries at the largest float: the mean is that float, not inf (nor past it)
    assert dcg_score([largest] * 3, [1.0] * 3, group=[0, 1, 2]) == largest


def test_weighted_mean_of_huge_values_is_finite():
    # explicit weights (scaled to 1/2 each) still overflowed with six queries
    labels = [BIG] * 6
    got = dcg_score(labels, [1.0] * 6, group=np.arange(6), sample_weight=[1.0, 3.0] * 3)
    assert got == pytest.approx(BIG, rel=1e-15)
    # (1.7e308 * 1 + 1.5e308 * 3) / 4 = 1.55e308
    got = dcg_score([BIG, 1.5e308], [1.0, 1.0], group=[0, 1], sample_weight=[1.0, 3.0])
    assert got == pytest.approx(1.55e308, rel=1e-15)


def test_streaming_mean_of_huge_values_is_finite():
    evaluator = RankingEvaluator(["dcg"])
    evaluator.update([BIG, 1.5e308], [1.0, 1.0], [0, 1])
    evaluator.update([1.6e308], [1.0], [2])
    assert evaluator.compute()["dcg"] == pytest.approx(1.6e308, rel=1e-15)


def test_weighted_mean_direct():
    ones = np.broadcast_to(np.float64(1), (3,))  # the engine's "every weight 1"
    none = np.zeros(3, bool)
    assert weighted_mean(np.array([BIG, BIG, 1.4e308]), ones, none) == pytest.approx(
        1.6e308, rel=1e-15
    )
    # a value that is inf itself: the mean is inf, as before
    assert weighted_mean(np.array([np.inf, BIG, BIG]), ones, none) == np.inf
    # a skipped huge value is left out
    assert weighted_mean(np.array([BIG, BIG, np.nan]), ones, np.array([0, 0, 1], bool)) == BIG


def test_ordinary_means_are_unchanged():
    ones = np.broadcast_to(np.float64(1), (3,))
    none = np.zeros(3, bool)
    # numpy sums three values in order: ((0.1 + 0.2) + 0.3) / 3
    assert weighted_mean(np.array([0.1, 0.2, 0.3]), ones, none) == (0.1 + 0.2 + 0.3) / 3
    weights = np.array([1.0, 2.0, 4.0])  # scaled by 2**-3: exact
    expected = (0.1 * 0.125 + 0.2 * 0.25 + 0.3 * 0.5) / (0.125 + 0.25 + 0.5)
    assert weighted_mean(np.array([0.1, 0.2, 0.3]), weights, none) == expected


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_mean_of_huge_values_is_finite(npartitions):
    # before: inf, from the sum within a partition (1) or across partitions (3)
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    frame = pd.DataFrame({"y_true": [BIG, 1.5e308, 1.6e308], "y_score": [1.0] * 3,
                          "group": [0, 1, 2]})
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    # one row per query: DCG = label; (1.7 + 1.5 + 1.6) / 3 = 1.6
    got = dask_evaluate(ddf, ["dcg"], group="group")["dcg"]
    assert got == pytest.approx(1.6e308, rel=1e-15)
    ddf = dd.from_pandas(frame.assign(w=[1.0, 1.0, 2.0]), npartitions=npartitions)
    weighted = dask_evaluate(ddf, ["dcg"], group="group", sample_weight="w")["dcg"]
    # (1.7 + 1.5 + 2 * 1.6) / 4 = 1.6 (times 1e308); 2 * 1.6e308 overflows by itself
    assert weighted == pytest.approx(1.6e308, rel=1e-15)


def test_scaled_mean_helpers():
    largest = np.finfo(np.float64).max
    # three times the largest float, scaled: the mean is the largest float, not past it
    assert mean_of_scaled_sum(scaled_sum(np.full(3, largest)), 3.0) == largest
    assert mean_of_scaled_sum(scaled_sum(np.array([BIG, -BIG, BIG])), 3.0) == pytest.approx(
        BIG / 3, rel=1e-15
    )
    assert mean_of_scaled_sum(scaled_sum(np.array([np.inf, BIG])), 2.0) == np.inf
