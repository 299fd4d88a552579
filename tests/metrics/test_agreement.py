"""rank_biased_overlap, kendall_tau_score, overlap_at_k_score: inputs, policies, tables."""

import itertools
import math
import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

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
        "y_score_a in query 0.0 (positions 2 to 3, the first of its rows at row 1) at "
        "depth 2"
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
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "rank_biased_overlap is undefined for 1 of 2 queries: 1 with an empty list "
        "(every score -inf in y_score_a or y_score_b). They count as 0.0 "
        "(replace_undefined_by=0.0; the first is query 1)"
    )):
        assert rank_biased_overlap(a, b, group) == pytest.approx(defined / 2)
    assert math.isnan(rank_biased_overlap(a, b, group, replace_undefined_by=np.nan))
    with pytest.raises(ValueError, match=re.escape(
        "rank_biased_overlap is undefined for query 1 (an empty list (every score -inf "
        "in y_score_a or y_score_b))"
    )):
        rank_biased_overlap(a, b, group, replace_undefined_by="raise")


@pytest.mark.parametrize(("call", "message"), [
    # every row tied in y_score_a: SciPy's kendalltau gives NaN
    (lambda **kw: kendall_tau_score([1, 1, 1], [1, 2, 3], [0, 0, 0], **kw),
     "kendall_tau_score is undefined for every one of the 1 queries: 1 with every row "
     "tied in y_score_a or y_score_b. They count as 0.0 (replace_undefined_by=0.0; the "
     "first is query 0)"),
    # three one-row queries beside a defined one
    (lambda **kw: kendall_tau_score([3, 2, 1, 5, 6, 7], [3, 2, 1, 1, 1, 1],
                                    [0, 0, 0, 1, 2, 3], **kw),
     "kendall_tau_score is undefined for 3 of 4 queries: 3 with fewer than two rows. "
     "They count as 0.0 (replace_undefined_by=0.0; the first is query 1)"),
    (lambda **kw: kendall_tau_score([3, 2, 1, 5, 6, 7, 8], [3, 2, 1, 1, 2, 2, 2],
                                    ["p", "p", "p", "q", "r", "r", "r"], **kw),
     "kendall_tau_score is undefined for 2 of 3 queries: 1 with fewer than two rows, 1 "
     "with every row tied in y_score_a or y_score_b. They count as 0.0 "
     "(replace_undefined_by=0.0; the first is query 'q')"),
    (lambda **kw: kendall_tau_score([3, 2, 1, 5], [3, 2, 1, 1], [0, 0, 0, 1],
                                    variant="ap", **kw),
     "kendall_tau_score is undefined for 1 of 2 queries: 1 with fewer than two rows. "),
])
def test_undefined_queries_warn_in_the_agreements_terms(call, message):
    """Under a numeric policy every undefined query is announced, with how many, why
    and the spellings that leave them out; never the labels' advice of the metrics
    (relevance_level), which these functions do not have."""
    for per_query in (False, True):
        with pytest.warns(UndefinedMetricWarning) as record:
            call(per_query=per_query)
        (text,) = [str(w.message) for w in record]
        assert text.startswith(message)
        assert "replace_undefined_by='skip'" in text and "replace_undefined_by=nan" in text
        assert "relevance_level" not in text and "y_true" not in text
    with pytest.warns(UndefinedMetricWarning, match=r"They count as 1\.0 "):
        call(replace_undefined_by=1.0)
    # a policy that says what to do with them is not warned about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        call(replace_undefined_by=np.nan)
        call(replace_undefined_by="skip", per_query=True)


def test_undefined_queries_values_and_skipping_everything():
    group = [0, 0, 0, 1, 2, 3]
    a, b = [3, 2, 1, 5, 6, 7], [3, 2, 1, 1, 1, 1]
    with pytest.warns(UndefinedMetricWarning):
        assert kendall_tau_score(a, b, group) == 0.25  # (1 + 0 + 0 + 0) / 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kendall_tau_score(a, b, group, replace_undefined_by="skip") == 1.0
        assert math.isnan(kendall_tau_score(a, b, group, replace_undefined_by=np.nan))
    # "skip" warns when it leaves nothing to average
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "kendall_tau_score: no query is left to average: every one of the 3 queries is "
        "undefined (3 with fewer than two rows) and replace_undefined_by='skip' left "
        "them out; returning nan."
    )) as record:
        assert math.isnan(kendall_tau_score([5, 6, 7], [1, 1, 1], [1, 2, 3],
                                            replace_undefined_by="skip"))
    assert len(record) == 1 and "relevance_level" not in str(record[0].message)
    with pytest.warns(UndefinedMetricWarning, match=re.escape(
        "rank_biased_overlap: no query is left to average: the queries not skipped have "
        "sample_weight 0; returning nan."
    )):
        assert math.isnan(rank_biased_overlap(
            [2, 1, -np.inf, 3, 2], [1, 2, 1, 2, 3], [0, 0, 1, 2, 2],
            sample_weight=[0, 0, 1, 0, 0], replace_undefined_by="skip",
        ))


def test_rbo_ties_average_is_a():
    a = [3.0, 2.0, 2.0, 1.0, -np.inf, 4.0, 4.0, 1.0]
    b = [2.0, 2.0, 3.0, -np.inf, 1.0, 4.0, 3.0, 3.0]
    group = [0, 0, 0, 0, 0, 1, 1, 1]
    for bound in ("ext", "min", "max", "res"):
        assert rank_biased_overlap(a, b, group, ties="average", bound=bound) == (
            rank_biased_overlap(a, b, group, ties="a", bound=bound)
        )
    assert rank_biased_overlap(a, b, group, ties="average") != rank_biased_overlap(
        a, b, group, ties="w")


def _tie_orders(scores):
    """Every order of each block of tied finite scores, as scores without ties."""
    finite = np.flatnonzero(np.isfinite(scores))
    blocks = [finite[scores[finite] == value] for value in np.unique(scores[finite])]
    for orders in itertools.product(*(itertools.permutations(block) for block in blocks)):
        broken = np.full(len(scores), -np.inf)
        for block, order in zip(blocks, orders, strict=True):
            broken[list(order)] = scores[block[0]] * 100 - np.arange(len(order))
        yield broken


def test_rbo_a_is_the_expected_rbo_over_tie_orders_for_the_lower_bound_only():
    """ties="a" takes expected overlaps: with bound="min" that is the mean over every
    pair of tie orders (enumerated) of RBO without ties; the extrapolation and the
    upper bound are not (the reviewer's case: 0.9775, where both orders give 1)."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(2, 7))
        a, b = rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float)
        a[rng.random(n) < 0.3] = -np.inf
        b[rng.random(n) < 0.3] = -np.inf
        a[0], b[1] = max(a[0], 0.0), max(b[1], 0.0)  # both lists non-empty
        group = np.zeros(n)
        mean = np.mean([rank_biased_overlap(x, y, group, p=0.8, ties="input", bound="min")
                        for x in _tie_orders(a) for y in _tie_orders(b)])
        value = rank_biased_overlap(a, b, group, p=0.8, ties="a", bound="min")
        assert value == pytest.approx(mean, abs=1e-14)
    a = np.array([0.0, -np.inf, -np.inf, -np.inf])
    b = np.array([2.0, 1.0, 1.0, -np.inf])
    group = np.zeros(4)
    orders = [rank_biased_overlap(a, y, group, ties="input") for y in _tie_orders(b)]
    np.testing.assert_allclose(orders, [1.0, 1.0], rtol=0, atol=1e-15)
    assert rank_biased_overlap(a, b, group) == pytest.approx(0.9775, abs=1e-15)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("p", 1.0, "The 'p' parameter of rank_biased_overlap must be a float in the range (0, 1)"),
    ("ties", "optimistic", "The 'ties' parameter of rank_biased_overlap must be a str among"),
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


def test_two_dimensional_errors_name_rows_as_the_package_does():
    """2-D input: a row is "row i, column j" in every error (as the NaN check does),
    never its index in the flattened array."""
    with pytest.raises(ValueError, match=re.escape(
        "y_score_a ties row 1, column 1 (2.0) with another column of query 1"
    )):
        kendall_tau_score([[3, 2, 1], [1, 2, 2]], [[3, 2, 1], [1, 2, 3]], variant="ap")
    with pytest.raises(ValueError, match=re.escape("y_score_b ties row 0, column 0 (1.0)")):
        kendall_tau_score([[3, 2, 1], [1, 2, 3]], [[1, 2, 1], [1, 2, 3]], variant="ap")
    with pytest.raises(ValueError, match=re.escape(
        "tied scores of y_score_b in query 1 (positions 2 to 3, the first of its rows at "
        "row 1, column 0) at depth 2"
    )):
        rank_biased_overlap([[3, 2, 1], [3, 2, 1]], [[3, 2, 1], [1, 2, 1]], depth=2)
    with pytest.raises(ValueError, match=re.escape(
        "y_score_a of kendall_tau_score must not be NaN; got NaN at row 1, column 1"
    )):
        kendall_tau_score([[3, 2, 1], [1, np.nan, 2]], [[3, 2, 1], [1, 2, 3]])


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


def test_rows_passed_whole_are_refused_with_the_spelling_that_works():
    from sklearn_rank_metrics import RankingData

    data = RankingData([1.0, 0.0, 1.0], [0.9, 0.5, 0.1], [1, 1, 1])
    with pytest.raises(TypeError, match=r"y_score_a of rank_biased_overlap is one score "
                       r"column, not a RankingData: .*runs.scores\['a'\]"):
        rank_biased_overlap(data, data)
