"""Which name an error or warning gives: the caller's, or on purpose another.

The caller's name reaches the messages through a context variable (``_caller``);
these pin the places where a message names something else on purpose.
"""

import warnings

import numpy as np
import pytest

from sklearn_rank_metrics import RankingEvaluator, evaluate, ndcg_score, sampled_ranks

Y_TRUE = np.array([0.0, 0.0, 1.0, 0.0])  # query 1 has no relevant row
Y_SCORE = np.array([0.1, 0.2, 0.3, 0.4])
GROUP = np.array([1, 1, 2, 2])


def test_evaluate_names_itself_for_its_inputs_and_settings():
    with pytest.raises(ValueError, match="The 'ties' parameter of evaluate must be"):
        evaluate(Y_TRUE, Y_SCORE, GROUP, metrics=["ndcg@2"], ties="sideways")
    with pytest.raises(ValueError, match="The 'group' parameter of evaluate is required"):
        evaluate(Y_TRUE, Y_SCORE, None, metrics=["ndcg@2"])
    with pytest.raises(ValueError, match="Unknown metric 'nope' for evaluate"):
        evaluate(Y_TRUE, Y_SCORE, GROUP, metrics=["nope"])


def test_evaluate_names_the_metric_function_for_its_undefined_queries():
    with pytest.raises(ValueError, match=r"^ndcg_score is undefined for query 1 "):
        evaluate(Y_TRUE, Y_SCORE, GROUP, metrics=["ndcg@2"], replace_undefined_by="raise")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(np.zeros(4), Y_SCORE, GROUP, metrics=["ndcg@2"])
        evaluate(np.zeros(4), Y_SCORE, GROUP, metrics=["ndcg@2"], replace_undefined_by="skip")
    messages = [str(warning.message) for warning in caught]
    assert messages[0].startswith("ndcg_score is undefined for every one of the 2 queries")
    assert messages[1].startswith("ndcg_score: no query is left to average")


def test_the_metric_function_names_itself():
    with pytest.raises(ValueError, match=r"^ndcg_score is undefined for query 1 "):
        ndcg_score(Y_TRUE, Y_SCORE, GROUP, replace_undefined_by="raise")
    with pytest.raises(TypeError, match=r"^ndcg_score: got an unexpected keyword"):
        ndcg_score(Y_TRUE, Y_SCORE, groups=GROUP)


def test_the_streaming_evaluator_names_itself_and_the_metric():
    evaluator = RankingEvaluator(["ndcg@2"])
    evaluator.update(np.zeros(4), Y_SCORE, GROUP)
    with pytest.warns(UserWarning, match=r"^RankingEvaluator \(ndcg@2\) is undefined for every"):
        evaluator.compute()


def test_sampled_ranks_names_itself():
    with pytest.raises(ValueError, match="The 'group' parameter of sampled_ranks is required"):
        sampled_ranks(Y_TRUE, Y_SCORE, None)
