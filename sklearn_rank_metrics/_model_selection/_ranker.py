"""A meta-estimator that lets query-grouped rankers run inside cross-validation.

``lightgbm.LGBMRanker`` wants per-query *sizes* at fit time and ``xgboost.XGBRanker``
wants rows sorted by ``qid``; cross-validation hands an estimator a subset of rows
in any order, with at most a per-row array. :class:`GroupedRanker` takes per-row
query ids, sorts the rows by query (stably), gives the ranker what it needs, and
predicts in the caller's row order.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import scipy.sparse
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import _safe_indexing
from sklearn.utils.metadata_routing import UNCHANGED
from sklearn.utils.validation import check_is_fitted

from .._engine._caller import called_as, renamed_as
from .._engine._inputs import drop_column, factorize_groups, plain_array, query_id_column

PASS_GROUP_AS = ("auto", "sizes", "qid")
# per-eval-set lists of per-row arrays in LightGBM's and XGBoost's fit
_PER_EVAL_SET = (
    "eval_sample_weight",
    "eval_init_score",
    "sample_weight_eval_set",
    "base_margin_eval_set",
)
# fit parameters of the ranker that GroupedRanker derives itself (the query layout,
# the eval sets sorted by query): not passed through, not requestable
_DERIVED = frozenset({"X", "y", "qid", "eval_X", "eval_y", "eval_qid"})


class GroupedRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a query-grouped ranker on rows in any order, given per-row query ids.

    At fit time the rows are sorted by query id (stably: within a query they keep
    their given order), and the wrapped ranker receives either the per-query sizes
    (``group=``, LightGBM's form) or the sorted per-row ids (``qid=``, XGBoost's
    form). Prediction is row-wise, in the caller's order. Parameters of the wrapped
    ranker are tunable as ``ranker__<name>`` (e.g. ``ranker__n_estimators``).

    Parameters
    ----------
    ranker : estimator
        An unfitted ranker such as ``lightgbm.LGBMRanker()`` or
        ``xgboost.XGBRanker()``; it is cloned at fit time.
    group_column : str or None, default=None
        Name of a column of a DataFrame ``X`` (pandas, polars, a pyarrow Table, or
        any eager frame narwhals reads) holding the query ids. It is read and dropped
        before ``X`` reaches the ranker (at fit and at predict), which gets a frame of
        the same library, so the same ``X`` can feed a scorer made with the same
        ``group_column``.
    pass_group_as : {"auto", "sizes", "qid"}, default="auto"
        How the ranker receives the queries: ``"sizes"`` passes ``group=`` (rows per
        query, in sorted-row order), ``"qid"`` passes ``qid=`` (per-row query codes,
        sorted). ``"auto"`` passes ``qid=`` when the ranker's ``fit`` takes it
        (XGBoost), else ``group=`` sizes (LightGBM).

    Attributes
    ----------
    ranker_ : estimator
        The fitted clone of ``ranker``.
    n_features_in_ : int
        Number of features the ranker saw (without ``group_column``); ``predict``
        refuses ``X`` with another number (a ``ValueError``, scikit-learn's message).

    Notes
    -----
    Query ids reach ``fit`` as its ``group`` argument or through ``group_column``.
    Under metadata routing (``sklearn.set_config(enable_metadata_routing=True)``)
    ``fit`` requests ``groups`` for ``group`` by default, so
    ``GridSearchCV(GroupedRanker(...), ..., cv=GroupKFold()).fit(X, y, groups=qid)``
    feeds the same ids to the folds, the ranker and a scorer from
    :func:`make_ranking_scorer`. Without routing, pass ``group_column`` or both
    ``groups=qid`` (for the folds) and ``group=qid`` (a fit parameter, sliced per
    fold) to ``search.fit``.

    ``fit`` keeps the queries it saw (their ids, numbers of rows and a fingerprint
    of their labels: three values per query), so that a scorer of
    :func:`make_ranking_scorer` refuses, inside a cross-validation, a fold that scores
    part of a training query (a splitter such as ``KFold`` cut it); see the scorer's
    notes.

    Other keyword arguments of ``fit`` go to the ranker's ``fit``; those that are
    arrays with one entry per row are reordered with the rows. Eval sets (for the
    ranker's early stopping) are sorted by their own query ids, given as
    ``eval_group`` or by the ``group_column``; given both ways, they must agree, as
    for the training rows (a ``ValueError`` names the first row where they differ).
    Every ``y``, of the training rows and of each eval set, has one label per row of
    its ``X`` (another length is a ``ValueError``).

    Under metadata routing ``GroupedRanker`` consumes every parameter of the wrapped
    ranker's ``fit`` (LightGBM: ``eval_metric``, ``callbacks``, ``eval_at``,
    ``sample_weight``, ...; XGBoost: ``verbose``, ``sample_weight_eval_set``, ...),
    except those it derives itself (``qid``, ``eval_X``, ``eval_y``, ``eval_qid``),
    plus its own ``eval_set`` and ``eval_group``. Each is unrequested by default; a
    search passes it on after ``set_fit_request(<name>=True)``, e.g.
    ``set_fit_request(eval_set=True, eval_group=True, eval_metric=True,
    callbacks=True)`` for early stopping on a metric of
    :func:`make_lightgbm_metric` in every fold. Requests set on the wrapped ranker
    itself are not read: ``GroupedRanker`` is the consumer (it reorders the rows).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn_rank_metrics import GroupedRanker
    >>> class MeanRanker(BaseEstimator):  # a toy ranker that needs sizes
    ...     def fit(self, X, y, group=None):
    ...         self.sizes_ = group
    ...         self.n_features_in_ = X.shape[1]
    ...         return self
    ...     def predict(self, X):
    ...         return np.asarray(X).mean(axis=1)
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> model = GroupedRanker(MeanRanker()).fit(X, [0, 1, 1, 0], group=["b", "a", "b", "b"])
    >>> model.ranker_.sizes_
    array([1, 3])
    >>> model.predict(X[::-1])
    array([4., 3., 2., 1.])
    """

    # Under metadata routing, fit's ``group`` is requested as ``groups`` by default.
    __metadata_request__fit = {"group": "groups"}

    def __init__(self, ranker: Any, *, group_column: Any = None, pass_group_as: str = "auto"):
        self.ranker = ranker
        self.group_column = group_column
        self.pass_group_as = pass_group_as

    def fit(
        self,
        X: Any,
        y: Any,
        group: Any = None,
        *,
        eval_set: Any = None,
        eval_group: Any = None,
        **fit_params: Any,
    ) -> GroupedRanker:
        """Sort the rows by query and fit a clone of the ranker on them.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
            Relevance labels.
        group : array-like of shape (n_rows,), default=None
            Query id of every row (not needed with ``group_column``; if both are
            given they must agree).
        eval_set : list of (X, y) pairs, default=None
            Validation sets for the ranker's early stopping, rows in any order. Each
            is sorted by query like the training rows and reaches the ranker with its
            layout (LightGBM: ``eval_group`` sizes; XGBoost: ``eval_qid``).
        eval_group : list of array-like, default=None
            The query id of every row of each eval set (not needed when its ``X`` has
            the ``group_column``).
        **fit_params
            Passed to the ranker's ``fit``; per-row arrays are reordered with the rows,
            and the per-eval-set lists (``eval_sample_weight``, ``eval_init_score``,
            ``sample_weight_eval_set``, ``base_margin_eval_set``) with each eval set's
            rows: one entry per eval set, each None, one value per row, or one per
            query (XGBoost's group weights, in sorted query order); another count is
            a ``ValueError``. ``qid``, ``eval_X``, ``eval_y`` and ``eval_qid`` are refused (a
            TypeError): GroupedRanker derives them from the query ids and eval sets.

        Returns
        -------
        self : GroupedRanker
        """
        derived = sorted(_DERIVED.intersection(fit_params))
        if derived:
            raise TypeError(
                f"GroupedRanker.fit got {derived}, which it derives from the query ids "
                "and eval sets; pass eval_set=[(X, y), ...] with eval_group=[ids, ...] "
                "(or the group_column) instead."
            )
        if self.pass_group_as not in PASS_GROUP_AS:
            raise ValueError(
                f"The 'pass_group_as' parameter of GroupedRanker must be one of "
                f"{PASS_GROUP_AS}; got {self.pass_group_as!r}."
            )
        if y is None:  # scikit-learn's message for an estimator that needs y
            raise ValueError(
                "GroupedRanker requires y to be passed, but the target y is None."
            )
        with called_as("GroupedRanker.fit"):  # not around the ranker's own fit
            X_model, n_features, n_rows, codes, ids = self._training_rows(X, y, group)
        order = np.argsort(codes, kind="stable")
        sorted_codes = codes[order]
        if self._pass_as() == "qid":
            query_argument = {"qid": sorted_codes}
        else:
            query_argument = {"group": np.bincount(sorted_codes)}
        reordered = {
            name: _safe_indexing(value, order) if _is_per_row(value, n_rows) else value
            for name, value in fit_params.items()
        }
        ranker = clone(self.ranker)
        if eval_set is not None:
            reordered.update(
                self._eval_arguments(eval_set, eval_group, fit_params, n_features)
            )
        elif eval_group is not None:
            raise ValueError("GroupedRanker.fit got eval_group without eval_set.")
        self.ranker_ = ranker.fit(
            _safe_indexing(X_model, order),
            _safe_indexing(np.asarray(y), order),
            **query_argument,
            **reordered,
        )
        self.n_features_in_ = n_features
        if hasattr(self.ranker_, "feature_names_in_"):
            self.feature_names_in_ = self.ranker_.feature_names_in_
        # what a scorer needs to tell a query split by the folds (FittedQueries)
        self._fitted_queries = FittedQueries.of(ids, codes, y)
        return self

    def _training_rows(
        self, X: Any, y: Any, group: Any
    ) -> tuple[Any, int, int, np.ndarray, np.ndarray]:
        """The model's features, their number, the number of rows, the query codes and ids."""
        X_model, column_ids = self._split_group_column(X)
        X_model, n_features = self._check_features(X_model)
        ids = self._query_ids(group, column_ids, "group=", "GroupedRanker.fit")
        n_rows = _check_labels(X_model, y, "X", "y", "GroupedRanker.fit")
        codes, distinct = factorize_groups(ids, n_rows)
        return X_model, n_features, n_rows, codes, distinct

    def _eval_arguments(
        self, eval_set: Any, eval_group: Any, fit_params: dict[str, Any], n_features: int
    ) -> dict[str, Any]:
        """The eval sets sorted by query, with their layout, in the ranker's keywords.

        Each eval set's ``X`` is checked as the training ``X`` is (and sparse forms
        without row indexing become CSR); it must have the training ``X``'s
        ``n_features`` features.
        """
        if not isinstance(eval_set, (list, tuple)) or not all(
            isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in eval_set
        ):
            raise TypeError(
                "The 'eval_set' parameter of GroupedRanker.fit must be a list of (X, y) "
                "pairs."
            )
        if eval_group is not None and len(eval_group) != len(eval_set):
            raise ValueError(
                f"GroupedRanker.fit got {len(eval_set)} eval sets but {len(eval_group)} "
                "entries in eval_group; give the query ids of every eval set."
            )
        sorted_sets, layouts, orders = [], [], []
        for index, (X_eval, y_eval) in enumerate(eval_set):
            X_model, column_ids = self._split_group_column(X_eval)
            X_model, n_eval_features = self._check_features(X_model, f"eval_set[{index}]'s X")
            if n_eval_features != n_features:
                raise ValueError(
                    f"GroupedRanker.fit: eval_set[{index}]'s X has {n_eval_features} "
                    f"features but X has {n_features}; give the eval sets the training "
                    "features."
                )
            given = None if eval_group is None else eval_group[index]
            where = f"GroupedRanker.fit (eval set {index})"
            if given is None and column_ids is None:
                raise ValueError(
                    f"GroupedRanker.fit needs the query ids of eval set {index}: pass "
                    "eval_group=[ids, ...] or keep the group_column in its X."
                )
            ids = self._query_ids(given, column_ids, f"eval_group[{index}]", where)
            n_rows = _check_labels(
                X_model, y_eval, f"eval_set[{index}]'s X", f"eval_set[{index}]'s y", where
            )
            with renamed_as(where):  # this eval set's name, not the caller's
                codes, _ = factorize_groups(ids, n_rows)
            order = np.argsort(codes, kind="stable")
            sorted_sets.append(
                (_safe_indexing(X_model, order), _safe_indexing(np.asarray(y_eval), order))
            )
            layouts.append(codes[order])
            orders.append(order)
        arguments: dict[str, Any] = {}
        fit_parameters = inspect.signature(self.ranker.fit).parameters
        if "eval_X" in fit_parameters:  # LightGBM >= 4.7 names the eval set so
            arguments["eval_X"] = tuple(pair[0] for pair in sorted_sets)
            arguments["eval_y"] = tuple(pair[1] for pair in sorted_sets)
        else:
            arguments["eval_set"] = sorted_sets
        if self._pass_as() == "qid":
            arguments["eval_qid"] = layouts
        else:
            arguments["eval_group"] = [np.bincount(codes) for codes in layouts]
        for name in _PER_EVAL_SET:
            if fit_params.get(name) is not None:
                arguments[name] = _per_eval_set(name, fit_params[name], orders, layouts)
        return arguments

    def _ranker_fit_parameters(self) -> list[str]:
        """Names of the wrapped ranker's ``fit`` parameters that pass through."""
        fit = getattr(self.ranker, "fit", None)
        if fit is None:
            return []
        try:
            parameters = inspect.signature(fit).parameters.values()
        except (TypeError, ValueError):  # no fit, or no signature to read
            return []
        passing = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        return [
            parameter.name
            for parameter in parameters
            if parameter.kind in passing and parameter.name not in _DERIVED
            and parameter.name != "self"
        ]  # fmt: skip

    def _get_metadata_request(self) -> Any:
        """scikit-learn's requests, with every ``fit`` parameter of the wrapped ranker.

        GroupedRanker's own ``group`` (requested as ``groups``), ``eval_set`` and
        ``eval_group``, and the ranker's ``fit`` parameters (unrequested unless
        :meth:`set_fit_request` says otherwise).
        """
        requests = super()._get_metadata_request()
        known = requests.fit.requests
        for name in self._ranker_fit_parameters():
            if name not in known:
                requests.fit.add_request(param=name, alias=None)
        return requests

    @property
    def feature_importances_(self) -> np.ndarray:
        """The fitted ranker's ``feature_importances_``."""
        check_is_fitted(self, "ranker_")
        return self.ranker_.feature_importances_

    @property
    def best_iteration_(self) -> int:
        """The fitted ranker's best iteration of early stopping (``best_iteration_`` of
        LightGBM, ``best_iteration`` of XGBoost)."""
        check_is_fitted(self, "ranker_")
        if hasattr(self.ranker_, "best_iteration_"):
            return self.ranker_.best_iteration_
        return self.ranker_.best_iteration

    @property
    def evals_result_(self) -> dict:
        """The fitted ranker's evaluation history (``evals_result_`` of LightGBM,
        ``evals_result()`` of XGBoost)."""
        check_is_fitted(self, "ranker_")
        if hasattr(self.ranker_, "evals_result_"):
            return self.ranker_.evals_result_
        return self.ranker_.evals_result()

    def predict(self, X: Any) -> np.ndarray:
        """Ranking scores of the rows of ``X``, in their given order.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            The rows to score (with the ``group_column``, if one was given, which is
            dropped before the wrapped ranker sees the features).

        Returns
        -------
        scores : ndarray of shape (n_rows,)
            The wrapped ranker's scores; higher ranks earlier.
        """
        check_is_fitted(self, "ranker_")
        X_model, _ = self._split_group_column(X)
        X_model, n_features = self._check_features(X_model)
        if n_features != self.n_features_in_:  # scikit-learn's message
            raise ValueError(
                f"X has {n_features} features, but GroupedRanker is expecting "
                f"{self.n_features_in_} features as input."
            )
        return np.asarray(self.ranker_.predict(X_model))

    def __sklearn_tags__(self) -> Any:
        """GroupedRanker's tags: ``y`` is required; the rest is the wrapped ranker's.

        The input tags that say which ``X`` the ranker takes (sparse, NaN,
        non-negative only) and whether its labels must be positive are the wrapped
        ranker's, as a pipeline has its steps'. ``y`` is required whatever the
        ranker's tags say: ``fit`` needs the relevance labels.
        """
        tags = super().__sklearn_tags__()
        inner = self._ranker_tags()
        if inner is not None:
            tags.input_tags.sparse = inner.input_tags.sparse
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
            tags.input_tags.positive_only = inner.input_tags.positive_only
            tags.target_tags.positive_only = inner.target_tags.positive_only
        tags.target_tags.required = True
        return tags

    def _ranker_tags(self) -> Any:
        """The wrapped ranker's tags, or None (scikit-learn < 1.6)."""
        try:
            from sklearn.utils import get_tags

            return get_tags(self.ranker)
        except (ImportError, AttributeError, TypeError):
            return None

    def _check_features(self, X: Any, input_name: str = "X") -> tuple[Any, int]:
        """``X`` checked for what the wrapped ranker accepts, and its number of features.

        Empty, complex or non-numeric data, and sparse input or NaN / infinity where
        the ranker's tags do not allow them, get scikit-learn's own messages here,
        before the rows reach the ranker. A dense ``X`` is passed on unchanged; a
        sparse ``X`` in a format without row indexing (COO, DIA, DOK, LIL, BSR) is
        converted to CSR, so that its rows can be sorted by query. A DataFrame is
        left to the ranker, which may take its categorical columns.
        """
        from sklearn.utils import check_array

        if hasattr(X, "columns"):
            return X, int(X.shape[1])
        inner = self._ranker_tags()
        allow_nan, sparse = (
            (inner.input_tags.allow_nan, inner.input_tags.sparse)
            if inner is not None
            else (False, False)
        )
        finite = "allow-nan" if allow_nan else True
        keyword = (
            "ensure_all_finite"
            if "ensure_all_finite" in inspect.signature(check_array).parameters
            else "force_all_finite"
        )
        checked = check_array(
            X, accept_sparse=["csr", "csc"] if sparse else False, dtype="numeric",
            estimator=self, input_name=input_name, **{keyword: finite},
        )
        n_features = int(checked.shape[1])
        return (checked if scipy.sparse.issparse(checked) else X), n_features

    def _pass_as(self) -> str:
        if self.pass_group_as != "auto":
            return self.pass_group_as
        fit = getattr(self.ranker, "fit", None)
        if fit is None:
            raise TypeError(f"GroupedRanker: {type(self.ranker).__name__} has no fit method.")
        parameters = inspect.signature(fit).parameters
        if "qid" in parameters:
            return "qid"
        if "group" in parameters:
            return "sizes"
        raise TypeError(
            f"GroupedRanker: {type(self.ranker).__name__}.fit takes neither 'qid' nor "
            "'group', so it is not a query-grouped ranker; fit it directly, or set "
            "pass_group_as to name the form it takes."
        )

    def _split_group_column(self, X: Any) -> tuple[Any, Any]:
        """``X`` without the query-id column, and that column (or None)."""
        if self.group_column is None:
            return X, None
        owner = f"GroupedRanker(group_column={self.group_column!r})"
        ids = query_id_column(X, self.group_column, owner)
        return drop_column(X, self.group_column), ids

    def _query_ids(self, group: Any, column_ids: Any, given_as: str, where: str) -> Any:
        """The query ids of the rows: ``group`` or the group column, which must agree.

        The same rule for the training rows and for every eval set: ids given both
        ways must be the same, row by row, or the call is refused naming the first
        row where they differ (neither silently wins).
        """
        if group is None and column_ids is None:
            raise ValueError(
                "GroupedRanker.fit needs the query id of every row: pass group=qid, set "
                "group_column='<name>' for a DataFrame X, or under metadata routing "
                "(sklearn.set_config(enable_metadata_routing=True)) pass groups=qid to "
                "search.fit."
            )
        if group is not None and column_ids is not None:
            given, column = np.asarray(group), plain_array(column_ids)
            if given.shape != column.shape:
                raise ValueError(
                    f"{where} got {given_as} with {len(given)} query ids and column "
                    f"{self.group_column!r} of X with {len(column)}; pass the query ids "
                    "one way."
                )
            if given.dtype.kind != column.dtype.kind:  # e.g. str and int: as Python does
                given, column = given.astype(object), column.astype(object)
            differ = np.flatnonzero(given != column)
            if len(differ):
                row = int(differ[0])
                first, second = given[row : row + 1].tolist()[0], column[row : row + 1].tolist()[0]
                raise ValueError(
                    f"{where} got {given_as} and column {self.group_column!r} of X, and "
                    f"they differ in {len(differ)} of {len(given)} rows (first: row {row}, "
                    f"{first!r} and {second!r}); pass the query ids one way."
                )
        return group if group is not None else column_ids


class FittedQueries:
    """The queries a :class:`GroupedRanker` was fitted on, to tell a split query.

    A query is split when some but not all of its rows were in training: a scorer
    that scores its other rows measures a part of the query, with a model that saw
    the rest. For each training query this keeps its id, its number of rows and a
    fingerprint of its labels (a sum of hashed labels, in any row order); rows
    scored under one of these ids are the query's training rows when their number
    and fingerprint agree (a train score, ``return_train_score=True``), and else
    the other part of a query the folds split. The labels are what every scorer
    sees as the model saw them (features may be transformed, or permuted by
    ``permutation_importance``); a split whose two parts hold the same labels in the
    same numbers passes unseen. Memory: three values per training query.
    """

    def __init__(self, ids: np.ndarray, sizes: np.ndarray, fingerprints: np.ndarray):
        self.ids = ids
        self.sizes = sizes
        self.fingerprints = fingerprints

    @classmethod
    def of(cls, ids: np.ndarray, codes: np.ndarray, y: Any) -> FittedQueries | None:
        """The record of rows with query ``codes`` (into ``ids``) and labels ``y``.

        None when the labels are not numbers (nothing to fingerprint).
        """
        labels = _label_hashes(y)
        if labels is None:
            return None
        sizes = np.bincount(codes, minlength=len(ids))
        return cls(np.asarray(ids), sizes, _sums_by_query(codes, labels, len(ids)))

    def split_in(self, group: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The queries of the rows ``(group, y)`` that were split from training rows.

        Returns the ids of those queries, their rows here and their rows in
        training (empty arrays when none is split). Ids of another kind than the
        training ids (strings against ints) share no query.
        """
        n_rows = len(y)
        codes, ids = factorize_groups(group, n_rows)
        labels = _label_hashes(y)
        at = _positions(self.ids, np.asarray(ids))
        if labels is None or not np.any(at >= 0):
            empty = np.array([], dtype=np.int64)
            return np.asarray(ids)[:0], empty, empty
        sizes = np.bincount(codes, minlength=len(ids))
        fingerprints = _sums_by_query(codes, labels, len(ids))
        known = at >= 0
        fitted = np.where(known, at, 0)
        split = known & (
            (sizes != self.sizes[fitted]) | (fingerprints != self.fingerprints[fitted])
        )
        return np.asarray(ids)[split], sizes[split], self.sizes[fitted[split]]


# splitmix64's finaliser: a label's 64 bits to a well-mixed 64-bit value, so that the
# sums of two different multisets of labels (almost) never agree
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _label_hashes(y: Any) -> np.ndarray | None:
    """A 64-bit hash of every label's value (-0.0 as 0.0), or None for non-numbers."""
    try:
        values = np.asarray(y, dtype=np.float64).reshape(-1) + 0.0
    except (TypeError, ValueError):
        return None
    z = values.view(np.uint64) + _MIX[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX[1]
    z = (z ^ (z >> np.uint64(27))) * _MIX[2]
    return z ^ (z >> np.uint64(31))


def _sums_by_query(codes: np.ndarray, values: np.ndarray, n_queries: int) -> np.ndarray:
    """The sum of ``values`` per query code, modulo 2**64 (order-independent)."""
    sums = np.zeros(n_queries, dtype=np.uint64)
    np.add.at(sums, codes, values)
    return sums


def _positions(known: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The index of every id in ``known`` (distinct ids), -1 where absent."""
    if not len(known) or not len(ids):
        return np.full(len(ids), -1, dtype=np.int64)
    try:
        order = np.argsort(known, kind="stable")
        ordered = known[order]
        at = np.minimum(np.searchsorted(ordered, ids), len(ordered) - 1)
        found = np.asarray(ordered[at] == ids, dtype=bool)
    except TypeError:  # ids of another kind: no query in common
        return np.full(len(ids), -1, dtype=np.int64)
    return np.where(found, order[at], -1)


def fitted_queries(estimator: Any) -> FittedQueries | None:
    """The training queries of the GroupedRanker that makes ``estimator``'s scores.

    ``estimator`` itself, the last step of a pipeline, or a search's
    ``best_estimator_``; None for any other estimator (its training queries are
    unknown).
    """
    for _ in range(8):  # nested pipelines and searches
        if isinstance(estimator, GroupedRanker):
            return getattr(estimator, "_fitted_queries", None)
        steps = getattr(estimator, "steps", None)
        if isinstance(steps, list) and steps:
            estimator = steps[-1][1]
        elif hasattr(estimator, "best_estimator_"):
            estimator = estimator.best_estimator_
        else:
            return None
    return None


def _set_fit_request(self: GroupedRanker, **requests: Any) -> GroupedRanker:
    """Request metadata passed to ``fit``: GroupedRanker's and the wrapped ranker's.

    Only under metadata routing (``sklearn.set_config(enable_metadata_routing=True)``).

    Parameters
    ----------
    **requests : bool, None or str
        For each parameter of GroupedRanker's ``fit`` (``group``, ``eval_set``,
        ``eval_group``) or of the wrapped ranker's ``fit`` (e.g. LightGBM's
        ``eval_metric``, ``callbacks``, ``eval_at``), as in scikit-learn's
        ``set_fit_request``: ``True`` requests it, ``False`` does not, ``None`` raises
        if it is passed, a str requests it under that name (``group`` is requested
        as ``groups`` by default).

    Returns
    -------
    self : GroupedRanker
    """
    if not get_config().get("enable_metadata_routing", False):
        raise RuntimeError(
            "This method is only available when metadata routing is enabled. You can "
            "enable it using sklearn.set_config(enable_metadata_routing=True)."
        )
    metadata = self._get_metadata_request()
    accepted = sorted(metadata.fit.requests)
    unknown = sorted(set(requests) - set(accepted))
    if unknown:
        raise TypeError(
            f"GroupedRanker.set_fit_request got {unknown}, which neither GroupedRanker.fit "
            f"nor {type(self.ranker).__name__}.fit takes; it accepts {accepted}."
        )
    for name, alias in requests.items():
        if alias is not UNCHANGED:
            metadata.fit.add_request(param=name, alias=alias)
    self._metadata_request = metadata
    return self


GroupedRanker.set_fit_request = _set_fit_request  # scikit-learn may generate its own
# (from fit's signature alone) when the class is created; this one knows the ranker's


def _per_eval_set(
    name: str, given: Any, orders: list[np.ndarray], layouts: list[np.ndarray]
) -> list[Any]:
    """A per-eval-set list (``eval_sample_weight``, ...) in the sorted rows' order.

    One entry per eval set: None, one value per row (reordered with the set's rows)
    or one per query (XGBoost's group weights, in sorted query order already).
    Another count of entries or of values is refused, never passed on unsorted.
    """
    if isinstance(given, (str, bytes)) or not hasattr(given, "__len__"):
        raise TypeError(
            f"The {name!r} parameter of GroupedRanker.fit must be a list with one entry "
            f"per eval set; got {type(given).__name__}."
        )
    if len(given) != len(orders):
        raise ValueError(
            f"GroupedRanker.fit got {len(orders)} eval sets but {len(given)} entries in "
            f"{name}; give one per eval set (None for none)."
        )
    result: list[Any] = []
    for index, (values, order, codes) in enumerate(zip(given, orders, layouts, strict=True)):
        if values is None:
            result.append(None)
            continue
        n_values, n_rows = _n_rows(values), len(order)
        n_queries = int(codes[-1]) + 1 if len(codes) else 0
        if n_values == n_rows:  # per row: follows its set's rows
            result.append(_safe_indexing(np.asarray(values), order))
        elif n_values == n_queries:  # per query, in sorted query order
            result.append(values)
        else:
            raise ValueError(
                f"GroupedRanker.fit: {name}[{index}] has {n_values} values but eval set "
                f"{index} has {n_rows} rows in {n_queries} queries; give one value per "
                "row (or per query, for XGBoost's group weights)."
            )
    return result


def _check_labels(X: Any, y: Any, x_name: str, y_name: str, where: str) -> int:
    """The number of rows of ``X``, once ``y`` has one label per row."""
    n_rows = _n_rows(X)
    if _n_rows(y) != n_rows:
        raise ValueError(
            f"{where}: {x_name} has {n_rows} rows but {y_name} has {_n_rows(y)} labels; "
            "give one label per row."
        )
    return n_rows


def _n_rows(value: Any) -> int:
    shape = getattr(value, "shape", None)
    return int(shape[0]) if shape is not None else len(value)


def _is_per_row(value: Any, n_rows: int) -> bool:
    if isinstance(value, (str, bytes, dict)) or value is None:
        return False
    try:
        return _n_rows(value) == n_rows
    except TypeError:
        return False

