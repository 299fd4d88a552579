"""A lower-is-better metric (fall-out) as a scorer: negated, so searches minimise it.

The fall-out values below are computed by hand from the definition
(non-relevant rows in the top k over the query's non-relevant rows).
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.model_selection import GridSearchCV

from sklearn_rank_metrics import (
    fallout_at_k_loss,
    make_ranking_scorer,
    make_ranking_scorers,
    ndcg_score,
)


class ColumnRanker(RegressorMixin, BaseEstimator):
    """Scores every row by one column of X (the candidates of the search)."""

    def __init__(self, column=0):
        self.column = column

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.column]


# two queries: labels [1, 0, 0, 1] (2 non-relevant) and [0, 1, 0, 0] (3 non-relevant)
Y = np.array([1, 0, 0, 1, 0, 1, 0, 0])
QID = np.array([7, 7, 7, 7, 8, 8, 8, 8])
GOOD = [4, 2, 1, 3, 1, 4, 2, 3]  # top 2: {1, 1} -> 0/2; {1, 0} -> 1/3: mean 1/6
X = np.column_stack(
    [
        np.negative(GOOD),  # top 2: {0, 0} -> 2/2; {0, 0} -> 2/3: mean 5/6
        GOOD,
        [4, 1, 3, 2, 3, 4, 2, 1],  # top 2: {1, 0} -> 1/2; {1, 0} -> 1/3: mean 5/12
    ]
).astype(float)
FALLOUT_AT_2 = [5 / 6, 1 / 6, 5 / 12]  # of columns 0, 1, 2, by hand
ALL_ROWS = [(np.arange(len(Y)), np.arange(len(Y)))]


def test_hand_values_agree_with_the_function():
    for column, expected in enumerate(FALLOUT_AT_2):
        assert fallout_at_k_loss(Y, X[:, column], QID, k=2) == pytest.approx(expected)


def test_grid_search_picks_the_lowest_fallout():
    search = GridSearchCV(
        ColumnRanker(),
        {"column": [0, 1, 2]},
        scoring=make_ranking_scorer("fallout@2", group=QID),
        cv=ALL_ROWS,
    ).fit(X, Y)
    assert search.best_params_ == {"column": 1}  # fall-out 1/6, the lowest
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], np.negative(FALLOUT_AT_2))
    assert search.best_score_ == pytest.approx(-1 / 6)
    assert list(search.cv_results_["rank_test_score"]) == [3, 1, 2]


def test_multi_metric_search_refits_on_the_lowest_fallout():
    scorers = make_ranking_scorers(["fallout@2", "ndcg@2"], group=QID)
    search = GridSearchCV(
        ColumnRanker(), {"column": [0, 1, 2]}, scoring=scorers, refit="fallout@2", cv=ALL_ROWS
    ).fit(X, Y)
    assert search.best_params_ == {"column": 1}
    np.testing.assert_allclose(search.cv_results_["mean_test_fallout@2"], np.negative(FALLOUT_AT_2))
    ndcg = [ndcg_score(Y, X[:, column], QID, k=2) for column in range(3)]
    np.testing.assert_allclose(search.cv_results_["mean_test_ndcg@2"], ndcg)  # not negated


@pytest.mark.parametrize("metric", ["fallout@2", "fallout", fallout_at_k_loss])
def test_lower_is_better_metric_gets_sign_minus_one(metric):
    params = {} if isinstance(metric, str) and "@" in metric else {"k": 2}
    implicit = make_ranking_scorer(metric, group=QID, **params)
    explicit = make_ranking_scorer(metric, group=QID, greater_is_better=False, **params)
    for scorer in (implicit, explicit):
        assert scorer.sign == -1
        assert "greater_is_better=False" in repr(scorer)
        assert scorer(ColumnRanker(2), X, Y) == pytest.approx(-5 / 12)


@pytest.mark.parametrize(
    ("metric", "function", "wrong", "direction"),
    [
        ("fallout@10", fallout_at_k_loss, True, "lower-is-better"),
        ("ndcg@10", ndcg_score, False, "greater-is-better"),  # refused before, too
    ],
)
def test_a_contradicting_greater_is_better_is_refused(metric, function, wrong, direction):
    with pytest.raises(ValueError) as raised:
        make_ranking_scorer(metric, greater_is_better=wrong)
    message = str(raised.value)
    assert f"{metric!r} is {direction}" in message
    # both spellings that work
    assert f"make_ranking_scorer({metric!r})" in message
    assert f"make_ranking_scorer({metric!r}, greater_is_better={not wrong})" in message
    with pytest.raises(ValueError, match=f"{function.__name__} is {direction}"):
        make_ranking_scorer(function, greater_is_better=wrong)


def test_greater_is_better_true_is_accepted_for_ndcg():
    scorer = make_ranking_scorer("ndcg@10", greater_is_better=True)
    assert scorer.sign == 1 and "greater_is_better" not in repr(scorer)
