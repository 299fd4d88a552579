"""The name a booster reports for a metric of ours says everything that changes its value.

LightGBM and XGBoost keep one evaluation history per reported name: two different
metrics under one name interleave their values in one list, and LightGBM's early
stopping then fails (``zip() argument 2 is shorter than argument 1``). The reported
name holds the metric as written and every setting given (``convention``, ``ties``,
``replace_undefined_by``, ``relevance_level``), so two different metrics never share
it; the same name twice in one training is refused at its first evaluation.
The references are LightGBM's and XGBoost's own metrics (under their conventions)
and scikit-learn's ``ndcg_score`` of the booster's predictions, query by query.
"""

from __future__ import annotations

import inspect
import itertools
from functools import cache

import lightgbm as lgb
import numpy as np
import pytest
import sklearn.metrics
import xgboost as xgb

from sklearn_rank_metrics import GroupedRanker, make_lightgbm_metric, make_xgboost_metric
from tests.support import lambdarank

LGB_PARAMS = {
    "objective": "lambdarank", "learning_rate": 0.3, "num_leaves": 7, "min_data_in_leaf": 5,
    "verbose": -1, "num_threads": 1, "seed": 0,
}  # fmt: skip
FACTORIES = [(make_lightgbm_metric, "name"), (make_xgboost_metric, "__name__")]


@cache
def sample():
    return lambdarank.load("train"), lambdarank.load("test")


def datasets():
    (X, y, _, sizes), (Xv, yv, _, sizes_v) = sample()
    train = lgb.Dataset(X, y, group=sizes, free_raw_data=False)
    return train, lgb.Dataset(Xv, yv, group=sizes_v, reference=train, free_raw_data=False)


@pytest.mark.parametrize(("factory", "attribute"), FACTORIES)
def test_the_reported_name_holds_every_setting_given(factory, attribute):
    def reported(*args, **kwargs):
        return getattr(factory(*args, **kwargs), attribute)

    assert reported("ndcg@10") == "prefer_max(ndcg@10)"
    assert reported("ndcg@10", convention="lightgbm") == "prefer_max(ndcg@10,convention=lightgbm)"
    assert reported("ndcg@10", relevance_level=2, ties="input", replace_undefined_by=1.0) == (
        "prefer_max(ndcg@10,ties=input,replace_undefined_by=1.0,relevance_level=2)"
    )  # in the order of the keywords, whatever the order of the call
    assert reported("fallout@10", convention="trec_eval") == (
        "minimize(fallout@10,convention=trec_eval)"
    )
    # a name given is the whole name: the user tells the metrics apart
    assert reported("ndcg@10", convention="xgboost", name="ours") == "prefer_max(ours)"


@pytest.mark.parametrize(("factory", "attribute"), FACTORIES)
def test_two_different_settings_never_share_a_name(factory, attribute):
    choices = {
        "convention": [None, "lightgbm", "xgboost", "trec_eval"],
        "ties": [None, "average", "input"],
        "replace_undefined_by": [None, 0.0, 1.0, "skip"],
        "relevance_level": [None, 1, 2],
    }
    names = {}
    for values in itertools.product(*choices.values()):
        given = zip(choices, values, strict=True)
        settings = {key: value for key, value in given if value is not None}
        name = getattr(factory("ndcg@10", **settings), attribute)
        assert name not in names, (settings, names.get(name))
        names[name] = settings
        # a name XGBoost's evaluation log can hold: no space, no ':'
        assert " " not in name and ":" not in name


def test_issue_two_variants_of_ndcg_keep_two_histories_and_early_stopping_runs():
    # the issue's case: both were 'prefer_max(ndcg@10)', 10 values for 5 rounds in one
    # list, and early stopping beside LightGBM's own ndcg@10 crashed in zip()
    train, valid = datasets()
    ours = make_lightgbm_metric("ndcg@10")
    lightgbm_own = make_lightgbm_metric("ndcg@10", convention="lightgbm")
    record = {}
    booster = lgb.train(
        {**LGB_PARAMS, "metric": "ndcg", "eval_at": [10]}, train, 60, valid_sets=[valid],
        feval=[ours, lightgbm_own],
        callbacks=[lgb.early_stopping(5, verbose=False), lgb.record_evaluation(record)],
    )  # fmt: skip
    history = record["valid_0"]
    assert sorted(history) == [
        "ndcg@10", "prefer_max(ndcg@10)", "prefer_max(ndcg@10,convention=lightgbm)"
    ]  # fmt: skip
    n_rounds = len(history["ndcg@10"])
    assert booster.best_iteration + 5 <= n_rounds < 60  # it stopped early
    assert len(history["prefer_max(ndcg@10)"]) == n_rounds
    # under LightGBM's convention: LightGBM's own number, round by round
    np.testing.assert_allclose(
        history["prefer_max(ndcg@10,convention=lightgbm)"], history["ndcg@10"], rtol=1e-12
    )
    # our default: scikit-learn's NDCG@10 (linear gain, ties averaged) of the
    # predictions, query by query (early rounds tie many rows: no brute force here)
    (_, _, _, _), (Xv, yv, qv, _) = sample()
    for iteration in (1, booster.best_iteration):
        scores = booster.predict(Xv, num_iteration=iteration)
        expected = np.mean(sklearn_ndcg_per_query(yv, scores, qv, k=10))
        assert history["prefer_max(ndcg@10)"][iteration - 1] == pytest.approx(expected, rel=1e-9)


def sklearn_ndcg_per_query(y_true, y_score, qid, k):
    """scikit-learn's ndcg_score of each query (every query of the sample has >1 row)."""
    return np.array([
        sklearn.metrics.ndcg_score([y_true[qid == q]], [y_score[qid == q]], k=k)
        for q in np.unique(qid)
    ])  # fmt: skip


def _lightgbm_fit_with(metrics, record):
    train, valid = datasets()
    return lgb.train(
        {**LGB_PARAMS, "metric": "None"}, train, 5, valid_sets=[valid], feval=metrics,
        callbacks=[lgb.record_evaluation(record)],
    )  # fmt: skip


@pytest.mark.parametrize(
    "metrics",
    [
        lambda: [make_lightgbm_metric("ndcg@10"), make_lightgbm_metric("ndcg@10")],
        lambda: [make_lightgbm_metric("mrr@10", ties="input")] * 2,  # one object twice
        lambda: [make_lightgbm_metric("ndcg@10", name="m"), make_lightgbm_metric("map", name="m")],
    ],
    ids=["equal_metrics", "same_object", "one_name_given_twice"],
)
def test_one_name_twice_is_refused_when_training_starts(metrics):
    record = {}
    metrics = metrics()
    name = metrics[0].name
    with pytest.raises(ValueError) as error:
        _lightgbm_fit_with(metrics, record)
    message = str(error.value)
    assert f"two metrics reported as {name!r}" in message and "'valid_0'" in message
    assert "make_lightgbm_metric" in message and "name=" in message
    assert record == {} or all(not values for values in record.get("valid_0", {}).values())


def test_the_same_refusal_through_the_scikit_learn_wrapper_and_cv():
    (X, y, qid, sizes), (Xv, yv, qv, sizes_v) = sample()
    twice = [make_lightgbm_metric("err(max_grade=4)@10")] * 2
    ranker = lgb.LGBMRanker(n_estimators=5, verbose=-1, n_jobs=1, min_child_samples=5)
    if "eval_X" in inspect.signature(ranker.fit).parameters:
        eval_data = {"eval_X": (Xv,), "eval_y": (yv,)}
    else:
        eval_data = {"eval_set": [(Xv, yv)]}
    with pytest.raises(ValueError, match=r"two metrics reported as 'prefer_max\(err"):
        ranker.fit(X, y, group=sizes, eval_group=[sizes_v], eval_metric=twice, **eval_data)
    with pytest.raises(ValueError, match=r"two metrics reported as 'prefer_max\(err"):
        GroupedRanker(lgb.LGBMRanker(n_estimators=5, verbose=-1, n_jobs=1)).fit(
            X, y, qid, eval_set=[(Xv, yv)], eval_group=[qv], eval_metric=twice
        )
    train, _ = datasets()
    with pytest.raises(ValueError, match=r"two metrics reported as 'prefer_max\(err"):
        lgb.cv({**LGB_PARAMS, "metric": "None"}, train, 3, nfold=2, feval=twice,
               stratified=False)  # fmt: skip


def test_one_metric_on_several_datasets_and_trainings_is_no_duplicate():
    train, valid = datasets()
    metric = make_lightgbm_metric("ndcg@10")
    for _ in range(2):  # the same object in two trainings, on two datasets each
        record = {}
        lgb.train(
            {**LGB_PARAMS, "metric": "None"}, train, 3, valid_sets=[train, valid],
            valid_names=["train", "valid"], feval=[metric],
            callbacks=[lgb.record_evaluation(record)],
        )  # fmt: skip
        assert len(record["train"]["prefer_max(ndcg@10)"]) == 3
        assert len(record["valid"]["prefer_max(ndcg@10)"]) == 3


def test_xgboost_reports_the_convention_in_the_name_and_early_stops_on_it():
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    dtrain, dvalid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    params = {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0,
              "eval_metric": "ndcg@10"}  # fmt: skip
    record = {}
    booster = xgb.train(
        params, dtrain, 200, evals=[(dvalid, "v")], evals_result=record,
        custom_metric=make_xgboost_metric("ndcg@10", convention="xgboost"),
        early_stopping_rounds=10, verbose_eval=False,
    )  # fmt: skip
    history = record["v"]
    assert list(history) == ["ndcg@10", "prefer_max(ndcg@10,convention=xgboost)"]
    ours = history["prefer_max(ndcg@10,convention=xgboost)"]
    np.testing.assert_allclose(ours, history["ndcg@10"], atol=1e-6)  # XGBoost's own
    # early stopping watched ours (the last metric) and kept its first maximum
    assert booster.best_iteration == int(np.argmax(ours))
    assert len(ours) == booster.best_iteration + 11


def test_xgbranker_reports_the_query_size_weighted_mean_and_xgboost_train_the_plain_one():
    # XGBoost's scikit-learn wrapper calls a custom metric once per query and
    # averages the values weighted by each query's number of rows (its
    # ltr_metric_decorator passes DMatrix.get_group(), the group sizes, as weights);
    # xgboost.train calls it once on the whole DMatrix: the plain mean over queries
    (X, y, qid, _), (Xv, yv, qv, sizes_v) = sample()
    ranker = xgb.XGBRanker(n_estimators=5, n_jobs=1, eval_metric=make_xgboost_metric("ndcg@10"))
    ranker.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)
    reported = ranker.evals_result()["validation_0"]["prefer_max(ndcg@10)"][-1]
    scores = ranker.predict(Xv)
    per_query = sklearn_ndcg_per_query(yv, scores, qv, k=10)
    plain = float(np.mean(per_query))
    weighted = float(np.average(per_query, weights=sizes_v))
    assert reported == pytest.approx(weighted, abs=1e-6)
    assert abs(plain - weighted) > 1e-3 and reported != pytest.approx(plain, abs=1e-4)
    dvalid = xgb.DMatrix(Xv, yv, qid=qv)
    margin = ranker.get_booster().predict(dvalid, output_margin=True)
    assert make_xgboost_metric("ndcg@10")(margin, dvalid)[1] == pytest.approx(plain, rel=1e-12)
