"""scikit-learn's estimator checks on :class:`GroupedRanker`.

``GroupedRanker`` needs the query id of every row at fit time, and scikit-learn's
checks call ``fit(X, y)`` without them; every check that needs a successful fit is
an expected failure below, with that reason. The others must pass: parameters,
cloning, tags, and refusing bad ``X`` (empty, complex, sparse or NaN / infinity
where the wrapped ranker does not take them) with scikit-learn's own messages.
Two wrapped rankers: LightGBM's (sparse input and NaN allowed, as its tags say) and
a dense-only ranker written here (sparse input and NaN refused).

The expected failures are kept honest twice: each one is run and must fail at the
missing query ids and nowhere else, and every check (none expected to fail) is run
again on ``GivenIdsRanker``, a GroupedRanker whose ``fit`` supplies interleaved query
ids when none are given, so that whatever a check tests beyond the ids is tested.
"""

import numpy as np
import pytest
from lightgbm import LGBMRanker
from sklearn.base import BaseEstimator
from sklearn.utils import check_array
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks
from sklearn.utils.validation import check_non_negative

from sklearn_rank_metrics import GroupedRanker


class DenseRanker(BaseEstimator):
    """A ranker that takes ``group`` sizes, dense and finite ``X`` only (default tags)."""

    def fit(self, X, y, group=None):
        self.coef_ = np.linalg.lstsq(np.asarray(X, float), np.asarray(y, float), rcond=None)[0]
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict(self, X):
        return np.asarray(X, float) @ self.coef_


class PositiveRanker(DenseRanker):
    """A dense ranker that refuses negative features, and says so in its tags."""

    def fit(self, X, y, group=None):
        check_non_negative(check_array(X), "PositiveRanker.fit")
        return super().fit(X, y, group)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class GivenIdsRanker(GroupedRanker):
    """GroupedRanker given query ids (three, interleaved) when fit gets none."""

    def fit(self, X, y, group=None, **fit_params):
        if group is None and self.group_column is None:
            group = np.arange(np.shape(X)[0]) % 3
        return super().fit(X, y, group, **fit_params)


NEEDS_QUERY_IDS = (
    "GroupedRanker.fit needs the query id of every row, and scikit-learn's checks "
    "call fit(X, y) without them"
)
NEED_A_FIT = [
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
]
# with a ranker that takes sparse X, the sparse checks fit on it, so they need ids too
NEED_A_SPARSE_FIT = [
    "check_estimator_sparse_tag",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
]


def expected_failures(estimator):
    if isinstance(estimator.ranker, LGBMRanker):
        names = NEED_A_FIT + NEED_A_SPARSE_FIT
    else:  # NaN in fit is refused (tested below); the check then predicts after a fit
        names = [*NEED_A_FIT, "check_estimators_nan_inf"]
    return dict.fromkeys(names, NEEDS_QUERY_IDS)


_ALL = parametrize_with_checks(
    [GroupedRanker(LGBMRanker(n_estimators=3, verbose=-1)), GroupedRanker(DenseRanker())],
    expected_failed_checks=expected_failures,
)
# the array-API check skips itself unless SCIPY_ARRAY_API is set: leave it out rather
# than report a skip (CI fails on skips)
PARAMS = [param for param in _ALL.args[1] if "check_array_api_input" not in str(param)]
CHECKS = pytest.mark.parametrize(_ALL.args[0], PARAMS, **_ALL.kwargs)


@CHECKS
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def _root_cause(error):
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__
    return error


@pytest.mark.parametrize("estimator", [
    GroupedRanker(LGBMRanker(n_estimators=3, verbose=-1)), GroupedRanker(DenseRanker())
], ids=["lightgbm", "dense"])
def test_every_expected_failure_is_the_missing_query_ids(estimator):
    """Each xfail above fails at the missing ids, not at something it hides."""
    results = check_estimator(estimator, on_fail=None,
                              expected_failed_checks=expected_failures(estimator))
    failed = {r["check_name"]: r["exception"] for r in results
              if r["status"] in ("failed", "xfail")}
    assert set(failed) == set(expected_failures(estimator))
    for name, error in failed.items():
        root = _root_cause(error)
        assert isinstance(root, ValueError), (name, root)
        assert "GroupedRanker.fit needs the query id of every row" in str(root), (name, root)


GIVEN_IDS = parametrize_with_checks(
    [GivenIdsRanker(LGBMRanker(n_estimators=3, min_child_samples=1, verbose=-1)),
     GivenIdsRanker(DenseRanker()), GivenIdsRanker(PositiveRanker())]
)


@pytest.mark.parametrize(
    GIVEN_IDS.args[0],
    [param for param in GIVEN_IDS.args[1] if "check_array_api_input" not in str(param)],
    **GIVEN_IDS.kwargs,
)
def test_scikit_learn_estimator_checks_given_query_ids(estimator, check):
    """Every check passes once the query ids are there: no xfail hides another cause."""
    check(estimator)


def test_the_checks_that_must_pass_are_there():
    names = {str(param) for param in PARAMS}
    for required in ("check_estimators_empty_data_messages",
                     "check_complex_data", "check_get_params_invariance",
                     "check_estimator_sparse_matrix", "check_requires_y_none"):
        assert any(required in name for name in names), required
    given = {str(param) for param in GIVEN_IDS.args[1]}
    for ranker, required in (("PositiveRanker", "check_fit_non_negative"),
                             ("PositiveRanker", "check_positive_only_tag_during_fit"),
                             ("LGBMRanker", "check_estimator_sparse_matrix")):
        assert any(ranker in name and required in name for name in given), required


def test_bad_features_get_scikit_learns_messages():
    import scipy.sparse

    X, y, group = np.ones((4, 2)), np.array([1, 0, 1, 0]), [1, 1, 2, 2]
    dense = GroupedRanker(DenseRanker())
    with pytest.raises(ValueError, match="Input X contains NaN"):
        dense.fit(np.where(X == 1, np.nan, X), y, group=group)
    with pytest.raises(TypeError, match="Sparse data was passed"):
        dense.fit(scipy.sparse.csr_matrix(X), y, group=group)
    # LightGBM takes NaN (missing values) and sparse X: both reach it
    lgbm = GroupedRanker(LGBMRanker(n_estimators=2, min_child_samples=1, verbose=-1))
    X_nan = np.arange(8.0).reshape(4, 2)
    X_nan[0, 0] = np.nan
    assert lgbm.fit(X_nan, y, group=group).predict(X_nan).shape == (4,)
    assert lgbm.fit(scipy.sparse.csr_matrix(X_nan), y, group=group).n_features_in_ == 2
