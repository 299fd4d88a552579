"""Hostile input for the model-selection tools (issue 32, round 3).

Booster metrics, GroupedRanker's eval sets, RankingEvaluator and scorers: every bad
input gets a ValueError/TypeError naming the argument, nothing is silently dropped
or guessed. Expected values are hand computations written out here.
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from sklearn_rank_metrics import GroupedRanker, make_lightgbm_metric, make_xgboost_metric

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


# ---------------------------------------------------------------------------
# GroupedRanker's eval sets
# ---------------------------------------------------------------------------


class _RecordingRanker(BaseEstimator):
    """A ranker that takes group sizes and keeps what fit received."""

    def fit(self, X, y, group=None, eval_set=None, eval_group=None):
        self.y_, self.eval_set_, self.eval_group_ = y, eval_set, eval_group
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


X4 = np.array([[1.0], [2.0], [3.0], [4.0]])
QID4 = np.array([7, 7, 8, 8])


@pytest.mark.parametrize("n_labels", [3, 5])
def test_grouped_ranker_refuses_eval_labels_of_another_length(n_labels):
    # 5 labels for 4 rows were cut to 4, 3 labels raised a bare IndexError
    y_eval = np.arange(n_labels) % 2
    with pytest.raises(ValueError, match=rf"eval set 1\): eval_set\[1\]'s X has 4 rows but "
                       rf"eval_set\[1\]'s y has {n_labels} labels"):  # fmt: skip
        GroupedRanker(_RecordingRanker()).fit(
            X4, Y4, QID4, eval_set=[(X4, Y4), (X4, y_eval)], eval_group=[QID4, QID4]
        )
    with pytest.raises(ValueError, match=f"X has 4 rows but y has {n_labels} labels"):
        GroupedRanker(_RecordingRanker()).fit(X4, y_eval, QID4)


def test_grouped_ranker_eval_labels_of_another_length_with_lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    ranker = GroupedRanker(lightgbm.LGBMRanker(n_estimators=2, verbose=-1))
    with pytest.raises(ValueError, match=r"eval_set\[0\]'s y has 5 labels"):
        ranker.fit(X4, Y4, QID4, eval_set=[(X4, np.array([0, 1, 1, 0, 1]))], eval_group=[QID4])


def test_grouped_ranker_eval_group_must_agree_with_the_group_column():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"qid": QID4, "f": X4[:, 0]})
    ranker = GroupedRanker(_RecordingRanker(), group_column="qid")
    # the training rows refuse the conflict ...
    with pytest.raises(ValueError, match=r"group= and column 'qid' of X, and they differ in "
                       r"1 of 4 rows \(first: row 1, 8 and 7\)"):  # fmt: skip
        ranker.fit(frame, Y4, [7, 8, 8, 8])
    # ... and so does an eval set, whose eval_group used to win silently
    conflict = (
        r"\(eval set 0\) got eval_group\[0\] and column 'qid' of X, and they differ in "
        r"4 of 4 rows \(first: row 0, 8 and 7\)"
    )
    with pytest.raises(ValueError, match=conflict):
        ranker.fit(frame, Y4, eval_set=[(frame, Y4)], eval_group=[[8, 8, 7, 7]])
    with pytest.raises(ValueError, match=r"eval_group\[0\] with 3 query ids and column 'qid' "
                       "of X with 4"):  # fmt: skip
        ranker.fit(frame, Y4, eval_set=[(frame, Y4)], eval_group=[[7, 7, 8]])
    with pytest.raises(ValueError, match=r"first: row 0, '7' and 7"):
        ranker.fit(frame, Y4, eval_set=[(frame, Y4)], eval_group=[["7", "7", "8", "8"]])
    # agreeing ids are taken: rows sorted by query, sizes 2 and 2
    model = ranker.fit(frame, Y4, eval_set=[(frame, Y4[::-1])], eval_group=[QID4])
    np.testing.assert_array_equal(model.ranker_.eval_group_[0], [2, 2])
    np.testing.assert_array_equal(model.ranker_.eval_set_[0][1], Y4[::-1])
