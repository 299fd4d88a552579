"""GroupedRanker routes every fit parameter of the wrapped ranker; our metrics' histories
never mix with the boosters' built-in ones.

Under metadata routing a search passes ``eval_metric``, ``callbacks`` (LightGBM) or
``verbose`` (XGBoost) to ``GroupedRanker`` once it requests them; the reference for
each fold is the booster fitted directly on the fold's rows sorted by query with the
same eval set and early stopping. Beside a built-in metric of the same name, our
metric keeps its own history, one value per iteration, equal to the built-in one
under the booster's convention.
"""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, GroupKFold

from sklearn_rank_metrics import (
    GroupedRanker,
    make_lightgbm_metric,
    make_ranking_scorer,
    make_xgboost_metric,
    ndcg_score,
)
from tests.support import lambdarank

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")


@cache
def sample():
    return lambdarank.load("train"), lambdarank.load("test")


def lightgbm_eval_set(Xv, yv):
    if "eval_X" in inspect.signature(lgb.LGBMRanker.fit).parameters:  # LightGBM >= 4.7
        return {"eval_X": (Xv,), "eval_y": (yv,)}
    return {"eval_set": [(Xv, yv)]}


def lgbm(**params):
    defaults = {"n_estimators": 200, "learning_rate": 0.3, "num_leaves": 7,
                "min_child_samples": 5, "verbose": -1, "n_jobs": 1}  # fmt: skip
    return lgb.LGBMRanker(**{**defaults, **params})


def fold_sizes(qid):
    return np.unique(qid, return_counts=True)[1]


def test_grid_search_routes_eval_metric_and_callbacks_to_lightgbm():
    (X, y, qid, _), (Xv, yv, qv, sizes_v) = sample()
    metric = make_lightgbm_metric("err@10")
    stop = [lgb.early_stopping(10, verbose=False)]
    folds = GroupKFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        model = GroupedRanker(lgbm(metric="None")).set_fit_request(
            eval_set=True, eval_group=True, eval_metric=True, callbacks=True
        )
        search = GridSearchCV(
            model, {"ranker__num_leaves": [7]}, cv=folds, scoring=make_ranking_scorer("ndcg@10")
        ).fit(
            X, y, groups=qid, eval_set=[(Xv, yv)], eval_group=[qv], eval_metric=metric,
            callbacks=stop,
        )  # fmt: skip
    for fold, (train, test) in enumerate(folds.split(X, y, qid)):
        direct = lgbm(metric="None").fit(
            X[train], y[train], group=fold_sizes(qid[train]), eval_group=[sizes_v],
            eval_metric=metric, callbacks=stop, **lightgbm_eval_set(Xv, yv),
        )  # fmt: skip
        assert direct.best_iteration_ < 200  # early stopping on err@10 happened
        expected = ndcg_score(y[test], direct.predict(X[test]), qid[test], k=10)
        assert search.cv_results_[f"split{fold}_test_score"][0] == pytest.approx(
            expected, rel=1e-12
        )
    refit = search.best_estimator_
    direct = lgbm(metric="None").fit(
        X, y, group=fold_sizes(qid), eval_group=[sizes_v], eval_metric=metric,
        callbacks=stop, **lightgbm_eval_set(Xv, yv),
    )  # fmt: skip
    assert refit.best_iteration_ == direct.best_iteration_ < 200
    history = refit.evals_result_["valid_0"]
    assert list(history) == ["prefer_max(err@10)"]
    assert history["prefer_max(err@10)"] == direct.evals_result_["valid_0"]["prefer_max(err@10)"]


def test_grid_search_routes_fit_parameters_to_xgboost():
    (X, y, qid, _), (Xv, yv, qv, _) = sample()

    def ranker():
        return xgb.XGBRanker(
            n_estimators=60, learning_rate=0.3, max_depth=3, n_jobs=1,
            eval_metric=make_xgboost_metric("ndcg@5"), early_stopping_rounds=10,
        )  # fmt: skip

    folds = GroupKFold(2)
    with sklearn.config_context(enable_metadata_routing=True):
        model = GroupedRanker(ranker()).set_fit_request(
            eval_set=True, eval_group=True, verbose=True
        )
        search = GridSearchCV(
            model, {"ranker__max_depth": [3]}, cv=folds, scoring=make_ranking_scorer("ndcg@10"),
            refit=False,
        ).fit(X, y, groups=qid, eval_set=[(Xv, yv)], eval_group=[qv], verbose=False)
    for fold, (train, test) in enumerate(folds.split(X, y, qid)):
        direct = ranker().fit(
            X[train], y[train], qid=qid[train], eval_set=[(Xv, yv)], eval_qid=[qv],
            verbose=False,
        )  # fmt: skip
        values = direct.evals_result()["validation_0"]["prefer_max(ndcg@5)"]
        assert direct.best_iteration == int(np.argmax(values)) < 59
        expected = ndcg_score(y[test], direct.predict(X[test]), qid[test], k=10)
        assert search.cv_results_[f"split{fold}_test_score"][0] == pytest.approx(
            expected, rel=1e-12
        )


def test_requests_cover_the_rankers_fit_parameters():
    with sklearn.config_context(enable_metadata_routing=True):
        model = GroupedRanker(lgbm())
        requests = model.get_metadata_routing().fit.requests
        # LightGBM's fit parameters, by hand; the derived ones are not requestable
        for name in ("sample_weight", "init_score", "eval_names", "eval_sample_weight",
                     "eval_init_score", "eval_metric", "eval_at", "feature_name",
                     "categorical_feature", "callbacks", "init_model"):  # fmt: skip
            assert requests[name] is None
        assert requests["group"] == "groups"
        assert not {"X", "y", "qid", "eval_X", "eval_y", "eval_qid"} & set(requests)
        xgboost_requests = GroupedRanker(xgb.XGBRanker()).get_metadata_routing().fit.requests
        for name in ("verbose", "xgb_model", "sample_weight_eval_set", "base_margin",
                     "base_margin_eval_set", "feature_weights", "eval_set",
                     "eval_group"):  # fmt: skip
            assert name in xgboost_requests
        assert "eval_metric" not in xgboost_requests  # XGBRanker takes it at construction

        model.set_fit_request(eval_metric=True, callbacks="stoppers")
        copied = clone(model).get_metadata_routing().fit.requests
        assert copied["eval_metric"] is True and copied["callbacks"] == "stoppers"
        with pytest.raises(TypeError, match=r"got \['nope'\].*LGBMRanker.fit"):
            model.set_fit_request(nope=True)
    with pytest.raises(RuntimeError, match="enable_metadata_routing"):
        GroupedRanker(lgbm()).set_fit_request(eval_metric=True)


def test_fit_refuses_the_parameters_it_derives():
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    with pytest.raises(TypeError, match=r"\['eval_X', 'eval_y'\].*eval_group"):
        GroupedRanker(lgbm()).fit(X, y, qid, eval_X=(Xv,), eval_y=(yv,))


def test_lightgbm_keeps_our_ndcg_apart_from_its_own():
    (X, y, _, sizes), (Xv, yv, qv, sizes_v) = sample()
    fit = {"group": sizes, "eval_group": [sizes_v], "eval_at": [10], **lightgbm_eval_set(Xv, yv)}
    ours = make_lightgbm_metric("ndcg@10", convention="lightgbm")
    both = lgbm(n_estimators=20, metric="ndcg").fit(X, y, eval_metric=ours, **fit)
    history = both.evals_result_["valid_0"]
    ours_name = "prefer_max(ndcg@10,convention=lightgbm)"
    assert sorted(history) == ["ndcg@10", ours_name]
    assert len(history["ndcg@10"]) == len(history[ours_name]) == 20
    # LightGBM's own history is that of a run without ours; ours, under LightGBM's
    # convention, is the same number at every iteration
    alone = lgbm(n_estimators=20, metric="ndcg").fit(X, y, **fit)
    assert history["ndcg@10"] == alone.evals_result_["valid_0"]["ndcg@10"]
    np.testing.assert_allclose(history[ours_name], history["ndcg@10"], rtol=1e-12)
    # our default convention: ndcg_score of the predictions at each iteration
    default = make_lightgbm_metric("ndcg@10")
    mixed = lgbm(n_estimators=20, metric="ndcg").fit(
        X, y, eval_metric=default, callbacks=[lgb.early_stopping(5, verbose=False)], **fit
    )  # early stopping on both histories (it crashed on the interleaved one)
    history = mixed.evals_result_["valid_0"]
    assert len(history["ndcg@10"]) == len(history["prefer_max(ndcg@10)"])
    # (the model keeps the trees up to its best iteration)
    for iteration in (1, mixed.best_iteration_):
        scores = mixed.predict(Xv, num_iteration=iteration)
        assert history["prefer_max(ndcg@10)"][iteration - 1] == pytest.approx(
            ndcg_score(yv, scores, qv, k=10), rel=1e-12
        )


def test_xgboost_keeps_our_ndcg_apart_from_its_own():
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    dtrain, dvalid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    params = {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0,
              "eval_metric": "ndcg@10"}  # fmt: skip
    both, alone = {}, {}
    ours = make_xgboost_metric("ndcg@10", convention="xgboost")
    xgb.train(params, dtrain, 20, evals=[(dvalid, "v")], evals_result=both, custom_metric=ours,
              verbose_eval=False)  # fmt: skip
    xgb.train(params, dtrain, 20, evals=[(dvalid, "v")], evals_result=alone,
              verbose_eval=False)  # fmt: skip
    ours_name = "prefer_max(ndcg@10,convention=xgboost)"
    assert list(both["v"]) == ["ndcg@10", ours_name]
    assert len(both["v"]["ndcg@10"]) == len(both["v"][ours_name]) == 20
    assert both["v"]["ndcg@10"] == alone["v"]["ndcg@10"]
    # XGBoost records a custom metric to 6 digits
    np.testing.assert_allclose(both["v"][ours_name], both["v"]["ndcg@10"], atol=1e-6)
    # the scikit-learn wrapper: a built-in and ours in one eval_metric list
    ranker = xgb.XGBRanker(n_estimators=20, learning_rate=0.3, max_depth=3, n_jobs=1,
                           eval_metric=["ndcg@10", make_xgboost_metric("ndcg@10")])  # fmt: skip
    ranker.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)
    history = ranker.evals_result()["validation_0"]
    assert list(history) == ["ndcg@10", "prefer_max(ndcg@10)"]
    assert len(history["ndcg@10"]) == len(history["prefer_max(ndcg@10)"]) == 20
