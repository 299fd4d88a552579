"""Hostile input for the model-selection tools (issue 32, round 3).

Booster metrics, GroupedRanker's eval sets, RankingEvaluator and scorers: every bad
input gets a ValueError/TypeError naming the argument, nothing is silently dropped
or guessed. Expected values are hand computations written out here.
"""

import numpy as np
import pytest

from sklearn_rank_metrics import make_lightgbm_metric, make_xgboost_metric

# ---------------------------------------------------------------------------
# Booster metrics
# ---------------------------------------------------------------------------

Y4 = np.array([0.0, 1.0, 1.0, 0.0])
SCORE4 = np.array([0.9, 0.8, 0.7, 0.1])
# MRR by hand: query 1 (rows 0-1) has its relevant row at rank 2 -> 1/2;
# query 2 (rows 2-3) at rank 1 -> 1


@pytest.mark.parametrize("n_weights", [0, 3, 5, 2])
def test_lightgbm_metric_refuses_row_weights_of_another_length(n_weights):
    metric = make_lightgbm_metric("mrr@10")
    weight = np.arange(1.0, n_weights + 1)
    if n_weights == 0:  # LightGBM's "no weights"
        assert metric(Y4, SCORE4, weight, np.array([2, 2]))[1] == pytest.approx(0.75)
        return
    # 2 is the number of queries: LightGBM holds one weight per row, never per query
    with pytest.raises(ValueError, match=f"weights hold {n_weights} values but the dataset "
                       "has 4 rows in 2 queries; give one weight per row"):
        metric(Y4, SCORE4, weight, np.array([2, 2]))


def test_lightgbm_metric_row_weights_with_an_empty_last_query():
    # row weights 1, 1 | 3, 3 | (none): query weights 1 and 3, the empty query has
    # no row; (1 * 1/2 + 3 * 1) / (1 + 3) = 0.875
    metric = make_lightgbm_metric("mrr@10")
    weight = np.array([1.0, 1.0, 3.0, 3.0])
    for sizes in ([2, 2, 0], [2, 0, 2], [0, 2, 2]):
        name, value, greater = metric(Y4, SCORE4, weight, np.array(sizes))
        assert value == pytest.approx(0.875, rel=1e-15), sizes
    # the mean of a query's row weights: (1 + 3) / 2 = 2 and 2 -> the plain mean
    value = metric(Y4, SCORE4, np.array([1.0, 3.0, 3.0, 1.0]), np.array([2, 2, 0]))[1]
    assert value == pytest.approx(0.75, rel=1e-15)


def test_xgboost_metric_takes_one_weight_per_query_group():
    xgboost = pytest.importorskip("xgboost")
    metric = make_xgboost_metric("mrr@10")
    dmatrix = xgboost.DMatrix(
        np.zeros((4, 1)), label=Y4, qid=np.array([0, 0, 1, 1]), weight=np.array([1.0, 3.0])
    )
    # (1 * 1/2 + 3 * 1) / 4
    assert metric(SCORE4, dmatrix)[1] == pytest.approx(0.875, rel=1e-15)


class _FakeDMatrix:
    """What XGBoostMetric reads of a DMatrix, with weights of any length."""

    def __init__(self, weight):
        self.weight = weight

    def get_uint_info(self, field):
        return np.array([0, 2, 4], dtype=np.uint32)

    def get_label(self):
        return Y4

    def get_weight(self):
        return self.weight


def test_xgboost_metric_refuses_weights_that_are_not_per_query():
    metric = make_xgboost_metric("mrr@10")
    with pytest.raises(ValueError, match="weights hold 4 values.*one weight per query"):
        metric(SCORE4, _FakeDMatrix(np.ones(4)))
    assert metric(SCORE4, _FakeDMatrix(np.array([], np.float32)))[1] == pytest.approx(0.75)


@pytest.mark.parametrize("factory", [make_lightgbm_metric, make_xgboost_metric])
def test_booster_metric_name_is_checked(factory):
    owner = factory.__name__
    for bad in (3, b"ndcg", ["ndcg"]):
        with pytest.raises(TypeError, match=f"'name' parameter of {owner} must be a str"):
            factory("ndcg@10", name=bad)
    # a NUL ends a C string, a zero-width space or a DEL hides in the log
    for bad, shown in (("a\x00b", r"'\\x00'"), ("a\u200bb", r"'\\u200b'"),
                       ("a\x7fb", r"'\\x7f'"), ("a\tb", r"'\\t'"), ("a b", "' '"),
                       ("a:b", "':'"), ("", "it is empty")):  # fmt: skip
        with pytest.raises(ValueError, match=f"'name' parameter of {owner}.*{shown}"):
            factory("ndcg@10", name=bad)
    assert factory("ndcg@10", name="ndcg_10(ours)").name == "prefer_max(ndcg_10(ours))"
    assert factory("ndcg@10", name="nDCG-é").name == "prefer_max(nDCG-é)"
