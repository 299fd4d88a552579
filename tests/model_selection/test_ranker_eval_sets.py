"""GroupedRanker with eval sets in any row order, and early stopping on our metrics.

The reference is the booster fitted directly on rows sorted by query (what the
boosters need): GroupedRanker given the eval rows shuffled, with their query ids,
must train and stop identically, and its metric values must be our metric of the
model's predictions.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    GroupedRanker,
    expected_reciprocal_rank_score,
    make_lightgbm_metric,
    make_xgboost_metric,
)
from tests.support import lambdarank

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

ERR = "prefer_max(err@10)"  # how LightGBM and XGBoost report our err@10


@cache
def sample():
    (X, y, qid, sizes), (Xv, yv, qv, sizes_v) = lambdarank.load("train"), lambdarank.load("test")
    shuffle = np.random.default_rng(0).permutation(len(yv))
    return (X, y, qid, sizes), (Xv, yv, qv, sizes_v), shuffle


def lgbm():
    return lgb.LGBMRanker(
        n_estimators=200, learning_rate=0.3, num_leaves=7, min_child_samples=5, verbose=-1,
        n_jobs=1, metric="None",
    )  # fmt: skip


def test_lightgbm_early_stopping_on_err_with_a_shuffled_eval_set():
    (X, y, qid, sizes), (Xv, yv, qv, sizes_v), shuffle = sample()
    stop = [lgb.early_stopping(10, verbose=False)]
    model = GroupedRanker(lgbm()).fit(
        X, y, qid, eval_set=[(Xv[shuffle], yv[shuffle])], eval_group=[qv[shuffle]],
        eval_metric=make_lightgbm_metric("err@10"), callbacks=stop,
    )  # fmt: skip
    direct = lgbm().fit(
        X, y, group=sizes, eval_group=[sizes_v], eval_metric=make_lightgbm_metric("err@10"),
        callbacks=stop, **_lightgbm_eval_set(Xv, yv),
    )  # fmt: skip
    assert model.best_iteration_ == direct.best_iteration_ < 200
    np.testing.assert_array_equal(
        model.evals_result_["valid_0"][ERR], direct.evals_result_["valid_0"][ERR]
    )
    np.testing.assert_array_equal(model.feature_importances_, direct.feature_importances_)
    # the recorded value is our ERR@10 of the model's scores
    scores = model.predict(Xv[shuffle])
    assert model.evals_result_["valid_0"][ERR][model.best_iteration_ - 1] == pytest.approx(
        expected_reciprocal_rank_score(yv[shuffle], scores, qv[shuffle], k=10), rel=1e-12
    )


def _lightgbm_eval_set(Xv, yv):
    import inspect

    if "eval_X" in inspect.signature(lgb.LGBMRanker.fit).parameters:  # LightGBM >= 4.7
        return {"eval_X": (Xv,), "eval_y": (yv,)}
    return {"eval_set": [(Xv, yv)]}


def test_xgboost_early_stopping_on_err_with_a_shuffled_eval_set():
    (X, y, qid, _), (Xv, yv, qv, _), shuffle = sample()

    def ranker():
        return xgb.XGBRanker(
            n_estimators=200, learning_rate=0.3, max_depth=3, n_jobs=1,
            eval_metric=make_xgboost_metric("err@10"),
            callbacks=[xgb.callback.EarlyStopping(rounds=10)],  # maximises prefer_max(...)
        )  # fmt: skip

    model = GroupedRanker(ranker()).fit(
        X, y, qid, eval_set=[(Xv[shuffle], yv[shuffle])], eval_group=[qv[shuffle]],
        verbose=False,
    )  # fmt: skip
    direct = ranker().fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)
    assert model.best_iteration_ == direct.best_iteration < 199
    ours = model.evals_result_["validation_0"][ERR]
    np.testing.assert_allclose(ours, direct.evals_result()["validation_0"][ERR], atol=1e-12)
    # XGBRanker averages our per-query ERR@10 weighted by each query's rows (its
    # wrapper passes the group sizes as weights); no one-row query in this sample
    best = model.best_iteration_
    scores = model.ranker_.predict(Xv, iteration_range=(0, best + 1))
    sizes = np.bincount(np.unique(qv, return_inverse=True)[1])
    expected = expected_reciprocal_rank_score(
        yv, scores, qv, k=10, sample_weight=np.repeat(sizes, sizes)
    )
    assert ours[best] == pytest.approx(expected, abs=1e-6)  # as XGBoost records it


def test_eval_set_errors_name_what_is_missing():
    (X, y, qid, _), (Xv, yv, _, _), _ = sample()
    with pytest.raises(ValueError, match="query ids of eval set 0"):
        GroupedRanker(lgbm()).fit(X, y, qid, eval_set=[(Xv, yv)])
    with pytest.raises(ValueError, match="1 eval sets but 2 entries in eval_group"):
        GroupedRanker(lgbm()).fit(X, y, qid, eval_set=[(Xv, yv)], eval_group=[[0], [1]])
    with pytest.raises(TypeError, match="list of \\(X, y\\) pairs"):
        GroupedRanker(lgbm()).fit(X, y, qid, eval_set=(Xv, yv), eval_group=[[0]])
    with pytest.raises(ValueError, match="eval_group without eval_set"):
        GroupedRanker(lgbm()).fit(X, y, qid, eval_group=[[0]])
    unfitted = GroupedRanker(lgbm())
    assert not hasattr(unfitted, "feature_importances_")
    assert not hasattr(unfitted, "best_iteration_")
