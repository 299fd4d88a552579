"""``group_column=`` on a polars DataFrame or a pyarrow Table ``X``, not only pandas.

The scorer reads the query ids from the column; GroupedRanker reads and drops it and
hands the wrapped ranker a frame of ``X``'s own library. Expected values come from
NumPy: the same features as an array, the query ids passed as ``group=``.
"""

from __future__ import annotations

import narwhals as nw
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from lightgbm import LGBMRanker
from sklearn.base import BaseEstimator
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_validate
from sklearn.pipeline import make_pipeline

from sklearn_rank_metrics import GroupedRanker, make_ranking_scorer, ndcg_score

FEATURES = ["f0", "f1", "f2"]


def _queries(n_queries=15, seed=0):
    """Features, graded labels 0..3 and interleaved query ids (ints)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(200, 200 + n_queries), rng.integers(3, 9, n_queries))
    X = rng.normal(size=(len(qid), len(FEATURES)))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.8, size=len(qid)) + 1.0), 0, 3)
    order = rng.permutation(len(qid))
    return X[order], y[order], qid[order]


def _frames(X, qid):
    """The same rows as a pandas and a polars DataFrame and a pyarrow Table."""
    columns = {name: X[:, index] for index, name in enumerate(FEATURES)}
    columns["qid"] = qid
    return {
        "pandas": pd.DataFrame(columns),
        "polars": pl.DataFrame(columns),
        "pyarrow": pa.table(columns),
    }


X, Y, QID = _queries()
FRAMES = _frames(X, QID)


def _dropping_qid():
    return make_pipeline(
        ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"), Ridge()
    )


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_the_scorer_reads_the_query_ids_of_a_frame(library):
    frame = FRAMES[library]
    expected = ndcg_score(Y, Ridge().fit(X, Y).predict(X), QID, k=5)
    model = _dropping_qid().fit(frame, Y)  # scikit-learn takes polars X itself
    scorer = make_ranking_scorer("ndcg@5", group_column="qid")
    assert scorer(model, frame, Y) == pytest.approx(expected, rel=1e-12)


def test_an_estimator_fitted_on_polars_or_pyarrow_scores_as_on_numpy():
    # the query id is a feature here too: the same numbers as NumPy with the column
    with_qid = np.column_stack([X, QID])
    expected = ndcg_score(Y, Ridge().fit(with_qid, Y).predict(with_qid), QID, k=5)
    scorer = make_ranking_scorer("ndcg@5", group_column="qid")
    for library in ("polars", "pyarrow"):
        frame = FRAMES[library]
        assert scorer(Ridge().fit(frame, Y), frame, Y) == pytest.approx(expected, rel=1e-10)


def test_cross_validate_with_a_polars_frame_matches_numpy_folds():
    scorer = make_ranking_scorer("ndcg@5", group_column="qid")
    cv = GroupKFold(3)
    result = cross_validate(_dropping_qid(), FRAMES["polars"], Y, groups=QID, cv=cv,
                            scoring=scorer)
    expected = [
        ndcg_score(Y[test], Ridge().fit(X[train], Y[train]).predict(X[test]), QID[test], k=5)
        for train, test in cv.split(X, Y, QID)
    ]
    np.testing.assert_allclose(result["test_score"], expected, rtol=1e-12)


def test_the_scorer_checks_a_polars_column_against_routed_ids():
    model = _dropping_qid().fit(FRAMES["polars"], Y)
    scorer = make_ranking_scorer("ndcg@5", group_column="qid", group=QID)
    assert scorer(model, FRAMES["polars"], Y) == pytest.approx(
        ndcg_score(Y, model.predict(FRAMES["polars"]), QID, k=5)
    )
    other = make_ranking_scorer("ndcg@5", group_column="qid", group=QID[::-1])
    with pytest.raises(ValueError, match="column 'qid' of X .* differ"):
        other(model, FRAMES["polars"], Y)


def test_errors_say_which_frames_are_taken():
    scorer = make_ranking_scorer("ndcg@5", group_column="qid")
    model = Ridge().fit(X, Y)
    with pytest.raises(TypeError, match=r"must be a DataFrame \(pandas, polars, pyarrow Table"):
        scorer(model, X, Y)
    lazy = FRAMES["polars"].lazy()
    with pytest.raises(TypeError, match=r"got LazyFrame \(a lazy frame: collect it first\)"):
        scorer(model, lazy, Y)
    for library in ("polars", "pyarrow"):
        with pytest.raises(ValueError, match=r"no column 'query' of query ids; .*'f0', 'f1'"):
            make_ranking_scorer("ndcg@5", group_column="query")(model, FRAMES[library], Y)
    with pytest.raises(TypeError, match=r"GroupedRanker\(group_column='qid'\) .* a DataFrame"):
        GroupedRanker(RecordingFrameRanker(), group_column="qid").fit(X, Y)


class RecordingFrameRanker(BaseEstimator):
    """Records the frame it is fitted on; predicts its first feature."""

    def fit(self, X, y, group=None):
        self.frame_type_ = type(X)
        self.columns_ = list(nw.from_native(X, eager_only=True).columns)
        self.X_ = nw.from_native(X, eager_only=True).to_numpy()
        self.y_, self.group_ = np.asarray(y), group
        return self

    def predict(self, X):
        return nw.from_native(X, eager_only=True).get_column("f0").to_numpy()


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
def test_grouped_ranker_drops_the_column_and_keeps_the_library(library):
    frame = FRAMES[library]
    model = GroupedRanker(RecordingFrameRanker(), group_column="qid").fit(frame, Y)
    order = np.argsort(QID, kind="stable")
    assert model.ranker_.frame_type_ is type(frame)
    assert model.ranker_.columns_ == FEATURES
    np.testing.assert_array_equal(model.ranker_.X_, X[order])
    np.testing.assert_array_equal(model.ranker_.y_, Y[order])
    np.testing.assert_array_equal(model.ranker_.group_, np.unique(QID, return_counts=True)[1])
    np.testing.assert_array_equal(model.predict(frame), X[:, 0])
    assert model.n_features_in_ == len(FEATURES)


def test_grouped_ranker_refuses_a_polars_column_that_disagrees_with_group():
    ranker = GroupedRanker(RecordingFrameRanker(), group_column="qid")
    ranker.fit(FRAMES["polars"], Y, group=QID)  # the same ids both ways: accepted
    shifted = QID.copy()
    shifted[4] += 1000
    with pytest.raises(ValueError, match="differ in 1 of .* rows \\(first: row 4"):
        ranker.fit(FRAMES["polars"], Y, group=shifted)


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_lightgbm_on_a_frame_predicts_as_on_numpy(library):
    settings = {"n_estimators": 5, "min_child_samples": 3, "verbose": -1, "n_jobs": 1}
    expected = GroupedRanker(LGBMRanker(**settings)).fit(X, Y, group=QID).predict(X)
    frame = FRAMES[library]
    model = GroupedRanker(LGBMRanker(**settings), group_column="qid")
    model.fit(frame, Y, eval_set=[(frame, Y)])
    np.testing.assert_allclose(model.predict(frame), expected, rtol=1e-12)
