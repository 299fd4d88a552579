"""The label side of a booster's dataset, kept across rounds and never stale.

``make_lightgbm_metric`` and ``make_xgboost_metric`` keep, per dataset, what depends
on its labels, query groups and weights alone (``_model_selection/_label_side.py``).
These tests check that it is built once per dataset in a training (train and valid
sets apart) with the built-in metrics' histories; that a dataset whose labels,
groups or weights change is computed anew, on data where the stale label side would
give another number (shown by forcing it); and that the kept entries stay few.
"""

from __future__ import annotations

import copy
import gc
import pickle
from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import evaluate, make_lightgbm_metric, make_xgboost_metric
from sklearn_rank_metrics._model_selection import _booster_metrics, _label_side
from tests.support import lambdarank

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")

LGB_PARAMS = {
    "objective": "lambdarank", "learning_rate": 0.3, "num_leaves": 7, "min_data_in_leaf": 5,
    "verbose": -1, "num_threads": 1, "seed": 0,
}  # fmt: skip
XGB_PARAMS = {"objective": "rank:ndcg", "eta": 0.3, "max_depth": 3, "nthread": 1, "seed": 0}
ROUNDS = 8


@cache
def sample():
    return lambdarank.load("train"), lambdarank.load("test")


@pytest.fixture
def door_calls(monkeypatch):
    """How many times a booster metric checked a dataset's labels (built a label side)."""
    calls = []
    real = _booster_metrics.rows_at_door

    def counted(*args, **kwargs):
        calls.append(len(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(_booster_metrics, "rows_at_door", counted)
    return calls


def lightgbm_builtin_ndcg(y, scores, sizes, k):
    """LightGBM's own NDCG@k of ``scores`` (the init score of an untrained booster)."""
    dataset = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=sizes, init_score=scores,
                          params={"verbose": -1, "num_threads": 1})  # fmt: skip
    booster = lgb.Booster(
        params={"objective": "none", "metric": "ndcg", "eval_at": [k], "verbose": -1,
                "num_threads": 1},
        train_set=dataset,
    )  # fmt: skip
    (result,) = booster.eval_train()
    return float(result[2])


# ---------------------------------------------------------------------------
# Training: one label side per dataset, the built-in histories
# ---------------------------------------------------------------------------


def test_lightgbm_training_builds_each_label_side_once(door_calls):
    (X, y, _, sizes), (Xv, yv, _, sizes_v) = sample()

    def run(params, feval=None):
        train = lgb.Dataset(X, y, group=sizes)
        valid = lgb.Dataset(Xv, yv, group=sizes_v, reference=train)
        record = {}
        lgb.train({**LGB_PARAMS, **params}, train, ROUNDS, valid_sets=[train, valid],
                  valid_names=["train", "valid"], feval=feval,
                  callbacks=[lgb.record_evaluation(record)])  # fmt: skip
        return record

    builtin = run({"metric": "ndcg", "eval_at": [10]})
    metric = make_lightgbm_metric("ndcg@10", convention="lightgbm")
    ours = run({"metric": "None"}, feval=metric)
    # train and valid: one label side each, for all the rounds
    assert sorted(door_calls) == sorted([len(y), len(yv)])
    name = "prefer_max(ndcg@10,convention=lightgbm)"
    for data in ("train", "valid"):
        assert len(ours[data][name]) == ROUNDS
        np.testing.assert_allclose(ours[data][name], builtin[data]["ndcg@10"], rtol=1e-12)
    # the training's datasets are gone: so are their entries
    gc.collect()
    assert len(metric._label_sides) == 0


def test_xgboost_training_builds_each_label_side_once(door_calls):
    (X, y, qid, _), (Xv, yv, qv, _) = sample()
    train, valid = xgb.DMatrix(X, y, qid=qid), xgb.DMatrix(Xv, yv, qid=qv)
    builtin, ours = {}, {}
    evals = [(train, "t"), (valid, "v")]
    xgb.train({**XGB_PARAMS, "eval_metric": "ndcg@10"}, train, ROUNDS, evals=evals,
              evals_result=builtin, verbose_eval=False)  # fmt: skip
    metric = make_xgboost_metric("ndcg@10", convention="xgboost")
    booster = xgb.train({**XGB_PARAMS, "disable_default_eval_metric": 1}, train, ROUNDS,
                        evals=evals, evals_result=ours, custom_metric=metric,
                        verbose_eval=False)  # fmt: skip
    assert sorted(door_calls) == sorted([len(y), len(yv)])
    assert len(metric._label_sides) == 2
    name = "prefer_max(ndcg@10,convention=xgboost)"
    for data in ("t", "v"):
        # XGBoost keeps a custom metric's values as printed (6 digits)
        np.testing.assert_allclose(ours[data][name], builtin[data]["ndcg@10"], atol=1e-6)
    # to full precision, from the kept label side: a round's margin, the built-in value
    for rounds in (1, ROUNDS):
        margin = booster.predict(valid, iteration_range=(0, rounds), output_margin=True)
        assert metric(margin, valid)[1] == pytest.approx(builtin["v"]["ndcg@10"][rounds - 1],
                                                         abs=1e-6)  # fmt: skip
    assert len(door_calls) == 2


# ---------------------------------------------------------------------------
# A changed dataset is computed anew
# ---------------------------------------------------------------------------


def _queries(seed, n_queries=30, n_docs=8):
    rng = np.random.default_rng(seed)
    sizes = np.full(n_queries, n_docs)
    y = rng.integers(0, 5, size=n_queries * n_docs).astype(float)
    scores = rng.random(n_queries * n_docs)
    return y, scores, sizes


@pytest.fixture
def stale(monkeypatch):
    """Make every kept label side match any call: the bug the comparison prevents."""

    def force():
        monkeypatch.setattr(_label_side.LabelSide, "matches", lambda self, *args: True)

    return force


@pytest.mark.parametrize("forced_stale", [False, True], ids=["checked", "stale"])
def test_lightgbm_dataset_with_new_labels_is_computed_anew(forced_stale, stale):
    y, scores, sizes = _queries(0)
    new_y = np.roll(y, 3)  # same sizes, other labels
    dataset = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=sizes,
                          params={"verbose": -1})  # fmt: skip
    dataset.construct()
    metric = make_lightgbm_metric("ndcg@5", convention="lightgbm")
    first = metric(scores, dataset)[1]
    assert first == pytest.approx(lightgbm_builtin_ndcg(y, scores, sizes, 5), rel=1e-12)
    dataset.set_label(new_y)
    if forced_stale:
        stale()
    value = metric(scores, dataset)[1]
    expected = lightgbm_builtin_ndcg(new_y, scores, sizes, 5)
    # the data tells them apart: the stale label side gives another number
    assert abs(lightgbm_builtin_ndcg(y, scores, sizes, 5) - expected) > 1e-3
    if forced_stale:
        assert value != pytest.approx(expected, rel=1e-6)
    else:
        assert value == pytest.approx(expected, rel=1e-12)


CHANGES = ["labels in place", "group sizes", "weights", "labels of another length"]


@pytest.mark.parametrize("forced_stale", [False, True], ids=["checked", "stale"])
@pytest.mark.parametrize("change", CHANGES)
def test_same_label_array_changed_in_place_is_computed_anew(change, forced_stale, stale):
    # the scikit-learn wrapper's form: the same label array object at every round,
    # so identity alone would reuse the entry; the values are compared
    y, scores, sizes = _queries(1)
    weight = np.repeat(np.arange(1.0, 1.0 + len(sizes)), sizes)
    metric = make_lightgbm_metric("ndcg@5", convention="lightgbm")
    metric(y, scores, weight, sizes)
    assert len(metric._label_sides) == 1
    new_sizes, new_weight = sizes, weight
    if change == "labels in place":
        y[:] = y[::-1].copy()
    elif change == "group sizes":
        new_sizes = np.concatenate(([3, 13], sizes[2:]))
        new_weight = np.repeat(np.arange(1.0, 1.0 + len(sizes)), new_sizes)
    elif change == "weights":
        new_weight = weight[::-1].copy()
    else:
        y, scores, new_sizes = y[:-8], scores[:-8], sizes[:-1]
        new_weight = weight[:-8]
    if forced_stale:
        stale()
    expected = _weighted_reference(y, scores, new_sizes, new_weight)
    if forced_stale and change == "labels of another length":
        # a stale label side of another length cannot even be scored
        with pytest.raises(ValueError):
            metric(y, scores, new_weight, new_sizes)
        return
    value = metric(y, scores, new_weight, new_sizes)[1]
    if forced_stale:
        assert value != pytest.approx(expected, rel=1e-6)
    else:
        assert value == pytest.approx(expected, rel=1e-12)


def _weighted_reference(y, scores, sizes, row_weight):
    """LightGBM's weighted NDCG@5 convention through evaluate, on fresh rows.

    Every query of these data has a relevant row, where our weighted mean is
    LightGBM's (tests/crosscheck/test_crosscheck_boosters.py::test_query_weights).
    """
    qid = np.repeat(np.arange(len(sizes)), sizes)
    query_weight = np.bincount(qid, weights=row_weight) / sizes
    assert np.all(np.bincount(qid, weights=y > 0) > 0)
    return evaluate(y, scores, qid, metrics=["ndcg@5"], convention="lightgbm",
                    sample_weight=query_weight[qid])["ndcg@5"]  # fmt: skip


def test_xgboost_dmatrix_with_new_labels_is_computed_anew(stale):
    y, scores, sizes = _queries(2)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    dmatrix = xgb.DMatrix(np.zeros((len(y), 1)), label=y, qid=qid)
    metric = make_xgboost_metric("ndcg@5", convention="xgboost")
    metric(scores.astype(np.float32), dmatrix)
    new_y = np.roll(y, 5)
    dmatrix.set_label(new_y)
    expected = evaluate(new_y, scores.astype(np.float32), qid, metrics=["ndcg@5"],
                        convention="xgboost")["ndcg@5"]  # fmt: skip
    assert metric(scores.astype(np.float32), dmatrix)[1] == pytest.approx(expected, rel=1e-12)
    dmatrix.set_label(y)  # back: the entry of the new labels is not those of y
    stale()
    assert metric(scores.astype(np.float32), dmatrix)[1] == pytest.approx(expected, rel=1e-12)
    truth = evaluate(y, scores.astype(np.float32), qid, metrics=["ndcg@5"],
                     convention="xgboost")["ndcg@5"]  # fmt: skip
    assert abs(truth - expected) > 1e-3


METRICS = ["ndcg@3", "map@3", "recall@3", "mrr@3", "p@3", "err(max_grade=4)@3", "ndcg", "gauc"]


SETTINGS = [
    {},
    {"convention": "lightgbm"},
    # torchmetrics reads a row scored <= 0 as not relevant (MAP, MRR, P@k) or not
    # returned (recall): the labels it reads change with the scores, and so do its
    # relevant rows per query, which decide the queries skipped
    {"convention": "torchmetrics", "replace_undefined_by": "skip"},
]


@pytest.mark.parametrize("name", METRICS)
@pytest.mark.parametrize("settings", SETTINGS, ids=["default", "lightgbm", "torchmetrics"])
def test_every_round_equals_a_fresh_evaluation(name, settings):
    # rounds of new scores (with ties and scores <= 0, and -inf rows at one round),
    # then new labels: the kept label side gives what evaluating the rows anew gives
    rng = np.random.default_rng(3)
    sizes = np.full(30, 8)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    y = np.where(rng.random(len(qid)) < 0.2, rng.integers(1, 5, len(qid)), 0).astype(float)
    metric = make_lightgbm_metric(name, **settings)
    for round_ in range(5):
        scores = np.round(rng.random(len(y)), 1) - 0.4
        if round_ == 2:
            scores[rng.random(len(y)) < 0.3] = -np.inf
        if round_ == 4:
            y = rng.integers(0, 5, size=len(y)).astype(float)
        got = metric(y, scores, None, sizes)[1]
        expected = evaluate(y, scores, qid, metrics=[name], **settings)[name]
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), round_


def test_minus_infinity_rows_do_not_reuse_the_cutoff_of_a_full_round(monkeypatch):
    # the cutoff rows are kept only from and for rounds where every row is retrieved;
    # forced to be reused at a round with -inf rows, they give another number (queries
    # of uneven sizes: with one size, the cutoff rows are columns, read at each call)
    y, scores, _ = _queries(5)
    sizes = np.tile([6, 8, 10], 10)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    metric = make_lightgbm_metric("ndcg@5")
    metric(y, scores, None, sizes)
    with_inf = np.where(np.random.default_rng(6).random(len(y)) < 0.4, -np.inf, scores)
    expected = evaluate(y, with_inf, qid, metrics=["ndcg@5"])["ndcg@5"]
    assert metric(y, with_inf, None, sizes)[1] == pytest.approx(expected, rel=1e-12)
    monkeypatch.setattr(_label_side, "every_row_retrieved", lambda ranked: True)
    assert metric(y, with_inf, None, sizes)[1] != pytest.approx(expected, rel=1e-6)


def test_a_bad_score_gets_the_same_error_from_a_kept_label_side():
    y, scores, sizes = _queries(7)
    bad = scores.copy()
    bad[17] = np.nan
    fresh = make_lightgbm_metric("ndcg@5")
    with pytest.raises(ValueError) as first:
        fresh(y, bad, None, sizes)
    kept = make_lightgbm_metric("ndcg@5")
    kept(y, scores, None, sizes)
    with pytest.raises(ValueError) as later:
        kept(y, bad, None, sizes)
    assert str(later.value) == str(first.value)
    assert "row 17" in str(first.value)


# ---------------------------------------------------------------------------
# Bounded, not pickled
# ---------------------------------------------------------------------------


def test_entries_live_with_their_datasets_and_stay_few():
    metric = make_lightgbm_metric("ndcg@5")
    sizes = np.full(4, 5)
    scores = np.random.default_rng(8).random(20)
    for seed in range(40):  # each label array dies after its call
        metric(np.random.default_rng(seed).integers(0, 3, 20).astype(float), scores, None, sizes)
    gc.collect()
    assert len(metric._label_sides) == 0
    alive = [np.random.default_rng(seed).integers(0, 3, 20).astype(float) for seed in range(40)]
    for labels in alive:
        metric(labels, scores, None, sizes)
    assert len(metric._label_sides) == _label_side.MAX_DATASETS
    # a label list takes no weak reference: computed, never kept
    metric._label_sides.clear()
    metric(alive[0].tolist(), scores, None, sizes)
    assert len(metric._label_sides) == 0


@pytest.mark.parametrize("duplicate", [pickle.loads, copy.deepcopy], ids=["pickle", "deepcopy"])
def test_a_copy_starts_without_label_sides(duplicate):
    y, scores, sizes = _queries(9)
    metric = make_lightgbm_metric("ndcg@5", convention="lightgbm")
    value = metric(y, scores, None, sizes)[1]
    assert len(metric._label_sides) == 1
    copied = duplicate(pickle.dumps(metric)) if duplicate is pickle.loads else duplicate(metric)
    assert len(copied._label_sides) == 0
    assert copied(y, scores, None, sizes)[1] == value
    assert len(copied._label_sides) == 1 and len(metric._label_sides) == 1


def test_the_kept_label_side_does_not_keep_a_rounds_predictions_alive():
    # what is kept per dataset is label-side only: a round's predictions are freed
    # once the booster drops them (a view of them would keep the whole array)
    import weakref

    y, scores, sizes = _queries(5)
    dataset = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=sizes,
                          params={"verbose": -1})  # fmt: skip
    dataset.construct()
    metric = make_lightgbm_metric("ndcg@5", convention="lightgbm")
    predictions = scores.copy()
    alive = weakref.ref(predictions)
    first = metric(predictions, dataset)[1]
    del predictions
    gc.collect()
    assert alive() is None
    assert metric(scores, dataset)[1] == first  # the kept side still serves


@pytest.mark.parametrize("forced_stale", [False, True], ids=["checked", "stale"])
@pytest.mark.parametrize("first", ["uneven", "one size"])
def test_query_sizes_made_even_or_uneven_are_computed_anew(first, forced_stale, stale):
    # queries of one size are read as the columns of a 2-D array: a layout that
    # becomes even (or uneven) with the same rows and labels is a new label side
    y, scores, even = _queries(8)
    uneven = np.tile([6, 10], len(even) // 2)
    sizes, new_sizes = (uneven, even) if first == "uneven" else (even, uneven)
    metric = make_lightgbm_metric("ndcg@5", convention="lightgbm")
    metric(y, scores, None, sizes)
    if forced_stale:
        stale()
    qid = np.repeat(np.arange(len(new_sizes)), new_sizes)
    expected = evaluate(y, scores, qid, metrics=["ndcg@5"], convention="lightgbm")["ndcg@5"]
    stale_value = evaluate(
        y, scores, np.repeat(np.arange(len(sizes)), sizes), metrics=["ndcg@5"],
        convention="lightgbm",
    )["ndcg@5"]  # fmt: skip
    assert abs(stale_value - expected) > 1e-3
    value = metric(y, scores, None, new_sizes)[1]
    if forced_stale:
        assert value != pytest.approx(expected, rel=1e-6)
    else:
        assert value == pytest.approx(expected, rel=1e-12)
