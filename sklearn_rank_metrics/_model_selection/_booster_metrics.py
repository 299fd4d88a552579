"""Any metric of the registry as LightGBM's and XGBoost's evaluation metric.

A ranker is selected on one number and early-stopped on another when the booster
can only compute its own NDCG/MAP. :func:`make_lightgbm_metric` and
:func:`make_xgboost_metric` turn a metric name into the callable each library calls
on its validation data, reading the query layout from the library's dataset
(LightGBM's group sizes, XGBoost's ``group_ptr``), so training stops on the number
the model is reported with.

Both report a greater-is-better metric as ``prefer_max(<name>)`` (e.g.
``prefer_max(err@10)``) and a lower-is-better one (the registry's
``greater_is_better=False``: fall-out) as ``minimize(<name>)`` (e.g.
``minimize(fallout@10)``), where ``<name>`` is the metric as written followed by every
setting given (``prefer_max(ndcg@10,convention=lightgbm)``), for three reasons. No
built-in metric of either booster has those forms, so ours never shares a history
with a built-in one (LightGBM appends two metrics of one name to one list,
interleaved). Two of ours that may differ in value never share a name either; the
same name twice in one LightGBM evaluation is refused (XGBoost takes one custom metric
per training). And XGBoost's early stopping, when
``maximize`` is left None, takes the direction from the name: it maximises the
metrics whose name starts with one of its own maximised names (``auc``, ``aucpr``,
``map``, ``ndcg``, ``pre``, each also with ``@``; ``xgboost.callback.EarlyStopping``)
and minimises every other. The ``pre`` of ``prefer_max`` makes it keep the iteration
of the highest value in every form (``XGBRanker(early_stopping_rounds=)``,
``EarlyStopping(rounds=)``, ``xgboost.train(early_stopping_rounds=)``), and
``maximize=True`` agrees with it. ``minimize`` starts with none of those prefixes (a
``prefer_min`` would start with ``pre`` and be maximised), so a lower-is-better
metric keeps the iteration of its lowest value; ``maximize=True`` would keep the
highest (XGBoost's own choice, which the metric cannot see: never pass it for
``minimize(...)``). LightGBM takes the direction from the callable's third return
value: the metric's ``greater_is_better``.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from types import FrameType
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._engine._caller import called_as, caller_name, entry_point
from .._engine._validation import check_parameter
from .._engine._warnings import warn_at_caller
from .._kernels._graded import DEFAULT_MAX_GRADE
from .._metrics._aggregate import weighted_mean
from .._metrics._base import SHARED_SETTINGS
from .._metrics._evaluate import CallPlan, plan_metrics
from .._metrics._evaluate import _details as details_of_rankings  # the kernels, the means
from .._metrics._evaluate import _ranked as ranked_rows_of_plan  # read and sort the rows
from .._metrics._reading import rows_at_door
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings
from ._label_side import LabelSideCache, plant, seeds_of

# The reported names of our metrics: no LightGBM or XGBoost built-in metric is named
# so, and XGBoost's early stopping with maximize None maximises a name starting "pre"
# and minimises one starting "min" (see the module docstring).
REPORTED_NAME = "prefer_max({})"
REPORTED_NAME_LOWER = "minimize({})"  # a lower-is-better metric (fall-out)


class _BoosterMetric:
    """A registry metric with shared settings, computed from a booster's layout."""

    def __init__(self, metric: str, settings: dict[str, Any], name: str | None, owner: str):
        if not isinstance(metric, str):
            raise TypeError(
                f"The 'metric' parameter of {owner} must be a metric name such as 'ndcg@10'; "
                f"got {type(metric).__name__}."
            )
        # checked now, parsed again at each call: the object stays plain (picklable,
        # as LightGBM's scikit-learn wrapper deep-copies its parameters)
        spec = parse_metric(metric)
        if spec.reads_judgments:
            raise ValueError(
                f"The 'metric' parameter of {owner} names {metric!r}, which reads which "
                "rows were judged; a booster's dataset has no judgments to give it. "
                "Compute it after training from the reader's RankingData, "
                "evaluate(data, metrics=[...])."
            )
        computed = metric
        if "max_grade" in spec.info.defaults and spec.params.get("max_grade") is None:
            # XGBoost's scikit-learn wrapper calls the metric one query at a time, whose
            # labels cannot show the grade scale: decide it once, here, and say so
            computed = str(replace(spec, params={**spec.params, "max_grade": DEFAULT_MAX_GRADE}))
            warn_at_caller(
                f"{owner}({metric!r}): ERR's grade scale (max_grade) was not given, so the "
                f"0-{DEFAULT_MAX_GRADE} scale applies (a label 1 stops the user with "
                f"probability 1/{2**DEFAULT_MAX_GRADE}). Write "
                f"{str(replace(spec, params={**spec.params, 'max_grade': 1}))!r} for binary "
                f"labels, or {computed!r} to confirm the 0-{DEFAULT_MAX_GRADE} scale.",
                UndefinedMetricWarning,
            )
        unknown = sorted(set(settings) - set(SHARED_SETTINGS))
        if unknown:
            raise TypeError(
                f"{owner} got unexpected keyword(s) {unknown}; it takes "
                f"{sorted(SHARED_SETTINGS)} (metric parameters go in the name, e.g. "
                "'ndcg(gain=exponential)@10')."
            )
        for key, value in settings.items():  # in the order given
            check_parameter(owner, key, value, SHARED_SETTINGS[key])
        # a dict, as the attribute has always been; evaluate_details reads either
        self.settings = Settings.from_arguments(**settings).as_dict()
        _check_name(name, owner)
        self.metric = computed
        # the direction the registry declares (LightGBM reads it; XGBoost, the name)
        self.higher_is_better = spec.info.greater_is_better
        reported = REPORTED_NAME if self.higher_is_better else REPORTED_NAME_LOWER
        inside = _reported_inside(metric, self.settings) if name is None else name
        self.name = reported.format(inside)
        self.owner = owner
        # per dataset, its label side (see value); the plan, made at the first call
        self._label_sides = LabelSideCache()
        self._call_plan: CallPlan | None = None

    def value(
        self,
        y_true: Any,
        y_score: Any,
        sizes: Any,
        weight: Any,
        weight_per: str = "row",
        source: Any = None,
    ) -> float:
        """The metric of scores whose queries are consecutive runs of ``sizes`` rows.

        ``weight`` holds one weight per row (``weight_per="row"``, LightGBM's form:
        a query weighs the mean of its rows' weights, as LightGBM weighs it) or one
        per query (``"query"``, XGBoost's form); None or empty means unweighted.
        Another length is refused: no weight is guessed for a row or a query.

        ``source`` is the dataset the labels come from (LightGBM's ``Dataset``,
        XGBoost's ``DMatrix``, or the label array itself): its label side (checked
        labels, query layout, weights, the ideal DCG's label counts) is kept and
        reused at the next call whose labels, sizes and weights are equal to these,
        element by element (:mod:`._label_side`). None: nothing is kept.
        """
        raw_sizes, raw_labels, raw_weight = sizes, y_true, weight
        sizes = np.asarray(sizes, dtype=np.int64)
        y_true = np.asarray(y_true)
        if y_true.dtype.kind not in "biuf":  # else converted only if not kept (below)
            y_true = np.asarray(y_true, dtype=np.float64)
        y_score = np.asarray(y_score, dtype=np.float64).reshape(-1)
        if sizes.sum() != len(y_true) or len(y_score) != len(y_true):
            raise ValueError(
                f"{self.owner}: the dataset's queries hold {int(sizes.sum())} rows, its labels "
                f"{len(y_true)} and the predictions {len(y_score)}; a ranking metric needs "
                "one score per row of queries given to the booster (group= / qid=)."
            )
        cache = self._label_sides
        entry = None if source is None else cache.find(source, raw_labels, raw_sizes, raw_weight)
        with called_as(self.owner):  # the booster calls us: errors name the factory
            plan = self._plan()
            if entry is None:
                group = np.repeat(np.arange(len(sizes)), sizes)
                rows = rows_at_door(
                    # a copy: the rows kept outlive the call, the caller's array may change
                    np.array(y_true, dtype=np.float64, copy=True),
                    y_score,
                    group,
                    sample_weight=self._row_weights(weight, weight_per, sizes, group),
                    convention=plan.convention,
                )
                rankings = ranked_rows_of_plan(rows, plan)
            else:
                rows, seeds = entry.state
                rankings = ranked_rows_of_plan(rows.with_scores(y_score), plan)
                for name, metric_plan in rankings.items():
                    if name in seeds:
                        plant(metric_plan.ranked, seeds[name])
            details = details_of_rankings(rankings, means=False)
            if entry is None and source is not None:
                seeds = {name: seeds_of(ranked.ranked) for name, ranked in rankings.items()}
                # kept without this round's scores (each round gives its own)
                kept = replace(rows, scores=np.empty(0), float_scores=None)
                cache.store(source, raw_labels, raw_sizes, raw_weight, (kept, seeds))
            detail = details.metrics[self.metric]
            # the mean without the "every query undefined" warning: XGBoost's
            # scikit-learn wrapper passes one query at a time, where one without a
            # relevant row is no sign of a wrong setting
            return weighted_mean(detail.values, detail.weights, detail.skipped, total=detail.total)

    def _plan(self) -> CallPlan:
        """The checked metric and settings (made at the first call, then kept)."""
        if self._call_plan is None:
            self._call_plan = plan_metrics([self.metric], self.settings)
        return self._call_plan

    def __getstate__(self) -> dict[str, Any]:
        # a copy (pickle, LightGBM's deepcopy of its parameters) starts without the
        # label sides (weak references to datasets do not pickle) and the plan
        state = dict(self.__dict__)
        del state["_label_sides"], state["_call_plan"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._label_sides = LabelSideCache()
        self._call_plan = None

    def _row_weights(
        self, weight: Any, weight_per: str, sizes: np.ndarray, group: np.ndarray
    ) -> np.ndarray | None:
        """Each row's query weight, from the booster's row or query weights."""
        if weight is None:
            return None
        weight = np.asarray(weight, dtype=np.float64).reshape(-1)
        if not len(weight):
            return None
        expected = len(group) if weight_per == "row" else len(sizes)
        if len(weight) != expected:
            unit = "row" if weight_per == "row" else "query"
            raise ValueError(
                f"{self.owner}: the weights hold {len(weight)} values but the dataset has "
                f"{len(group)} rows in {len(sizes)} queries; give one weight per {unit} "
                f"({expected} values)."
            )
        if weight_per == "query":
            return weight[group]
        # the mean of each query's row weights (an empty query has no row to weigh)
        sums = np.bincount(group, weights=weight, minlength=len(sizes))
        means = np.divide(sums, sizes, out=np.zeros_like(sums), where=sizes > 0)
        return means[group]

    def __repr__(self) -> str:
        shown = Settings.coerce(self.settings).given()
        extra = "".join(f", {key}={value!r}" for key, value in shown.items())
        return f"{type(self).__name__}({self.metric!r}{extra})"


def _reported_inside(metric: str, settings: dict[str, Any]) -> str:
    """What the booster reports inside ``prefer_max(...)``: all that changes the value.

    The metric as written, without spaces (which XGBoost's log cannot hold), then
    every setting given, in the order of the keywords:
    ``ndcg@10,convention=lightgbm,ties=input``. Two metrics that may differ in value
    never share it, so they never share a history.
    """
    given = Settings.coerce(settings).given()
    return "".join(metric.split()) + "".join(f",{key}={value}" for key, value in given.items())


class LightGBMMetric(_BoosterMetric):
    """LightGBM's evaluation callable for one metric (see :func:`make_lightgbm_metric`)."""

    def __call__(self, first: Any, second: Any, weight: Any = None, group: Any = None) -> Any:
        _refuse_a_name_reported_before(self.name, self.owner)
        # lgb.train's feval(preds, eval_data), or the scikit-learn wrapper's
        # eval_metric(y_true, y_pred, weight, group): four parameters, so LightGBM
        # passes the weights and the group sizes
        if hasattr(second, "get_label") and hasattr(second, "get_group"):
            y_true, y_score = second.get_label(), first
            sizes, weight = second.get_group(), second.get_weight()
            source = second  # the Dataset: its label side is kept (see value)
        else:
            # the wrapper passes the Dataset's own label array at every round
            y_true, y_score, sizes, source = first, second, group, first
        if sizes is None:
            raise ValueError(
                f"{self.owner}: the LightGBM dataset has no query groups; give group= "
                "(or eval_group=) to LightGBM, or fit through GroupedRanker."
            )
        value = self.value(y_true, y_score, sizes, weight, source=source)
        return self.name, value, self.higher_is_better


class XGBoostMetric(_BoosterMetric):
    """XGBoost's ``custom_metric`` callable for one metric (see :func:`make_xgboost_metric`)."""

    @property
    def __name__(self) -> str:  # XGBoost's scikit-learn wrapper names a metric so
        return self.name

    def __call__(self, first: Any, dmatrix: Any) -> Any:
        if not hasattr(dmatrix, "get_uint_info"):
            # XGBRanker's scikit-learn wrapper calls eval_metric(y_true, y_score) once
            # per query (and averages, scoring a one-row query 1 itself)
            y_true = np.asarray(first, dtype=np.float64).reshape(-1)
            return self.value(y_true, dmatrix, [len(y_true)], None)
        predt = first
        pointers = np.asarray(dmatrix.get_uint_info("group_ptr"), dtype=np.int64)
        if len(pointers) < 2:
            raise ValueError(
                f"{self.owner}: the DMatrix has no query groups; build it with qid= (or "
                "group=)."
            )
        sizes = np.diff(pointers)
        # XGBoost holds one weight per query group when the DMatrix has groups
        weight = dmatrix.get_weight()
        value = self.value(dmatrix.get_label(), predt, sizes, weight, "query", source=dmatrix)
        return self.name, value


# LightGBM evaluates a dataset in ``Booster.__inner_eval``: it calls each metric of
# ``feval`` (the scikit-learn wrapper's ``_EvalFunctionWrapper`` in between) and
# appends what each reports to its list ``ret``, before any history is written
_LIGHTGBM_EVALUATION = "__inner_eval"
_FRAMES_TO_LIGHTGBM = 4


def _refuse_a_name_reported_before(name: str, owner: str) -> None:
    """A ValueError if LightGBM's current evaluation already holds a metric named ``name``.

    LightGBM keeps one history per (dataset, name): a second metric of one name
    interleaves its values with the first's and its early stopping fails on the
    list (``zip() argument 2 is shorter than argument 1``). LightGBM never checks
    this; ``lgb.train``'s ``feval``, ``LGBMRanker.fit``'s ``eval_metric`` and
    ``lgb.cv`` all evaluate through one method, whose list of the dataset's results
    so far this call reads, so the first evaluation (the first round) refuses it,
    before anything is recorded. Nothing outlives the call. Another caller (the
    metric called by hand, or a LightGBM that evaluates elsewhere) is not checked.
    """
    frame: FrameType | None = sys._getframe(2)  # the caller of the metric's __call__
    for _ in range(_FRAMES_TO_LIGHTGBM):
        if frame is None:
            return
        if frame.f_code.co_name == _LIGHTGBM_EVALUATION and str(
            frame.f_globals.get("__name__", "")
        ).startswith("lightgbm"):
            break
        frame = frame.f_back
    else:
        return
    local = frame.f_locals
    reported = [result[1] for result in local.get("ret", ()) if len(result) > 1]
    if name in reported:
        raise ValueError(
            f"{owner}: LightGBM got two metrics reported as {name!r} on dataset "
            f"{local.get('data_name')!r}; it keeps one history per name, so their values "
            "would interleave in one list (and early stopping fails on it). Give each "
            "metric once; to watch one metric with two settings, give each its settings "
            "(the name shows them) or its own name=."
        )


def _check_name(name: Any, owner: str) -> None:
    """A reported name XGBoost's and LightGBM's evaluation logs can hold, or an error."""
    if name is None:
        return
    if not isinstance(name, str):
        raise TypeError(
            f"The 'name' parameter of {owner} must be a str or None; got "
            f"{type(name).__name__}."
        )
    # XGBoost splits its evaluation log on whitespace and ':'; a control character
    # (a NUL ends a C string) or another non-printing one garbles the log
    bad = [char for char in name if char == ":" or char == " " or not char.isprintable()]
    if not name or bad:
        found = "it is empty" if not name else f"it holds {bad[0]!r}"
        raise ValueError(
            f"The 'name' parameter of {owner} must be a non-empty str of printing "
            "characters without spaces or ':' (XGBoost splits its evaluation log on "
            f"them); got {name!r}: {found}."
        )


@entry_point
def make_lightgbm_metric(
    metric: str, *, name: str | None = None, **settings: Any
) -> LightGBMMetric:
    """Make LightGBM's evaluation metric from a metric name of this package.

    Parameters
    ----------
    metric : str
        A metric name as in :func:`evaluate` (``"ndcg@10"``, ``"err@20"``,
        ``"mrr@10"``, ``"recall@100"``, ``"gauc"``, ``"map(denominator=min(k,n_relevant))@10"``,
        or another tool's name such as ``"P_10"``).
    name : str or None, default=None
        What LightGBM reports, inside ``prefer_max(...)`` (``minimize(...)`` for a
        lower-is-better metric): printing characters, no spaces or ``':'``. Default:
        ``metric`` without spaces, then every setting given, in the order of the
        keywords (``ndcg@10,convention=lightgbm``), so that two metrics that may differ
        in value never share a name.
    **settings
        ``convention``, ``ties``, ``replace_undefined_by``, ``relevance_level``, as in
        :func:`evaluate`; ``convention="lightgbm"`` gives LightGBM's own numbers
        (gain ``2^y - 1``, ties in row order, an empty query scores 1).

    Returns
    -------
    metric : LightGBMMetric
        A callable for ``lgb.train(..., feval=metric)`` (``metric(preds, eval_data)``)
        and for the scikit-learn wrapper's ``fit(..., eval_metric=metric)``
        (``metric(y_true, y_pred, weight, group)``); it returns ``(name, value,
        is_higher_better)``, which early stopping reads: True, but False for a
        lower-is-better metric (``"fallout@k"``), so early stopping keeps the
        iteration of its lowest value. Row weights (one
        per row, as LightGBM holds them; another length is a ``ValueError``) are
        averaged per query, as LightGBM weighs its queries.

    Notes
    -----
    The metric is reported as ``prefer_max(<name>)`` (``minimize(<name>)`` for a
    lower-is-better metric): the key of its history in
    ``evals_result_`` / ``record_evaluation`` and of ``best_score_``, e.g.
    ``evals_result_["valid_0"]["prefer_max(err@10)"]``. No LightGBM metric has that
    name, so ``make_lightgbm_metric("ndcg@10")`` beside LightGBM's own
    ``metric="ndcg", eval_at=[10]`` keeps two histories (``"ndcg@10"`` and
    ``"prefer_max(ndcg@10)"``) instead of interleaving both in one list; with
    ``convention="lightgbm"`` beside it, a third
    (``"prefer_max(ndcg@10,convention=lightgbm)"``). LightGBM keeps one history per
    name and never checks that two metrics differ in it, so two metrics of one
    reported name in one training (``feval=[m, m]``, or one ``name=`` given to two) are
    refused with a ``ValueError`` at the first evaluation, before anything is
    recorded (checked when LightGBM's ``lgb.train``, ``lgb.cv`` or its scikit-learn
    wrapper calls the metric).

    The metric keeps each dataset's label side (the checked labels, the query
    layout and weights, the label counts of the ideal DCG, the relevant rows per
    query) from its first evaluation, so a boosting round checks and sorts only the
    new scores. Every call compares the dataset's labels, group sizes and weights
    with the kept ones, element by element: a dataset changed since
    (``Dataset.set_label``, an array changed in place) is computed anew. An entry
    lives while its dataset does, at most 16 per metric; a copy of the metric
    (pickle, deep copy) starts without them.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank_metrics import make_lightgbm_metric
    >>> metric = make_lightgbm_metric("mrr@10")
    >>> metric(np.array([0, 1, 1, 0]), np.array([0.9, 0.8, 0.7, 0.1]), None, np.array([2, 2]))
    ('prefer_max(mrr@10)', 0.75, True)
    """
    return LightGBMMetric(metric, settings, name, caller_name())


@entry_point
def make_xgboost_metric(
    metric: str, *, name: str | None = None, **settings: Any
) -> XGBoostMetric:
    """Make XGBoost's ``custom_metric`` from a metric name of this package.

    Parameters
    ----------
    metric : str
        A metric name as in :func:`evaluate`.
    name : str or None, default=None
        What XGBoost reports, inside ``prefer_max(...)`` (``minimize(...)`` for a
        lower-is-better metric): printing characters, no spaces or ``':'`` (XGBoost
        splits its log on them). Default: ``metric`` without spaces, then every
        setting given, in the order of the keywords (``ndcg@10,convention=xgboost``).
    **settings
        ``convention``, ``ties``, ``replace_undefined_by``, ``relevance_level``, as in
        :func:`evaluate`; ``convention="xgboost"`` gives XGBoost's own numbers.

    Returns
    -------
    metric : XGBoostMetric
        A callable for ``xgboost.train(..., custom_metric=metric)``, called as
        ``metric(predt, dmatrix)``: it reads the queries from the DMatrix
        (``group_ptr``) and its weights (one per query group, as XGBoost holds
        them) and returns ``(name, value)``. Also
        ``XGBRanker(eval_metric=metric)``: its scikit-learn wrapper calls
        ``metric(y_true, y_score)`` once per query (a Python call per query: slower
        than ``xgboost.train`` on many queries) and averages the values weighted by
        each query's number of rows (XGBoost 3.2 passes the group sizes as weights),
        giving a one-row query 1 by itself. So ``XGBRanker``'s history,
        ``best_score`` and early stopping read that query-size-weighted mean, not the
        mean over queries of :func:`evaluate` and the metric functions, which the
        metric cannot restore (each call sees one query): ``xgboost.train`` gives the
        mean over queries.

    Notes
    -----
    The metric is reported as ``prefer_max(<name>)``, e.g.
    ``evals_result()["validation_0"]["prefer_max(err@10)"]``, and a lower-is-better
    metric (``"fallout@k"``) as ``minimize(<name>)``; ``best_score`` is its value at
    ``best_iteration``. The name does two things:

    - **Early stopping keeps the best value.** XGBoost's ``EarlyStopping`` with
      ``maximize=None`` (what ``XGBRanker(early_stopping_rounds=n)``,
      ``xgboost.train(..., early_stopping_rounds=n)`` and
      ``EarlyStopping(rounds=n)`` use) maximises a metric whose name starts with one
      of its own maximised names (``auc``, ``map``, ``ndcg``, ``pre``, ...) and
      minimises any other; ``prefer_max`` starts with ``pre``, so each of those forms
      keeps the first iteration of the highest value (a later one must be strictly
      greater; XGBoost records a custom metric to 6 decimals). ``maximize=True``
      gives the same iteration; never pass ``maximize=False``. ``minimize`` starts
      with none of the maximised names (``prefer_min`` would start with ``pre``),
      so a lower-is-better metric keeps the first iteration of its lowest value;
      never pass ``maximize=True`` for it (XGBoost's own choice, which the metric
      cannot see: it would keep the highest fall-out). A custom metric comes
      after XGBoost's built-in ones, so it is the one early stopping watches unless
      ``EarlyStopping(metric_name=...)`` names another.
    - **No shared history.** No XGBoost metric has that name, so our ``ndcg@10``
      beside XGBoost's own ``eval_metric="ndcg@10"`` keeps its own history. The name
      holds every setting given (``prefer_max(ndcg@10,convention=xgboost)``); XGBoost
      itself refuses a second custom metric in one training.

    As :func:`make_lightgbm_metric`, the metric keeps each ``DMatrix``'s label side
    from its first evaluation and compares the labels, groups and weights with it
    at every call (``xgboost.train``; ``XGBRanker``'s per-query calls keep
    nothing).

    Examples
    --------
    >>> from sklearn_rank_metrics import make_xgboost_metric
    >>> metric = make_xgboost_metric("err(max_grade=4)@10", convention="xgboost")
    >>> metric
    XGBoostMetric('err(max_grade=4)@10', convention='xgboost')
    >>> metric.__name__
    'prefer_max(err(max_grade=4)@10,convention=xgboost)'
    """
    return XGBoostMetric(metric, settings, name, caller_name())
