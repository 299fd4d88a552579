"""Paired comparison of models: intervals and p-values against SciPy and hand computations."""

import dataclasses
import sys
import warnings
from collections import Counter
from fractions import Fraction
from itertools import product
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

from sklearn_rank_metrics import ComparisonResult, compare, evaluate
from sklearn_rank_metrics._stats._compare import _t_test_pvalues
from sklearn_rank_metrics._stats._resampling import (
    _bca_levels,
    _chunk_rows,
    bootstrap_intervals,
    bootstrap_means,
    holm,
    sign_flip_pvalues,
)


def make_data(n_queries, docs_per_query=8, *, seed=0, noise=(1.0, 1.5, 4.0)):
    """Graded labels and one model per noise level (less noise, better model)."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs_per_query
    y_true = rng.integers(0, 4, n)
    group = np.repeat(np.arange(n_queries), docs_per_query)
    names = ["a", "b", "c"][: len(noise)]
    scores = {name: y_true + rng.normal(size=n) * s for name, s in zip(names, noise, strict=True)}
    return y_true, group, scores


def per_query(y_true, scores, group, metric):
    """Per-query values of every model from evaluate (an independent path)."""
    return {
        name: np.asarray(
            evaluate(y_true, s, group, metrics=[metric], per_query=True)[metric], dtype=float
        )
        for name, s in scores.items()
    }


def column(table, name):
    return np.asarray(table[name])


def mean_difference_statistic(x, y, axis):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


# --------------------------------------------------------------------------- t-test, means


def test_means_and_t_test_match_evaluate_and_scipy():
    y_true, group, scores = make_data(60, seed=1)
    metrics = ["ndcg@10", "map"]
    result = compare(y_true, scores, group, metrics=metrics, n_resamples=200, random_state=0)
    table = result.table
    assert list(column(table, "model_a")) == ["a", "a", "b"] * 2
    assert list(column(table, "model_b")) == ["b", "c", "c"] * 2
    for row in range(len(column(table, "metric"))):
        metric = column(table, "metric")[row]
        a, b = column(table, "model_a")[row], column(table, "model_b")[row]
        values = per_query(y_true, {a: scores[a], b: scores[b]}, group, metric)
        assert column(table, "n_queries")[row] == 60
        np.testing.assert_allclose(column(table, "mean_a")[row], values[a].mean(), rtol=1e-12)
        np.testing.assert_allclose(column(table, "mean_b")[row], values[b].mean(), rtol=1e-12)
        np.testing.assert_allclose(
            column(table, "mean_difference")[row], (values[a] - values[b]).mean(), atol=1e-12
        )
        expected = stats.ttest_rel(values[a], values[b]).pvalue
        np.testing.assert_allclose(column(table, "p_value_t")[row], expected, rtol=1e-10)
    means = result.means
    np.testing.assert_allclose(
        np.asarray(means["ndcg@10"], dtype=float),
        [evaluate(y_true, scores[m], group, metrics=["ndcg@10"])["ndcg@10"] for m in "abc"],
        rtol=1e-12,
    )
    long = result.per_query
    assert len(np.asarray(long["model"])) == 3 * 60
    a_rows = np.asarray(long["model"]) == "a"
    np.testing.assert_allclose(
        np.asarray(long["map"], dtype=float)[a_rows],
        per_query(y_true, {"a": scores["a"]}, group, "map")["a"],
    )


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_means_are_means_of_resampled_queries():
    rng = np.random.default_rng(3)
    values = rng.normal(size=(50, 3))
    for columns in (values, values[:, :1]):  # the counts path and the one-column path
        distribution = bootstrap_means(columns, 300, np.random.default_rng(7))
        drawn = np.random.default_rng(7).integers(0, 50, size=(300, 50), dtype=np.int32)
        np.testing.assert_allclose(distribution, columns[drawn].mean(axis=1), rtol=1e-12)


@pytest.mark.parametrize("confidence_level", [0.9, 0.95, 0.99])
def test_percentile_and_bca_intervals_equal_scipy_on_the_same_resamples(confidence_level):
    rng = np.random.default_rng(11)
    data = np.column_stack([rng.gamma(1.5, size=40) - 1.2, rng.normal(size=40) ** 3])
    distribution = bootstrap_means(data, 4000, np.random.default_rng(0))
    ours = bootstrap_intervals(data, distribution, confidence_level, ("percentile", "bca"))
    for j in range(data.shape[1]):
        previous = SimpleNamespace(bootstrap_distribution=distribution[:, j])
        for method, scipy_method in (("percentile", "percentile"), ("bca", "BCa")):
            reference = stats.bootstrap(
                (data[:, j],),
                np.mean,
                n_resamples=0,
                bootstrap_result=previous,
                confidence_level=confidence_level,
                method=scipy_method,
            ).confidence_interval
            low, high = ours[method]
            np.testing.assert_allclose(low[j], reference.low, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(high[j], reference.high, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_columns", [1, 2])  # the gather path and the counts path
def test_bca_z0_and_levels_equal_exact_rational_arithmetic_on_discrete_data(n_columns):
    # P@5-like differences: multiples of 1/5 on 25 queries. Many resampled means
    # equal the estimate in exact arithmetic; in floating point they miss it by
    # rounding, and only the tolerance in z0 counts them as the ties they are.
    n_queries, n_resamples, alpha = 25, 2000, 0.025
    numerators = np.random.default_rng(5).integers(-3, 4, size=(n_queries, n_columns))
    values = numerators / 5.0
    distribution = bootstrap_means(values, n_resamples, np.random.default_rng(100))
    drawn = np.random.default_rng(100).integers(
        0, n_queries, size=(n_resamples, n_queries), dtype=np.int32
    )
    # the same resamples as bootstrap_means drew
    np.testing.assert_allclose(distribution, values[drawn].mean(axis=1), atol=1e-15)
    low, high = _bca_levels(values, values.mean(axis=0), distribution, alpha)
    naive_counts = []
    for j in range(n_columns):
        x = [Fraction(int(k), 5) for k in numerators[:, j]]
        theta = sum(x) / n_queries
        means = [sum(x[i] for i in row) / n_queries for row in drawn]  # exact rationals
        below = sum(mean < theta for mean in means)
        at_or_below = sum(mean <= theta for mean in means)
        assert below < at_or_below  # exact ties with the estimate exist
        z0 = ndtri((below + at_or_below) / (2 * n_resamples))
        centred = [xi - theta for xi in x]
        cubes, squares = sum(u**3 for u in centred), sum(u**2 for u in centred)
        acceleration = float(cubes) / (6 * float(squares) ** 1.5)
        expected = []
        for z in (ndtri(alpha), -ndtri(alpha)):
            expected.append(ndtr(z0 + (z0 + z) / (1 - acceleration * (z0 + z))))
        np.testing.assert_allclose([low[j], high[j]], expected, rtol=1e-12)
        theta_float = values[:, j].mean()
        naive_counts.append(
            (
                np.count_nonzero(distribution[:, j] < theta_float),
                np.count_nonzero(distribution[:, j] <= theta_float),
            )
        )
        # exact float comparison (SciPy's) would count differently on this data
        assert naive_counts[-1] != (below, at_or_below)
    # and the BCa interval is the linear quantiles of the distribution at those levels
    intervals = bootstrap_intervals(values, distribution, 1 - 2 * alpha, ("bca",))["bca"]
    for j in range(n_columns):
        expected_low = np.quantile(distribution[:, j], low[j])
        expected_high = np.quantile(distribution[:, j], high[j])
        np.testing.assert_allclose(intervals[0][j], expected_low, rtol=1e-12)
        np.testing.assert_allclose(intervals[1][j], expected_high, rtol=1e-12)


def test_compare_intervals_agree_with_scipy_bootstrap_up_to_monte_carlo_error():
    y_true, group, scores = make_data(80, seed=5, noise=(1.0, 2.0))
    values = per_query(y_true, scores, group, "ndcg@5")
    differences = values["a"] - values["b"]
    n_resamples = 20_000
    result = compare(
        y_true, scores, group, metrics="ndcg@5", n_resamples=n_resamples, random_state=1
    )
    standard_error = differences.std(ddof=1) / np.sqrt(len(differences))
    # Each endpoint has a Monte-Carlo sd of about 0.02 standard errors at B=20000
    # (sqrt(a(1-a)/B) / density at the quantile); 0.15 is > 5 sd of the difference.
    for method, scipy_method in (("percentile", "percentile"), ("bca", "BCa")):
        reference = stats.bootstrap(
            (differences,), np.mean, n_resamples=n_resamples, method=scipy_method, rng=2
        ).confidence_interval
        for side, expected in (("low", reference.low), ("high", reference.high)):
            ours = column(result.table, f"ci_{side}_{method}")[0]
            assert abs(ours - expected) < 0.15 * standard_error, (method, side)


# --------------------------------------------------------------------------- randomisation test


def test_exact_randomisation_test_equals_scipy_permutation_test():
    y_true, group, scores = make_data(10, seed=8, noise=(1.0, 2.5))
    values = per_query(y_true, scores, group, "ndcg@10")
    result = compare(y_true, scores, group, metrics="ndcg@10", n_resamples=1024, random_state=0)
    reference = stats.permutation_test(
        (values["a"], values["b"]),
        mean_difference_statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=1024,  # = 2**10: SciPy enumerates every pattern too
    ).pvalue
    np.testing.assert_allclose(column(result.table, "p_value_permutation")[0], reference)


def test_exact_randomisation_test_with_tied_discrete_differences():
    # Differences in multiples of 1/5 (P@5): many sign patterns give exactly the
    # observed sum. Reference: every pattern enumerated in exact rational arithmetic.
    differences = [Fraction(k, 5) for k in (2, -1, 1, 1, 0, 3, -2, 1, 1, -1, 2)]
    observed = sum(differences)
    sums = [sum(s * d for s, d in zip(signs, differences, strict=True)) for signs in
            product((1, -1), repeat=len(differences))]
    p_less = sum(total <= observed for total in sums) / len(sums)
    p_greater = sum(total >= observed for total in sums) / len(sums)
    expected = min(1.0, 2 * min(p_less, p_greater))
    as_float = np.array([[float(d)] for d in differences])
    ours = sign_flip_pvalues(as_float, 2**11, np.random.default_rng(0))
    np.testing.assert_allclose(ours, [expected], rtol=1e-12)


def _exact_sign_flip_pvalue(numerators):
    """Exact two-sided p-value of the sign-flip test of integer differences, by
    dynamic programming over the distribution of sum(s_i k_i) (integer counts)."""
    counts = Counter({0: 1})
    for k in numerators:
        step = Counter()
        for total, count in counts.items():
            step[total + k] += count
            step[total - k] += count
        counts = step
    observed = sum(numerators)
    n_patterns = 2 ** len(numerators)
    at_most = sum(c for total, c in counts.items() if total <= observed)
    at_least = sum(c for total, c in counts.items() if total >= observed)
    return min(Fraction(1), 2 * min(Fraction(at_most, n_patterns), Fraction(at_least, n_patterns)))


def test_exact_sign_flip_enumeration_over_several_chunks_equals_dynamic_programming():
    n_queries = 21
    n_patterns = 2**n_queries
    assert _chunk_rows(n_queries, n_patterns) < n_patterns // 8  # > 8 chunks, last partial
    rng = np.random.default_rng(17)
    denominator = 60  # differences of P@k / MRR-like metrics: multiples of 1/60
    numerators = np.column_stack([
        rng.integers(-4, 7, n_queries) * 12,  # multiples of 1/5: many exact ties
        rng.integers(-60, 61, n_queries),  # finer
        np.r_[rng.integers(1, 20, 10), np.zeros(11, int)],  # one sign: tiny p-value
    ])
    symmetric = np.r_[numerators[:10, 2], 0, -numerators[:10, 2]]  # sums to 0 exactly
    numerators = np.column_stack([numerators, symmetric])
    ours = sign_flip_pvalues(numerators / denominator, n_patterns, np.random.default_rng(0))
    expected = [_exact_sign_flip_pvalue([int(k) for k in column]) for column in numerators.T]
    assert expected[3] == 1  # the last column sums to 0 exactly
    assert expected[2] == Fraction(2, 2**10)  # only the patterns keeping all 10 non-zero signs
    np.testing.assert_allclose(ours, [float(p) for p in expected], rtol=1e-13)


def test_random_randomisation_test_agrees_with_scipy_up_to_monte_carlo_error():
    y_true, group, scores = make_data(40, seed=21, noise=(1.5, 2.0))
    values = per_query(y_true, scores, group, "ndcg@10")
    n_resamples = 20_000
    result = compare(
        y_true, scores, group, metrics="ndcg@10", n_resamples=n_resamples, random_state=3
    )
    reference = stats.permutation_test(
        (values["a"], values["b"]),
        mean_difference_statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        rng=4,
    ).pvalue
    ours = column(result.table, "p_value_permutation")[0]
    assert 0.02 < reference < 0.9  # an informative p-value, neither tiny nor 1
    # sd of each estimate <= 2 * sqrt(0.25 / B) = 0.007; the difference < 5 sd.
    # Each p-value is twice a one-sided share estimated from B patterns: its sd is
    # 2 sqrt(q (1 - q) / B) with q = p / 2; allow 5 sd of the difference of two.
    one_sided = reference / 2
    tolerance = 5 * np.sqrt(2) * 2 * np.sqrt(one_sided * (1 - one_sided) / n_resamples)
    assert abs(ours - reference) < tolerance


# --------------------------------------------------------------------------- the null case


def test_null_case_rejection_rate_is_near_the_level():
    rejections = {"t": 0, "permutation": 0, "interval": 0}
    n_datasets = 300
    for seed in range(n_datasets):
        rng = np.random.default_rng(1000 + seed)
        y_true = rng.integers(0, 3, 30 * 6)
        group = np.repeat(np.arange(30), 6)
        scores = {"x": rng.normal(size=180), "y": rng.normal(size=180)}
        table = compare(
            y_true, scores, group, metrics="ndcg@5", n_resamples=500,
            method="percentile", random_state=seed,
        ).table
        rejections["t"] += column(table, "p_value_t")[0] < 0.05
        rejections["permutation"] += column(table, "p_value_permutation")[0] < 0.05
        rejections["interval"] += not (
            column(table, "ci_low_percentile")[0] <= 0 <= column(table, "ci_high_percentile")[0]
        )
    # sd of a rate at 0.05 over 300 datasets: 0.0126; the bounds are about 3 sd wide.
    for name, count in rejections.items():
        assert 0.015 <= count / n_datasets <= 0.095, (name, count / n_datasets)


# --------------------------------------------------------------------------- Holm


def test_holm_by_hand():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.06, 0.04*1) = 0.06
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    # capped at 1, monotone, NaN left out of the family (m = 2)
    np.testing.assert_allclose(holm([0.6, 0.7]), [1.0, 1.0])
    np.testing.assert_allclose(holm([0.5, np.nan, 0.4]), [0.8, np.nan, 0.8])


def test_holm_family_is_one_metric():
    y_true, group, scores = make_data(40, seed=2)
    result = compare(
        y_true, scores, group, metrics=["ndcg@10", "mrr@10"], n_resamples=300,
        correction="holm", random_state=0,
    )
    table = result.table
    for name in ("p_value_t", "p_value_permutation"):
        raw = column(table, name).reshape(2, 3)
        adjusted = column(table, f"{name}_holm").reshape(2, 3)
        for metric in range(2):
            p = raw[metric]
            order = np.argsort(p)
            by_hand = np.empty(3)
            running = 0.0
            for rank, index in enumerate(order):
                running = max(running, min(1.0, (3 - rank) * p[index]))
                by_hand[index] = running
            np.testing.assert_allclose(adjusted[metric], by_hand)


def test_holm_in_compare_leaves_nan_p_values_out_of_the_family():
    y_true, group, scores = make_data(30, seed=14, noise=(1.0, 2.0))
    scores = {"a": scores["a"], "copy": scores["a"].copy(), "b": scores["b"]}
    table = compare(
        y_true, scores, group, metrics="ndcg@10", n_resamples=500, correction="holm",
        random_state=0,
    ).table
    assert list(column(table, "model_a")) == ["a", "a", "copy"]
    assert list(column(table, "model_b")) == ["copy", "b", "b"]
    values = per_query(y_true, {"a": scores["a"], "b": scores["b"]}, group, "ndcg@10")
    p_t = stats.ttest_rel(values["a"], values["b"]).pvalue
    assert 0.001 < p_t < 0.5  # 2 p_t is neither capped nor negligible
    raw = column(table, "p_value_t")
    assert np.isnan(raw[0])
    np.testing.assert_allclose(raw[1:], [p_t, p_t], rtol=1e-10)
    # m = 2 (NaN is not in the family): both adjusted to 2 p; with m = 3 they'd be 3 p
    adjusted = column(table, "p_value_t_holm")
    assert np.isnan(adjusted[0])
    np.testing.assert_allclose(adjusted[1:], [2 * p_t, 2 * p_t], rtol=1e-10)
    # the permutation p-values are all defined (1 for the identical pair): m = 3
    p_perm = column(table, "p_value_permutation")
    assert p_perm[0] == 1.0 and p_perm[1] == p_perm[2]  # same sign patterns for both
    np.testing.assert_allclose(
        column(table, "p_value_permutation_holm"),
        [1.0, min(1.0, 3 * p_perm[1]), min(1.0, 3 * p_perm[1])],
    )


# --------------------------------------------------------------------------- options


def test_baseline_pairs_every_model_against_it():
    y_true, group, scores = make_data(30, seed=4)
    table = compare(
        y_true, scores, group, metrics="map", baseline="b", n_resamples=100, random_state=0
    ).table
    assert list(column(table, "model_a")) == ["a", "c"]
    assert list(column(table, "model_b")) == ["b", "b"]
    values = per_query(y_true, scores, group, "map")
    np.testing.assert_allclose(
        column(table, "mean_difference"),
        [(values["a"] - values["b"]).mean(), (values["c"] - values["b"]).mean()],
        atol=1e-12,
    )


def test_same_random_state_same_result_and_inputs_untouched():
    y_true, group, scores = make_data(50, seed=6)
    copies = {name: s.copy() for name, s in scores.items()}
    y_copy = y_true.copy()
    for array in (y_true, group, *scores.values()):
        array.setflags(write=False)  # read-only input is fine, and never written
    first = compare(y_true, scores, group, n_resamples=500, random_state=42)
    second = compare(y_true, scores, group, n_resamples=500, random_state=42)
    other = compare(y_true, scores, group, n_resamples=500, random_state=43)
    for name in ("ci_low_percentile", "ci_high_bca", "p_value_permutation"):
        np.testing.assert_array_equal(column(first.table, name), column(second.table, name))
    assert not np.array_equal(
        column(first.table, "ci_low_bca"), column(other.table, "ci_low_bca")
    )
    np.testing.assert_array_equal(y_true, y_copy)
    for name in scores:
        np.testing.assert_array_equal(scores[name], copies[name])


def test_identical_models_give_a_point_interval_and_no_evidence():
    y_true, group, scores = make_data(20, seed=9, noise=(1.0,))
    table = compare(
        y_true, {"a": scores["a"], "same": scores["a"].copy()}, group, n_resamples=200,
        random_state=0,
    ).table
    assert column(table, "mean_difference")[0] == 0
    for method in ("percentile", "bca"):
        assert column(table, f"ci_low_{method}")[0] == 0
        assert column(table, f"ci_high_{method}")[0] == 0
    assert np.isnan(column(table, "p_value_t")[0])  # zero variance, as scipy.stats.ttest_rel
    assert column(table, "p_value_permutation")[0] == 1.0


def test_skipped_queries_are_left_out_for_every_model():
    y_true, group, scores = make_data(30, seed=10)
    y_true = y_true.copy()
    y_true[group < 5] = 0  # five queries without a relevant row
    table = compare(
        y_true, scores, group, metrics="ndcg@10", replace_undefined_by="skip",
        n_resamples=100, random_state=0,
    ).table
    assert set(column(table, "n_queries")) == {25}
    expected = evaluate(
        y_true, scores["a"], group, metrics=["ndcg@10"], replace_undefined_by="skip"
    )["ndcg@10"]
    np.testing.assert_allclose(column(table, "mean_a")[0], expected, rtol=1e-12)
    default = compare(y_true, scores, group, n_resamples=100, random_state=0).table
    assert set(column(default, "n_queries")) == {30}  # default policy: undefined counts 0


def test_two_dimensional_and_dataframe_input_agree_with_flat_input():
    import pandas as pd

    y_true, group, scores = make_data(25, docs_per_query=6, seed=12, noise=(1.0, 3.0))
    flat = compare(y_true, scores, group, n_resamples=300, random_state=5).table
    frame = compare(y_true, pd.DataFrame(scores), group, n_resamples=300, random_state=5).table
    two_d = compare(
        y_true.reshape(25, 6),
        {name: s.reshape(25, 6) for name, s in scores.items()},
        n_resamples=300,
        random_state=5,
    ).table
    for name in ("mean_difference", "ci_low_bca", "p_value_t", "p_value_permutation"):
        np.testing.assert_allclose(column(frame, name), column(flat, name), rtol=1e-12)
        np.testing.assert_allclose(column(two_d, name), column(flat, name), rtol=1e-12)


def test_text_table_and_dict_fallback_without_pandas(monkeypatch):
    y_true, group, scores = make_data(20, seed=13)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    result = compare(
        y_true, scores, group, metrics=["ndcg@10", "p@5"], n_resamples=100,
        correction="holm", random_state=0,
    )
    assert isinstance(result.table, dict)
    assert isinstance(result.table["p_value_t_holm"], np.ndarray)
    lines = result.to_long_text().splitlines()
    assert len(lines) == 1 + 6
    assert "95% CI percentile" in lines[0] and "p t-test Holm" in lines[0]
    assert lines[1].split()[:3] == ["ndcg@10", "a", "b"]
    assert f"{result.table['mean_difference'][0]:.4f}" in lines[1]
    assert len({len(line) for line in lines[:2]}) == 1  # aligned columns
    assert "6 comparisons" in repr(result)


def test_t_test_on_constant_differences_is_zero_or_nan_like_the_point_interval():
    # MRR on 3-document queries with one relevant document: "first" ranks it 1st,
    # "third" ranks it 3rd, so every per-query difference is exactly 1 - 1/3.
    n_queries = 6
    y_true = np.tile([1, 0, 0], n_queries)
    group = np.repeat(np.arange(n_queries), 3)
    first = np.tile([3.0, 2.0, 1.0], n_queries)
    scores = {"first": first, "same": first.copy(), "third": np.tile([1.0, 3.0, 2.0], n_queries)}
    table = compare(
        y_true, scores, group, metrics="mrr", n_resamples=1000, random_state=0
    ).table
    assert list(column(table, "model_a")) == ["first", "first", "same"]
    assert list(column(table, "model_b")) == ["same", "third", "third"]
    p_t = column(table, "p_value_t")
    assert np.isnan(p_t[0])  # all differences 0: no evidence either way
    assert p_t[1] == 0.0 and p_t[2] == 0.0  # the same non-zero difference on every query
    np.testing.assert_allclose(column(table, "mean_difference")[1:], 2 / 3, rtol=1e-15)
    for method in ("percentile", "bca"):
        np.testing.assert_allclose(column(table, f"ci_low_{method}")[1:], 2 / 3, rtol=1e-15)
        np.testing.assert_allclose(column(table, f"ci_high_{method}")[1:], 2 / 3, rtol=1e-15)
    # all 2**6 patterns enumerated: only "all kept" and "all flipped" are as extreme
    np.testing.assert_allclose(column(table, "p_value_permutation"), [1.0, 2 / 64, 2 / 64])


def test_t_test_helper_matches_scipy_on_varying_columns_and_handles_constant_ones():
    rng = np.random.default_rng(2)
    b = rng.normal(size=(12, 4))
    a = b.copy()
    a[:, 1] = b[:, 1] + rng.normal(size=12)  # varying differences: ttest_rel
    a[:, 2] = b[:, 2] * 0 + 0.5
    b[:, 2] = 0.25  # constant 0.25, exactly
    a[:, 3] = b[:, 3] = 0.75  # constant 0 (column 0 is also all 0)
    p = _t_test_pvalues(a, b)
    assert np.isnan(p[0]) and np.isnan(p[3]) and p[2] == 0.0
    np.testing.assert_allclose(p[1], stats.ttest_rel(a[:, 1], b[:, 1]).pvalue, rtol=1e-12)
    assert np.isnan(_t_test_pvalues(a[:1], b[:1])).all()  # a single query


def test_t_test_p_values_equal_scipys_without_warnings():
    rng = np.random.default_rng(0)
    a, b = rng.random((30, 4)), rng.random((30, 4))
    b[:, 2] = a[:, 2] - 0.25  # constant differences
    b[:, 3] = a[:, 3]  # no difference at all
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all from ours
        ours = _t_test_pvalues(a, b)
    theirs = stats.ttest_rel(a[:, :2], b[:, :2], axis=0).pvalue
    np.testing.assert_allclose(ours[:2], theirs, rtol=1e-10)
    assert ours[2] == 0.0 and np.isnan(ours[3])


def test_metrics_with_different_kept_queries_are_compared_on_their_own_queries():
    # Binary labels; queries 0-4 have no relevant row (undefined for every metric),
    # queries 5-9 only relevant rows (gauc undefined: no negative), 10-39 both.
    n_queries, docs = 40, 6
    rng = np.random.default_rng(15)
    y_true = (rng.random(n_queries * docs) < 0.35).astype(int)
    group = np.repeat(np.arange(n_queries), docs)
    y_true[group < 5] = 0
    y_true[(group >= 5) & (group < 10)] = 1
    for q in range(10, n_queries):  # at least one relevant and one non-relevant row
        y_true[q * docs], y_true[q * docs + 1] = 1, 0
    scores = {
        "a": y_true + rng.normal(size=len(y_true)),
        "b": y_true + 2.5 * rng.normal(size=len(y_true)),
    }
    metrics = ["ndcg@5", "gauc", "mrr"]
    result = compare(
        y_true, scores, group, metrics=metrics, replace_undefined_by="skip",
        n_resamples=300, random_state=0,
    )
    table = result.table
    assert list(column(table, "metric")) == metrics
    assert list(column(table, "n_queries")) == [35, 30, 35]
    for row, metric in enumerate(metrics):
        values = {
            name: np.asarray(
                evaluate(
                    y_true, s, group, metrics=[metric], per_query=True,
                    replace_undefined_by="skip",
                )[metric],
                dtype=float,
            )
            for name, s in scores.items()
        }
        kept = ~np.isnan(values["a"]) & ~np.isnan(values["b"])
        assert kept.sum() == column(table, "n_queries")[row]
        a, b = values["a"][kept], values["b"][kept]
        np.testing.assert_allclose(column(table, "mean_a")[row], a.mean(), rtol=1e-12)
        np.testing.assert_allclose(column(table, "mean_b")[row], b.mean(), rtol=1e-12)
        np.testing.assert_allclose(
            column(table, "mean_difference")[row], (a - b).mean(), rtol=1e-12, atol=1e-15
        )
        np.testing.assert_allclose(
            column(table, "p_value_t")[row], stats.ttest_rel(a, b).pvalue, rtol=1e-10
        )
        low = column(table, "ci_low_percentile")[row]
        assert low <= (a - b).mean() <= column(table, "ci_high_percentile")[row]
        means = result.means
        np.testing.assert_allclose(np.asarray(means[metric], dtype=float), [a.mean(), b.mean()])
        long = np.asarray(result.per_query[metric], dtype=float)
        np.testing.assert_array_equal(np.isnan(long), np.tile(~kept, 2))


def test_random_state_as_generator_or_random_state_is_reproducible():
    y_true, group, scores = make_data(30, seed=16, noise=(1.0, 2.0))
    names = ("ci_low_percentile", "ci_high_bca", "p_value_permutation")

    def run(random_state):
        table = compare(
            y_true, scores, group, metrics="ndcg@10", n_resamples=400,
            random_state=random_state,
        ).table
        return np.array([column(table, name)[0] for name in names])

    from_int = run(7)
    # a fresh Generator seeded like the int draws the same resamples as the int
    np.testing.assert_array_equal(run(np.random.default_rng(7)), from_int)
    # a RandomState: the same state gives the same result
    from_state = run(np.random.RandomState(7))
    np.testing.assert_array_equal(run(np.random.RandomState(7)), from_state)
    # a shared Generator / RandomState is consumed: the next call draws other resamples
    for shared in (np.random.default_rng(7), np.random.RandomState(7)):
        first, second = run(shared), run(shared)
        assert not np.array_equal(first[:2], second[:2])


def test_comparison_result_is_hashable_and_compares_by_identity():
    y_true, group, scores = make_data(10, seed=18, noise=(1.0, 2.0))
    result = compare(y_true, scores, group, n_resamples=50, random_state=0)
    again = compare(y_true, scores, group, n_resamples=50, random_state=0)
    assert isinstance(result, ComparisonResult)
    assert result == result and result != again  # no element-wise table comparison
    assert len({result, again, result}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.n_resamples = 3


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_resamples": 0}, ValueError, "'n_resamples' parameter of compare"),
        ({"confidence_level": 1.0}, ValueError, "'confidence_level' parameter"),
        ({"method": "basic"}, ValueError, "'method' parameter"),
        ({"method": 3}, TypeError, "'method' parameter"),
        ({"correction": "sidak"}, ValueError, "'correction' parameter"),
        ({"baseline": "zzz"}, ValueError, "'baseline' parameter"),
        ({"baseline": 1}, TypeError, "'baseline' parameter"),
        ({"metrics": []}, ValueError, "'metrics' parameter"),
        (
            {"metrics": "hit_rate(average=micro)@5"},
            ValueError,
            r"The 'metrics' parameter of compare must name metrics that weight every query "
            r"equally .* Got 'hit_rate\(average=micro\)@5', which weights queries unequally",
        ),
        ({"metrics": "nope"}, ValueError, "Unknown metric"),
        ({"random_state": "seed"}, TypeError, "'random_state' parameter"),
        ({"ties": "random"}, ValueError, "'ties' parameter"),
    ],
)
def test_bad_parameters_name_the_argument(kwargs, error, match):
    y_true, group, scores = make_data(5, seed=0)
    with pytest.raises(error, match=match):
        compare(y_true, scores, group, **{"n_resamples": 10, **kwargs})


def test_bad_scores_name_the_model():
    y_true, group, scores = make_data(5, seed=0)
    with pytest.raises(ValueError, match="model 'b'.*shape"):
        compare(y_true, {"a": scores["a"], "b": scores["b"][:-1]}, group)
    with pytest.raises(ValueError, match="at least 2 model"):
        compare(y_true, {"a": scores["a"]}, group)
    with pytest.raises(TypeError, match="'scores' parameter of compare must be a mapping"):
        compare(y_true, [scores["a"], scores["b"]], group)
    with pytest.raises(TypeError, match="model names"):
        compare(y_true, {1: scores["a"], 2: scores["b"]}, group)


def test_records_are_the_table_rows():
    y_true, group, scores = make_data(30, seed=5)
    result = compare(y_true, scores, group, metrics=["ndcg@10", "map"], n_resamples=200,
                     random_state=0)
    table = result.table
    records = result.records()
    assert len(records) == len(table["metric"]) == 2 * 3  # 2 metrics x 3 pairs
    for row, record in enumerate(records):
        assert set(record) == set(table.keys() if isinstance(table, dict) else table.columns)
        for name, value in record.items():
            expected = table[name][row]
            if isinstance(value, float) and np.isnan(value):
                assert np.isnan(expected)
            else:
                assert value == expected and not isinstance(value, np.generic)


def test_an_iterator_is_refused_with_pass_list_as_every_entry_point_does():
    # before: "y_true has shape ()" (NumPy makes a 0-d object array of a generator)
    from sklearn_rank_metrics import (
        MetricAtKDisplay,
        PerQueryMetricDisplay,
        ndcg_score,
        ranking_report,
    )

    y_true, group, scores = make_data(4, seed=2, noise=(1.0, 2.0))
    first = next(iter(scores))
    with pytest.raises(TypeError) as raised:  # what every metric function says
        ndcg_score((value for value in y_true), scores[first], group)
    expected = str(raised.value)
    assert expected.endswith("got generator (a generator or iterator: pass list(...)).")
    # each door, and the name it gives a model's scores (ranking_report reads each
    # model on its own, as y_score)
    doors = [
        (lambda y, s: compare(y, s, group, n_resamples=10), f"scores['{first}']"),
        (lambda y, s: ranking_report(y, s, group, metrics="mrr"), "y_score"),
        (
            lambda y, s: MetricAtKDisplay.from_predictions(y, s, group, confidence_level=None),
            f"scores['{first}']",
        ),
        (lambda y, s: PerQueryMetricDisplay.from_predictions(y, s, group), f"scores['{first}']"),
    ]
    names = ["compare", "ranking_report", "MetricAtKDisplay.from_predictions",
             "PerQueryMetricDisplay.from_predictions"]
    for (call, scores_name), name in zip(doors, names, strict=True):
        # the same sentence, naming the function called
        named = expected.replace("ndcg_score", name, 1)
        with pytest.raises(TypeError) as raised:
            call((value for value in y_true), scores)
        assert str(raised.value) == named
        # a model's scores as an iterator: the same sentence, naming them
        with pytest.raises(TypeError) as raised:
            call(y_true, {**scores, first: (value for value in scores[first])})
        assert str(raised.value) == named.replace("y_true", scores_name, 1)


def test_one_query_is_counted_in_the_singular():
    result = compare([1, 0], {"a": [0.2, 0.1], "b": [0.1, 0.2]}, [1, 1], metrics=["map"])
    assert "Means over 1 query." in result.to_text()
    assert "1 queries" not in result.to_text() + result.to_markdown() + result.to_latex()


@pytest.mark.parametrize("entry", ["compare", "ranking_report"])
def test_a_later_models_pandas_index_is_checked_against_the_rows(entry):
    # the rows are checked with the first model's scores; every later model's scores
    # are paired by position with them, so their index must be the rows' index too
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics import ranking_report

    index = [10, 11, 12, 13, 14, 15]
    y = pd.Series([2, 0, 1, 0, 1, 0], index=index)
    qid = pd.Series([1, 1, 1, 2, 2, 2], index=index)
    a = pd.Series([0.9, 0.8, 0.1, 0.3, 0.7, 0.2], index=index)
    b = pd.Series([0.2, 0.7, 0.3, 0.1, 0.8, 0.9], index=index[::-1])
    call = compare if entry == "compare" else ranking_report
    with pytest.raises(ValueError, match=f"y_true and y_score of {entry} are pandas objects "
                       "with different indexes"):
        call(y, {"a": a, "b": b}, qid, metrics=["ndcg@2"])
    # aligned first, the same call runs
    call(y, {"a": a, "b": b.reindex(y.index)}, qid, metrics=["ndcg@2"])


def test_one_runs_line_order_is_not_every_models_tie_order():
    # read_trec's rows carry their run's line order (cwl_eval's tie order for RBP
    # under ir_measures); models given beside those rows have their own scores, so
    # that order is not theirs: their tied rows keep the input order and warn
    from sklearn_rank_metrics import read_trec
    from sklearn_rank_metrics._engine._warnings import TieOrderWarning

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 0}}
    run = {"q1": {"d1": 1.0, "d4": 1.0, "d3": 1.0, "d2": 0.5}}  # three tied: d1, d4, d3
    data = read_trec(qrels, run)
    metric = "RBP(p=0.8,rel=1)"
    reversed_scores = np.array(data.y_score[::-1])
    with pytest.warns(TieOrderWarning, match="run order"):
        result = compare(data, {"A": data.y_score, "B": reversed_scores}, metrics=[metric],
                         convention="ir_measures", n_resamples=10, random_state=0)
    # by hand: the rows in input order (docno descending: d4, d3, d2, d1); A's tied
    # d4, d3, d1 keep it: gains 0, 1, 1 at ranks 1-3 -> (1-p)(p + p^2) = 0.288; in the
    # run's order (d1, d4, d3: gains 1, 0, 1) it would be (1-p)(1 + p^2) = 0.328
    p = 0.8
    assert result._means["A"][metric] == pytest.approx((1 - p) * (p + p**2))
