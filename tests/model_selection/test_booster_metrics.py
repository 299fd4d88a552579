"""Registry metrics as LightGBM's and XGBoost's evaluation metrics, while training.

With the booster's own convention our metric is the booster's built-in metric: the
same value at every iteration and the same early-stopping iteration, on the real
sample. With our default convention the values are ``ndcg_score`` of the
predictions (the package's own number).
"""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    expected_reciprocal_rank_score,
    make_lightgbm_metric,
    make_xgboost_metric,
    ndcg_score,
)
from tests.support import lambdarank

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

LGB_PARAMS = {
    "objective": "lambdarank", "learning_rate": 0.3, "num_leaves": 7, "min_data_in_leaf": 5,
    "verbose": -1, "num_threads": 1, "eval_at": [10], "seed": 0,
}  # fmt: skip
XGB_PARAMS = {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0}


@cache
def sample():
    return lambdarank.load("train"), lambdarank.load("test")


def lightgbm_run(metric_params, feval=None):
    (X, y, _, sizes), (Xv, yv, _, sizes_v) = sample()
    train = lgb.Dataset(X, y, group=sizes)
    valid = lgb.Dataset(Xv, yv, group=sizes_v, reference=train)
    record = {}
    booster = lgb.train(
        {**LGB_PARAMS, **metric_params}, train, 200, valid_sets=[valid], feval=feval,
        callbacks=[lgb.early_stopping(10, verbose=False), lgb.record_evaluation(record)],
    )  # fmt: skip
    return booster, record["valid_0"]


def test_lightgbm_stops_where_its_own_ndcg_stops():
    builtin, builtin_record = lightgbm_run({"metric": "ndcg"})
    metric = make_lightgbm_metric("ndcg@10", convention="lightgbm")
    ours, our_record = lightgbm_run({"metric": "None"}, feval=metric)
    assert ours.best_iteration == builtin.best_iteration
    ours_name = "prefer_max(ndcg@10,convention=lightgbm)"  # the name says the convention
    assert len(our_record[ours_name]) == len(builtin_record["ndcg@10"]) > ours.best_iteration
    np.testing.assert_allclose(our_record[ours_name], builtin_record["ndcg@10"], rtol=1e-12)


def test_lightgbm_default_convention_gives_our_ndcg_of_the_predictions():
    (_, _, _, _), (Xv, yv, qv, _) = sample()
    metric = make_lightgbm_metric("ndcg@10")
    booster, record = lightgbm_run({"metric": "None"}, feval=metric)
    # (after early stopping the booster keeps the trees up to its best iteration)
    for iteration in (1, booster.best_iteration):
        scores = booster.predict(Xv, num_iteration=iteration)
        expected = ndcg_score(yv, scores, qv, k=10)
        assert record["prefer_max(ndcg@10)"][iteration - 1] == pytest.approx(expected, rel=1e-12)
    # and not LightGBM's own number (exponential gain, ties in row order)
    _, builtin = lightgbm_run({"metric": "ndcg"})
    assert record["prefer_max(ndcg@10)"][0] != pytest.approx(builtin["ndcg@10"][0], rel=1e-6)


def test_lightgbm_scikit_learn_wrapper_with_an_eval_set():
    (X, y, _, sizes), (Xv, yv, qv, sizes_v) = sample()
    ranker = lgb.LGBMRanker(n_estimators=15, learning_rate=0.3, num_leaves=7, verbose=-1,
                            n_jobs=1, min_child_samples=5)  # fmt: skip
    # LightGBM 4.7 names the eval set eval_X / eval_y (eval_set is deprecated there)
    if "eval_X" in inspect.signature(ranker.fit).parameters:
        eval_data = {"eval_X": (Xv,), "eval_y": (yv,)}
    else:
        eval_data = {"eval_set": [(Xv, yv)]}
    ranker.fit(
        X, y, group=sizes, eval_group=[sizes_v], eval_metric=make_lightgbm_metric("err@10"),
        **eval_data,
    )  # fmt: skip
    values = ranker.evals_result_["valid_0"]["prefer_max(err@10)"]
    scores = ranker.predict(Xv)
    assert values[-1] == pytest.approx(expected_reciprocal_rank_score(yv, scores, qv, k=10))


def test_xgboost_stops_where_its_own_ndcg_stops():
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    train, valid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    builtin_record, our_record = {}, {}
    common = {"num_boost_round": 200, "evals": [(valid, "v")], "early_stopping_rounds": 10,
              "verbose_eval": False}  # fmt: skip
    builtin = xgb.train({**XGB_PARAMS, "eval_metric": "ndcg@10"}, train,
                        evals_result=builtin_record, **common)  # fmt: skip
    metric = make_xgboost_metric("ndcg@10", convention="xgboost", name="ours")
    ours = xgb.train({**XGB_PARAMS, "disable_default_eval_metric": 1}, train,
                     evals_result=our_record, custom_metric=metric, maximize=True,
                     **common)  # fmt: skip
    assert ours.best_iteration == builtin.best_iteration
    expected = builtin_record["v"]["ndcg@10"]
    # XGBoost keeps a custom metric's values as printed (6 digits)
    np.testing.assert_allclose(our_record["v"]["prefer_max(ours)"], expected, atol=1e-6)
    # to full precision: our metric of the built-in run's predictions, round by round
    default = make_xgboost_metric("ndcg@10")  # our convention: ndcg_score's number
    for rounds in (1, 5, len(expected)):
        margin = builtin.predict(valid, iteration_range=(0, rounds), output_margin=True)
        name, value = metric(margin, valid)
        assert name == "prefer_max(ours)"
        assert value == pytest.approx(expected[rounds - 1], rel=1e-12)
        assert default(margin, valid)[1] == pytest.approx(ndcg_score(yv, margin, qv, k=10))


def test_misuse_gets_clear_errors():
    with pytest.raises(TypeError, match="unexpected keyword.*'k'"):
        make_lightgbm_metric("ndcg", k=10)
    with pytest.raises(ValueError, match="Unknown metric"):
        make_xgboost_metric("nope@10")
    # XGBoost splits its evaluation log on spaces and ':'
    for bad in ("my metric", "a:b", ""):
        with pytest.raises(ValueError, match="'name' parameter of make_xgboost_metric"):
            make_xgboost_metric("ndcg@10", name=bad)
    assert make_xgboost_metric("ndcg( gain=exponential )@10").__name__ == (
        "prefer_max(ndcg(gain=exponential)@10)"
    )
    # called with arrays (XGBRanker's wrapper): the value of one query
    assert make_xgboost_metric("mrr")(np.array([0.0, 1.0]), np.array([0.9, 0.8])) == 0.5
    metric = make_lightgbm_metric("ndcg@10")
    with pytest.raises(ValueError, match="has no query groups"):
        metric(np.ones(3), np.zeros(3), None, None)
    with pytest.raises(ValueError, match="queries hold 4 rows"):
        metric(np.ones(3), np.zeros(3), None, np.array([4]))


# ---------------------------------------------------------------------------
# Row and query weights, and the reported name, as each booster holds them
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
