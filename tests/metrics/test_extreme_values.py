"""Values at the limits of float64: an error that names the argument, or an exact value.

Labels, scores, weights and parameters near the largest float (or denormal), integer
scores beyond 2**53, and means of per-query values whose sum overflows: each call
raises a ValueError naming what overflows, or returns the value computed by hand
here, never a warning followed by a number.
"""

import warnings

import numpy as np
import pytest

from sklearn_rank_metrics import evaluate, rbp_score


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
