"""Early stopping on a lower-is-better metric (fall-out) keeps its LOWEST iteration.

Real boosters train on the vendored learning-to-rank sample; every recorded value is
recomputed with :func:`fallout_at_k_loss` from the model's predictions at that
iteration, and the kept iteration is found by brute force over those values: the
last iteration whose value is strictly below the minimum of every earlier one
(both boosters' rule: an equal value is no improvement).
"""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank_metrics import fallout_at_k_loss, make_lightgbm_metric, make_xgboost_metric
from tests.model_selection.test_booster_early_stopping import (
    kept_by_brute_force as kept_by_brute_force_of_maximum,
)
from tests.model_selection.test_booster_early_stopping import sample

ROUNDS = 10
N_ROUNDS = 60
K = 10


def kept_by_brute_force(values):
    """The best iteration of a minimised history: its first strict minimum."""
    return kept_by_brute_force_of_maximum(-np.asarray(values, dtype=np.float64))


def test_brute_force_takes_the_first_strict_minimum():
    assert kept_by_brute_force([0.5, 0.4, 0.4, 0.6, 0.3, 0.3]) == 4
    assert kept_by_brute_force([0.2, 0.5, 0.2]) == 0


def test_reported_direction_reads_the_registry():
    lightgbm_metric = make_lightgbm_metric("fallout@2")
    assert lightgbm_metric.name == "minimize(fallout@2)"
    y, s, sizes = np.array([1, 0, 0, 0]), np.array([0.9, 0.8, 0.7, 0.1]), np.array([4])
    # by hand: the top 2 holds 1 of the 3 non-relevant rows; the top 10, all 3
    assert lightgbm_metric(y, s, None, sizes) == ("minimize(fallout@2)", 1 / 3, False)
    assert make_lightgbm_metric("fallout@10")(y, s, None, sizes) == (
        "minimize(fallout@10)",
        1.0,
        False,
    )
    named = make_lightgbm_metric("fallout@2", name="fo")
    assert named(y, s, None, sizes) == ("minimize(fo)", 1 / 3, False)
    assert make_lightgbm_metric("ndcg@10")(y, s, None, sizes)[2] is True
    assert make_xgboost_metric("fallout@10").__name__ == "minimize(fallout@10)"
    assert make_xgboost_metric("ndcg@10").__name__ == "prefer_max(ndcg@10)"


def test_lightgbm_early_stopping_keeps_the_lowest_fallout():
    lgb = pytest.importorskip("lightgbm")
    (X, y, _, sizes), (Xv, yv, qv, sizes_v) = sample()
    record = {}
    booster = lgb.train(
        {"objective": "lambdarank", "verbosity": -1, "num_threads": 1, "learning_rate": 0.3,
         "seed": 0, "metric": "None"},
        lgb.Dataset(X, y, group=sizes), num_boost_round=N_ROUNDS,
        valid_sets=[lgb.Dataset(Xv, yv, group=sizes_v)], valid_names=["valid"],
        feval=make_lightgbm_metric(f"fallout@{K}"),
        callbacks=[lgb.record_evaluation(record), lgb.early_stopping(ROUNDS, verbose=False)],
        keep_training_booster=True,  # keeps the trees after the best iteration to predict
    )  # fmt: skip
    ((name, history),) = record["valid"].items()  # ours, the only metric
    ours = [
        fallout_at_k_loss(yv, booster.predict(Xv, num_iteration=i + 1), qv, k=K)
        for i in range(len(history))
    ]
    np.testing.assert_allclose(history, ours, rtol=1e-12)
    expected = kept_by_brute_force(ours)
    assert booster.best_iteration == expected + 1  # LightGBM counts from 1
    assert ours[expected] == min(ours) < ours[0]
    assert len(history) == min(expected + ROUNDS + 1, N_ROUNDS)
    assert name == f"minimize(fallout@{K})"
    assert booster.best_score["valid"][name] == pytest.approx(min(ours))


@pytest.mark.parametrize("form", ["early_stopping_rounds", "callback"])
def test_xgboost_early_stopping_keeps_the_lowest_fallout(form):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    dtrain, dvalid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    options = (
        {"early_stopping_rounds": ROUNDS}
        if form == "early_stopping_rounds"
        else {"callbacks": [xgb.callback.EarlyStopping(rounds=ROUNDS)]}
    )  # maximize left None in both
    record = {}
    booster = xgb.train(
        {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0,
         "disable_default_eval_metric": 1},
        dtrain, num_boost_round=N_ROUNDS, evals=[(dvalid, "valid")], evals_result=record,
        custom_metric=make_xgboost_metric(f"fallout@{K}"), verbose_eval=False, **options,
    )  # fmt: skip
    ((name, history),) = record["valid"].items()  # ours, the only metric
    ours = [
        fallout_at_k_loss(yv, booster.predict(dvalid, iteration_range=(0, i + 1)), qv, k=K)
        for i in range(len(history))
    ]
    np.testing.assert_allclose(history, ours, atol=1e-6)  # XGBoost records 6 decimals
    expected = kept_by_brute_force(history)
    assert booster.best_iteration == expected
    assert ours[expected] == pytest.approx(min(ours), abs=1e-6)
    assert history[expected] < history[0]
    assert len(history) == min(expected + ROUNDS + 1, N_ROUNDS)
    assert name == f"minimize(fallout@{K})"
