"""GroupedRanker: query-grouped rankers (LightGBM, XGBoost) inside a grid search.

The unit tests use a recording ranker to see exactly what the wrapped ranker
receives. The end-to-end tests tune ``LGBMRanker`` and ``XGBRanker`` on the real
learning-to-rank sample (``tests/data/lambdarank``) with ``GroupKFold`` and our
scorer, and recompute every fold score independently: the ranker fitted directly on
the fold's rows (contiguous queries, sizes counted by hand), then the slow reference.
"""

import time

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold

from sklearn_rank_metrics import GroupedRanker, make_ranking_scorer, ndcg_score
from tests.support import lambdarank
from tests.support.reference import reference_mean


class RecordingRanker(BaseEstimator):
    """Records what fit receives; predicts the first feature."""

    def __init__(self, depth=1):
        self.depth = depth

    def fit(self, X, y, group=None, sample_weight=None, note=None):
        self.X_, self.y_, self.group_ = np.asarray(X), np.asarray(y), group
        self.sample_weight_, self.note_ = sample_weight, note
        self.n_features_in_ = self.X_.shape[1]
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0] * self.depth


class RecordingQidRanker(RecordingRanker):
    def fit(self, X, y, *, group=None, qid=None, sample_weight=None, note=None):
        self.qid_ = qid
        return super().fit(X, y, group, sample_weight, note)


def _toy():
    X = np.arange(14, dtype=float).reshape(7, 2)
    y = np.array([0, 1, 2, 0, 1, 2, 3])
    qid = np.array(["b", "a", "b", "c", "a", "b", "c"])
    return X, y, qid


def test_rows_reach_the_ranker_sorted_by_query_with_sizes():
    X, y, qid = _toy()
    weights = np.arange(7.0)
    model = GroupedRanker(RecordingRanker()).fit(X, y, group=qid, sample_weight=weights,
                                                 note="kept")
    order = [1, 4, 0, 2, 5, 3, 6]  # a, a, b, b, b, c, c; stable within a query
    np.testing.assert_array_equal(model.ranker_.X_, X[order])
    np.testing.assert_array_equal(model.ranker_.y_, y[order])
    np.testing.assert_array_equal(model.ranker_.group_, [2, 3, 2])
    np.testing.assert_array_equal(model.ranker_.sample_weight_, weights[order])
    assert model.ranker_.note_ == "kept"
    np.testing.assert_array_equal(model.predict(X[::-1]), X[::-1, 0])
    assert model.n_features_in_ == 2


def test_qid_form_for_rankers_that_take_it():
    X, y, qid = _toy()
    model = GroupedRanker(RecordingQidRanker()).fit(X, y, group=qid)
    np.testing.assert_array_equal(model.ranker_.qid_, [0, 0, 1, 1, 1, 2, 2])
    assert model.ranker_.group_ is None
    sizes = GroupedRanker(RecordingQidRanker(), pass_group_as="sizes").fit(X, y, group=qid)
    np.testing.assert_array_equal(sizes.ranker_.group_, [2, 3, 2])
    assert sizes.ranker_.qid_ is None


def test_query_id_column_is_read_and_dropped():
    X, y, qid = _toy()
    frame = pd.DataFrame(X, columns=["x0", "x1"]).assign(q=qid)
    model = GroupedRanker(RecordingRanker(), group_column="q").fit(frame, y)
    np.testing.assert_array_equal(model.ranker_.X_, X[[1, 4, 0, 2, 5, 3, 6]])
    np.testing.assert_array_equal(model.predict(frame), X[:, 0])
    with pytest.raises(ValueError, match="differ"):
        GroupedRanker(RecordingRanker(), group_column="q").fit(frame, y, group=qid[::-1])


def test_is_a_proper_estimator_with_tunable_inner_parameters():
    wrapper = GroupedRanker(RecordingRanker(depth=1), group_column="qid")
    assert wrapper.get_params()["ranker__depth"] == 1
    wrapper.set_params(ranker__depth=3)
    assert wrapper.ranker.depth == 3
    copy = clone(wrapper)
    assert copy.ranker is not wrapper.ranker and copy.get_params()["ranker__depth"] == 3
    assert copy.group_column == "qid"
    copy.set_params(group_column=None)
    X, y, qid = _toy()
    np.testing.assert_array_equal(copy.fit(X, y, group=qid).predict(X), 3 * X[:, 0])
    assert not hasattr(copy.ranker, "X_")  # the given ranker is never fitted


@pytest.mark.parametrize(
    ("wrapper", "fit_group", "error", "match"),
    [
        (GroupedRanker(RecordingRanker()), None, ValueError, "needs the query id"),
        (GroupedRanker(RecordingRanker(), pass_group_as="x"), "ids", ValueError, "pass_group_as"),
        (GroupedRanker(Ridge()), "ids", TypeError, "neither 'qid' nor 'group'"),
        (GroupedRanker(BaseEstimator()), "ids", TypeError, "has no fit method"),
        (GroupedRanker(RecordingRanker(), group_column="q"), None, TypeError, "DataFrame"),
    ],
)
def test_errors(wrapper, fit_group, error, match):
    X, y, qid = _toy()
    with pytest.raises(error, match=match):
        wrapper.fit(X, y, group=qid if fit_group else None)


def test_predict_before_fit_raises():
    with pytest.raises(sklearn.exceptions.NotFittedError):
        GroupedRanker(RecordingRanker()).predict(np.zeros((2, 2)))


# -- LightGBM and XGBoost on the real sample ------------------------------------------

N_FOLDS = 3


def _lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    return lightgbm.LGBMRanker(n_jobs=1, verbose=-1, random_state=0, min_child_samples=5), {
        "ranker__n_estimators": [10, 30],
        "ranker__num_leaves": [4, 15],
    }


def _xgboost():
    xgboost = pytest.importorskip("xgboost")
    return xgboost.XGBRanker(n_jobs=1, random_state=0, tree_method="hist"), {
        "ranker__n_estimators": [10, 30],
        "ranker__max_depth": [2, 4],
    }


RANKERS = {"LGBMRanker": _lightgbm, "XGBRanker": _xgboost}


def _fit_directly(ranker, params, X, y, qid):
    """Fit the ranker itself on rows whose queries are contiguous (no wrapper)."""
    assert np.all(np.diff(qid) >= 0)
    inner = {name.removeprefix("ranker__"): value for name, value in params.items()}
    model = clone(ranker).set_params(**inner)
    _, sizes = np.unique(qid, return_counts=True)
    if type(model).__name__ == "XGBRanker":
        return model.fit(X, y, qid=qid)
    return model.fit(X, y, group=sizes)


def _interleave_queries(qid, seed):
    """A row order that mixes all queries but keeps each query's own row order."""
    rng = np.random.default_rng(seed)
    slots = rng.permutation(np.sort(qid, kind="stable"))  # which query fills each slot
    order = np.empty(len(qid), dtype=np.int64)
    for query in np.unique(qid):  # test helper: fill each query's slots in its row order
        order[slots == query] = np.flatnonzero(qid == query)
    return order


def _search(ranker, grid, X, y, qid):
    search = GridSearchCV(
        GroupedRanker(ranker), grid, cv=GroupKFold(N_FOLDS), scoring=make_ranking_scorer("ndcg@10")
    )
    with sklearn.config_context(enable_metadata_routing=True):
        return search.fit(X, y, groups=qid)


@pytest.fixture(scope="module")
def sample():
    return lambdarank.load("train"), lambdarank.load("test")


@pytest.mark.parametrize("name", sorted(RANKERS))
def test_ranker_grid_search_on_the_real_sample(name, sample):
    ranker, grid = RANKERS[name]()
    (X, y, qid, _), (X_test, y_test, qid_test, _) = sample
    started = time.perf_counter()
    search = _search(ranker, grid, X, y, qid)
    print(f"{name} grid search: {time.perf_counter() - started:.2f} s")

    # Every fold score equals the reference on a directly fitted ranker.
    for index, params in enumerate(search.cv_results_["params"]):
        for fold, (train, test) in enumerate(GroupKFold(N_FOLDS).split(X, y, qid)):
            model = _fit_directly(ranker, params, X[train], y[train], qid[train])
            expected, _ = reference_mean("ndcg", y[test], model.predict(X[test]), qid[test], k=10)
            np.testing.assert_allclose(
                search.cv_results_[f"split{fold}_test_score"][index], expected, rtol=1e-12
            )

    # The best model's held-out NDCG@10 is computed on correctly grouped rows.
    with sklearn.config_context(enable_metadata_routing=True):
        held_out = search.score(X_test, y_test, groups=qid_test)
    predictions = search.predict(X_test)
    assert held_out == ndcg_score(y_test, predictions, qid_test, k=10)
    np.testing.assert_allclose(
        held_out, reference_mean("ndcg", y_test, predictions, qid_test, k=10)[0], rtol=1e-12
    )
    assert 0.4 < held_out < 1.0  # a trained ranker, better than nothing, not perfect

    # Rows of all queries interleaved (each query's own order kept, since a ranker's
    # training legitimately depends on it): the same folds, models and scores.
    order = _interleave_queries(qid, seed=1)
    assert np.any(np.diff(qid[order]) < 0)
    shuffled = _search(ranker, grid, X[order], y[order], qid[order])
    for fold in range(N_FOLDS):
        key = f"split{fold}_test_score"
        np.testing.assert_allclose(shuffled.cv_results_[key], search.cv_results_[key], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(RANKERS))
def test_ranker_with_query_id_column_without_routing(name, sample):
    ranker, grid = RANKERS[name]()
    (X, y, qid, _), _ = sample
    grid = {key: values[:1] for key, values in grid.items()}
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(query=qid)
    order = _interleave_queries(qid, seed=2)
    frame, y_shuffled, qid_shuffled = frame.iloc[order], y[order], qid[order]
    search = GridSearchCV(
        GroupedRanker(ranker, group_column="query"),
        grid,
        cv=GroupKFold(N_FOLDS),
        scoring=make_ranking_scorer("ndcg@10", group_column="query"),
    ).fit(frame, y_shuffled, groups=qid_shuffled)
    routed = _search(ranker, grid, X, y, qid)
    for fold in range(N_FOLDS):
        key = f"split{fold}_test_score"
        np.testing.assert_allclose(search.cv_results_[key], routed.cv_results_[key], rtol=1e-12)
    assert search.best_estimator_.n_features_in_ == X.shape[1]


# What scikit-learn's estimator checks test once the query ids are given (issue 32):
# tests/test_ranker_estimator_checks.py runs them all; these are the four causes.


def test_n_features_in_is_grouped_rankers_and_predict_checks_the_width():
    X, y, qid = _toy()
    model = GroupedRanker(_NoWidthRanker()).fit(X, y, group=qid)  # the ranker sets none
    assert model.n_features_in_ == 2
    with pytest.raises(ValueError, match="X has 1 features, but GroupedRanker is expecting 2"):
        model.predict(X[:, :1])  # this ranker's predict would take any width


def test_y_none_gets_scikit_learns_message():
    X, _, qid = _toy()
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        GroupedRanker(RecordingRanker()).fit(X, None, group=qid)
    with pytest.raises(ValueError, match="requires y to be passed"):  # before the ids
        GroupedRanker(RecordingRanker()).fit(X, None)


def test_tags_require_y_and_carry_the_rankers_positive_only_input():
    from sklearn.utils import get_tags

    assert get_tags(GroupedRanker(RecordingRanker())).target_tags.required
    assert get_tags(GroupedRanker(_PositiveOnlyRanker())).input_tags.positive_only
    assert not get_tags(GroupedRanker(RecordingRanker())).input_tags.positive_only


def test_sparse_formats_without_row_indexing_reach_the_ranker_sorted():
    """DIA, COO and DOK X: the same LightGBM model as from the dense rows."""
    import scipy.sparse
    from lightgbm import LGBMRanker

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 3)).astype(float)
    y, qid = rng.integers(0, 3, size=40), np.arange(40) % 4
    params = dict(n_estimators=3, min_child_samples=1, verbose=-1)
    dense = GroupedRanker(LGBMRanker(**params)).fit(X, y, group=qid)
    for form in ("dia", "coo", "dok"):
        X_sparse = scipy.sparse.csr_matrix(X).asformat(form)
        sparse = GroupedRanker(LGBMRanker(**params)).fit(X_sparse, y, group=qid)
        np.testing.assert_allclose(sparse.predict(X_sparse), dense.predict(X))

class _NoWidthRanker(BaseEstimator):
    """Takes group sizes; sets no n_features_in_ and predicts from any width."""

    def fit(self, X, y, group=None):
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


class _PositiveOnlyRanker(RecordingRanker):
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


def test_eval_sets_are_checked_as_the_training_rows_are():
    """A DIA eval set reaches LightGBM sorted (the dense one's history is the
    reference); another width or NaN for a NaN-refusing ranker is refused by name."""
    import scipy.sparse
    from lightgbm import LGBMRanker

    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 3)).astype(float)
    y, qid = rng.integers(0, 3, size=40), np.arange(40) % 4
    params = dict(n_estimators=3, min_child_samples=1, verbose=-1)
    dense = GroupedRanker(LGBMRanker(**params)).fit(
        X, y, group=qid, eval_set=[(X, y)], eval_group=[qid], eval_at=[3]
    )
    sparse = GroupedRanker(LGBMRanker(**params)).fit(
        X, y, group=qid, eval_set=[(scipy.sparse.dia_matrix(X), y)], eval_group=[qid],
        eval_at=[3],
    )
    assert sparse.evals_result_ == dense.evals_result_
    with pytest.raises(ValueError, match=r"eval_set\[0\]'s X has 2 features but X has 3"):
        GroupedRanker(LGBMRanker(**params)).fit(
            X, y, group=qid, eval_set=[(X[:, :2], y)], eval_group=[qid]
        )
    X_nan = X.copy()
    X_nan[5, 1] = np.nan
    with pytest.raises(ValueError, match=r"Input eval_set\[0\]'s X contains NaN"):
        GroupedRanker(_EvalRanker()).fit(
            X, y, group=qid, eval_set=[(X_nan, y)], eval_group=[qid]
        )


class _EvalRanker(_NoWidthRanker):
    """Takes group sizes and eval sets; dense, finite X only (default tags)."""

    def fit(self, X, y, group=None, eval_set=None, eval_group=None):
        return self


# ---------------------------------------------------------------------------
# Eval sets whose labels, query ids or weights do not fit their rows
# ---------------------------------------------------------------------------


class _EvalRecordingRanker(BaseEstimator):
    """A ranker that takes group sizes and keeps what fit received."""

    def fit(self, X, y, group=None, eval_set=None, eval_group=None):
        self.y_, self.eval_set_, self.eval_group_ = y, eval_set, eval_group
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


X4 = np.array([[1.0], [2.0], [3.0], [4.0]])
Y4 = np.array([0.0, 1.0, 1.0, 0.0])
QID4 = np.array([7, 7, 8, 8])


@pytest.mark.parametrize("n_labels", [3, 5])
def test_grouped_ranker_refuses_eval_labels_of_another_length(n_labels):
    # 5 labels for 4 rows were cut to 4, 3 labels raised a bare IndexError
    y_eval = np.arange(n_labels) % 2
    with pytest.raises(ValueError, match=rf"eval set 1\): eval_set\[1\]'s X has 4 rows but "
                       rf"eval_set\[1\]'s y has {n_labels} labels"):  # fmt: skip
        GroupedRanker(_EvalRecordingRanker()).fit(
            X4, Y4, QID4, eval_set=[(X4, Y4), (X4, y_eval)], eval_group=[QID4, QID4]
        )
    with pytest.raises(ValueError, match=f"X has 4 rows but y has {n_labels} labels"):
        GroupedRanker(_EvalRecordingRanker()).fit(X4, y_eval, QID4)


def test_grouped_ranker_eval_labels_of_another_length_with_lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    ranker = GroupedRanker(lightgbm.LGBMRanker(n_estimators=2, verbose=-1))
    with pytest.raises(ValueError, match=r"eval_set\[0\]'s y has 5 labels"):
        ranker.fit(X4, Y4, QID4, eval_set=[(X4, np.array([0, 1, 1, 0, 1]))], eval_group=[QID4])


def test_grouped_ranker_eval_group_must_agree_with_the_group_column():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"qid": QID4, "f": X4[:, 0]})
    ranker = GroupedRanker(_EvalRecordingRanker(), group_column="qid")
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


class _WeightedEvalRecordingRanker(_EvalRecordingRanker):
    def fit(self, X, y, group=None, eval_set=None, eval_group=None, eval_sample_weight=None):
        self.eval_sample_weight_ = eval_sample_weight
        return super().fit(X, y, group, eval_set=eval_set, eval_group=eval_group)


def test_grouped_ranker_refuses_per_eval_set_arrays_of_another_length():
    ranker = GroupedRanker(_WeightedEvalRecordingRanker())
    fit = dict(eval_set=[(X4, Y4)], eval_group=[np.array([8, 7, 8, 7])])
    # 3 weights for 4 rows in 2 queries were passed on unsorted
    with pytest.raises(ValueError, match=r"eval_sample_weight\[0\] has 3 values but eval "
                       "set 0 has 4 rows in 2 queries"):  # fmt: skip
        ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.ones(3)], **fit)
    # one entry per eval set (zip's own message before)
    with pytest.raises(ValueError, match="1 eval sets but 2 entries in eval_sample_weight"):
        ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.ones(4), np.ones(4)], **fit)
    with pytest.raises(TypeError, match="'eval_sample_weight' parameter.*list"):
        ranker.fit(X4, Y4, QID4, eval_sample_weight=3.0, **fit)
    # per row: sorted with the rows (queries 7 then 8, rows 1, 3, 0, 2)
    model = ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.array([1.0, 2, 3, 4])], **fit)
    np.testing.assert_array_equal(model.ranker_.eval_sample_weight_[0], [2, 4, 1, 3])
    # per query (XGBoost's form): in sorted query order, as given
    model = ranker.fit(X4, Y4, QID4, eval_sample_weight=[np.array([5.0, 6.0])], **fit)
    np.testing.assert_array_equal(model.ranker_.eval_sample_weight_[0], [5, 6])
    model = ranker.fit(X4, Y4, QID4, eval_sample_weight=[None], **fit)
    assert model.ranker_.eval_sample_weight_ == [None]
