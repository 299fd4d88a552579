"""Hostile input for the sampled-metric estimators (issue 32, round 3).

- The minimal-bias table is a least-squares solution of a nearly singular system; its
  mean over users can land far outside the metric's range (1e6 and more for NDCG@10
  with n = 10,000 and m = 100). Such a number is refused, not returned with a warning.
- The default estimator's bootstrap (200 EM refits) runs only when its result is asked
  for (``return_std_err=True``), and its EM products are the plain matrix products of
  the update, checked here against a hand-written EM.
"""

import math

import numpy as np
import pytest
from scipy import stats

import sklearn_rank_metrics._sampled._distribution as distribution
from sklearn_rank_metrics import sampled_metric_estimate, sampled_metric_table


def _draw_bimodal(n_users, seed=0, n=10_000, m=100):
    # half the held-out items near the top, half anywhere: sampled ranks drawn from
    # the hypergeometric model (scipy's parametrisation, independent of ours)
    rng = np.random.default_rng(seed)
    top = rng.integers(1, 51, n_users)
    anywhere = rng.integers(1, n + 1, n_users)
    full = np.where(rng.random(n_users) < 0.5, top, anywhere)
    sampled = 1 + stats.hypergeom.rvs(n - 1, full - 1, m, random_state=rng)
    return full, sampled


@pytest.fixture(scope="module")
def bimodal_users():
    """Sampled ranks of 4,000 users, drawn once for the module's tests."""
    return _draw_bimodal(4_000)[1]


@pytest.mark.parametrize(("metric", "k"), [("ndcg", 10), ("hit_rate", 10)])
@pytest.mark.parametrize("per_query", [False, True])
def test_a_minimal_bias_estimate_outside_the_range_is_refused(
    bimodal_users, metric, k, per_query
):
    sampled = bimodal_users
    # the table itself: entries of 1e8 and more for n / m = 100 (any sane cutoff)
    table = sampled_metric_table(n_negatives=100, n_items=10_000, metric=metric, k=k,
                                 estimator="minimal_bias")
    assert np.abs(table).max() > 1e6
    mean = table[sampled - 1].mean()
    assert not 0 <= mean <= 1  # the number that used to come back, with a warning
    with pytest.raises(ValueError, match=r"'minimal_bias' estimate of sampled_metric_"
                       rf"estimate is .*outside the range \[0, 1\] of {metric} "
                       r"\(standard error .*\), so it is refused.*"
                       r"estimator='rank_distribution'"):
        sampled_metric_estimate(sampled, n_negatives=100, n_items=10_000, metric=metric,
                                k=k, estimator="minimal_bias", per_query=per_query)


def test_minimal_bias_in_range_is_still_returned():
    # no sampling (m = n - 1, hypergeometric): r~ = r, the table is the metric itself
    # and the estimate is the exact mean, by hand: (1 + 1/log2(3) + 0) / 3 at k = 2
    n = 40
    table = sampled_metric_table(n_negatives=n - 1, n_items=n, metric="ndcg", k=2,
                                 estimator="minimal_bias")
    expected = np.zeros(n)
    expected[:2] = [1.0, 1.0 / math.log2(3)]
    np.testing.assert_allclose(table, expected, atol=1e-12)
    estimate = sampled_metric_estimate([1, 2, 7], n_negatives=n - 1, n_items=n,
                                       metric="ndcg", k=2, estimator="minimal_bias")
    assert estimate == pytest.approx((1 + 1 / math.log2(3)) / 3, abs=1e-12)


def test_bias_variance_estimates_stay_in_range_and_are_returned(bimodal_users):
    sampled = bimodal_users
    for metric in ("ndcg", "hit_rate"):
        estimate = sampled_metric_estimate(sampled, n_negatives=100, n_items=10_000,
                                           metric=metric, k=10, estimator="bias_variance")
        assert 0 <= estimate <= 1


def test_the_bootstrap_runs_only_when_its_standard_error_is_asked_for(monkeypatch):
    fitted_rows = []
    original = distribution.fit_rank_distribution

    def recording(counts, likelihood):
        fitted_rows.append(len(counts))
        return original(counts, likelihood)

    monkeypatch.setattr(distribution, "fit_rank_distribution", recording)
    ranks = np.array([1, 1, 2, 3, 5, 8, 13, 21, 34])
    plain = sampled_metric_estimate(ranks, n_negatives=40, n_items=500, metric="mrr")
    assert fitted_rows == [1]  # the one fit; no 200 resamples thrown away
    per_user = sampled_metric_estimate(ranks, n_negatives=40, n_items=500, metric="mrr",
                                       per_query=True)
    assert fitted_rows == [1, 1]
    fitted_rows.clear()
    estimate, std_err = sampled_metric_estimate(ranks, n_negatives=40, n_items=500,
                                                metric="mrr", return_std_err=True)
    assert fitted_rows == [1, 200] and std_err > 0
    assert estimate == plain == pytest.approx(per_user.mean(), rel=1e-12)


def test_the_em_update_is_the_matrix_products_it_stands_for(monkeypatch):
    # one EM for the bin masses, written with plain matrix products, against ours
    rng = np.random.default_rng(3)
    likelihood = rng.random((30, 12))
    likelihood /= likelihood.sum(axis=1, keepdims=True)
    counts = rng.integers(0, 20, size=(5, 12)).astype(np.float64)
    counts[:, 4] = 0  # an unobserved sampled rank
    masses = np.tile(likelihood.sum(axis=1), (5, 1))
    masses /= masses.sum(axis=1, keepdims=True)
    for _ in range(200):
        expected = masses @ likelihood
        ratio = np.where(counts > 0, counts / np.where(counts > 0, expected, 1), 0)
        masses = masses * (ratio @ likelihood.T) / counts.sum(axis=1, keepdims=True)
    monkeypatch.setattr(distribution, "_ITERATIONS", 200)
    monkeypatch.setattr(distribution, "_TOLERANCE", 0.0)
    ours = distribution.fit_rank_distribution(counts, likelihood)
    np.testing.assert_allclose(ours, masses, rtol=1e-10, atol=1e-15)
