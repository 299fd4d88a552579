"""Ranking metrics as scikit-learn scorers: :func:`make_ranking_scorer`.

A scorer is called as ``scorer(estimator, X, y)`` by ``GridSearchCV`` and friends. A
ranking metric also needs the query id of every row, which reaches the scorer in one
of three ways (exactly one, or several that agree):

1. metadata routing: the scorer requests ``groups`` for the metric's ``group``;
2. a named column of a DataFrame ``X`` (pandas, polars, ...: ``group_column=``);
3. ids bound when the scorer is made (``group=``), for a fixed ``X``.

Nothing here changes a global scikit-learn setting.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import Any, NoReturn

import numpy as np
from sklearn.utils.metadata_routing import MetadataRequest

from .._engine._caller import entry_point, renamed_as
from .._engine._inputs import RESPONSE_METHODS, plain_array, query_id_column, response_values
from .._engine._plain import counted
from .._engine._ranking_rows import CarriedRows, estimator_inputs
from .._engine._shared_sort import SharedSort, sharing_sort
from .._engine._validation import BOOLEAN, NONE, Options, check_parameter
from .._metrics._base import SHARED_SETTINGS
from .._metrics._registry import METRICS, MetricSpec, parse_metric
from .._metrics._settings import Settings
from ._ranker import fitted_queries

_RESPONSE_CONSTRAINT = [Options(*RESPONSE_METHODS)]


_HOW_TO_PASS_GROUPS = (
    "Pass the query id of every row in one of these ways: (1) turn on metadata "
    "routing with sklearn.set_config(enable_metadata_routing=True) and pass "
    "groups=qid to search.fit / cross_validate(params={{'groups': qid}}) / "
    "search.score; (2) make the scorer with group_column='<name>' and give a DataFrame "
    "X (pandas, polars, ...) with that column; (3) for a fixed X (e.g. "
    "permutation_importance), bind the ids with {factory}(..., group=qid)."
)


class ScorerSetupError(BaseException):
    """A scorer that cannot score any fold of a cross-validation, raised inside one.

    scikit-learn's ``error_score`` (NaN by default) catches every ``Exception`` a
    scorer raises in cross-validation and records the value instead, and a search
    then picks its first candidate. A scorer that received no query ids (or whose
    folds split queries) fails the same way in every fold of every candidate, so it
    raises this, which derives from ``BaseException`` and passes scikit-learn's net,
    with the message of the ``ValueError`` or ``TypeError`` it raises when called
    directly.
    """


# scikit-learn's cross-validation (searches, cross_validate, cross_val_score,
# validation_curve, learning_curve, permutation_test_score) scores a fold from this
# module, whose _score turns an Exception into error_score
_CROSS_VALIDATION_MODULE = "sklearn.model_selection._validation"
_FRAMES_TO_CROSS_VALIDATION = 8


def _inside_cross_validation() -> bool:
    """Whether scikit-learn's cross-validation called the scorer on a fold.

    Then the scored rows and the training rows are two parts of one dataset, and
    an error of the scorer's setup would be recorded as ``error_score``.
    """
    frame: FrameType | None = sys._getframe(1)
    for _ in range(_FRAMES_TO_CROSS_VALIDATION):
        if frame is None:
            return False
        if frame.f_globals.get("__name__") == _CROSS_VALIDATION_MODULE:
            return True
        frame = frame.f_back
    return False


def _raise_setup_error(error: Exception) -> NoReturn:
    """Raise ``error``, inside cross-validation as a :class:`ScorerSetupError`.

    For a failure that is the same in every fold (no query ids, a query split by
    the folds); the ``ScorerSetupError`` carries ``error`` as its cause.
    """
    if not _inside_cross_validation():
        raise error
    raise ScorerSetupError(
        f"{error} This fails in every fold of every candidate, so it stops the "
        "cross-validation: scikit-learn's error_score would record NaN scores and a "
        "search would pick its first candidate."
    ) from error


class RankingScorer:
    """Scores an estimator by a ranking metric over the query groups of ``X``.

    Made by :func:`make_ranking_scorer`; see it for the parameters. Calling
    ``scorer(estimator, X, y_true, sample_weight=None, group=None)`` predicts scores
    for ``X`` and returns ``sign * metric(y_true, scores, group, ...)``: ``sign`` is
    -1 for a lower-is-better metric (fall-out), whose scorer returns the negated
    value as scikit-learn's ``neg_mean_squared_error`` does, so that a search that
    maximises scores picks the lowest value. The repr then shows
    ``greater_is_better=False``.
    """

    def __init__(
        self,
        metric_function: Callable,
        metric_params: Mapping[str, Any],
        *,
        name: str,
        group_column: Any = None,
        group: Any = None,
        response_method: str = "auto",
        sign: int = 1,
        shown_params: Mapping[str, Any] | None = None,
        by_name: bool = True,
        allow_split_queries: bool = False,
    ) -> None:
        self.metric_function = metric_function
        self.metric_params = dict(metric_params)
        self.name = name
        # the repr: the keywords it shows besides the name (the others are in the
        # name), and whether the name is a metric name (else a function's name)
        self.shown_params = dict(metric_params if shown_params is None else shown_params)
        self.by_name = by_name
        self.group_column = group_column
        self.group = group
        self.response_method = response_method
        self.sign = sign
        self.allow_split_queries = allow_split_queries
        # metadata routing: the metric's ``group`` is requested under the name
        # ``groups`` (what GroupKFold consumes); sample_weight is not requested.
        self._score_requests: dict[str, Any] = {"group": "groups", "sample_weight": None}
        # set by make_ranking_scorers: the sort its scorers share, and this one's number
        self._shared_sort: SharedSort | None = None
        self._shared_sort_user = 0

    # -- scikit-learn's scorer protocol ----------------------------------------
    def __call__(
        self,
        estimator: Any,
        X: Any,
        y_true: Any = None,
        sample_weight: Any = None,
        **metadata: Any,
    ) -> float:
        # a RankingData with features scores as it is: scorer(estimator, data)
        with renamed_as(repr(self)):  # errors name the scorer, not a function
            X, y_true, carried_group, carried = estimator_inputs(X, y_true, None)
        if y_true is None:
            raise TypeError(
                f"{self!r} needs the labels: scorer(estimator, X, y), or "
                "scorer(estimator, data) with a RankingData that has features."
            )
        metadata = self._by_parameter_name(metadata)
        if "sample_weight" in metadata:
            if sample_weight is not None:
                raise TypeError(f"{self!r} got its 'sample_weight' twice; pass it once.")
            sample_weight = metadata.pop("sample_weight")
        unexpected = sorted(set(metadata) - {"group"})
        if unexpected:
            raise TypeError(
                f"{self!r} got unexpected metadata {unexpected}; it takes 'group' (the "
                "query ids, routed from 'groups') and 'sample_weight'."
            )
        try:
            group = self._query_ids(X, metadata.get("group"), carried_group)
        except (TypeError, ValueError) as error:  # the same in every fold
            _raise_setup_error(error)
        self._check_whole_queries(estimator, group, y_true)
        y_score = response_values(estimator, X, self.response_method)
        params = dict(self.metric_params)
        with sharing_sort(self._shared_sort, self._shared_sort_user):
            if carried and _declared_direction(self.metric_function) is not None:
                # a reader's rows with features: one of our metric functions takes them
                # whole (judged flags, document ids, convention), as evaluate(data) does
                rows = CarriedRows(
                    y_true=y_true, y_score=y_score, group=group, sample_weight=None,
                    judged=carried["judged"], doc_id=carried["doc_id"],
                    convention=carried.get("convention"),
                )
                value = self.metric_function(rows, sample_weight=sample_weight, **params)
            else:
                names, takes_any = _metric_parameters(self.metric_function)
                if "judged" in carried and "judged" not in params and (
                    "judged" in names or takes_any
                ):
                    params["judged"] = carried["judged"]
                value = self.metric_function(
                    y_true, y_score, group, sample_weight=sample_weight, **params
                )
        return self.sign * value

    def _by_parameter_name(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """Metadata passed under a requested alias, renamed to the parameter.

        Routing renames ``groups`` to ``group`` on the way to a scorer, but
        scikit-learn's ``search.score`` after a multi-metric search calls the refit
        scorer with the metadata as the search received it, under the alias.
        """
        renamed = dict(metadata)
        for parameter, alias in self._score_requests.items():
            if isinstance(alias, str) and alias != parameter and alias in renamed:
                if parameter in renamed:
                    raise TypeError(
                        f"{self!r} got its {parameter!r} twice: as {parameter!r} and "
                        f"under its alias {alias!r}; pass it once."
                    )
                renamed[parameter] = renamed.pop(alias)
        return renamed

    def _accept_sample_weight(self) -> bool:
        """scikit-learn forwards ``sample_weight`` (query weights here) without routing."""
        return True

    def set_score_request(self, **requests: Any) -> RankingScorer:
        """Set how ``group`` and ``sample_weight`` are requested under metadata routing.

        ``group`` is requested as ``"groups"`` by default; ``sample_weight`` is not
        requested. Values follow scikit-learn: True, False, None or an alias (str).
        """
        for param, alias in requests.items():
            if param not in self._score_requests:
                raise TypeError(
                    f"set_score_request of {self!r} takes 'group' and 'sample_weight'; "
                    f"got {param!r}."
                )
            self._score_requests[param] = alias
        return self

    def get_metadata_routing(self) -> MetadataRequest:
        """The metadata this scorer requests (scikit-learn's routing protocol)."""
        request = MetadataRequest(owner=type(self).__name__)
        for param, alias in self._score_requests.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def __repr__(self) -> str:
        """The call that makes this scorer: ``make_ranking_scorer('ndcg@10', ties='input')``.

        A metric name shows in its canonical form with its own parameters
        (``'ndcg(gain=exponential)@5'``); the settings given (``convention``, ``ties``,
        ...) and the parameters no name can hold follow as keywords.
        """
        # a name as its text; a function by its own name, as make_scorer shows it
        shown = [repr(self.name) if getattr(self, "by_name", True) else self.name]
        for attribute in ("group_column", "response_method"):
            value = getattr(self, attribute)
            if value is not None and value != "auto":
                shown.append(f"{attribute}={value!r}")
        if self.group is not None:
            shown.append("group=<bound ids>")
        if self.sign < 0:
            shown.append("greater_is_better=False")
        if getattr(self, "allow_split_queries", False):
            shown.append("allow_split_queries=True")
        params = getattr(self, "shown_params", {})  # (absent from scorers pickled before)
        shown.extend(f"{key}={value!r}" for key, value in sorted(params.items()))
        return f"make_ranking_scorer({', '.join(shown)})"

    # -- query ids --------------------------------------------------------------
    def _check_whole_queries(self, estimator: Any, group: Any, y_true: Any) -> None:
        """Inside cross-validation, refuse rows of a query the folds split.

        The fold's rows and the training rows come from one dataset, where one id
        is one query. A :class:`GroupedRanker` (alone, last in a pipeline, or a
        search's best estimator) keeps its training queries: a query scored here
        under a training query's id, with other rows than in training, was split
        between training and scoring (``KFold``, ``cv=3``). Scoring the training rows
        themselves (a train score) is no split. Outside cross-validation new data
        may reuse ids for other queries (files whose ids restart at 0), so nothing
        is checked; for any other estimator the training queries are unknown. In
        both cases the folds must keep queries whole (see :func:`make_ranking_scorer`).
        """
        if getattr(self, "allow_split_queries", False):  # split on purpose (scorers pickled
            return  # before the option have none)
        record = fitted_queries(estimator) if _inside_cross_validation() else None
        if record is None:
            return
        with renamed_as(repr(self)):
            ids, here, trained = record.split_in(group, y_true)
        if not len(ids):
            return
        first = ids[:1].tolist()[0]
        _raise_setup_error(
            ValueError(
                f"{self!r} scores {counted(len(ids), 'query')} whose other rows GroupedRanker was "
                f"fitted on (first: query {first!r}, {here[0]} rows scored, {trained[0]} "
                "in training): the folds split them between training and scoring, so each "
                "is scored on part of its rows by a model that saw the rest. Keep every "
                "query on one side of each split: cv=GroupKFold(n_splits) (or "
                "GroupShuffleSplit, LeaveOneGroupOut) with the query ids as groups. Where "
                "the split is the protocol (a user's last interactions held out, each user "
                "a query), say so: make_ranking_scorer(..., allow_split_queries=True)."
            )
        )

    def _query_ids(self, X: Any, routed: Any, carried: Any = None) -> Any:
        """The one source of query ids, or an error that says how to pass them."""
        sources = []
        if carried is not None:
            sources.append(("the RankingData's group", carried))
        if routed is not None:
            sources.append(("the routed 'groups'", routed))
        if self.group_column is not None:
            column = query_id_column(X, self.group_column, repr(self))
            sources.append((f"column {self.group_column!r} of X", column))
        if self.group is not None:
            sources.append(("the ids bound with group=", self.group))
        if not sources:
            raise ValueError(
                f"{self!r} received no query ids, and it never scores all rows as one "
                "query. " + _HOW_TO_PASS_GROUPS.format(factory="make_ranking_scorer")
            )
        (first_name, first), *others = sources
        for name, ids in others:
            if not _same_ids(first, ids):
                raise ValueError(
                    f"{self!r} got query ids from {first_name} and from {name}, and they "
                    "differ; pass them one way."
                )
        return first


def _same_ids(a: Any, b: Any) -> bool:
    a = plain_array(a)
    b = plain_array(b)
    return a.shape == b.shape and bool(np.all(a == b))


def _metric_parameters(function: Callable) -> tuple[set[str], bool]:
    """Keyword names a metric function takes besides the data, and whether it has **kw."""
    parameters = inspect.signature(function).parameters
    names = {
        name
        for name, parameter in parameters.items()
        if parameter.kind in (parameter.KEYWORD_ONLY, parameter.POSITIONAL_OR_KEYWORD)
    } - {"y_true", "y_score", "group", "sample_weight"}
    takes_any = any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values())
    return names, takes_any


def _resolve_metric(
    metric: Any, params: dict[str, Any]
) -> tuple[Callable, dict[str, Any], str, dict[str, Any]]:
    """(metric function, its keyword arguments, display name, keywords shown beside it).

    A metric name is displayed in its canonical form with every parameter a name can
    hold (``"ndcg", k=5`` is ``'ndcg@5'``); the shared settings given as keywords
    (``convention``, ``ties``, ...) and the parameters no name holds stay keywords.
    """
    shown = dict(params)
    if isinstance(metric, str):
        spec = parse_metric(metric)
        function, name, named = spec.info.function, metric, dict(spec.params)
        twice = sorted(set(named) & set(params) - set(spec.info.fixed_params))
        if twice:
            raise ValueError(
                f"make_ranking_scorer got {twice} both in the metric name {metric!r} and as "
                "keyword arguments; give each parameter once."
            )
        fixed = sorted(set(spec.info.fixed_params) & set(params))
        if fixed:
            raise ValueError(
                f"The metric name {metric!r} fixes {fixed}; use another name to change it."
            )
        name, shown = _canonical_name(spec, named, params)
        params = {**named, **params}
    elif callable(metric):
        function, name = metric, getattr(metric, "__name__", type(metric).__name__)
    else:
        raise TypeError(
            "The 'metric' parameter of make_ranking_scorer must be a metric name such as "
            f"'ndcg@10' or a metric function; got {type(metric).__name__} instead."
        )
    accepted, takes_any = _metric_parameters(function)
    unknown = sorted(set(params) - accepted)
    if unknown and not takes_any:
        raise TypeError(
            f"make_ranking_scorer: {name} takes no parameter {unknown}; it takes "
            f"{', '.join(sorted(accepted))}."
        )
    _check_callable_as_a_metric(function, name, params)
    constraints = getattr(function, "_parameter_constraints", None)
    if constraints is None:  # a user's function: its parameters are its own
        constraints = {}
    else:  # one of ours: the settings its wrapper adds (convention) are checked too
        constraints = {**SHARED_SETTINGS, **constraints}
    for parameter, value in params.items():
        if parameter in constraints:
            check_parameter(function.__name__, parameter, value, constraints[parameter])
    return function, params, name, shown


def _canonical_name(
    spec: MetricSpec, named: dict[str, Any], params: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The canonical text of a metric name with the keywords it can hold folded in.

    A keyword goes into the name when it is no shared setting and the name's text
    reads it back (``k``, ``gain``, ``max_grade``, ...); the others are returned, to
    be shown as keywords.
    """
    in_name, shown = dict(named), {}
    for key, value in params.items():
        candidate = {**in_name, key: value}
        if key not in SHARED_SETTINGS and _reads_back(spec, candidate):
            in_name = candidate
        else:
            shown[key] = value
    return str(MetricSpec(spec.info, in_name)), shown


def _reads_back(spec: MetricSpec, params: dict[str, Any]) -> bool:
    """Whether the canonical text of ``spec`` with ``params`` parses to the same values."""
    try:
        again = parse_metric(str(MetricSpec(spec.info, params)))
    except (TypeError, ValueError):
        return False
    defaults = spec.info.defaults
    return again.info is spec.info and {**defaults, **again.params} == {**defaults, **params}


# how the scorer calls its metric (``RankingScorer.__call__``)
_METRIC_SIGNATURE = "metric(y_true, y_score, group, *, sample_weight=None, **params)"


def _check_callable_as_a_metric(function: Callable, name: str, params: dict[str, Any]) -> None:
    """Refuse, now, a function the scorer could not call as it calls every metric.

    The scorer passes the labels, the scores and the query ids positionally and
    ``sample_weight`` and the parameters by keyword; a function that cannot bind
    them (scikit-learn's ``r2_score(y_true, y_pred, *, ...)``, or one without
    ``sample_weight``) would only fail at the first score, inside a search.
    """
    signature = inspect.signature(function)
    try:
        signature.bind(None, None, None, sample_weight=None, **params)
    except TypeError as error:
        raise TypeError(
            "The 'metric' parameter of make_ranking_scorer must be a metric name such as "
            f"'ndcg@10' or a function the scorer can call as {_METRIC_SIGNATURE}, like "
            f"ndcg_score; {name}{signature} cannot be called so ({error}). A metric of "
            "scikit-learn's form (y_true, y_pred) takes no query ids: make its scorer with "
            "sklearn.metrics.make_scorer, which scores all rows as one set."
        ) from None


def _declared_direction(function: Callable) -> bool | None:
    """The registry's greater_is_better of one of our metric functions (None: a user's)."""
    for info in METRICS.values():
        if info.function is function:
            return info.greater_is_better
    return None


def _direction(metric: Any, function: Callable, given: bool | None) -> bool:
    """greater_is_better: the metric's declared direction, which ``given`` must match."""
    declared = _declared_direction(function)
    if declared is None:  # a custom metric function: the user says
        return True if given is None else given
    if given is not None and given is not declared:
        shown = repr(metric) if isinstance(metric, str) else function.__name__
        direction = "greater-is-better" if declared else "lower-is-better"
        raise ValueError(
            f"{shown} is {direction} (its declared direction), so greater_is_better="
            f"{given} contradicts it; write make_ranking_scorer({shown}) or "
            f"make_ranking_scorer({shown}, greater_is_better={declared})."
        )
    return declared


@entry_point
def make_ranking_scorer(
    metric: str | Callable,
    *,
    group_column: Any = None,
    response_method: str = "auto",
    greater_is_better: bool | None = None,
    group: Any = None,
    allow_split_queries: bool = False,
    **params: Any,
) -> RankingScorer:
    """Make a scikit-learn scorer from a ranking metric over query groups.

    The scorer computes ``metric(y, scores, group, **params)`` on the rows it is
    given: inside ``GridSearchCV(..., cv=GroupKFold())`` that is the mean of the
    metric over the queries of the test fold (each query whole, since the folds keep
    queries together).

    Parameters
    ----------
    metric : str or callable
        A registered name as in :func:`evaluate` (``"ndcg@10"``, ``"map"``,
        ``"ndcg(gain=exponential)@10"``, ...) or a metric function called as
        ``metric(y_true, y_score, group, *, sample_weight=None, **params)``, e.g.
        :func:`ndcg_score`. A function that cannot be called so (scikit-learn's
        ``r2_score(y_true, y_pred, ...)``, or one without ``sample_weight``) is a
        ``TypeError`` here, naming its signature.
    group_column : str or None, default=None
        Name of a column of a DataFrame ``X`` (pandas, polars, a pyarrow Table, or
        any eager frame narwhals reads) that holds the query id of every row:
        the way to pass query ids without metadata routing. The scorer does not drop
        the column; the estimator must ignore it, e.g. with a
        ``ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough")``
        in front of the model (or :class:`GroupedRanker` with the same
        ``group_column``).
    response_method : {"auto", "predict", "predict_proba", "decision_function"}, \
default="auto"
        Where the ranking score of a row comes from. ``"auto"``: ``predict`` for
        regressors, rankers and every non-classifier; for classifiers
        ``predict_proba`` when available, else ``decision_function``.
        ``"predict_proba"`` gives the probability of ``classes_[1]`` for two
        classes and the expected grade ``sum_c P(c) c`` for more classes (graded
        labels as classes; they must be numeric).
    greater_is_better : bool or None, default=None
        Whether greater values of the metric are better. ``None``: the metric's
        declared direction for a metric of this package (lower-is-better for
        ``"fallout@k"`` / :func:`fallout_at_k_loss`, greater-is-better for every
        other), greater-is-better for a custom metric function. A lower-is-better
        metric's scorer returns the negated value (scikit-learn maximises scores,
        as with ``make_scorer(..., greater_is_better=False)``), so
        ``cv_results_`` holds e.g. minus the fall-out. A value that contradicts a
        metric of this package's declared direction is a ``ValueError``.
    group : array-like or None, default=None
        Query ids bound to the scorer for one fixed ``X`` (e.g.
        ``permutation_importance`` on a held-out set, where nothing is routed and a
        query-id column would itself be permuted). The scorer raises if the number
        of rows differs.
    allow_split_queries : bool, default=False
        Score queries whose other rows the model was trained on, on purpose: the
        recommender protocol that holds out each user's last interactions (every
        user, a query, on both sides of the split, ``PredefinedSplit`` or a
        time-based split). By default such folds are refused where the scorer can
        know them (see Notes).
    **params
        Parameters of the metric (``k``, ``gain``, ``ties``,
        ``replace_undefined_by``, ``convention``, ...), checked now: a bad value is
        a ``ValueError`` or ``TypeError`` here, not at the first score.

    Returns
    -------
    scorer : RankingScorer
        Called as ``scorer(estimator, X, y, sample_weight=None, group=None)``.
        Under metadata routing (``sklearn.set_config(enable_metadata_routing=True)``)
        it requests ``groups`` for ``group`` by default, so ``search.fit(X, y,
        groups=qid)`` feeds the same ids to ``GroupKFold`` and, sliced to the test
        fold, to the scorer. ``sample_weight`` (one weight per row, constant within
        a query: query weights) is requested with
        ``scorer.set_score_request(sample_weight=True)``. Scorers pickle. The repr
        is the call that makes the scorer, with the metric's canonical name holding
        its parameters and the settings given as keywords:
        ``make_ranking_scorer("ndcg", k=5, ties="input")`` shows as
        ``make_ranking_scorer('ndcg@5', ties='input')``.

    Notes
    -----
    **Folds must keep queries whole.** A query some of whose rows are in the
    training part of a split and others in the scored part is scored on part of
    its rows, by a model that saw the rest: a plausible, wrong number. ``KFold``,
    ``cv=3`` and ``ShuffleSplit`` split queries; ``GroupKFold``,
    ``GroupShuffleSplit``, ``LeaveOneGroupOut`` and ``StratifiedGroupKFold`` with the
    query ids as ``groups`` do not. The scorer refuses split queries where it can
    know them: inside scikit-learn's cross-validation (where the fold and the
    training rows come from one dataset, so one id is one query), when the
    estimator is a :class:`GroupedRanker` (alone, last in a pipeline, or a
    search's best estimator), which keeps the queries it was fitted on. A fold
    that scores rows under a training query's id, other than that query's training
    rows (by their number and labels), stops the cross-validation with an error
    naming ``GroupKFold`` (a ``ScorerSetupError``, see below). The train score
    (``return_train_score=True``) scores each query's training rows: no split.
    Outside cross-validation (``search.score``, a direct call) new data may reuse
    ids for other queries, and nothing is checked; any other estimator keeps no
    training queries. There the rule is yours to keep.

    Query ids are taken from every source given (routed ``groups``,
    ``group_column``, bound ``group``); several sources must agree. With none, the
    scorer raises a ``ValueError`` explaining the three ways: it never scores all
    rows as one query. Inside scikit-learn's cross-validation (a search,
    ``cross_validate``, ``cross_val_score``, ``validation_curve``, ...) an error
    in getting the query ids is the same in every fold of every candidate, and
    ``error_score`` (NaN by default) would record it as NaN scores: the scorer
    raises it there as a ``ScorerSetupError`` (same message), which derives from
    ``BaseException``, so the first score stops the search whatever
    ``error_score`` says.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from sklearn_rank_metrics import make_ranking_scorer, ndcg_score
    >>> X = np.array([[0.0], [1.0], [2.0], [0.0], [1.0], [2.0]])
    >>> y = np.array([0, 1, 2, 2, 1, 0])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])  # higher X, higher grade
    >>> scorer = make_ranking_scorer("ndcg@2", group=qid)
    >>> scorer(model, X, y) == ndcg_score(y, model.predict(X), qid, k=2)
    True
    """
    # named outright: make_ranking_scorers (the outer door) reports this one as ours
    check_parameter(
        "make_ranking_scorer", "response_method", response_method, _RESPONSE_CONSTRAINT
    )
    check_parameter("make_ranking_scorer", "greater_is_better", greater_is_better,
                    [BOOLEAN, NONE])
    if greater_is_better is not None:  # NumPy's bool as Python's (``is`` compares below)
        greater_is_better = bool(greater_is_better)
    check_parameter("make_ranking_scorer", "allow_split_queries", allow_split_queries, [BOOLEAN])
    function, metric_params, name, shown = _resolve_metric(metric, dict(params))
    greater_is_better = _direction(metric, function, greater_is_better)
    return RankingScorer(
        function,
        metric_params,
        name=name,
        group_column=group_column,
        group=group,
        response_method=response_method,
        sign=1 if greater_is_better else -1,
        shown_params=shown,
        by_name=isinstance(metric, str),
        allow_split_queries=bool(allow_split_queries),
    )


@entry_point
def make_ranking_scorers(
    metrics: Sequence[str],
    *,
    group_column: Any = None,
    response_method: str = "auto",
    group: Any = None,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    allow_split_queries: bool = False,
) -> dict[str, RankingScorer]:
    """A dict ``{name: scorer}`` for several metric names, for multi-metric ``scoring=``.

    Parameters
    ----------
    metrics : sequence of str
        Registered names as in :func:`evaluate`, e.g. ``["ndcg@10", "map", "mrr@10"]``.
        They become the keys, so ``refit="ndcg@10"`` picks one and
        ``cv_results_["mean_test_ndcg@10"]`` holds its scores.
    group_column, response_method, group
        As in :func:`make_ranking_scorer`, for every scorer.
    convention, ties, replace_undefined_by, relevance_level : default=None
        Applied to every metric that has the parameter and does not set it in its
        name; ``None`` keeps each metric's default (as in :func:`evaluate`).
    allow_split_queries : bool, default=False
        As in :func:`make_ranking_scorer`, for every scorer.

    Returns
    -------
    scorers : dict of str to RankingScorer
        Each scorer in its metric's declared direction: a lower-is-better metric's
        (``"fallout@10"``) returns the negated value, so ``cv_results_`` holds minus
        the fall-out and ``refit`` on it picks the lowest.

    Examples
    --------
    >>> from sklearn_rank_metrics import make_ranking_scorers
    >>> sorted(make_ranking_scorers(["ndcg@10", "map"], group_column="qid"))
    ['map', 'ndcg@10']
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names or len(set(names)) != len(names):
        raise ValueError(
            "The 'metrics' parameter of make_ranking_scorers must name at least one "
            f"metric, each once; got {names!r}."
        )
    shared = Settings.from_arguments(
        convention=convention,
        ties=ties,
        replace_undefined_by=replace_undefined_by,
        relevance_level=relevance_level,
    )
    scorers = {}
    for name in names:
        spec = parse_metric(name)
        accepted, _ = _metric_parameters(spec.info.function)
        scorers[name] = make_ranking_scorer(
            name,
            group_column=group_column,
            response_method=response_method,
            group=group,
            allow_split_queries=allow_split_queries,
            **shared.given(accepted, named=spec.params),
        )
    # scikit-learn calls each scorer on its own, with the same y and predictions:
    # they sort once between them (the next one reuses the sort of equal inputs)
    shared_sort = SharedSort(len(scorers))
    for user, scorer in enumerate(scorers.values()):
        scorer._shared_sort, scorer._shared_sort_user = shared_sort, user
    return scorers
