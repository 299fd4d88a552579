"""make_ranking_scorer inside scikit-learn's model selection, checked fold by fold.

Every score that a search or cross-validation reports is recomputed independently:
refit a clone on the fold's train rows, predict its test rows, and evaluate the
slow per-query reference (``tests/support/reference.py``) on those rows. The query ids reach
the scorer by metadata routing, by a pandas column, or bound to the scorer.

A lower-is-better metric (fall-out) is negated, so that searches minimise it; its
values in the last section are computed by hand from the definition (non-relevant rows
in the top k over the query's non-relevant rows).
"""

import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from sklearn_rank_metrics import (
    fallout_at_k_loss,
    make_ranking_scorer,
    make_ranking_scorers,
    mean_average_precision_score,
    ndcg_score,
)
from tests.support.reference import reference_mean

N_FOLDS = 4


def _queries(n_queries=40, seed=0, shuffle=True):
    """Features, graded labels 0..4 and query ids; queries interleaved when shuffled."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 13, n_queries)
    qid = np.repeat(np.arange(100, 100 + n_queries), sizes)
    X = rng.normal(size=(len(qid), 4))
    signal = X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=len(qid))
    y = np.clip(np.round(signal + 1.0), 0, 4)
    if shuffle:
        order = rng.permutation(len(qid))
        X, y, qid = X[order], y[order], qid[order]
    return X, y, qid


def _frame(X, qid):
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame["qid"] = qid
    return frame


def _dropping_qid(model):
    return make_pipeline(
        ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"), model
    )


def _expected_fold_scores(estimator, params, X, y, qid, metric, fit_X=None, **metric_params):
    """Reference scores of every GroupKFold test fold (and train fold) for ``params``."""
    fit_X = X if fit_X is None else fit_X
    test_scores, train_scores = [], []
    for train, test in GroupKFold(N_FOLDS).split(X, y, qid):
        model = clone(estimator).set_params(**params).fit(_rows(fit_X, train), y[train])
        for rows, out in ((test, test_scores), (train, train_scores)):
            predictions = model.predict(_rows(fit_X, rows))
            out.append(reference_mean(metric, y[rows], predictions, qid[rows], **metric_params)[0])
    return np.array(test_scores), np.array(train_scores)


def _rows(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


def _split_scores(cv_results, key, index):
    return np.array([cv_results[f"split{i}_{key}"][index] for i in range(N_FOLDS)])


GRID = {"alpha": [0.1, 100.0]}


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_grid_search_with_routing_matches_reference_per_fold(n_jobs):
    X, y, qid = _queries()
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(),
            GRID,
            cv=GroupKFold(N_FOLDS),
            scoring=make_ranking_scorer("ndcg@5"),
            return_train_score=True,
            n_jobs=n_jobs,
        )
        search.fit(X, y, groups=qid)
    for index, params in enumerate(search.cv_results_["params"]):
        expected_test, expected_train = _expected_fold_scores(
            Ridge(), params, X, y, qid, "ndcg", k=5
        )
        np.testing.assert_allclose(
            _split_scores(search.cv_results_, "test_score", index), expected_test, rtol=1e-12
        )
        np.testing.assert_allclose(
            _split_scores(search.cv_results_, "train_score", index), expected_train, rtol=1e-12
        )


def test_grid_search_with_pandas_column_matches_reference_per_fold():
    X, y, qid = _queries(seed=1)
    frame = _frame(X, qid)
    grid = {"ridge__alpha": GRID["alpha"]}
    assert not sklearn.get_config()["enable_metadata_routing"]
    search = GridSearchCV(
        _dropping_qid(Ridge()),
        grid,
        cv=GroupKFold(N_FOLDS),
        scoring=make_ranking_scorer("ndcg@5", group_column="qid"),
        return_train_score=True,
    )
    search.fit(frame, y, groups=qid)
    for index, params in enumerate(search.cv_results_["params"]):
        expected_test, expected_train = _expected_fold_scores(
            _dropping_qid(Ridge()), params, X, y, qid, "ndcg", fit_X=frame, k=5
        )
        np.testing.assert_allclose(
            _split_scores(search.cv_results_, "test_score", index), expected_test, rtol=1e-12
        )
        np.testing.assert_allclose(
            _split_scores(search.cv_results_, "train_score", index), expected_train, rtol=1e-12
        )
    # The refitted pipeline ignores the id column: its coefficients see 4 features.
    assert search.best_estimator_[-1].coef_.shape == (4,)


def test_multimetric_dict_with_refit_and_two_jobs():
    X, y, qid = _queries(seed=2)
    scorers = make_ranking_scorers(["ndcg@5", "map", "mrr@3"])
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(), GRID, cv=GroupKFold(N_FOLDS), scoring=scorers, refit="map", n_jobs=2
        )
        search.fit(X, y, groups=qid)
    for name, metric, params in (("ndcg@5", "ndcg", {"k": 5}), ("map", "map", {}),
                                 ("mrr@3", "mrr", {"k": 3})):
        for index, grid_params in enumerate(search.cv_results_["params"]):
            expected, _ = _expected_fold_scores(Ridge(), grid_params, X, y, qid, metric, **params)
            np.testing.assert_allclose(
                _split_scores(search.cv_results_, f"test_{name}", index), expected, rtol=1e-12
            )
    assert search.best_index_ == int(np.argmax(search.cv_results_["mean_test_map"]))
    assert search.best_params_ == search.cv_results_["params"][search.best_index_]


def test_cross_validate_with_params_groups_and_two_jobs():
    X, y, qid = _queries(seed=3)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            LinearRegression(),
            X,
            y,
            cv=GroupKFold(N_FOLDS),
            scoring=make_ranking_scorers(["ndcg@10", "p@3"]),
            params={"groups": qid},
            return_train_score=True,
            n_jobs=2,
        )
    expected_ndcg, train_ndcg = _expected_fold_scores(
        LinearRegression(), {}, X, y, qid, "ndcg", k=10
    )
    expected_p, _ = _expected_fold_scores(LinearRegression(), {}, X, y, qid, "precision", k=3)
    np.testing.assert_allclose(result["test_ndcg@10"], expected_ndcg, rtol=1e-12)
    np.testing.assert_allclose(result["train_ndcg@10"], train_ndcg, rtol=1e-12)
    np.testing.assert_allclose(result["test_p@3"], expected_p, rtol=1e-12)


def test_cross_val_score_and_randomized_search_with_routing():
    X, y, qid = _queries(seed=4)
    scorer = make_ranking_scorer("map@5")
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(
            Ridge(), X, y, cv=GroupKFold(N_FOLDS), scoring=scorer, params={"groups": qid}
        )
        search = RandomizedSearchCV(
            Ridge(), {"alpha": [0.01, 1.0, 1000.0]}, n_iter=2, random_state=0,
            cv=GroupKFold(N_FOLDS), scoring=scorer,
        ).fit(X, y, groups=qid)
    np.testing.assert_allclose(
        scores, _expected_fold_scores(Ridge(), {}, X, y, qid, "map", k=5)[0], rtol=1e-12
    )
    for index, params in enumerate(search.cv_results_["params"]):
        expected, _ = _expected_fold_scores(Ridge(), params, X, y, qid, "map", k=5)
        np.testing.assert_allclose(
            _split_scores(search.cv_results_, "test_score", index), expected, rtol=1e-12
        )


SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


@pytest.mark.skipif(
    SKLEARN_VERSION < (1, 6), reason="validation_curve routes metadata (params=) from 1.6"
)
def test_validation_curve_with_routing():
    X, y, qid = _queries(seed=5)
    alphas = [0.1, 1000.0]
    with sklearn.config_context(enable_metadata_routing=True):
        train_scores, test_scores = validation_curve(
            Ridge(), X, y, param_name="alpha", param_range=alphas, cv=GroupKFold(N_FOLDS),
            scoring=make_ranking_scorer("ndcg@3"), params={"groups": qid},
        )
    for index, alpha in enumerate(alphas):
        expected_test, expected_train = _expected_fold_scores(
            Ridge(), {"alpha": alpha}, X, y, qid, "ndcg", k=3
        )
        np.testing.assert_allclose(test_scores[index], expected_test, rtol=1e-12)
        np.testing.assert_allclose(train_scores[index], expected_train, rtol=1e-12)


def test_search_score_routes_test_query_ids():
    X, y, qid = _queries(seed=6)
    X_test, y_test, qid_test = _queries(n_queries=15, seed=7)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(), GRID, cv=GroupKFold(N_FOLDS), scoring=make_ranking_scorer("ndcg@5")
        ).fit(X, y, groups=qid)
        held_out = search.score(X_test, y_test, groups=qid_test)
    predictions = search.predict(X_test)
    assert held_out == ndcg_score(y_test, predictions, qid_test, k=5)
    np.testing.assert_allclose(
        held_out, reference_mean("ndcg", y_test, predictions, qid_test, k=5)[0], rtol=1e-12
    )


def test_search_score_after_a_multimetric_search_routes_test_query_ids():
    # scikit-learn's search.score calls the refit metric's scorer with the metadata
    # under the alias it requested ("groups"), not the parameter name ("group")
    X, y, qid = _queries(seed=6)
    X_test, y_test, qid_test = _queries(n_queries=15, seed=7)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            Ridge(), GRID, cv=GroupKFold(N_FOLDS),
            scoring=make_ranking_scorers(["map", "ndcg@5"]), refit="ndcg@5",
        ).fit(X, y, groups=qid)
        held_out = search.score(X_test, y_test, groups=qid_test)
    np.testing.assert_allclose(
        held_out, reference_mean("ndcg", y_test, search.predict(X_test), qid_test, k=5)[0],
        rtol=1e-12,
    )
    # a scorer takes its query ids under the requested alias as well, never both ways
    scorer = make_ranking_scorer("ndcg@5").set_score_request(group="query")
    model = search.best_estimator_
    assert scorer(model, X_test, y_test, query=qid_test) == held_out
    with pytest.raises(TypeError, match="twice"):
        scorer(model, X_test, y_test, query=qid_test, group=qid_test)


def test_sample_weight_is_routed_as_query_weights():
    X, y, qid = _queries(seed=8)
    weights = (qid % 3 + 1).astype(float)  # constant within each query
    scorer = make_ranking_scorer("ndcg@5").set_score_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            Ridge().set_fit_request(sample_weight=False), X, y, cv=GroupKFold(N_FOLDS),
            scoring=scorer, params={"groups": qid, "sample_weight": weights},
        )
    expected = []
    for train, test in GroupKFold(N_FOLDS).split(X, y, qid):
        predictions = Ridge().fit(X[train], y[train]).predict(X[test])
        expected.append(
            reference_mean("ndcg", y[test], predictions, qid[test], k=5,
                           sample_weight=weights[test])[0]
        )
    np.testing.assert_allclose(result["test_score"], expected, rtol=1e-12)
    unweighted, _ = _expected_fold_scores(Ridge(), {}, X, y, qid, "ndcg", k=5)
    assert not np.allclose(result["test_score"], unweighted)


def test_permutation_importance_with_bound_query_ids():
    X, y, qid = _queries(seed=9)
    X = np.column_stack([X, np.ones(len(y))])  # a constant column: importance exactly 0
    model = Ridge().fit(X, y)
    ours = permutation_importance(
        model, X, y, scoring=make_ranking_scorer("ndcg@5", group=qid), n_repeats=3,
        random_state=0,
    )

    def by_hand(estimator, X_, y_):
        return reference_mean("ndcg", y_, estimator.predict(X_), qid, k=5)[0]

    expected = permutation_importance(
        model, X, y, scoring=by_hand, n_repeats=3, random_state=0
    )
    np.testing.assert_allclose(ours.importances, expected.importances, rtol=1e-9, atol=1e-12)
    assert np.all(ours.importances[-1] == 0.0)
    assert ours.importances_mean[0] > 0.0


def test_scorer_pickles_and_keeps_its_value():
    X, y, qid = _queries(seed=10)
    model = Ridge().fit(X, y)
    scorer = make_ranking_scorer("ndcg(gain=exponential)@5", group_column="qid")
    restored = pickle.loads(pickle.dumps(scorer))
    frame = _frame(X, qid)
    fitted = _dropping_qid(Ridge()).fit(frame, y)
    assert restored(fitted, frame, y) == scorer(fitted, frame, y)
    assert restored(fitted, frame, y) == ndcg_score(
        y, model.predict(X), qid, k=5, gain="exponential"
    )


def test_metric_function_and_parameters():
    X, y, qid = _queries(seed=11)
    model = Ridge().fit(X, y)
    scores = model.predict(X)
    by_function = make_ranking_scorer(mean_average_precision_score, k=5, relevance_level=2)
    assert by_function(model, X, y, group=qid) == mean_average_precision_score(
        y, scores, qid, k=5, relevance_level=2
    )
    by_name = make_ranking_scorer("map@5", relevance_level=2.0)
    assert by_name(model, X, y, group=qid) == by_function(model, X, y, group=qid)

    def mean_rank_of_best(y_true, y_score, group, sample_weight=None):
        """A custom loss (smaller is better)."""
        return float(np.mean(y_score))

    negated = make_ranking_scorer(mean_rank_of_best, greater_is_better=False)
    assert negated(model, X, y, group=qid) == -np.mean(scores)


def test_shared_settings_of_make_ranking_scorers():
    scorers = make_ranking_scorers(
        ["ndcg@10", "map(relevance_level=3)", "gauc"], relevance_level=2, ties="input",
        replace_undefined_by="skip",
    )
    assert scorers["ndcg@10"].metric_params == {
        "k": 10, "ties": "input", "replace_undefined_by": "skip"
    }
    assert scorers["map(relevance_level=3)"].metric_params["relevance_level"] == 3
    assert scorers["gauc"].metric_params == {
        "ties": "input", "replace_undefined_by": "skip", "relevance_level": 2
    }


# -- where the score comes from -------------------------------------------------------


def _binary_data(seed=12):
    X, y, qid = _queries(seed=seed)
    return X, (y >= 2).astype(int), qid


def test_binary_classifier_uses_positive_class_probability():
    X, y, qid = _binary_data()
    model = LogisticRegression().fit(X, y)
    expected = reference_mean("map", y, model.predict_proba(X)[:, 1], qid)[0]
    assert make_ranking_scorer("map", group=qid)(model, X, y) == pytest.approx(expected, 1e-12)
    decision = make_ranking_scorer("map", group=qid, response_method="decision_function")
    expected = reference_mean("map", y, model.decision_function(X), qid)[0]
    assert decision(model, X, y) == pytest.approx(expected, rel=1e-12)


def test_classifier_without_probabilities_uses_decision_function():
    X, y, qid = _binary_data(seed=13)
    model = LinearSVC().fit(X, y)
    expected = reference_mean("mrr", y, model.decision_function(X), qid)[0]
    assert make_ranking_scorer("mrr", group=qid)(model, X, y) == pytest.approx(expected, 1e-12)


def test_graded_classifier_uses_expected_grade():
    X, y, qid = _queries(seed=14)
    model = LogisticRegression(max_iter=500).fit(X, y)
    proba = model.predict_proba(X)
    expected_grade = sum(proba[:, i] * grade for i, grade in enumerate(model.classes_))
    expected = reference_mean("ndcg", y, expected_grade, qid, k=5)[0]
    scorer = make_ranking_scorer("ndcg@5", group=qid)
    assert scorer(model, X, y) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="predict_proba"):
        make_ranking_scorer("ndcg@5", group=qid, response_method="decision_function")(
            model, X, y
        )


def test_graded_classifier_with_string_classes_has_no_expected_grade():
    X, y, qid = _queries(seed=15)
    model = LogisticRegression(max_iter=500).fit(X, np.array(["a", "b", "c", "d", "e"])[
        y.astype(int)
    ])
    with pytest.raises(TypeError, match="numeric classes"):
        make_ranking_scorer("ndcg@5", group=qid)(model, X, y)


# -- errors (issue item 6) -------------------------------------------------------------


def test_missing_query_ids_raise_and_say_how_to_pass_them():
    X, y, qid = _queries(seed=16)
    scorer = make_ranking_scorer("ndcg@10")
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="received no query ids") as error:
        scorer(model, X, y)
    for hint in ("enable_metadata_routing=True", "group_column=", "group=qid"):
        assert hint in str(error.value)


def test_missing_query_ids_in_a_search_is_never_a_single_query_score():
    X, y, qid = _queries(seed=17)
    search = GridSearchCV(
        Ridge(), GRID, cv=GroupKFold(N_FOLDS), scoring=make_ranking_scorer("ndcg@10"),
        error_score="raise",
    )
    with pytest.raises(BaseException, match="received no query ids"):
        search.fit(X, y, groups=qid)  # routing off: groups only reach the folds
    # scikit-learn's default error_score=nan cannot turn it into NaN scores either
    # (tests/model_selection/test_scorer_without_query_ids.py tries every entry point)
    with pytest.raises(BaseException, match="received no query ids"):
        cross_validate(
            Ridge(), X, y, groups=qid, cv=GroupKFold(N_FOLDS),
            scoring=make_ranking_scorer("ndcg@10"),
        )


def test_query_id_column_errors():
    X, y, qid = _queries(seed=18)
    model = Ridge().fit(X, y)
    scorer = make_ranking_scorer("ndcg@10", group_column="qid")
    with pytest.raises(TypeError, match=r"must be a DataFrame \(pandas, polars"):
        scorer(model, X, y)
    frame = pd.DataFrame(X, columns=list("abcd"))
    with pytest.raises(ValueError, match="no column 'qid'.*'a', 'b'"):
        scorer(model, frame, y)


def test_disagreeing_query_id_sources_raise():
    X, y, qid = _queries(seed=19)
    frame = _frame(X, qid)
    fitted = _dropping_qid(Ridge()).fit(frame, y)
    scorer = make_ranking_scorer("ndcg@10", group_column="qid")
    assert scorer(fitted, frame, y, group=qid) == scorer(fitted, frame, y)
    with pytest.raises(ValueError, match="differ"):
        scorer(fitted, frame, y, group=qid[::-1])


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ((["ndcg@x"],), ValueError, "Unknown metric"),
        ((42,), TypeError, "metric name such as 'ndcg@10' or a metric function"),
        ((["ndcg@10"], {"k": 5}), ValueError, r"\['k'\] both in the metric name"),
        ((["ndcg"], {"k": 0}), ValueError, "'k' parameter of ndcg_score"),
        ((["ndcg"], {"depth": 3}), TypeError, r"no parameter \['depth'\]"),
        ((["cg@3"], {"discount": "log(rank+1)"}), ValueError, "fixes"),
        ((["ndcg"], {"response_method": "proba"}), ValueError, "'response_method' parameter"),
        ((["ndcg"], {"greater_is_better": False}), ValueError, "greater-is-better"),
    ],
)
def test_make_ranking_scorer_rejects_bad_arguments(arguments, error, match):
    metric = arguments[0][0] if isinstance(arguments[0], list) else arguments[0]
    params = arguments[1] if len(arguments) > 1 else {}
    with pytest.raises(error, match=match):
        make_ranking_scorer(metric, **params)


def test_unexpected_metadata_is_rejected():
    X, y, qid = _queries(seed=20)
    model = Ridge().fit(X, y)
    with pytest.raises(TypeError, match="unexpected metadata"):
        make_ranking_scorer("ndcg@10")(model, X, y, group=qid, qid=qid)
    with pytest.raises(TypeError, match="takes 'group' and 'sample_weight'"):
        make_ranking_scorer("ndcg@10").set_score_request(qid=True)


def test_import_changes_no_scikit_learn_setting():
    code = (
        "import sklearn; before = sklearn.get_config(); import sklearn_rank_metrics; "
        "assert sklearn.get_config() == before, (before, sklearn.get_config()); print('ok')"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "ok"


def _counting_sorts(monkeypatch):
    """Count the sorts made through the scorers' shared-sort path."""
    from sklearn_rank_metrics._engine import _shared_sort

    calls = []
    real = _shared_sort.rank_rows

    def counted(*args, **kwargs):
        calls.append(kwargs.get("function_name"))
        return real(*args, **kwargs)

    monkeypatch.setattr(_shared_sort, "rank_rows", counted)
    return calls


def test_make_ranking_scorers_sort_once_per_evaluation_in_a_search(monkeypatch):
    calls = _counting_sorts(monkeypatch)
    X, y, qid = _queries(seed=7)
    names = ["ndcg@5", "map", "mrr@3"]
    with sklearn.config_context(enable_metadata_routing=True):
        results = cross_validate(
            Ridge(), X, y, cv=GroupKFold(N_FOLDS), scoring=make_ranking_scorers(names),
            params={"groups": qid}, return_train_score=True,
        )
    # one sort per fold and per scored set (test and train), not one per metric
    assert len(calls) == 2 * N_FOLDS
    for name, metric, params in (("ndcg@5", "ndcg", {"k": 5}), ("map", "map", {}),
                                 ("mrr@3", "mrr", {"k": 3})):
        expected_test, expected_train = _expected_fold_scores(
            Ridge(), {}, X, y, qid, metric, **params
        )
        np.testing.assert_allclose(results[f"test_{name}"], expected_test, rtol=1e-12)
        np.testing.assert_allclose(results[f"train_{name}"], expected_train, rtol=1e-12)


def test_shared_sort_sees_inputs_changed_in_place_and_never_serves_a_scorer_twice(monkeypatch):
    calls = _counting_sorts(monkeypatch)
    X, y, qid = _queries(seed=8)
    model = Ridge().fit(X, y)
    scores = model.predict(X)
    scorers = make_ranking_scorers(["ndcg@5", "map"], group=qid)
    y = y.copy()
    first = scorers["ndcg@5"](model, X, y)
    y[:] = y[::-1]  # the same array object, other labels
    changed = scorers["map"](model, X, y)
    assert len(calls) == 2  # the changed labels were sorted anew
    # the same scorer twice on the same inputs sorts twice; the other one reuses
    again = scorers["map"](model, X, y)
    assert len(calls) == 3
    reused = scorers["ndcg@5"](model, X, y)
    assert len(calls) == 3
    original = y[::-1]
    assert first == pytest.approx(reference_mean("ndcg", original, scores, qid, k=5)[0], rel=1e-12)
    assert changed == again == pytest.approx(reference_mean("map", y, scores, qid)[0], rel=1e-12)
    assert reused == pytest.approx(reference_mean("ndcg", y, scores, qid, k=5)[0], rel=1e-12)


def test_shared_sort_tells_minus_zero_from_zero_and_survives_pickling(monkeypatch):
    calls = _counting_sorts(monkeypatch)
    y = np.array([1.0, 0.0, 2.0, 1.0])
    qid = np.array([1, 1, 2, 2])

    class Fixed(RegressorMixin, BaseEstimator):  # predicts the scores it holds
        def __init__(self, scores=None):
            self.scores = scores

        def predict(self, X):
            return np.array(self.scores)

    scorers = pickle.loads(pickle.dumps(make_ranking_scorers(["p@1", "mrr"], group=qid)))
    X = np.zeros((4, 1))
    assert scorers["p@1"](Fixed([0.0, 0.0, 1.0, 1.0]), X, y) == pytest.approx(0.5 * (0.5 + 1.0))
    # equal as numbers, other bits: not reused (the sort reads the bits)
    assert scorers["mrr"](Fixed([-0.0, 0.0, 1.0, 1.0]), X, y) == pytest.approx(
        0.5 * (0.75 + 1.0)
    )
    assert len(calls) == 2
    assert scorers["p@1"](Fixed([0.0, 0.0, 1.0, 1.0]), X, y) == pytest.approx(0.75)
    assert scorers["mrr"](Fixed([0.0, 0.0, 1.0, 1.0]), X, y) == pytest.approx(0.875)
    assert len(calls) == 3  # the second pair shared one sort after unpickling


# ---------------------------------------------------------------------------
# A lower-is-better metric (fall-out): negated, so searches minimise it
# ---------------------------------------------------------------------------


class ColumnRanker(RegressorMixin, BaseEstimator):
    """Scores every row by one column of X (the candidates of the search)."""

    def __init__(self, column=0):
        self.column = column

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.column]


# two queries: labels [1, 0, 0, 1] (2 non-relevant) and [0, 1, 0, 0] (3 non-relevant)
FALLOUT_Y = np.array([1, 0, 0, 1, 0, 1, 0, 0])
FALLOUT_QID = np.array([7, 7, 7, 7, 8, 8, 8, 8])
FALLOUT_GOOD = [4, 2, 1, 3, 1, 4, 2, 3]  # top 2: {1, 1} -> 0/2; {1, 0} -> 1/3: mean 1/6
FALLOUT_X = np.column_stack(
    [
        np.negative(FALLOUT_GOOD),  # top 2: {0, 0} -> 2/2; {0, 0} -> 2/3: mean 5/6
        FALLOUT_GOOD,
        [4, 1, 3, 2, 3, 4, 2, 1],  # top 2: {1, 0} -> 1/2; {1, 0} -> 1/3: mean 5/12
    ]
).astype(float)
FALLOUT_AT_2 = [5 / 6, 1 / 6, 5 / 12]  # of columns 0, 1, 2, by hand
ALL_ROWS = [(np.arange(len(FALLOUT_Y)), np.arange(len(FALLOUT_Y)))]


def test_hand_values_agree_with_the_function():
    for column, expected in enumerate(FALLOUT_AT_2):
        value = fallout_at_k_loss(FALLOUT_Y, FALLOUT_X[:, column], FALLOUT_QID, k=2)
        assert value == pytest.approx(expected)


def test_grid_search_picks_the_lowest_fallout():
    search = GridSearchCV(
        ColumnRanker(),
        {"column": [0, 1, 2]},
        scoring=make_ranking_scorer("fallout@2", group=FALLOUT_QID),
        cv=ALL_ROWS,
    ).fit(FALLOUT_X, FALLOUT_Y)
    assert search.best_params_ == {"column": 1}  # fall-out 1/6, the lowest
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], np.negative(FALLOUT_AT_2))
    assert search.best_score_ == pytest.approx(-1 / 6)
    assert list(search.cv_results_["rank_test_score"]) == [3, 1, 2]


def test_multi_metric_search_refits_on_the_lowest_fallout():
    scorers = make_ranking_scorers(["fallout@2", "ndcg@2"], group=FALLOUT_QID)
    search = GridSearchCV(
        ColumnRanker(), {"column": [0, 1, 2]}, scoring=scorers, refit="fallout@2", cv=ALL_ROWS
    ).fit(FALLOUT_X, FALLOUT_Y)
    assert search.best_params_ == {"column": 1}
    np.testing.assert_allclose(search.cv_results_["mean_test_fallout@2"], np.negative(FALLOUT_AT_2))
    ndcg = [ndcg_score(FALLOUT_Y, FALLOUT_X[:, column], FALLOUT_QID, k=2) for column in range(3)]
    np.testing.assert_allclose(search.cv_results_["mean_test_ndcg@2"], ndcg)  # not negated


@pytest.mark.parametrize("metric", ["fallout@2", "fallout", fallout_at_k_loss])
def test_lower_is_better_metric_gets_sign_minus_one(metric):
    params = {} if isinstance(metric, str) and "@" in metric else {"k": 2}
    implicit = make_ranking_scorer(metric, group=FALLOUT_QID, **params)
    explicit = make_ranking_scorer(metric, group=FALLOUT_QID, greater_is_better=False, **params)
    for scorer in (implicit, explicit):
        assert scorer.sign == -1
        assert "greater_is_better=False" in repr(scorer)
        assert scorer(ColumnRanker(2), FALLOUT_X, FALLOUT_Y) == pytest.approx(-5 / 12)


@pytest.mark.parametrize(
    ("metric", "function", "wrong", "direction"),
    [
        ("fallout@10", fallout_at_k_loss, True, "lower-is-better"),
        ("ndcg@10", ndcg_score, False, "greater-is-better"),  # refused before, too
    ],
)
def test_a_contradicting_greater_is_better_is_refused(metric, function, wrong, direction):
    with pytest.raises(ValueError) as raised:
        make_ranking_scorer(metric, greater_is_better=wrong)
    message = str(raised.value)
    assert f"{metric!r} is {direction}" in message
    # both spellings that work
    assert f"make_ranking_scorer({metric!r})" in message
    assert f"make_ranking_scorer({metric!r}, greater_is_better={not wrong})" in message
    with pytest.raises(ValueError, match=f"{function.__name__} is {direction}"):
        make_ranking_scorer(function, greater_is_better=wrong)


def test_greater_is_better_true_is_accepted_for_ndcg():
    scorer = make_ranking_scorer("ndcg@10", greater_is_better=True)
    assert scorer.sign == 1 and "greater_is_better" not in repr(scorer)
