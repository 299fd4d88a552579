"""What make_ranking_scorer checks and shows when the scorer is made.

A metric function that cannot be called the way the scorer calls it is refused
when the scorer is made, not at the first score inside a search; the scorer's repr
shows the metric's canonical name with its parameters and the settings given.
"""

import numpy as np
import pytest
import sklearn.metrics
from sklearn.linear_model import Ridge

from sklearn_rank_metrics import make_ranking_scorer, ndcg_score

SIGNATURE = "metric(y_true, y_score, group, *, sample_weight=None, **params)"


def _by_hand(y_true, y_score, group, sample_weight=None):
    return float(np.mean(y_score))


def _takes_anything(y_true, y_score, group, **params):
    return float(np.mean(y_score))


def _positional_only(y_true, y_score, group, /, *, sample_weight=None, k=3):
    return float(k)


@pytest.mark.parametrize(
    ("metric", "params", "shown"),
    [
        # scikit-learn's metrics take (y_true, y_pred): no query ids
        (sklearn.metrics.r2_score, {}, "r2_score(y_true, y_pred, *, sample_weight=None"),
        (sklearn.metrics.ndcg_score, {"k": 10}, "ndcg_score(y_true, y_score, *, k=None"),
        # query ids but no sample_weight, which the scorer always passes
        (lambda y_true, y_score, group: 0.0, {}, "<lambda>(y_true, y_score, group)"),
        # a keyword the function does not take is still refused by name
        (_by_hand, {"k": 3}, None),
    ],
    ids=["r2_score", "sklearn_ndcg_score", "no_sample_weight", "unknown_keyword"],
)
def test_a_metric_the_scorer_cannot_call_is_refused_when_made(metric, params, shown):
    with pytest.raises(TypeError) as error:
        make_ranking_scorer(metric, **params)
    message = str(error.value)
    assert "make_ranking_scorer" in message
    if shown is None:  # the older message, which names the keyword
        assert "no parameter ['k']" in message
        return
    assert SIGNATURE in message
    assert shown in message


def test_metric_functions_the_scorer_can_call_are_accepted():
    X = np.array([[0.0], [1.0], [2.0], [0.0], [1.0], [2.0]])
    y = np.array([0, 1, 2, 2, 1, 0])
    qid = np.array([1, 1, 1, 2, 2, 2])
    model = Ridge().fit(X, y)
    scores = model.predict(X)
    assert make_ranking_scorer(_by_hand)(model, X, y, group=qid) == pytest.approx(scores.mean())
    assert make_ranking_scorer(_takes_anything, alpha=2)(model, X, y, group=qid) == (
        pytest.approx(scores.mean())
    )
    assert make_ranking_scorer(_positional_only, k=5)(model, X, y, group=qid) == 5.0
    assert make_ranking_scorer(ndcg_score, k=2)(model, X, y, group=qid) == ndcg_score(
        y, scores, qid, k=2
    )
