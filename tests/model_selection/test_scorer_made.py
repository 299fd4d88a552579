"""What make_ranking_scorer checks and shows when the scorer is made.

A metric function that cannot be called the way the scorer calls it is refused
when the scorer is made, not at the first score inside a search; the scorer's repr
shows the metric's canonical name with its parameters and the settings given.
"""

import numpy as np
import pytest
import sklearn.metrics
from sklearn.base import BaseEstimator
from sklearn.linear_model import Ridge

from sklearn_rank_metrics import make_ranking_scorer, make_ranking_scorers, ndcg_score

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


@pytest.mark.parametrize(
    ("metric", "params", "expected"),
    [
        ("ndcg", {"k": 10}, "make_ranking_scorer('ndcg@10')"),
        ("ndcg@10", {}, "make_ranking_scorer('ndcg@10')"),
        ("ndcg", {"k": 5, "gain": "exponential"},
         "make_ranking_scorer('ndcg(gain=exponential)@5')"),
        ("ndcg(gain=exponential)", {"k": 5, "ties": "input", "convention": "lightgbm"},
         "make_ranking_scorer('ndcg(gain=exponential)@5', convention='lightgbm', ties='input')"),
        ("map@5", {"relevance_level": 2.0, "replace_undefined_by": "skip"},
         "make_ranking_scorer('map@5', relevance_level=2.0, replace_undefined_by='skip')"),
        ("ndcg(ties=input)@3", {}, "make_ranking_scorer('ndcg(ties=input)@3')"),
        ("ndcg", {"k": 3, "ignore_ties": True}, "make_ranking_scorer('ndcg@3', ignore_ties=True)"),
        ("P_10", {}, "make_ranking_scorer('p@10')"),  # another tool's name: ours
        ("fallout", {"k": 10}, "make_ranking_scorer('fallout@10', greater_is_better=False)"),
    ],  # fmt: skip
)
def test_repr_shows_the_canonical_name_and_the_settings(metric, params, expected):
    scorer = make_ranking_scorer(metric, **params)
    assert repr(scorer) == expected
    # the repr is a call that makes the same scorer
    again = eval(repr(scorer), {"make_ranking_scorer": make_ranking_scorer})
    assert again.metric_params == scorer.metric_params
    assert again.metric_function is scorer.metric_function and again.sign == scorer.sign


def test_repr_of_a_metric_function_shows_its_keywords_and_the_scorers_options():
    scorer = make_ranking_scorer(
        ndcg_score, k=10, ties="input", group_column="qid", response_method="predict"
    )
    assert repr(scorer) == (
        "make_ranking_scorer(ndcg_score, group_column='qid', response_method='predict', "
        "k=10, ties='input')"
    )
    bound = make_ranking_scorer(_takes_anything, alpha=2, group=[1, 1, 2])
    assert repr(bound) == "make_ranking_scorer(_takes_anything, group=<bound ids>, alpha=2)"


def test_make_ranking_scorers_show_their_shared_settings():
    from sklearn_rank_metrics import make_ranking_scorers

    scorers = make_ranking_scorers(["ndcg@10", "map(relevance_level=3)"], relevance_level=2,
                                   ties="input")  # fmt: skip
    assert repr(scorers["ndcg@10"]) == "make_ranking_scorer('ndcg@10', ties='input')"
    assert repr(scorers["map(relevance_level=3)"]) == (
        "make_ranking_scorer('map(relevance_level=3)', ties='input')"
    )


class _FirstFeatureRanker(BaseEstimator):
    """Predicts the first feature."""

    def fit(self, X, y):
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def test_scorer_checks_convention_when_made():
    # it was accepted, and the first score raised inside a search
    shape = "The 'convention' parameter of ndcg_score must be a str among"
    with pytest.raises(ValueError, match=shape):
        make_ranking_scorer("ndcg@10", convention="trec-eval")
    with pytest.raises(ValueError, match=shape):
        make_ranking_scorer(ndcg_score, convention="bogus")
    with pytest.raises(TypeError, match=shape):
        make_ranking_scorer("ndcg@10", convention=3)
    with pytest.raises(ValueError, match="'convention' parameter of mean_average_precision"):
        make_ranking_scorers(["map", "ndcg@10"], convention="bogus")
    # a user's function keeps its own parameters
    def custom(y_true, y_score, group, sample_weight=None, **kwargs):
        return 0.0

    assert make_ranking_scorer(custom, convention="mine").metric_params == {"convention": "mine"}
    # a good one scores as the metric function does (hand value: the relevant row
    # ranks second, NDCG = (1 / log2(3)) / 1)
    scorer = make_ranking_scorer("ndcg@10", convention="trec_eval", group=[1, 1])
    model = _FirstFeatureRanker().fit(np.array([[0.9], [0.1]]), [0, 1])
    assert scorer(model, np.array([[0.9], [0.1]]), np.array([0, 1])) == pytest.approx(
        1 / np.log2(3), rel=1e-15
    )
