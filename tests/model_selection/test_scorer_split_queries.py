"""A query split between training and scoring is refused where the package can know it.

``cross_val_score(..., cv=KFold(3))`` (or ``cv=3``) cuts queries: a fold scores part
of a query with a model that saw the rest, a plausible, wrong number. A
:class:`GroupedRanker` keeps the queries it was fitted on, and the scorer sees the
query ids of the rows it scores: rows scored under a training query's id, other than
that query's training rows, are refused with a message that names ``GroupKFold``.
This is checked inside scikit-learn's cross-validation, where the fold and the
training rows come from one dataset (one id, one query); outside it new data may
reuse ids for other queries. Query folds, held-out queries, train scores, refits
and ``permutation_importance`` on the training rows are no split and score as
before (checked against the oracle, ``tests/support/reference.py``).
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator
from sklearn.compose import ColumnTransformer
from sklearn.inspection import permutation_importance
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    LeaveOneGroupOut,
    ShuffleSplit,
    cross_val_score,
    cross_validate,
    learning_curve,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_rank_metrics import GroupedRanker, make_ranking_scorer
from tests.support.reference import reference_mean


class SizesRanker(BaseEstimator):
    """A ranker that needs LightGBM's group sizes: a ridge regression of the grades."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y, group=None):
        assert group is not None and np.sum(group) == len(y)
        self.model_ = Ridge(alpha=self.alpha).fit(X, y)
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def predict(self, X):
        return self.model_.predict(X)


def _queries(n_queries=24, seed=0, first_id=0, shuffle=False):
    """Queries of 5 to 12 rows with graded labels; contiguous unless shuffled."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 13, n_queries)
    qid = np.repeat(np.arange(first_id, first_id + n_queries), sizes)
    X = rng.normal(size=(len(qid), 4))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=len(qid)) + 1),
                0, 4)  # fmt: skip
    if shuffle:
        order = rng.permutation(len(qid))
        X, y, qid = X[order], y[order], qid[order]
    return X, y, qid


def _ranker(**params):
    return GroupedRanker(SizesRanker(), **params)


def _check_split_refusal(error):
    assert not isinstance(error.value, Exception)  # error_score cannot catch it
    message = str(error.value)
    assert "GroupKFold" in message and "split" in message
    assert "GroupedRanker was fitted on" in message


@pytest.mark.parametrize("shuffle", [False, True], ids=["contiguous", "shuffled"])
@pytest.mark.parametrize("cv", [KFold(3), 3, KFold(3, shuffle=True, random_state=0),
                                ShuffleSplit(3, random_state=0)],
                         ids=["KFold", "cv=3", "KFold_shuffled", "ShuffleSplit"])  # fmt: skip
def test_issue_cross_val_score_over_split_queries_is_refused_with_routing(cv, shuffle):
    # the issue's call: partial queries were scored (0.80, 0.79, 0.72) without a word
    X, y, qid = _queries(shuffle=shuffle)
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(BaseException, match="GroupKFold") as error:
            cross_val_score(_ranker(), X, y, cv=cv, scoring=make_ranking_scorer("ndcg@10"),
                            params={"groups": qid})  # fmt: skip
    _check_split_refusal(error)


def _frame(X, qid):
    return pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]).assign(qid=qid)


def test_split_queries_are_refused_with_the_group_column_without_routing():
    X, y, qid = _queries()
    frame = _frame(X, qid)
    assert not sklearn.get_config()["enable_metadata_routing"]
    scorer = make_ranking_scorer("ndcg@10", group_column="qid")
    for cv in (KFold(3), 3):
        with pytest.raises(BaseException, match="GroupKFold") as error:
            cross_val_score(_ranker(group_column="qid"), frame, y, cv=cv, scoring=scorer)
        _check_split_refusal(error)
    # a search refuses it too, whatever error_score says
    search = GridSearchCV(_ranker(group_column="qid"), {"ranker__alpha": [0.1, 10.0]},
                          cv=KFold(3), scoring=scorer)  # fmt: skip
    with pytest.raises(BaseException, match="GroupKFold") as error:
        search.fit(frame, y)
    _check_split_refusal(error)


def test_a_pipeline_ending_in_grouped_ranker_is_checked():
    X, y, qid = _queries(shuffle=True)
    with sklearn.config_context(enable_metadata_routing=True):
        model = make_pipeline(StandardScaler(), _ranker())
        with pytest.raises(BaseException, match="GroupKFold") as error:
            cross_val_score(model, X, y, cv=KFold(3), scoring=make_ranking_scorer("map"),
                            params={"groups": qid})  # fmt: skip
    _check_split_refusal(error)


def _expected_folds(splitter, X, y, qid, scorer_metric=("ndcg", {"k": 10})):
    """The oracle's score of every test and train fold of a GroupedRanker, by hand."""
    metric, params = scorer_metric
    test, train = [], []
    for train_rows, test_rows in splitter.split(X, y, qid):
        model = _ranker().fit(X[train_rows], y[train_rows], qid[train_rows])
        for rows, out in ((test_rows, test), (train_rows, train)):
            out.append(reference_mean(metric, y[rows], model.predict(X[rows]), qid[rows],
                                      **params)[0])  # fmt: skip
    return np.array(test), np.array(train)


@pytest.mark.parametrize(
    "splitter",
    [GroupKFold(3), GroupShuffleSplit(3, test_size=0.3, random_state=0), LeaveOneGroupOut()],
    ids=["GroupKFold", "GroupShuffleSplit", "LeaveOneGroupOut"],
)
def test_query_folds_and_train_scores_are_no_split(splitter):
    X, y, qid = _queries(n_queries=12, shuffle=True)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            _ranker(), X, y, cv=splitter, scoring=make_ranking_scorer("ndcg@10"),
            params={"groups": qid}, return_train_score=True,
        )  # fmt: skip
    # the train score scores every training row of each query: all of it, no split
    expected_test, expected_train = _expected_folds(splitter, X, y, qid)
    np.testing.assert_allclose(result["test_score"], expected_test, rtol=1e-12)
    np.testing.assert_allclose(result["train_score"], expected_train, rtol=1e-12)


@pytest.mark.parametrize("kind", ["str", "category"])
def test_ids_of_every_kind(kind):
    X, y, qid = _queries(shuffle=True)
    ids = np.char.add("q", qid.astype(str))
    ids = pd.Series(pd.Categorical(ids)) if kind == "category" else ids
    scorer = make_ranking_scorer("ndcg@10")
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(_ranker(), X, y, cv=GroupKFold(3), scoring=scorer,
                                 params={"groups": ids})  # fmt: skip
        with pytest.raises(BaseException, match="GroupKFold") as error:
            cross_val_score(_ranker(), X, y, cv=KFold(3), scoring=scorer,
                            params={"groups": ids})  # fmt: skip
    _check_split_refusal(error)
    expected = []  # GroupKFold's folds depend on the ids' values: split on these ids
    for train, test in GroupKFold(3).split(X, y, np.asarray(ids)):
        model = _ranker().fit(X[train], y[train], qid[train])
        expected.append(reference_mean("ndcg", y[test], model.predict(X[test]), qid[test],
                                       k=10)[0])  # fmt: skip
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


def test_held_out_queries_refits_and_the_training_rows_in_any_order_are_no_split():
    X, y, qid = _queries()
    X_new, y_new, qid_new = _queries(n_queries=10, seed=1, first_id=1000)
    model = _ranker().fit(X, y, qid)
    scorer = make_ranking_scorer("ndcg@5")
    # held-out queries (ids never seen in training)
    assert scorer(model, X_new, y_new, group=qid_new) == pytest.approx(
        reference_mean("ndcg", y_new, model.predict(X_new), qid_new, k=5)[0], rel=1e-12
    )
    # the training rows themselves, in another order
    order = np.random.default_rng(3).permutation(len(y))
    assert scorer(model, X[order], y[order], group=qid[order]) == pytest.approx(
        reference_mean("ndcg", y, model.predict(X), qid, k=5)[0], rel=1e-12
    )
    # a search refitted on every training query, then scored on new queries
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(_ranker(), {"ranker__alpha": [0.1, 10.0]}, cv=GroupKFold(3),
                              scoring=scorer).fit(X, y, groups=qid)  # fmt: skip
        held_out = search.score(X_new, y_new, groups=qid_new)
    assert held_out == pytest.approx(
        reference_mean("ndcg", y_new, search.predict(X_new), qid_new, k=5)[0], rel=1e-12
    )


def test_permutation_importance_on_the_training_rows_is_no_split():
    # permuted features, the same rows and labels: the training queries, whole
    X, y, qid = _queries()
    model = _ranker().fit(X, y, qid)
    result = permutation_importance(model, X, y, scoring=make_ranking_scorer("ndcg@5", group=qid),
                                    n_repeats=2, random_state=0)  # fmt: skip
    assert np.all(np.isfinite(result.importances)) and result.importances_mean[0] > 0


def test_the_record_tells_a_part_of_a_query_from_its_training_rows():
    # the rule, on the record itself: same id, other number of rows or other labels
    X, y, qid = _queries()
    record = _ranker().fit(X, y, qid)._fitted_queries
    whole = np.flatnonzero(qid == 5)
    part = np.flatnonzero(qid == 3)[:2]
    rows = np.concatenate([whole, part, np.flatnonzero(qid == 7)[::-1]])
    ids, here, trained = record.split_in(qid[rows], y[rows])
    assert ids.tolist() == [3] and here.tolist() == [2] and trained.tolist() == [np.sum(qid == 3)]
    changed = y[whole].copy()
    changed[0] += 1  # query 5's rows with another label: not its training rows
    assert record.split_in(qid[whole], changed)[0].tolist() == [5]
    swapped = y[whole][::-1]  # the same labels in another row order: its training rows
    assert record.split_in(qid[whole], swapped)[0].tolist() == []
    assert record.split_in(qid[whole] + 1000, y[whole])[0].tolist() == []  # unknown ids
    assert record.split_in(qid[whole].astype(str), y[whole])[0].tolist() == []  # other kind


@pytest.mark.parametrize("splitter", [KFold(3), GroupKFold(3)], ids=["KFold", "GroupKFold"])
def test_validation_and_learning_curves(splitter):
    X, y, qid = _queries(shuffle=True)
    scorer = make_ranking_scorer("ndcg@10")
    with sklearn.config_context(enable_metadata_routing=True):
        if isinstance(splitter, KFold):
            with pytest.raises(BaseException, match="GroupKFold") as error:
                validation_curve(_ranker(), X, y, param_name="ranker__alpha",
                                 param_range=[0.1, 10.0], cv=splitter, scoring=scorer,
                                 params={"groups": qid})  # fmt: skip
            _check_split_refusal(error)
            return
        # learning_curve fits on the first rows of each training fold, cutting its
        # queries, and scores those very rows: no split on either side
        sizes, train, test = learning_curve(
            _ranker(), X, y, train_sizes=[0.5, 1.0], cv=splitter, scoring=scorer,
            params={"groups": qid}, shuffle=False,
        )  # fmt: skip
    assert np.all(np.isfinite(train)) and np.all(np.isfinite(test))


def test_outside_cross_validation_new_data_may_reuse_training_ids():
    # files read one by one often number their queries from 0 (LightGBM's sizes
    # files, the test sample): other queries under the ids of the training queries
    X, y, qid = _queries()
    X_other, y_other, qid_other = _queries(n_queries=5, seed=9)  # ids 0..4 again
    model = _ranker().fit(X, y, qid)
    expected = reference_mean("ndcg", y_other, model.predict(X_other), qid_other, k=10)[0]
    assert make_ranking_scorer("ndcg@10")(model, X_other, y_other, group=qid_other) == (
        pytest.approx(expected, rel=1e-12)
    )
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(_ranker(), {"ranker__alpha": [0.1, 10.0]}, cv=GroupKFold(3),
                              scoring=make_ranking_scorer("ndcg@10")).fit(X, y, groups=qid)
        held_out = search.score(X_other, y_other, groups=qid_other)
    assert held_out == pytest.approx(
        reference_mean("ndcg", y_other, search.predict(X_other), qid_other, k=10)[0], rel=1e-12
    )


def test_drop_column_pipeline_with_a_plain_model_is_unknown_and_documented():
    # a plain regressor keeps no training queries: the rule is the scorer's docstring's
    assert "Folds must keep queries whole" in make_ranking_scorer.__doc__
    X, y, qid = _queries()
    frame = _frame(X, qid)
    model = make_pipeline(ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"),
                          Ridge())  # fmt: skip
    scores = cross_val_score(model, frame, y, cv=KFold(3),
                             scoring=make_ranking_scorer("ndcg@10", group_column="qid"))
    assert np.all(np.isfinite(scores))


def test_a_split_on_purpose_is_allowed_and_named_in_the_refusal():
    # a recommender's leave-last-out: every user (a query) has rows on both sides of the
    # one split, on purpose; the refusal names the way to say so, and with it the
    # scores are those of the held-out rows scored by hand
    from sklearn.model_selection import PredefinedSplit

    X, y, qid = _queries()
    # each query's last two rows are the test fold
    position = np.concatenate([np.arange(n) for n in np.bincount(qid)])
    last = position >= np.repeat(np.bincount(qid), np.bincount(qid)) - 2
    split = PredefinedSplit(np.where(last, 0, -1))
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(BaseException, match=r"allow_split_queries=True") as error:
            cross_val_score(_ranker(), X, y, cv=split, scoring=make_ranking_scorer("ndcg@10"),
                            params={"groups": qid})  # fmt: skip
        _check_split_refusal(error)
        scorer = make_ranking_scorer("ndcg@10", allow_split_queries=True)
        assert "allow_split_queries=True" in repr(scorer)
        (score,) = cross_val_score(_ranker(), X, y, cv=split, scoring=scorer,
                                   params={"groups": qid})  # fmt: skip
    model = _ranker().fit(X[~last], y[~last], group=qid[~last])
    expected, _ = reference_mean("ndcg", y[last], model.predict(X[last]), qid[last], k=10)
    assert score == pytest.approx(expected, rel=1e-12)
    with pytest.raises(TypeError, match="'allow_split_queries' parameter of make_ranking"):
        make_ranking_scorer("ndcg@10", allow_split_queries="yes")
