"""Sampled metrics and their corrections (Krichene & Rendle, KDD 2020 / CACM 2022).

Reference values come from brute-force enumeration of every set of sampled negatives,
from scipy's hypergeometric and binomial distributions, from the paper's closed forms
(solved here directly with NumPy from the enumerated distribution), from arithmetic
written in the tests, or from a seeded simulation that draws the negatives.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import special, stats

from sklearn_rank_metrics import (
    sampled_metric_estimate,
    sampled_metric_table,
    sampled_rank_distribution,
    sampled_ranks,
)
from sklearn_rank_metrics._sampled._estimators import _least_squares_table

ESTIMATORS = ["naive", "rank_estimate", "minimal_bias", "bias_variance"]
METRICS_WITH_K = [
    ("hit_rate", 1),
    ("hit_rate", 3),
    ("ndcg", 2),
    ("ndcg", None),
    ("mrr", 3),
    ("mrr", None),
    ("ap", None),
    ("auc", None),
]


def exact_metric(rank, metric, k, n_list):
    """The metric of one relevant item at ``rank`` in a list of ``n_list`` items, by hand."""
    rank = np.asarray(rank, dtype=float)
    if metric == "auc":
        return (n_list - rank) / (n_list - 1)
    within = np.ones_like(rank) if k is None else (rank <= k).astype(float)
    if metric == "hit_rate":
        return within
    if metric == "ndcg":
        return within / np.log2(rank + 1)
    return within / rank  # mrr, ap


def enumerated_distribution(n, m, with_replacement=False):
    """P(r~ | r) by listing every draw of m negatives from the other n - 1 items."""
    probability = np.zeros((n, m + 1))
    for r in range(1, n + 1):
        others = [item for item in range(1, n + 1) if item != r]
        draws = (
            itertools.product(others, repeat=m)
            if with_replacement
            else itertools.combinations(others, m)
        )
        counts = np.zeros(m + 1)
        for draw in draws:
            counts[sum(item < r for item in draw)] += 1
        probability[r - 1] = counts / counts.sum()
    return probability


def scipy_distribution(ranks, n, m, sampling="hypergeometric"):
    above = np.arange(m + 1)[None, :]
    ranks = np.asarray(ranks)[:, None]
    if sampling == "hypergeometric":
        return stats.hypergeom.pmf(above, n - 1, ranks - 1, m)
    return stats.binom.pmf(above, m, (ranks - 1) / (n - 1))


def expected_estimate(probability, table):
    """E[T(r~) | r] for every row r of ``probability``."""
    return probability @ table


# --------------------------------------------------------------------------- no sampling


@pytest.mark.parametrize("metric, k", METRICS_WITH_K)
@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("n_items", [2, 7, 40])
def test_without_sampling_every_estimator_is_the_exact_metric(metric, k, estimator, n_items):
    table = sampled_metric_table(
        n_negatives=n_items - 1, n_items=n_items, metric=metric, k=k, estimator=estimator
    )
    ranks = np.arange(1, n_items + 1)
    np.testing.assert_allclose(table, exact_metric(ranks, metric, k, n_items), atol=1e-9)
    users = np.random.default_rng(n_items).integers(1, n_items + 1, 50)
    per_user = sampled_metric_estimate(
        users,
        n_negatives=n_items - 1,
        n_items=n_items,
        metric=metric,
        k=k,
        estimator=estimator,
        per_query=True,
    )
    np.testing.assert_allclose(per_user, exact_metric(users, metric, k, n_items), atol=1e-9)


@pytest.mark.parametrize("trade_off", [0.0, 0.01, 0.5, 1.0])
def test_without_sampling_every_trade_off_is_exact(trade_off):
    # ranks 1, 3, 4 among 7 items, NDCG@3: (1 + 1/log2(4) + 0) / 3 = 0.5
    value = sampled_metric_estimate(
        [1, 3, 4], n_negatives=6, n_items=7, metric="ndcg", k=3, trade_off=trade_off
    )
    assert isinstance(value, float)
    assert value == pytest.approx(0.5, abs=1e-12)


# --------------------------------------------------------------------------- sampling model


@pytest.mark.parametrize("sampling", ["hypergeometric", "binomial"])
@pytest.mark.parametrize("n, m", [(8, 3), (6, 5), (5, 1)])
def test_rank_distribution_matches_enumeration(sampling, n, m):
    reference = enumerated_distribution(n, m, with_replacement=sampling == "binomial")
    got = sampled_rank_distribution(
        np.arange(1, n + 1), n_negatives=m, n_items=n, sampling=sampling
    )
    np.testing.assert_allclose(got, reference, atol=1e-12)


def test_no_sampling_distribution_is_the_identity():
    got = sampled_rank_distribution([1, 2, 3, 4, 5], n_negatives=4, n_items=5)
    np.testing.assert_allclose(got, np.eye(5), atol=1e-12)


@pytest.mark.parametrize("sampling", ["hypergeometric", "binomial"])
def test_rank_distribution_matches_scipy_on_a_large_catalogue(sampling):
    n, m = 1_000_000, 100
    ranks = np.array([1, 2, 50, 10_000, 123_457, 500_000, 999_999, 1_000_000])
    got = sampled_rank_distribution(ranks, n_negatives=m, n_items=n, sampling=sampling)
    np.testing.assert_allclose(
        got, scipy_distribution(ranks, n, m, sampling), rtol=1e-6, atol=1e-14
    )


def test_a_uniform_full_rank_gives_a_uniform_sampled_rank():
    # the held-out item is then a random one of the m + 1 listed: r~ is uniform (symmetry)
    reference = enumerated_distribution(8, 3).mean(axis=0)
    np.testing.assert_allclose(reference, 0.25)
    got = sampled_rank_distribution(np.arange(1, 1001), n_negatives=50, n_items=1000)
    np.testing.assert_allclose(got.mean(axis=0), 1 / 51, rtol=1e-9)


# --------------------------------------------------------------------------- the paper's facts


@pytest.mark.parametrize("sampling", ["hypergeometric", "binomial"])
def test_naive_sampled_auc_is_unbiased(sampling):
    # The paper's one consistent metric: E[AUC_{m+1}(r~) | r] = AUC_n(r) for every r.
    n, m = 8, 3
    probability = enumerated_distribution(n, m, with_replacement=sampling == "binomial")
    table = sampled_metric_table(n_negatives=m, n_items=n, metric="auc", estimator="naive")
    np.testing.assert_allclose(table, (m + 1 - np.arange(1, m + 2)) / m)
    np.testing.assert_allclose(
        expected_estimate(probability, table), (n - np.arange(1, n + 1)) / (n - 1), atol=1e-12
    )


@pytest.mark.parametrize("metric, k", [("ndcg", None), ("mrr", None), ("hit_rate", 1)])
def test_one_negative_makes_every_naive_metric_linear_in_the_rank(metric, k):
    # m = 1: E[M(r~) | r] = M(1) + (r - 1)/(n - 1) (M(2) - M(1)), an affine AUC.
    n = 9
    probability = enumerated_distribution(n, 1)
    table = sampled_metric_table(n_negatives=1, n_items=n, metric=metric, k=k, estimator="naive")
    expected = expected_estimate(probability, table)
    np.testing.assert_allclose(np.diff(expected, 2), 0.0, atol=1e-12)
    ranks = np.arange(1, n + 1)
    line = table[0] + (ranks - 1) / (n - 1) * (table[1] - table[0])
    np.testing.assert_allclose(expected, line, atol=1e-12)


def test_expected_naive_metrics_match_the_papers_closed_forms():
    n, m, k = 10_000, 99, 10
    ranks = np.array([1, 2, 10, 100, 2_000, 9_999])
    p = (ranks - 1) / (n - 1)
    binomial = sampled_rank_distribution(ranks, n_negatives=m, n_items=n, sampling="binomial")
    hypergeometric = sampled_rank_distribution(ranks, n_negatives=m, n_items=n)
    # sampled recall@k is a binomial (hypergeometric) CDF at k - 1
    hit = sampled_metric_table(n_negatives=m, n_items=n, metric="hit_rate", k=k, estimator="naive")
    np.testing.assert_allclose(binomial @ hit, stats.binom.cdf(k - 1, m, p), atol=1e-12)
    np.testing.assert_allclose(
        hypergeometric @ hit, stats.hypergeom.cdf(k - 1, n - 1, ranks - 1, m), atol=1e-12
    )
    # sampled AP = RR: E[1 / (X + 1)] = (1 - (1 - p)^(m + 1)) / ((m + 1) p), X ~ B(m, p)
    rr = sampled_metric_table(n_negatives=m, n_items=n, metric="ap", estimator="naive")
    closed = np.where(p > 0, (1 - (1 - p) ** (m + 1)) / ((m + 1) * np.maximum(p, 1e-300)), 1.0)
    np.testing.assert_allclose(binomial @ rr, closed, rtol=1e-10)
    # the paper's toy example: an item at rank 100 of 10,000 has sampled recall@10 of ~1
    assert (binomial @ hit)[3] > 0.999


# --------------------------------------------------------------------------- the corrections


def paper_system(n, m, metric, k, sampling="hypergeometric"):
    """A, b and c of the paper's least-squares problems, uniform prior p(r) = 1/n."""
    probability = enumerated_distribution(n, m, with_replacement=sampling == "binomial")
    exact = exact_metric(np.arange(1, n + 1), metric, k, n)
    a = probability / math.sqrt(n)
    b = exact / math.sqrt(n)
    c = probability.sum(axis=0) / n
    return probability, exact, a, b, c


def squared_bias(probability, exact, table):
    return float(np.sum((expected_estimate(probability, table) - exact) ** 2))


def mean_variance(probability, table):
    mean = probability @ table
    return float(np.mean(probability @ table**2 - mean**2))


@pytest.mark.parametrize("sampling", ["hypergeometric", "binomial"])
@pytest.mark.parametrize("metric, k", [("ndcg", 3), ("hit_rate", 2), ("mrr", None)])
def test_minimal_bias_table_solves_the_papers_least_squares(sampling, metric, k):
    n, m = 8, 3
    probability, exact, a, b, _ = paper_system(n, m, metric, k, sampling)
    reference = np.linalg.lstsq(a, b, rcond=None)[0]
    table = sampled_metric_table(
        n_negatives=m,
        n_items=n,
        metric=metric,
        k=k,
        estimator="minimal_bias",
        sampling=sampling,
    )
    np.testing.assert_allclose(table, reference, atol=1e-9)
    # the least squared bias summed over r: below every other estimator and any perturbation
    least = squared_bias(probability, exact, table)
    for estimator in ["naive", "rank_estimate", "bias_variance"]:
        other = sampled_metric_table(
            n_negatives=m,
            n_items=n,
            metric=metric,
            k=k,
            estimator=estimator,
            sampling=sampling,
        )
        assert least < squared_bias(probability, exact, other)
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert least < squared_bias(probability, exact, table + 1e-3 * rng.normal(size=m + 1))


@pytest.mark.parametrize("trade_off", [0.001, 0.1, 0.5])
@pytest.mark.parametrize("metric, k", [("ndcg", 3), ("ap", None), ("hit_rate", 1)])
def test_bias_variance_table_is_the_papers_closed_form(trade_off, metric, k):
    n, m = 8, 3
    probability, exact, a, b, c = paper_system(n, m, metric, k)
    matrix = (1 - trade_off) * a.T @ a + trade_off * np.diag(c)
    reference = np.linalg.solve(matrix, a.T @ b)
    table = sampled_metric_table(n_negatives=m, n_items=n, metric=metric, k=k, trade_off=trade_off)
    np.testing.assert_allclose(table, reference, atol=1e-10)

    def objective(values):  # the paper's criterion, uniform prior
        return squared_bias(probability, exact, values) / n + trade_off * mean_variance(
            probability, values
        )

    best = objective(table)
    rng = np.random.default_rng(1)
    for _ in range(20):
        assert best < objective(table + 1e-3 * rng.normal(size=m + 1))


@pytest.mark.parametrize("sampling", ["hypergeometric", "binomial"])
def test_trade_off_one_is_the_posterior_mean(sampling):
    n, m = 8, 3
    probability, exact, *_ = paper_system(n, m, "ndcg", 2, sampling)
    posterior_mean = (exact @ probability) / probability.sum(axis=0)
    table = sampled_metric_table(
        n_negatives=m, n_items=n, metric="ndcg", k=2, trade_off=1.0, sampling=sampling
    )
    np.testing.assert_allclose(table, posterior_mean, atol=1e-12)


def test_trade_off_trades_bias_for_variance():
    n, m = 400, 20
    probability = scipy_distribution(np.arange(1, n + 1), n, m)
    exact = exact_metric(np.arange(1, n + 1), "ndcg", 10, n)
    biases, variances = [], []
    for trade_off in [0.0, 0.001, 0.01, 0.1, 0.5, 1.0]:
        table = sampled_metric_table(
            n_negatives=m,
            n_items=n,
            metric="ndcg",
            k=10,
            trade_off=trade_off,
            estimator="minimal_bias" if trade_off == 0 else "bias_variance",
        )
        biases.append(squared_bias(probability, exact, table))
        variances.append(mean_variance(probability, table))
    assert np.all(np.diff(biases) > 0), biases
    assert np.all(np.diff(variances) < 0), variances


@pytest.mark.parametrize(
    "estimator, trade_off",
    [
        ("minimal_bias", 0.0),
        ("bias_variance", 0.01),
        ("bias_variance", 0.3),
        ("bias_variance", 1.0),
    ],
)
def test_corrections_are_unbiased_for_a_random_model(estimator, trade_off):
    # Under the prior itself (every full rank equally likely: a random scorer) the
    # least-squares tables are exactly unbiased: sum_r p(r) E[T | r] = sum_r p(r) M(r).
    n, m = 300, 25
    probability = scipy_distribution(np.arange(1, n + 1), n, m)
    exact = exact_metric(np.arange(1, n + 1), "mrr", None, n)
    table = sampled_metric_table(
        n_negatives=m, n_items=n, metric="mrr", estimator=estimator, trade_off=trade_off
    )
    assert np.mean(probability @ table) == pytest.approx(exact.mean(), rel=1e-8)
    naive = sampled_metric_table(n_negatives=m, n_items=n, metric="mrr", estimator="naive")
    assert np.mean(probability @ naive) > 5 * exact.mean()


def test_rank_estimate_rescales_the_sampled_rank():
    # n = 1001, m = 4: r~ = 1..5 -> 1 + 1000 (r~ - 1) / 4 = 1, 251, 501, 751, 1001
    table = sampled_metric_table(
        n_negatives=4, n_items=1001, metric="mrr", estimator="rank_estimate"
    )
    np.testing.assert_allclose(table, 1 / np.array([1, 251, 501, 751, 1001]))
    # the floor: n = 10, m = 4: 1 + 9 (r~ - 1) / 4 = 1, 3.25, 5.5, 7.75, 10 -> 1, 3, 5, 7, 10
    table = sampled_metric_table(
        n_negatives=4, n_items=10, metric="ndcg", estimator="rank_estimate"
    )
    np.testing.assert_allclose(table, 1 / np.log2(np.array([1, 3, 5, 7, 10]) + 1))


def test_tables_do_not_depend_on_the_chunking():
    for sampling in ["hypergeometric", "binomial"]:
        for trade_off in [0.0, 0.1, 1.0]:
            whole = _least_squares_table(20, 300, "ndcg", 5, trade_off, sampling)
            chunked = _least_squares_table(20, 300, "ndcg", 5, trade_off, sampling, chunk_rows=7)
            np.testing.assert_allclose(chunked, whole, rtol=1e-7, atol=1e-9)


def test_a_catalogue_of_a_million_items():
    # The uniform sampled-rank marginal (c = 1 / (m + 1)) and unbiasedness under the
    # uniform prior give mean(T) = mean_r M(r) = 10 / n for HR@10, at any n.
    n, m = 1_000_000, 100
    table = sampled_metric_table(n_negatives=m, n_items=n, metric="hit_rate", k=10)
    assert table.shape == (m + 1,) and np.all(np.isfinite(table))
    assert table.mean() == pytest.approx(10 / n, rel=1e-6)
    assert not table.flags.writeable


# --------------------------------------------------------------------------- simulation

N_ITEMS, N_NEGATIVES, N_USERS = 5_000, 100, 20_000


def simulated_models():
    rng = np.random.default_rng(2020)
    return {
        # never in the top 10, never bad: the paper's "flat" recommender
        "flat": rng.integers(40, 401, N_USERS),
        # very good for 12% of users, random for the rest: sharp head, bad tail
        "head": np.where(
            rng.random(N_USERS) < 0.12,
            rng.integers(1, 4, N_USERS),
            rng.integers(1, N_ITEMS + 1, N_USERS),
        ),
        # decent on average
        "geometric": np.minimum(rng.geometric(1 / 150, N_USERS), N_ITEMS),
    }


@pytest.fixture(scope="module")
def simulation():
    """Per model: the true ranks and sampled ranks drawn by numpy's own sampler."""
    rng = np.random.default_rng(7)
    result = {}
    for name, ranks in simulated_models().items():
        # m negatives without replacement from the n - 1 others, r - 1 of them above
        sampled = rng.hypergeometric(ranks - 1, N_ITEMS - ranks, N_NEGATIVES) + 1
        result[name] = (ranks, sampled)
    return result


def log_binomial(a, b):
    """log C(a, b) through the beta function (scipy.stats is too slow for 500k cells)."""
    return -np.log1p(a) - special.betaln(a - b + 1, b + 1)


@pytest.fixture(scope="module")
def scipy_probability():
    """P(r~ | r) for every full rank of the simulated catalogue (row r - 1)."""
    ranks = np.arange(1, N_ITEMS + 1)[:, None]
    above = np.arange(N_NEGATIVES + 1)[None, :]
    valid = (above <= ranks - 1) & (N_NEGATIVES - above <= N_ITEMS - ranks)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_p = (
            log_binomial(ranks - 1, above)
            + log_binomial(N_ITEMS - ranks, N_NEGATIVES - above)
            - log_binomial(N_ITEMS - 1, N_NEGATIVES)
        )
    probability = np.where(valid, np.exp(np.where(valid, log_p, 0.0)), 0.0)
    rows = np.array([0, 1, 99, 2_500, 4_998, 4_999])
    np.testing.assert_allclose(  # spot check against scipy itself
        probability[rows],
        scipy_distribution(rows + 1, N_ITEMS, N_NEGATIVES),
        rtol=1e-8,
        atol=1e-15,
    )
    return probability


SIMULATED_METRICS = [("hit_rate", 10), ("ndcg", 10), ("mrr", None), ("hit_rate", 50)]
CORRECTIONS = [("rank_estimate", 0.1), ("bias_variance", 0.1), ("bias_variance", 0.01)]


def _estimate(sampled, metric, k, estimator, trade_off):
    values = sampled_metric_estimate(
        sampled,
        n_negatives=N_NEGATIVES,
        n_items=N_ITEMS,
        metric=metric,
        k=k,
        estimator=estimator,
        trade_off=trade_off,
        per_query=True,
    )
    return values.mean(), values.std() / math.sqrt(len(values))


@pytest.mark.parametrize("metric, k", SIMULATED_METRICS)
def test_simulation_matches_the_analysis_and_corrections_beat_naive(
    simulation, scipy_probability, metric, k
):
    naive_errors, corrected_errors = [], {name: [] for name in CORRECTIONS}
    for ranks, sampled in simulation.values():
        true = exact_metric(ranks, metric, k, N_ITEMS).mean()
        distinct, counts = np.unique(ranks, return_counts=True)
        probability = scipy_probability[distinct - 1]
        predicted_errors = {}
        for estimator, trade_off in [("naive", 0.1), *CORRECTIONS]:
            table = sampled_metric_table(
                n_negatives=N_NEGATIVES,
                n_items=N_ITEMS,
                metric=metric,
                k=k,
                estimator=estimator,
                trade_off=trade_off,
            )
            # the paper's analysis: E[estimate] = mean_u sum_r~ P(r~ | r_u) T[r~]
            predicted = counts @ (probability @ table) / counts.sum()
            observed, standard_error = _estimate(sampled, metric, k, estimator, trade_off)
            assert abs(observed - predicted) < 5 * standard_error + 1e-6
            predicted_errors[estimator, trade_off] = abs(predicted - true)
            if estimator == "naive":
                naive_errors.append(observed - true)
            else:
                corrected_errors[estimator, trade_off].append(observed - true)
        for correction in CORRECTIONS:
            assert predicted_errors[correction] < predicted_errors["naive", 0.1]
    naive_rms = np.sqrt(np.mean(np.square(naive_errors)))
    assert naive_rms > 0.05
    for correction, errors in corrected_errors.items():
        assert np.sqrt(np.mean(np.square(errors))) < 0.5 * naive_rms, correction
    for correction in [("bias_variance", 0.1), ("bias_variance", 0.01)]:
        rms = np.sqrt(np.mean(np.square(corrected_errors[correction])))
        assert rms < 0.2 * naive_rms, correction


@pytest.mark.parametrize("metric, k", [("hit_rate", 10), ("ndcg", 10), ("mrr", None)])
def test_corrections_restore_the_order_the_naive_metric_inverts(simulation, metric, k):
    # "flat" never reaches the top 10; "head" does for 12% of users. Full metric:
    # head > flat. Naive sampled metric: flat > head, since rank 40..400 of 5,000 beats
    # almost all of 100 random negatives. The corrections order them like the full one.
    (flat_ranks, flat_sampled), (head_ranks, head_sampled) = (
        simulation["flat"],
        simulation["head"],
    )
    assert (
        exact_metric(head_ranks, metric, k, N_ITEMS).mean()
        > exact_metric(flat_ranks, metric, k, N_ITEMS).mean()
    )
    for estimator, trade_off in [("naive", 0.1), *CORRECTIONS]:
        flat, flat_se = _estimate(flat_sampled, metric, k, estimator, trade_off)
        head, head_se = _estimate(head_sampled, metric, k, estimator, trade_off)
        margin = 4 * (flat_se + head_se)
        if estimator == "naive":
            assert flat > head + margin
        else:
            assert head > flat + margin, (estimator, trade_off)


def test_end_to_end_with_drawn_negatives_and_flat_arrays():
    """Draw negatives item by item, rank them with sampled_ranks, estimate."""
    n, m, n_users = 2_000, 100, 300
    rng = np.random.default_rng(11)
    true_rank = np.where(
        rng.random(n_users) < 0.3, rng.integers(1, 6, n_users), rng.integers(1, n + 1, n_users)
    )
    rows_label, rows_score, rows_group, expected = [], [], [], []
    for user, r in enumerate(true_rank):
        others = np.delete(np.arange(1, n + 1), r - 1)  # full ranks of the other items
        negatives = rng.choice(others, size=m, replace=False)
        expected.append(1 + int(np.sum(negatives < r)))
        full_ranks = np.concatenate([[r], negatives])
        rows_label.extend([1] + [0] * m)
        rows_score.extend(list(n - full_ranks + rng.random() * 0.5))  # score falls with rank
        rows_group.extend([f"user{user:04d}"] * (m + 1))
    order = rng.permutation(len(rows_label))
    result = sampled_ranks(
        np.array(rows_label)[order], np.array(rows_score)[order], np.array(rows_group)[order]
    )
    assert result.query_ids.tolist() == [f"user{user:04d}" for user in range(n_users)]
    np.testing.assert_array_equal(result.rank, expected)
    np.testing.assert_array_equal(result.n_negatives, m)
    fixed = {"metric": "hit_rate", "k": 10, "estimator": "bias_variance"}
    estimate = sampled_metric_estimate(
        result.rank, n_negatives=result.n_negatives, n_items=n, **fixed
    )
    same = sampled_metric_estimate(result.rank, n_negatives=m, n_items=n, **fixed)
    assert estimate == same
    # the result of sampled_ranks feeds sampled_metric_estimate as it is
    assert sampled_metric_estimate(result, n_items=n, **fixed) == estimate
    assert sampled_metric_estimate(result, n_negatives=m, n_items=n, **fixed) == estimate
    with pytest.raises(ValueError, match="n_negatives .* must be left out .* differs"):
        sampled_metric_estimate(result, n_negatives=m + 1, n_items=n, metric="hit_rate", k=10)
    with pytest.raises(ValueError, match="n_negatives .* is required with plain ranks"):
        sampled_metric_estimate(result.rank, n_items=n, metric="hit_rate", k=10)
    # expected value of the estimate given the true ranks (the analysis), 5 standard errors
    table = sampled_metric_table(n_negatives=m, n_items=n, metric="hit_rate", k=10)
    predicted = np.mean(scipy_distribution(true_rank, n, m) @ table)
    spread = np.std(table[result.rank - 1]) / math.sqrt(n_users)
    assert abs(estimate - predicted) < 5 * spread


# --------------------------------------------------------------------------- sampled_ranks


def tie_example():
    # group "b": positive 0.5; negatives 0.9 (above), 0.5, 0.5 (tied), 0.1
    # group "a": positive 0.2; negatives 0.2 (tied, after it in input), 0.3 (above)
    # group "c": positive alone
    y_true = [0, 1, 0, 0, 1, 0, 0, 0, 1, 0]
    y_score = [0.5, 0.2, 0.9, 0.2, 0.5, 0.5, 0.1, 0.3, 7.0, 0.5]
    group = ["b", "a", "b", "a", "b", "b", "b", "a", "c", "b"]
    # rows of "b": 0 (0.5, before the positive at row 4), 2, 4, 5 (0.5), 6, 9 (0.5)
    return y_true, y_score, group


@pytest.mark.parametrize(
    "ties, expected_rank",
    [
        ("optimistic", {"a": 2, "b": 2, "c": 1}),
        ("pessimistic", {"a": 3, "b": 5, "c": 1}),
        ("input", {"a": 2, "b": 3, "c": 1}),
    ],
)
def test_sampled_ranks_by_hand(ties, expected_rank):
    y_true, y_score, group = tie_example()
    result = sampled_ranks(y_true, y_score, group, ties=ties)
    assert result.query_ids.tolist() == ["a", "b", "c"]
    assert result.rank.tolist() == [expected_rank[key] for key in "abc"]
    assert result.n_negatives.tolist() == [2, 5, 0]
    assert result.rank.dtype == np.int64


def test_sampled_ranks_do_not_depend_on_row_order_except_input_ties():
    y_true, y_score, group = (np.array(value) for value in tie_example())
    order = np.random.default_rng(3).permutation(len(y_true))
    for ties in ["optimistic", "pessimistic"]:
        a = sampled_ranks(y_true, y_score, group, ties=ties)
        b = sampled_ranks(y_true[order], y_score[order], group[order], ties=ties)
        np.testing.assert_array_equal(a.rank, b.rank)


def test_random_ties_are_uniform_between_the_bounds():
    y_true, y_score, group = tie_example()
    draws = np.array(
        [
            sampled_ranks(y_true, y_score, group, ties="random", random_state=seed).rank
            for seed in range(600)
        ]
    )
    assert draws[:, 0].min() == 2 and draws[:, 0].max() == 3  # "a": 1 tie
    assert set(draws[:, 1]) == {2, 3, 4, 5}  # "b": 3 ties
    # expected rank of "b": 2 + 3/2; the package's "average" would use this expectation
    assert draws[:, 1].mean() == pytest.approx(3.5, abs=0.15)
    again = sampled_ranks(y_true, y_score, group, ties="random", random_state=5).rank
    np.testing.assert_array_equal(again, draws[5])


def test_sampled_ranks_two_dimensional_and_single_group():
    y_true = np.array([[0, 1, 0, 0], [0, 0, 0, 1]])
    y_score = np.array([[0.3, 0.2, 0.1, 0.4], [0.1, 0.2, 0.3, 0.4]])
    result = sampled_ranks(y_true, y_score)
    assert result.query_ids.tolist() == [0, 1]
    assert result.rank.tolist() == [3, 1]
    assert result.n_negatives.tolist() == [3, 3]
    # flat rows need their group ids; one group on purpose is group=zeros
    with pytest.raises(ValueError, match="'group' parameter of sampled_ranks is required"):
        sampled_ranks(y_true[0], y_score[0])
    single = sampled_ranks(y_true[0], y_score[0], np.zeros(4))
    assert single.rank.tolist() == [3] and single.n_negatives.tolist() == [3]


def test_sampled_ranks_relevance_level():
    # grade 1 rows are negatives when the level is 2
    result = sampled_ranks([1, 2, 0], [0.9, 0.5, 0.1], [0, 0, 0], relevance_level=2)
    assert result.rank.tolist() == [2]


def test_sampled_ranks_integer_groups_unsorted():
    result = sampled_ranks([0, 1, 1, 0], [0.5, 0.4, 0.6, 0.7], [20, 10, 20, 10])
    assert result.query_ids.tolist() == [10, 20]
    assert result.rank.tolist() == [2, 1]


@pytest.mark.parametrize(
    "y_true, y_score, group, error, match",
    [
        (
            [0, 1, 0, 0],
            [1, 2, 3, 4],
            ["a", "a", "b", "b"],
            ValueError,
            r"exactly one relevant row \(y_true > 0\) per group.*group 'b' has 0",
        ),
        ([1, 1, 0, 1], [1, 2, 3, 4], ["a", "a", "b", "b"], ValueError, r"group 'a' has 2"),
        (
            [0, 0, 0, 1, 0],
            [1, 2, 3, 4, 5],
            [1, 2, 3, 3, 4],
            ValueError,
            r"group 1 has 0 \(2 more groups are affected\)",
        ),
        ([0, 1], [0.1, np.nan], None, ValueError, r"y_score of sampled_ranks must not be NaN"),
        ([0, 1], [0.1, 0.2, 0.3], None, ValueError, r"same shape"),
        ([0, 1], [0.1, 0.2], ["a"], ValueError, r"group of sampled_ranks must have one id per row"),
        ([[0, 1]], [[0.1, 0.2]], [0], ValueError, r"group of sampled_ranks must be None for 2-D"),
        (["x", "y"], [0.1, 0.2], None, TypeError, r"y_true of sampled_ranks must hold numbers"),
    ],
)
def test_sampled_ranks_errors(y_true, y_score, group, error, match):
    with pytest.raises(error, match=match):
        sampled_ranks(y_true, y_score, group)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (
            {"ties": "average"},
            ValueError,
            r"The 'ties' parameter of sampled_ranks must be a str among "
            r"\{'pessimistic', 'optimistic', 'input', 'random'\}\. Got 'average' instead\.",
        ),
        ({"random_state": "seed"}, TypeError, r"The 'random_state' parameter of sampled_ranks"),
        ({"relevance_level": "high"}, TypeError, r"The 'relevance_level' parameter"),
    ],
)
def test_sampled_ranks_parameter_errors(params, error, match):
    with pytest.raises(error, match=match):
        sampled_ranks([0, 1], [0.1, 0.2], **params)


# --------------------------------------------------------------------------- estimate API


def test_per_user_numbers_of_negatives():
    ranks = np.array([1, 3, 2, 11, 1, 4])
    negatives = np.array([5, 10, 5, 10, 10, 5])
    combined = sampled_metric_estimate(
        ranks, n_negatives=negatives, n_items=50, metric="ndcg", k=5, per_query=True
    )
    for m in (5, 10):
        alone = sampled_metric_estimate(
            ranks[negatives == m], n_negatives=m, n_items=50, metric="ndcg", k=5, per_query=True
        )
        np.testing.assert_array_equal(combined[negatives == m], alone)
    mean = sampled_metric_estimate(ranks, n_negatives=negatives, n_items=50, metric="ndcg", k=5)
    assert mean == pytest.approx(combined.mean())


def test_estimate_accepts_lists_floats_and_pandas():
    import pandas as pd  # a test dependency

    expected = sampled_metric_estimate(np.array([1, 2, 3]), n_negatives=4, n_items=9, metric="mrr")
    for ranks in ([1, 2, 3], [1.0, 2.0, 3.0], pd.Series([1, 2, 3])):
        assert sampled_metric_estimate(ranks, n_negatives=4, n_items=9, metric="mrr") == expected


@pytest.mark.parametrize(
    "ranks, params, error, match",
    [
        (
            [1],
            {"n_negatives": 0, "n_items": 5},
            ValueError,
            r"The 'n_negatives' parameter of sampled_metric_estimate must be an int >= 1, an "
            r"array-like or None\. Got 0 instead\.",
        ),
        (
            [1],
            {"n_negatives": 5, "n_items": 5},
            ValueError,
            r"The 'n_items' parameter of sampled_metric_estimate must be > n_negatives.*"
            r"Got n_items=5 with n_negatives=5",
        ),
        (
            [1, 1],
            {"n_negatives": [3, 9], "n_items": 9},
            ValueError,
            r"n_items=9 with n_negatives=9 \(user 1\)",
        ),
        (
            [1, 2, 0],
            {"n_negatives": 3, "n_items": 9},
            ValueError,
            r"sampled_rank of sampled_metric_estimate must hold ranks in \[1, n_negatives \+ 1\]; "
            r"got 0 at user 2 \(n_negatives=3\)",
        ),
        ([1, 5], {"n_negatives": 3, "n_items": 9}, ValueError, r"got 5 at user 1"),
        ([1, 5], {"n_negatives": [3, 4], "n_items": 9}, None, None),
        (
            [1, 1.5],
            {"n_negatives": 3, "n_items": 9},
            ValueError,
            r"sampled_rank of sampled_metric_estimate must hold integers; got 1.5 at entry 1",
        ),
        (["1"], {"n_negatives": 3, "n_items": 9}, TypeError, r"must hold integers; got dtype"),
        ([], {"n_negatives": 3, "n_items": 9}, ValueError, r"sampled_rank .* is empty"),
        ([[1]], {"n_negatives": 3, "n_items": 9}, ValueError, r"must be 1-D"),
        (
            [1, 2],
            {"n_negatives": [3], "n_items": 9},
            ValueError,
            r"n_negatives of sampled_metric_estimate must be an int or have one entry per "
            r"user \(2\)",
        ),
        (
            [1, 2],
            {"n_negatives": [3, 0], "n_items": 9},
            ValueError,
            r"n_negatives of sampled_metric_estimate must be >= 1; got 0 at user 1",
        ),
        (
            [1],
            {"n_negatives": 3, "n_items": 9, "k": 0},
            ValueError,
            r"The 'k' parameter of sampled_metric_estimate must be an int >= 1 or None\. Got 0",
        ),
        (
            [1],
            {"n_negatives": 3, "n_items": 9, "metric": "auc", "k": 5},
            ValueError,
            r"'k' parameter .* must be None for metric='auc'",
        ),
        (
            [1],
            {"n_negatives": 3, "n_items": 9, "metric": "precision"},
            ValueError,
            r"'metric' parameter .* among "
            r"\{'hit_rate', 'ndcg', 'mrr', 'ap', 'auc', 'map', 'gauc'\}",
        ),
        (
            [1],
            {"n_negatives": 3, "n_items": 9, "estimator": "cls"},
            ValueError,
            r"'estimator' parameter",
        ),
        (
            [1],
            {"n_negatives": 3, "n_items": 9, "trade_off": 1.5},
            ValueError,
            r"'trade_off' parameter of sampled_metric_estimate must be a float in the range "
            r"\[0, 1\]\. Got 1.5",
        ),
        ([1], {"n_negatives": 3, "n_items": 9, "trade_off": "0.1"}, TypeError, r"'trade_off'"),
        ([1], {"n_negatives": 3, "n_items": 9, "sampling": "poisson"}, ValueError, r"'sampling'"),
        ([1], {"n_negatives": 3, "n_items": 1}, ValueError, r"'n_items' parameter .* >= 2"),
        ([1], {"n_negatives": 3.0, "n_items": 9}, TypeError, r"'n_negatives' parameter"),
        ([1], {"n_negatives": 3, "n_items": 9, "per_query": 1}, TypeError, r"'per_query'"),
    ],
)
def test_estimate_errors(ranks, params, error, match):
    if error is None:
        sampled_metric_estimate(ranks, **params)  # rank 5 is valid with 4 negatives
        return
    with pytest.raises(error, match=match):
        sampled_metric_estimate(ranks, **params)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: sampled_metric_table(n_negatives=0, n_items=5),
            ValueError,
            r"'n_negatives' parameter of sampled_metric_table must be an int >= 1",
        ),
        (
            lambda: sampled_metric_table(n_negatives=5, n_items=3),
            ValueError,
            r"'n_items' parameter of sampled_metric_table must be > n_negatives",
        ),
        (
            lambda: sampled_rank_distribution([0], n_negatives=2, n_items=5),
            ValueError,
            r"true_rank of sampled_rank_distribution must hold ranks in \[1, n_items=5\]; got 0 at "
            r"entry 0",
        ),
        (
            lambda: sampled_rank_distribution([6], n_negatives=2, n_items=5),
            ValueError,
            r"got 6 at entry 0",
        ),
        (
            lambda: sampled_rank_distribution([1], n_negatives=5, n_items=5),
            ValueError,
            r"must be > n_negatives",
        ),
    ],
)
def test_table_and_distribution_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_sampled_estimates_refuse_a_pass_over_a_huge_catalogue():
    from sklearn_rank_metrics import sampled_metric_estimate, sampled_metric_table

    for estimator in ("rank_distribution", "bias_variance", "minimal_bias"):
        with pytest.raises(ValueError, match=r"n_items=1,000,000,000,000 full ranks"):
            sampled_metric_estimate([1, 2, 3], n_negatives=100, n_items=10**12,
                                    metric="hit_rate", k=10, estimator=estimator)
    with pytest.raises(ValueError, match="takes one pass over all n_items"):
        sampled_metric_table(n_negatives=100, n_items=10**12, metric="ndcg")
    # the naive metric and the rescaled rank need no pass: they answer at once
    assert sampled_metric_estimate([1, 2, 3], n_negatives=100, n_items=10**12,
                                   metric="hit_rate", k=2, estimator="naive") == 2 / 3


# --------------------------------------------------------------------------- robust default

# full-rank shapes of a catalogue of 10,000 items: a model near the top, a bimodal one
# (30% of users at ranks 1-5, the rest anywhere), a geometric one and a random one
SHAPES = {
    "good": lambda rng, u: np.minimum(rng.geometric(1 / 5, u), 10_000),
    "bimodal": lambda rng, u: np.where(
        rng.random(u) < 0.3, rng.integers(1, 6, u), rng.integers(1, 10_001, u)
    ),
    "geometric": lambda rng, u: np.minimum(rng.geometric(1 / 200, u), 10_000),
    "uniform": lambda rng, u: rng.integers(1, 10_001, u),
}


def _draw(shape, seed, n_users=4_000, n=10_000, m=100):
    rng = np.random.default_rng(seed)
    full = SHAPES[shape](rng, n_users)
    return full, 1 + rng.hypergeometric(full - 1, n - full, m)


@pytest.fixture(scope="module")
def drawn():
    """``_draw``, each (shape, seed, n_users) drawn once for the module and shared.

    The default estimator keeps its last fits (the fit does not depend on the
    metric), so two metrics of one draw, run one after the other, pay for one fit
    and one bootstrap.
    """
    draws = {}

    def draw(shape, seed, n_users=4_000):
        if (shape, seed, n_users) not in draws:
            draws[shape, seed, n_users] = _draw(shape, seed, n_users)
        return draws[shape, seed, n_users]

    return draw


# the metric is the inner parameter: both metrics of a shape run one after the other
@pytest.mark.parametrize(("metric", "k"), [("hit_rate", 10), ("ndcg", 10)])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_default_estimator_is_unbiased_on_every_model_shape(drawn, shape, metric, k):
    # truth: the metric of the full ranks; the default estimate must lie within 3
    # of its own standard errors of it in every trial, on every shape, including the
    # good and bimodal models where the uniform-prior corrections are far off
    errors, naive_errors, bias_variance_errors = [], [], []
    for seed in range(2):
        full, sampled = drawn(shape, seed)
        truth = exact_metric(full, metric, k, 10_000).mean()
        estimate, std_err = sampled_metric_estimate(
            sampled, n_negatives=100, n_items=10_000, metric=metric, k=k,
            return_std_err=True,
        )
        assert 0.0 <= estimate <= 1.0 and std_err > 0
        assert abs(estimate - truth) < 3 * std_err + 1e-3, (seed, estimate, truth, std_err)
        errors.append(abs(estimate - truth))
        for estimator, bucket in (("naive", naive_errors),
                                  ("bias_variance", bias_variance_errors)):
            value = sampled_metric_estimate(
                sampled, n_negatives=100, n_items=10_000, metric=metric, k=k,
                estimator=estimator,
            )
            bucket.append(abs(value - truth))
    assert np.mean(errors) < np.mean(naive_errors)
    if shape in ("good", "bimodal"):  # where the uniform prior misleads the tables
        assert np.mean(errors) < 0.25 * np.mean(bias_variance_errors)


def test_default_standard_error_matches_the_spread_over_trials(drawn):
    estimates, reported = [], []
    for seed in range(12):
        _, sampled = drawn("bimodal", 100 + seed, n_users=2_000)
        estimate, std_err = sampled_metric_estimate(
            sampled, n_negatives=100, n_items=10_000, metric="hit_rate", k=10,
            return_std_err=True,
        )
        estimates.append(estimate)
        reported.append(std_err)
    ratio = np.std(estimates, ddof=1) / np.mean(reported)
    assert 0.5 < ratio < 2.0, ratio


def test_table_estimators_report_the_standard_error_of_a_mean():
    ranks = np.array([1, 1, 2, 3, 7, 11, 30, 101])
    table = sampled_metric_table(n_negatives=100, n_items=1_000, metric="mrr",
                                 estimator="rank_estimate")
    values = table[ranks - 1]
    estimate, std_err = sampled_metric_estimate(
        ranks, n_negatives=100, n_items=1_000, metric="mrr", estimator="rank_estimate",
        return_std_err=True,
    )
    assert estimate == pytest.approx(values.mean(), rel=1e-12)
    assert std_err == pytest.approx(values.std(ddof=1) / math.sqrt(len(values)), rel=1e-12)
    with pytest.raises(ValueError, match="not both"):
        sampled_metric_estimate(ranks, n_negatives=100, n_items=1_000, per_query=True,
                                return_std_err=True)


def test_an_estimate_outside_the_metric_range_is_never_silent(drawn):
    # the minimal-bias table oscillates with huge entries for n / m = 100: its mean
    # over these users is far outside [0, 1], so it is refused, saying why
    _, sampled = drawn("bimodal", 0, n_users=5_000)
    table = sampled_metric_table(n_negatives=100, n_items=10_000, metric="hit_rate", k=10,
                                 estimator="minimal_bias")
    assert not 0 <= table[sampled - 1].mean() <= 1
    with pytest.raises(ValueError, match=r"outside the range \[0, 1\] of hit_rate "
                       r"\(standard error .*\), so it is refused: .*nearly singular"):
        sampled_metric_estimate(
            sampled, n_negatives=100, n_items=10_000, metric="hit_rate", k=10,
            estimator="minimal_bias", return_std_err=True,
        )


def test_the_sampled_estimate_outside_its_range_is_refused():
    # issue 32: no longer a warning (which pointed at this line), a ValueError
    ranks = np.r_[np.ones(50, int), np.full(50, 3), np.full(100, 60)]
    with pytest.raises(ValueError, match="so it is refused"):
        sampled_metric_estimate(
            ranks, n_negatives=100, n_items=10_000, metric="hit_rate", k=10,
            estimator="minimal_bias",
        )


def test_sampled_metrics_take_the_registry_names():
    # "map" and "gauc" are what evaluate() calls AP and AUC: with one relevant item
    # per user they are the same tables as "ap" and "auc"
    from sklearn_rank_metrics._metrics._registry import METRICS

    assert {"map", "gauc"} <= set(METRICS)
    ranks = [1, 2, 3, 5, 8]
    for registry_name, own_name, k in (("map", "ap", 3), ("gauc", "auc", None)):
        for estimator in ("naive", "rank_estimate", "rank_distribution"):
            expected = sampled_metric_estimate(ranks, n_negatives=9, n_items=50,
                                               metric=own_name, k=k, estimator=estimator)
            got = sampled_metric_estimate(ranks, n_negatives=9, n_items=50,
                                          metric=registry_name, k=k, estimator=estimator)
            assert got == expected
    # AUC of one item at sampled rank r among 10: (10 - r) / 9, by hand
    naive = sampled_metric_estimate([1, 4], n_negatives=9, n_items=50, metric="gauc",
                                    estimator="naive")
    assert naive == pytest.approx(((10 - 1) / 9 + (10 - 4) / 9) / 2, rel=1e-15)
