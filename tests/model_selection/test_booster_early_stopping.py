"""XGBoost's early stopping on a metric of ours keeps the iteration of its highest value.

XGBoost's ``EarlyStopping`` left with ``maximize=None`` guesses the direction from the
metric's name; every form a user can write must keep the best iteration of our
metric. The reference is a brute force over the history XGBoost recorded: the first
iteration whose value is strictly greater than every earlier one's maximum (XGBoost's
rule: a later equal value is no improvement), and a stop exactly ``rounds`` rounds
after it. The recorded values themselves are checked against our metric of the
model's predictions, so the history is the metric (not, e.g., its negation).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    expected_reciprocal_rank_score,
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
