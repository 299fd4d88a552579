"""make_ranking: shapes, label shares, the planted signal, reproducibility, errors."""

import numpy as np
import pytest
from scipy import stats

from sklearn_rank_metrics import make_ranking, ndcg_score
from tests.support.reference import reference_mean


def test_shapes_ids_and_labels():
    X, y, group = make_ranking(30, 12, 6, relevance_levels=3, random_state=0)
    assert X.shape == (360, 6) and y.shape == (360,) and group.shape == (360,)
    assert X.dtype == np.float64 and y.dtype == np.float64
    # contiguous query ids 0..29, twelve rows each
    np.testing.assert_array_equal(group, np.repeat(np.arange(30), 12))
    assert set(np.unique(y)) == {0.0, 1.0, 2.0}


def test_label_shares_halve_from_grade_to_grade():
    _, y, _ = make_ranking(400, 50, 4, relevance_levels=4, random_state=1)
    shares = np.bincount(y.astype(int)) / len(y)
    # shares proportional to 1, 1/2, 1/4, 1/8: 8/15, 4/15, 2/15, 1/15 (quantile thresholds)
    np.testing.assert_allclose(shares, np.array([8, 4, 2, 1]) / 15, atol=2e-3)


def test_variable_query_sizes_within_range():
    _, _, group = make_ranking(200, (3, 9), 3, random_state=2)
    sizes = np.bincount(group)
    assert len(sizes) == 200
    assert sizes.min() == 3 and sizes.max() == 9


def test_signal_lives_in_the_informative_features():
    X, y, group, w = make_ranking(
        300, 20, 6, n_informative=2, noise=0.5, coef=True, random_state=3
    )
    assert np.all(w[2:] == 0) and np.all((w[:2] >= 0.5) & (w[:2] <= 1.5))
    # each informative feature correlates with the label, the others do not
    for j in range(6):
        rho = stats.spearmanr(X[:, j], y).statistic
        if j < 2:
            assert rho > 0.2
        else:
            assert abs(rho) < 0.05
    # the planted scores rank far better than chance; the reverse far worse
    oracle = reference_mean("ndcg", y, X @ w, group, k=10)[0]
    rng = np.random.default_rng(0)
    chance = reference_mean("ndcg", y, rng.random(len(y)), group, k=10)[0]
    assert oracle > chance + 0.3
    assert ndcg_score(y, -X @ w, group, k=10) < chance


def test_noise_lowers_the_best_achievable_ndcg():
    values = []
    for noise in (0.1, 1.0, 4.0):
        X, y, group, w = make_ranking(200, 20, 3, noise=noise, coef=True, random_state=4)
        values.append(reference_mean("ndcg", y, X @ w, group, k=10)[0])
    assert values[0] > values[1] > values[2]


def test_query_effect_spreads_relevant_rows_over_queries():
    def share_of_queries_without_relevant(query_effect):
        _, y, group = make_ranking(
            500, 10, 3, query_effect=query_effect, noise=0.5, random_state=5
        )
        return np.mean(np.bincount(group, weights=y > 0) == 0)

    assert share_of_queries_without_relevant(3.0) > share_of_queries_without_relevant(0.0) + 0.1


def test_reproducible_and_shuffle_keeps_rows():
    first = make_ranking(20, 7, 3, random_state=6)
    second = make_ranking(20, 7, 3, random_state=np.random.RandomState(6))
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    X, y, group = make_ranking(20, 7, 3, shuffle=True, random_state=6)
    assert not np.all(np.diff(group) >= 0)
    # the same rows as without shuffling (the permutation is drawn last), in another order
    def rows(X, y, group):
        return sorted(map(tuple, np.column_stack([group, y, X]).tolist()))

    assert rows(X, y, group) == rows(*first)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"n_queries": 0}, ValueError, "'n_queries' parameter of make_ranking"),
        ({"docs_per_query": (5, 2)}, ValueError, "1 <= low <= high"),
        ({"docs_per_query": (1, 2, 3)}, ValueError, "tuple"),
        ({"docs_per_query": "10"}, TypeError, "'docs_per_query'"),
        ({"n_informative": 11}, ValueError, "at most n_features=10"),
        ({"relevance_levels": 1}, ValueError, "'relevance_levels'"),
        ({"noise": -1.0}, ValueError, "'noise'"),
        ({"random_state": "seed"}, TypeError, "'random_state'"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_ranking(**kwargs)
