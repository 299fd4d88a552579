"""XGBoost's early stopping on a metric of ours keeps the iteration of its highest value.

XGBoost's ``EarlyStopping`` left with ``maximize=None`` guesses the direction from the
metric's name; every form a user can write must keep the best iteration of our
metric. The reference is a brute force over the history XGBoost recorded: the first
iteration whose value is strictly greater than every earlier one's maximum (XGBoost's
rule: a later equal value is no improvement), and a stop exactly ``rounds`` rounds
after it. The recorded values themselves are checked against our metric of the
model's predictions, so the history is the metric (not, e.g., its negation).

A lower-is-better metric (fall-out) keeps its LOWEST iteration, in LightGBM and
XGBoost: every recorded value is recomputed with :func:`fallout_at_k_loss` from the
model's predictions at that iteration, and the kept iteration is found by brute force
over those values: the last iteration whose value is strictly below the minimum of
every earlier one (both boosters' rule: an equal value is no improvement).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    expected_reciprocal_rank_score,
    fallout_at_k_loss,
    make_lightgbm_metric,
    make_xgboost_metric,
    mean_reciprocal_rank_score,
)
from tests.support import lambdarank

xgb = pytest.importorskip("xgboost")

ROUNDS = 30
N_ESTIMATORS = 120
ERR = "prefer_max(err@10)"


@cache
def sample():
    return lambdarank.load("train"), lambdarank.load("test")


def kept_by_brute_force(history):
    """XGBoost's best iteration of a maximised history: first strict maximum."""
    values = np.asarray(history, dtype=np.float64)
    running_max = np.maximum.accumulate(values)
    improved = np.concatenate([[True], values[1:] > running_max[:-1]])
    return int(np.flatnonzero(improved)[-1])


def check_kept_iteration(history, best_iteration, n_rounds):
    expected = kept_by_brute_force(history)
    assert best_iteration == expected
    assert history[best_iteration] == max(history)
    # stopped ROUNDS rounds after the best one (or ran out of rounds)
    assert len(history) == min(expected + ROUNDS + 1, n_rounds)


def ranker(**params):
    return xgb.XGBRanker(
        n_estimators=N_ESTIMATORS, n_jobs=1, eval_metric=make_xgboost_metric("err@10"),
        **params,
    )  # fmt: skip


def fit_ranker(model):
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    return model.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qv], verbose=False)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_xgbranker_early_stopping_rounds_keeps_the_highest_err():
    # the form: nothing says "maximise"
    model = fit_ranker(ranker(early_stopping_rounds=ROUNDS))
    history = model.evals_result()["validation_0"]
    # XGBoost's default ndcg@32 keeps its own history beside ours
    assert list(history) == ["ndcg@32", ERR]
    assert len(history["ndcg@32"]) == len(history[ERR])
    values = history[ERR]
    check_kept_iteration(values, model.best_iteration, N_ESTIMATORS)
    assert model.best_iteration > 0  # it kept iteration 0 (the lowest value, here) before
    assert values[model.best_iteration] > values[0]
    assert model.best_score == pytest.approx(values[model.best_iteration])
    # the recorded value is our ERR@10 of the kept model (per query, weighted by
    # query size as XGBRanker's wrapper averages), as XGBoost records it (6 digits)
    (_, _, _, _), (Xv, yv, qv, sizes_v) = sample()
    scores = model.predict(Xv)  # predicts with the best iteration
    expected = expected_reciprocal_rank_score(
        yv, scores, qv, k=10, sample_weight=np.repeat(sizes_v, sizes_v)
    )
    assert values[model.best_iteration] == pytest.approx(expected, abs=1e-6)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_xgbranker_early_stopping_callback_without_maximize():
    callback = xgb.callback.EarlyStopping(rounds=ROUNDS)
    model = fit_ranker(ranker(callbacks=[callback]))
    values = model.evals_result()["validation_0"][ERR]
    check_kept_iteration(values, model.best_iteration, N_ESTIMATORS)
    # and maximize=True keeps the same iteration
    explicit = fit_ranker(ranker(callbacks=[xgb.callback.EarlyStopping(rounds=ROUNDS,
                                                                         maximize=True)]))
    assert explicit.best_iteration == model.best_iteration
    np.testing.assert_array_equal(explicit.evals_result()["validation_0"][ERR], values)


def train(metric, **options):
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    dtrain, dvalid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    record = {}
    booster = xgb.train(
        {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0,
         "eval_metric": ["ndcg@5", "ndcg@10"]},
        dtrain, num_boost_round=N_ESTIMATORS, evals=[(dvalid, "valid")], evals_result=record,
        custom_metric=metric, verbose_eval=False, **options,
    )  # fmt: skip
    return booster, record["valid"], dvalid


@pytest.mark.parametrize(
    "options",
    [
        {"early_stopping_rounds": ROUNDS},  # maximize left None
        {"callbacks": [xgb.callback.EarlyStopping(rounds=ROUNDS)]},
        {"early_stopping_rounds": ROUNDS, "maximize": True},
    ],
    ids=["early_stopping_rounds", "callback", "maximize_true"],
)
def test_xgboost_train_custom_metric_keeps_the_highest_mrr(options):
    metric = make_xgboost_metric("mrr@10")
    booster, history, dvalid = train(metric, **options)
    # the built-in metrics come first, ours last: early stopping watches ours
    assert list(history) == ["ndcg@5", "ndcg@10", "prefer_max(mrr@10)"]
    values = history["prefer_max(mrr@10)"]
    check_kept_iteration(values, booster.best_iteration, N_ESTIMATORS)
    assert booster.best_iteration > 0 and values[booster.best_iteration] > values[0]
    # the recorded value at the kept iteration is our MRR@10 of its predictions
    (_, _, _, _), (_, yv, qv, _) = sample()
    kept = booster.predict(dvalid, iteration_range=(0, booster.best_iteration + 1))
    expected = mean_reciprocal_rank_score(yv, kept, qv, k=10)
    assert values[booster.best_iteration] == pytest.approx(expected, abs=1e-6)
    assert metric(kept, dvalid) == ("prefer_max(mrr@10)", pytest.approx(expected, rel=1e-12))


def test_brute_force_follows_xgboosts_tie_rule():
    # a later equal value is no improvement; a strictly greater one is
    assert kept_by_brute_force([0.1, 0.3, 0.2, 0.3, 0.25]) == 1
    assert kept_by_brute_force([0.1, 0.3, 0.2, 0.3000001]) == 3
    assert kept_by_brute_force([0.5, 0.4, 0.3]) == 0


# ---------------------------------------------------------------------------
# A lower-is-better metric (fall-out): both boosters keep its LOWEST iteration
# ---------------------------------------------------------------------------


FALLOUT_ROUNDS = 10
FALLOUT_N_ROUNDS = 60
FALLOUT_K = 10


def kept_by_brute_force_of_minimum(values):
    """The best iteration of a minimised history: its first strict minimum."""
    return kept_by_brute_force(-np.asarray(values, dtype=np.float64))


def test_brute_force_takes_the_first_strict_minimum():
    assert kept_by_brute_force_of_minimum([0.5, 0.4, 0.4, 0.6, 0.3, 0.3]) == 4
    assert kept_by_brute_force_of_minimum([0.2, 0.5, 0.2]) == 0


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
        lgb.Dataset(X, y, group=sizes), num_boost_round=FALLOUT_N_ROUNDS,
        valid_sets=[lgb.Dataset(Xv, yv, group=sizes_v)], valid_names=["valid"],
        feval=make_lightgbm_metric(f"fallout@{FALLOUT_K}"),
        callbacks=[lgb.record_evaluation(record),
                   lgb.early_stopping(FALLOUT_ROUNDS, verbose=False)],
        keep_training_booster=True,  # keeps the trees after the best iteration to predict
    )  # fmt: skip
    ((name, history),) = record["valid"].items()  # ours, the only metric
    ours = [
        fallout_at_k_loss(yv, booster.predict(Xv, num_iteration=i + 1), qv, k=FALLOUT_K)
        for i in range(len(history))
    ]
    np.testing.assert_allclose(history, ours, rtol=1e-12)
    expected = kept_by_brute_force_of_minimum(ours)
    assert booster.best_iteration == expected + 1  # LightGBM counts from 1
    assert ours[expected] == min(ours) < ours[0]
    assert len(history) == min(expected + FALLOUT_ROUNDS + 1, FALLOUT_N_ROUNDS)
    assert name == f"minimize(fallout@{FALLOUT_K})"
    assert booster.best_score["valid"][name] == pytest.approx(min(ours))


@pytest.mark.parametrize("form", ["early_stopping_rounds", "callback"])
def test_xgboost_early_stopping_keeps_the_lowest_fallout(form):
    xgb = pytest.importorskip("xgboost")
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    dtrain, dvalid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    options = (
        {"early_stopping_rounds": FALLOUT_ROUNDS}
        if form == "early_stopping_rounds"
        else {"callbacks": [xgb.callback.EarlyStopping(rounds=FALLOUT_ROUNDS)]}
    )  # maximize left None in both
    record = {}
    booster = xgb.train(
        {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0,
         "disable_default_eval_metric": 1},
        dtrain, num_boost_round=FALLOUT_N_ROUNDS, evals=[(dvalid, "valid")], evals_result=record,
        custom_metric=make_xgboost_metric(f"fallout@{FALLOUT_K}"), verbose_eval=False, **options,
    )  # fmt: skip
    ((name, history),) = record["valid"].items()  # ours, the only metric
    ours = [
        fallout_at_k_loss(yv, booster.predict(dvalid, iteration_range=(0, i + 1)), qv, k=FALLOUT_K)
        for i in range(len(history))
    ]
    np.testing.assert_allclose(history, ours, atol=1e-6)  # XGBoost records 6 decimals
    expected = kept_by_brute_force_of_minimum(history)
    assert booster.best_iteration == expected
    assert ours[expected] == pytest.approx(min(ours), abs=1e-6)
    assert history[expected] < history[0]
    assert len(history) == min(expected + FALLOUT_ROUNDS + 1, FALLOUT_N_ROUNDS)
    assert name == f"minimize(fallout@{FALLOUT_K})"
