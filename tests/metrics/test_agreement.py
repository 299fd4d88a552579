"""rank_biased_overlap, kendall_tau_score, overlap_at_k_score: inputs, policies, tables."""

import math
import re

import numpy as np
import pytest

from sklearn_rank_metrics import kendall_tau_score, overlap_at_k_score, rank_biased_overlap

FUNCTIONS = [
    (rank_biased_overlap, {}),
    (kendall_tau_score, {}),
    (overlap_at_k_score, {"k": 2}),
]


@pytest.mark.parametrize(("function", "params"), FUNCTIONS)
def test_nan_is_refused_naming_the_argument_and_row(function, params):
    name = function.__name__
    with pytest.raises(ValueError, match=re.escape(f"y_score_b of {name} must not be NaN; "
                                                   "got NaN at row 2")):
        function([1, 2, 3], [1, 2, np.nan], [0, 0, 0], **params)
    with pytest.raises(ValueError, match="y_score_a and y_score_b of .* same shape"):
        function([1, 2, 3], [1, 2], [0, 0, 0], **params)
    with pytest.raises(ValueError, match="'group' parameter of .* is required"):
        function([1, 2, 3], [1, 2, 3], **params)
    with pytest.raises(TypeError, match="y_score_a of .* must hold numbers"):
        function(["a", "b"], [1, 2], [0, 0], **params)


@pytest.mark.parametrize(("function", "params"), FUNCTIONS)
def test_two_dimensional_input_is_one_query_per_row(function, params):
    a = np.array([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0]])
    b = np.array([[3.0, 1.0, 2.0], [3.0, 2.0, 1.0]])
    flat = function(a.ravel(), b.ravel(), [0, 0, 0, 1, 1, 1], **params)
    assert function(a, b, **params) == flat
    with pytest.raises(ValueError, match="group of .* must be None for 2-D input"):
        function(a, b, [0, 1], **params)


@pytest.mark.parametrize(("function", "params"), FUNCTIONS)
def test_sample_weight_and_per_query_table(function, params):
    a = [3.0, 2.0, 1.0, 1.0, 2.0, 3.0]
    b = [3.0, 1.0, 2.0, 3.0, 2.0, 1.0]
    group = ["x", "x", "x", "y", "y", "y"]
    table = function(a, b, group, per_query=True, **params)
    assert list(table["query"]) == ["x", "y"]
    values = np.asarray(table.iloc[:, 1])
    weighted = function(a, b, group, sample_weight=[1, 1, 1, 3, 3, 3], **params)
    assert weighted == pytest.approx((values[0] + 3 * values[1]) / 4, abs=1e-15)
    assert function(a, b, group, **params) == pytest.approx(values.mean(), abs=1e-15)


def test_rbo_identical_and_disjoint_rankings():
    group = np.zeros(5)
    a = np.arange(5.0)
    for ties in ("a", "b", "w", "input"):
        assert rank_biased_overlap(a, a, group, ties=ties) == pytest.approx(1.0, abs=1e-12)
    # no row in both lists: the overlap is 0, its upper bound is not
    a = np.array([3.0, 2.0, -np.inf, -np.inf])
    b = np.array([-np.inf, -np.inf, 2.0, 1.0])
    assert rank_biased_overlap(a, b, np.zeros(4), bound="ext") == 0.0
    assert rank_biased_overlap(a, b, np.zeros(4), bound="min") == 0.0
    assert 0 < rank_biased_overlap(a, b, np.zeros(4), bound="max") < 1


def test_rbo_bounds_and_residual_agree():
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 4, 40).astype(float), rng.integers(0, 4, 40).astype(float)
    a[rng.random(40) < 0.3] = -np.inf
    b[:3] = 9.0
    group = np.repeat(np.arange(8), 5)
    for ties in ("a", "b", "w"):
        low, high, ext, res = (
            rank_biased_overlap(a, b, group, ties=ties, bound=bound, per_query=True)["rbo"]
            for bound in ("min", "max", "ext", "res")
        )
        assert np.all(low <= ext + 1e-12) and np.all(ext <= high + 1e-12)
        np.testing.assert_allclose(res, high - low, atol=1e-12)


def test_rbo_depth_cuts_the_lists_and_refuses_to_split_a_tie():
    a = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    b = np.array([5.0, 4.0, 1.0, 2.0, 3.0])
    cut_a = np.where(a >= 4, a, -np.inf)
    cut_b = np.where(b >= 4, b, -np.inf)
    group = np.zeros(5)
    assert rank_biased_overlap(a, b, group, depth=2) == rank_biased_overlap(cut_a, cut_b, group)
    tied = np.array([5.0, 4.0, 4.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=re.escape(
        "The 'depth' parameter of rank_biased_overlap cuts a block of tied scores of "
        "y_score_a in query 0.0 (positions 2 to 3) at depth 2"
    )):
        rank_biased_overlap(tied, b, group, depth=2)
    assert rank_biased_overlap(tied, b, group, depth=3) == pytest.approx(
        rank_biased_overlap(np.where(tied >= 4, tied, -np.inf), np.where(b >= 3, b, -np.inf),
                            group)
    )
    # ties broken by input order never straddle the cut
    assert 0 < rank_biased_overlap(tied, b, group, depth=2, ties="input") <= 1


def test_rbo_undefined_query_follows_the_policy():
    a = [2.0, 1.0, -np.inf, -np.inf]
    b = [1.0, 2.0, 1.0, 2.0]
    group = [0, 0, 1, 1]
    defined = rank_biased_overlap(a[:2], b[:2], group[:2])
    assert rank_biased_overlap(a, b, group, replace_undefined_by="skip") == defined
    assert rank_biased_overlap(a, b, group) == pytest.approx(defined / 2)
    assert math.isnan(rank_biased_overlap(a, b, group, replace_undefined_by=np.nan))
    with pytest.raises(ValueError, match="rank_biased_overlap is undefined for query 1"):
        rank_biased_overlap(a, b, group, replace_undefined_by="raise")


@pytest.mark.parametrize(("name", "value", "message"), [
    ("p", 1.0, "The 'p' parameter of rank_biased_overlap must be a float in the range (0, 1)"),
    ("ties", "average", "The 'ties' parameter of rank_biased_overlap must be a str among"),
    ("bound", "upper", "The 'bound' parameter of rank_biased_overlap must be a str among"),
    ("depth", 0, "The 'depth' parameter of rank_biased_overlap must be an int >= 1 or None"),
])
def test_rbo_bad_parameters(name, value, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        rank_biased_overlap([1, 2], [1, 2], [0, 0], **{name: value})


def test_kendall_tau_undefined_queries_and_bad_variant():
    # query 1: one row; query 2: every row tied in b
    a = [3.0, 1.0, 2.0, 5.0, 1.0, 2.0]
    b = [1.0, 2.0, 3.0, 4.0, 4.0, 4.0]
    group = [0, 0, 0, 1, 2, 2]
    table = kendall_tau_score(a, b, group, per_query=True, replace_undefined_by=np.nan)
    assert np.isnan(np.asarray(table["tau_b"])[1:]).all()
    with pytest.raises(ValueError, match="'variant' parameter of kendall_tau_score"):
        kendall_tau_score(a, b, group, variant="a")


def test_tau_ap_refuses_ties_naming_the_query():
    with pytest.raises(ValueError, match=re.escape(
        "kendall_tau_score with variant='ap' needs rankings without ties (as ircor's "
        "tauAP), but y_score_b ties row 2 (2.0) with another row of query 'q'"
    )):
        kendall_tau_score([1, 2, 3, 4], [1, 2, 2, 2], ["p", "p", "q", "q"], variant="ap")
    # two rows absent (-inf) from a ranking tie as well
    with pytest.raises(ValueError, match="y_score_a ties row 2"):
        kendall_tau_score([1, 2, -np.inf, -np.inf], [1, 2, 3, 4], [0, 0, 0, 0], variant="ap")


def test_overlap_counts_minus_infinity_as_absent_and_divides_by_k():
    a = [3.0, 2.0, -np.inf, -np.inf]
    b = [3.0, 2.0, 1.0, 0.0]
    group = np.zeros(4)
    assert overlap_at_k_score(a, b, group, k=2) == 1.0
    assert overlap_at_k_score(a, b, group, k=4) == 0.5
    with pytest.raises(TypeError, match="The 'k' parameter of overlap_at_k_score must be"):
        overlap_at_k_score(a, b, group, k=None)
    with pytest.raises(ValueError, match="The 'ties' parameter of overlap_at_k_score"):
        overlap_at_k_score(a, b, group, k=2, ties="optimistic")
