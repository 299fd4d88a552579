"""A search whose scorer gets no query ids stops: error_score cannot make it NaN.

scikit-learn's ``error_score`` (default NaN) catches every ``Exception`` a scorer
raises inside cross-validation and records NaN, and a search then picks its first
candidate. A ranking scorer that received no query ids fails the same way in every
fold of every candidate, so it raises, inside cross-validation, an error that is no
``Exception`` (scikit-learn's net lets it through) and that lists the three ways to
pass the ids; called directly it stays a ``ValueError``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)

from sklearn_rank_metrics import make_ranking_scorer, make_ranking_scorers

FIXES = ("enable_metadata_routing=True", "group_column=", "group=qid")


def _queries(n_queries=30, seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), 6)
    X = rng.normal(size=(len(qid), 3))
    y = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=len(qid)) + 1), 0, 3)
    return X, y, qid


def _run(runner, scoring, n_jobs, error_score, **fit):
    X, y, qid = _queries()
    options = {"scoring": scoring, "cv": GroupKFold(3), "n_jobs": n_jobs}
    if error_score is not None:
        options["error_score"] = error_score
    if runner == "GridSearchCV":
        return GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, **options, refit=False).fit(
            X, y, groups=qid, **fit
        )
    if runner == "RandomizedSearchCV":
        return RandomizedSearchCV(
            Ridge(), {"alpha": [0.1, 1.0, 10.0]}, n_iter=2, random_state=0, refit=False,
            **options,
        ).fit(X, y, groups=qid, **fit)  # fmt: skip
    if runner == "cross_validate":
        return cross_validate(Ridge(), X, y, groups=qid, **options)
    return cross_val_score(Ridge(), X, y, groups=qid, **options)


RUNNERS = ["GridSearchCV", "RandomizedSearchCV", "cross_validate", "cross_val_score"]


def _check_refusal(error):
    assert not isinstance(error.value, Exception)  # error_score catches Exception
    message = str(error.value)
    assert "received no query ids" in message and "error_score" in message
    for fix in FIXES:
        assert fix in message


@pytest.mark.parametrize("error_score", [None, "raise", 0.0], ids=["nan", "raise", "zero"])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("runner", RUNNERS)
def test_no_query_ids_stops_every_search_and_cross_validation(runner, n_jobs, error_score):
    assert not sklearn.get_config()["enable_metadata_routing"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning: it stops
        with pytest.raises(BaseException, match="received no query ids") as error:
            _run(runner, make_ranking_scorer("ndcg@10"), n_jobs, error_score)
    _check_refusal(error)


@pytest.mark.parametrize("runner", RUNNERS)
def test_several_scorers_without_query_ids_stop_as_well(runner):
    with pytest.raises(BaseException, match="received no query ids") as error:
        _run(runner if runner != "cross_val_score" else "cross_validate",
             make_ranking_scorers(["ndcg@10", "map"]), 1, None)  # fmt: skip
    _check_refusal(error)


def test_routing_on_without_groups_stops_too():
    X, y, qid = _queries()
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=KFold(3),
                              scoring=make_ranking_scorer("ndcg@10"))  # fmt: skip
        with pytest.raises(BaseException, match="received no query ids") as error:
            search.fit(X, y)  # no groups=qid: nothing reaches the scorer
    _check_refusal(error)


def test_a_group_column_the_data_lacks_stops_too():
    X, y, qid = _queries()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, cv=GroupKFold(3),
                          scoring=make_ranking_scorer("ndcg@10", group_column="qid"))  # fmt: skip
    with pytest.raises(BaseException, match="no column 'qid'") as error:
        search.fit(frame, y, groups=qid)
    assert not isinstance(error.value, Exception)
    with pytest.raises(BaseException, match="must be a DataFrame") as error:
        search.fit(X, y, groups=qid)  # a NumPy X has no columns
    assert not isinstance(error.value, Exception)


class _CountingRidge(RegressorMixin, BaseEstimator):
    fits = 0

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        type(self).fits += 1
        self.model_ = Ridge(alpha=self.alpha).fit(X, y)
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_it_stops_at_the_first_score_after_one_fit():
    X, y, qid = _queries()
    _CountingRidge.fits = 0
    search = GridSearchCV(_CountingRidge(), {"alpha": [0.1, 1.0, 10.0]}, cv=GroupKFold(3),
                          scoring=make_ranking_scorer("ndcg@10"))  # fmt: skip
    with pytest.raises(BaseException, match="received no query ids"):
        search.fit(X, y, groups=qid)
    assert _CountingRidge.fits == 1  # not 9 fits and NaN scores


def test_called_directly_it_stays_a_value_error():
    X, y, _ = _queries()
    with pytest.raises(ValueError, match="received no query ids") as error:
        make_ranking_scorer("ndcg@10")(Ridge().fit(X, y), X, y)
    assert "error_score" not in str(error.value)


def test_a_search_with_query_ids_is_untouched():
    X, y, qid = _queries()
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=qid)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = cross_val_score(Ridge(), X, y, cv=GroupKFold(3), params={"groups": qid},
                                 scoring=make_ranking_scorer("ndcg@10"))  # fmt: skip
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(ColumnTransformer([("qid", "drop", ["qid"])],
                                            remainder="passthrough"), Ridge())  # fmt: skip
    by_column = cross_val_score(model, frame, y, groups=qid, cv=GroupKFold(3),
                                scoring=make_ranking_scorer("ndcg@10", group_column="qid"))
    assert np.all(np.isfinite(routed)) and np.allclose(routed, by_column, rtol=1e-12)
