"""Several metrics from one sort: :func:`evaluate`."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from .._engine._caller import caller_name, entry_point, renamed_as
from .._engine._errors import RowValueError
from .._engine._frames import frame_of, output_library, returns_frames_like_inputs
from .._engine._ranked_groups import RankedGroups
from .._engine._ranking_rows import accepts_ranking_rows
from .._engine._rows import Rows
from .._engine._validation import BOOLEAN, Options, validate_params
from .._render._trec_eval import trec_eval_lines
from ._aggregate import PerQuery, apply_policy, undefined_queries, weighted_mean
from ._base import SHARED_SETTINGS, fill_doc
from ._conventions import (
    CONVENTIONS,
    Convention,
    Ordering,
    check_binary_gain_level,
    in_input_rows,
    preset_name,
    warn_tool_nan,
    warn_unordered_ties,
)
from ._reading import Ranked, read_for, rows_at_door
from ._registry import METRICS, MetricSpec, parse_metric
from ._settings import Settings

DEFAULT_METRICS = ("ndcg@10", "map", "mrr@10", "p@10", "recall@10")

# y_true, y_score, group, sample_weight, judged (the order of INPUT_NAMES)
Inputs: TypeAlias = tuple[Any, Any, Any, Any, Any]


def metric_settings(
    spec: MetricSpec, shared: Settings | Mapping[str, Any]
) -> tuple[dict[str, Any], Any, Ordering | None]:
    """Kernel parameters, the undefined-query policy and the input ordering of one metric.

    Precedence: the metric's name, then the shared settings given explicitly, then
    the convention's preset, then the metric function's defaults.
    """
    settings = Settings.coerce(shared)
    kernel_params = spec.kernel_params
    defaults = spec.info.defaults
    policy = spec.params.get("replace_undefined_by", defaults["replace_undefined_by"])
    convention = preset_name(settings.convention)
    chosen = {**spec.params, **settings.given(named={"convention", *spec.params})}
    if convention is not None:
        preset = CONVENTIONS[convention]
        metric_function = spec.info.function.__name__
        for name, value in preset.settings(metric_function, defaults).items():
            chosen.setdefault(name, value)
    for name, value in chosen.items():
        if name == "replace_undefined_by":
            policy = value
        elif name in kernel_params:
            kernel_params[name] = value
    check_binary_gain_level(spec.info.name, kernel_params, chosen)
    if convention is None:
        return kernel_params, policy, None
    ordering = CONVENTIONS[convention].ordering_of(spec.info.function.__name__, kernel_params)
    return kernel_params, policy, ordering



def _with_metric_names(function: Callable) -> Callable:
    """:func:`fill_doc`, ``[[metric_names]]`` being the registry's names, sorted and wrapped.

    A new metric joins evaluate's docstring by being declared (``@metric``).
    """
    # the marker opens after "        name among ``" (21 columns) in the docstring
    names = textwrap.fill(
        ", ".join(sorted(METRICS)), width=88, initial_indent=" " * 21, subsequent_indent=" " * 8
    )
    return fill_doc(function, {"metric_names": names.lstrip()})


@entry_point
@returns_frames_like_inputs()
@accepts_ranking_rows
@validate_params({**SHARED_SETTINGS, "per_query": [BOOLEAN, Options("trec_eval")]})
@_with_metric_names
def evaluate(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    convention: str | None = None,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    sample_weight: Any = None,
    judged: Any = None,
    doc_id: Any = None,
    per_query: bool | str = False,
) -> Any:
    """Compute several ranking metrics from one validation and one sort.

    Parameters
    ----------
    y_true, y_score, group
        As in every metric function: flat rows with their query ids (``group`` is
        required with 1-D input), 2-D input, or a :class:`RankingData` passed whole
        as ``y_true`` (its judged rows and document ids are used too).
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr@10", "p@10", "recall@10")
        Metric names: ``name``, ``name@k`` or ``name(param=value,...)@k`` with a
        name among ``[[metric_names]]`` (the counts are summed over queries, not
        averaged); the parameters are those of the metric's function, e.g.
        ``"ndcg(gain=exponential)@10"``, ``"map(denominator=min(k,n_relevant))@10"``,
        ``"p(denominator=min(k,n_retrieved))@5"``, ``"iprec(recall=0.5)"``. ``cg@k``
        is DCG without discount. trec_eval's, ir_measures' and ranx's names work too
        (``"P_10"``, ``"nDCG@10"``, ``"precision@10"``, ``"iprec_at_recall_0.50"``).
    [[convention]]
        With ``doc_id``, tied rows are ordered by document id as the tool orders them.
    ties, replace_undefined_by, relevance_level : default=None
        Applied to every metric that has the parameter, unless its name sets it;
        ``None`` keeps each metric's own default.
    sample_weight : array-like, default=None
        Query weights, as in every metric function.
    [[judged]]
        Read by ``bpref`` and ``judged@k``; every other metric takes an unjudged row
        as a non-relevant one (label 0), as trec_eval does.
    doc_id : array-like of shape (n_rows,), default=None
        Document id of every row (flat rows only). Used only by a ``convention``
        whose tool breaks ties by document id (trec_eval and ir_measures: byte order,
        descending; ir_measures' ``RR@k`` and ``"spark"``: ascending); without it,
        tied rows keep their input order.
    per_query : bool or "trec_eval", default=False
        Return the per-query values instead of the means; ``"trec_eval"``: as the
        text ``trec_eval -q`` prints, one line ``measure<TAB>query<TAB>value`` per
        query and metric (queries sorted, values with 4 decimals, skipped queries
        left out), then ``num_q`` (the number of queries) and one ``all`` line per
        metric with its mean.

    Returns
    -------
    scores : dict or DataFrame
        ``per_query=False``: a dict mapping each name, as given, to a float.
        ``per_query=True``: a table with a ``"query"`` column (the query ids,
        sorted) and one column per metric; queries skipped by
        ``replace_undefined_by="skip"`` are NaN. The table is of the inputs'
        frame library: a polars DataFrame for polars inputs, a pyarrow Table for
        pyarrow inputs (or a :class:`RankingData` read from such a frame), a
        pandas DataFrame otherwise (a dict of NumPy arrays without pandas).

    Examples
    --------
    >>> from sklearn_rank_metrics import evaluate
    >>> y_true = [2, 0, 1, 0, 1, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.7, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> evaluate(y_true, y_score, qid, metrics=["mrr", "p@1", "recall@2"])
    {'mrr': 1.0, 'p@1': 1.0, 'recall@2': 0.75}
    """
    settings = Settings.from_arguments(
        convention=convention,
        ties=ties,
        replace_undefined_by=replace_undefined_by,
        relevance_level=relevance_level,
    )
    inputs = (y_true, y_score, group, sample_weight, judged)
    rankings = _ranked_metrics(inputs, metrics, settings, doc_id=doc_id)
    if not per_query:
        # one metric at a time, its per-query arrays dropped once its mean is known
        return _each_metric(rankings, lambda plan: _metric_detail(plan, means=True).mean)
    if per_query == "trec_eval":
        details = _each_metric(rankings, lambda plan: _metric_detail(plan, means=True))
        return trec_eval_lines(rankings.query_ids, details)
    tables = _each_metric(rankings, lambda plan: _metric_detail(plan, means=True).values)
    return frame_of({"query": rankings.query_ids, **tables}, output_library())


# the intermediates every cutoff reads (the tie runs, the labels and relevance in rank
# order, per-query counts): kept for the whole call; the others are per cutoff
_SHARED_BY_EVERY_CUTOFF = frozenset({
    "arrangement", "tied_runs", "sorted_relevance", "n_relevant", "n_rows_per_query",
    "label_level_counts", "first_negative_label", "tie_first_rows",
})


def _each_metric(rankings: Rankings, compute: Callable[[MetricPlan], Any]) -> dict[str, Any]:
    """``compute`` of every metric, in the order given, computed cutoff by cutoff.

    The metrics without a cutoff come first (their per-query counts, such as the
    relevant rows, are kept and read by every cutoff), then those of each ``k`` in
    turn. Metrics of the same cutoff share their intermediates;
    once the last of them is done, what they cached for that cutoff alone is dropped,
    so the memory of one cutoff's intermediates is never held beside another's. Every
    intermediate is a function of the sorted rows, so the values do not depend on the
    order in which the metrics are computed.
    """
    by_cutoff: dict[Any, list[str]] = {None: []}
    for name, plan in rankings.items():
        by_cutoff.setdefault(plan.kernel_params.get("k"), []).append(name)
    results: dict[str, Any] = {}
    for names in by_cutoff.values():  # every row first: its counts serve every cutoff
        caches = {id(rankings[name].ranked): rankings[name].ranked for name in names}
        before = {key: set(ranked.cache_keys()) for key, ranked in caches.items()}
        for name in names:
            results[name] = compute(rankings[name])
        for key, ranked in caches.items():
            ranked.forget_cached(before[key], keep=_SHARED_BY_EVERY_CUTOFF)
    return {name: results[name] for name in rankings}


@dataclass(frozen=True)
class MetricDetail:
    """One metric over all queries, after the undefined-query policy.

    ``values`` holds NaN where a query was skipped (or where the policy is ``nan``),
    ``weights`` the query weights (``sample_weight`` times any metric weight),
    ``undefined`` the queries where the metric is undefined in at least one tie order,
    ``skipped`` those left out of the mean, ``mean`` the weighted mean, and
    ``weights_queries`` whether the metric itself weights queries unequally (e.g.
    micro-averaged hit rate), beyond ``sample_weight``; ``total`` whether ``mean``
    is the weighted sum over queries (the counts) rather than the mean.
    """

    values: np.ndarray
    weights: np.ndarray
    undefined: np.ndarray
    skipped: np.ndarray
    mean: float
    weights_queries: bool = False
    total: bool = False
    # the kernel's output before the policy (undefined shares, their description)
    kernel: PerQuery | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class EvaluationDetails:
    """The sorted query ids and one :class:`MetricDetail` per metric name."""

    query_ids: np.ndarray
    metrics: dict[str, MetricDetail]


def metric_names(metrics: str | Sequence[str]) -> list[str]:
    """The metric names as a non-empty list without duplicates (errors name the caller)."""
    return _metric_names(metrics)


def _metric_names(metrics: str | Sequence[str]) -> list[str]:
    if isinstance(metrics, str):
        names = [metrics]
    elif isinstance(metrics, (list, tuple)) or (
        hasattr(metrics, "__iter__") and not isinstance(metrics, (bytes, dict))
    ):
        names = list(metrics)
    else:
        raise TypeError(
            f"The 'metrics' parameter of {caller_name()} must be a metric name or a list "
            f"of metric names, e.g. ['ndcg@10', 'map']; got {type(metrics).__name__}."
        )
    wrong = [name for name in names if not isinstance(name, str)]
    if wrong:
        raise TypeError(
            f"The 'metrics' parameter of {caller_name()} must hold metric names (str); got "
            f"{wrong[0]!r} of type {type(wrong[0]).__name__}."
        )
    if not names:
        raise ValueError(
            f"The 'metrics' parameter of {caller_name()} must name at least one metric."
        )
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(
            f"The 'metrics' parameter of {caller_name()} names {duplicates} more than once."
        )
    return names


def evaluate_details(
    y_true: Any,
    y_score: Any,
    group: Any,
    *,
    metrics: str | Sequence[str],
    shared: Settings | Mapping[str, Any],
    sample_weight: Any,
    means: bool = True,
    doc_id: Any = None,
    judged: Any = None,
    whole_call: bool = True,
) -> EvaluationDetails:
    """Validate, sort once, and compute every metric's per-query values and mean.

    ``means=False`` leaves every ``mean`` NaN (and warns about nothing), for callers
    that combine the per-query values of several calls themselves; those pass
    ``whole_call=False`` when the rows are a part of what the user gave (a partition,
    a batch), whose look alone does not say the arguments were mixed up.
    The validation errors name the caller (see ``_caller``); the metrics' own errors
    name the caller, else the metric function.
    """
    inputs = (y_true, y_score, group, sample_weight, judged)
    rankings = _ranked_metrics(inputs, metrics, shared, doc_id, whole_call)
    return _details(rankings, means)


def _details(rankings: Rankings, means: bool) -> EvaluationDetails:
    results = {name: _metric_detail(plan, means) for name, plan in rankings.items()}
    return EvaluationDetails(rankings.query_ids, results)


@dataclass(frozen=True)
class CallPlan:
    """A call's metrics and settings, checked before any row: what reading the rows
    needs (:func:`plan_metrics`)."""

    names: list[str]
    specs: list[MetricSpec]
    settings: list[tuple[dict[str, Any], Any, Ordering | None]]
    convention: Convention | None

    @property
    def convention_name(self) -> str | None:
        return None if self.convention is None else self.convention.name


def plan_metrics(metrics: str | Sequence[str], shared: Settings | Mapping[str, Any]) -> CallPlan:
    """The checked settings and metric names of a call (errors name the caller)."""
    # every caller (evaluate, the report, compare, the displays, the command line)
    # passes its shared settings through the same checks as evaluate's own
    checked = Settings.coerce(shared).checked()
    names = _metric_names(metrics)
    specs = [parse_metric(name) for name in names]
    settings = [metric_settings(spec, checked) for spec in specs]
    convention_name = preset_name(checked.convention)
    convention = None if convention_name is None else CONVENTIONS[convention_name]
    return CallPlan(names, specs, settings, convention)


def details_of_rows(rows: Rows, plan: CallPlan, means: bool = True) -> EvaluationDetails:
    """:func:`evaluate_details` of rows already checked at the door (several models'
    scores on the same rows: :meth:`Rows.with_scores`)."""
    return _details(_ranked(rows, plan), means)


@dataclass(frozen=True)
class MetricPlan:
    """One metric ready to compute: its spec, settings and the rows ranked for it."""

    spec: MetricSpec
    kernel_params: dict[str, Any]
    policy: Any
    ranked: RankedGroups
    # the input row of each ranked row when a doc-id preset moved them, for errors
    input_rows: np.ndarray | None = None
    # False when the tool's tie order (by document id, by the run's order) could not
    # be followed for lack of ids
    tie_order_followed: bool = True


class Rankings(dict):
    """``{name: MetricPlan}`` in the order given, and the sorted query ids."""

    query_ids: np.ndarray


def _ranked_metrics(
    inputs: Inputs,
    metrics: str | Sequence[str],
    shared: Settings | Mapping[str, Any],
    doc_id: Any = None,
    whole_call: bool = True,
) -> Rankings:
    """The checked settings and metric names, and the rows checked and sorted once.

    ``inputs``: ``(y_true, y_score, group, sample_weight, judged)``.

    The rows are checked and their ids factorised once (:func:`._reading.rows_at_door`),
    then read and sorted once per reading: a convention whose tool computes some
    measures with other score precision or tie order (ir_measures) ranks once for
    each ordering it needs.
    """
    plan = plan_metrics(metrics, shared)
    y_true, y_score, group, sample_weight, judged = inputs
    rows = rows_at_door(
        y_true, y_score, group, sample_weight=sample_weight, judged=judged, doc_id=doc_id,
        convention=plan.convention, whole_call=whole_call,
    )
    return _ranked(rows, plan)


def _ranked(rows: Rows, plan: CallPlan) -> Rankings:
    """Every metric's plan: the rows read and ranked once per ordering."""
    by_ordering: dict[Ordering | None, Ranked] = {}
    rankings = Rankings()
    for name, spec, (kernel_params, policy, ordering) in zip(
        plan.names, plan.specs, plan.settings, strict=True
    ):
        if ordering not in by_ordering:
            by_ordering[ordering] = read_for(rows, plan.convention, ordering)
        ranked = by_ordering[ordering]
        rankings[name] = MetricPlan(
            spec, kernel_params, policy, ranked.ranked, ranked.input_rows,
            ranked.tie_order_followed,
        )
    rankings.query_ids = rows.queries.ids
    warn_unordered_ties(
        plan.convention_name,
        (
            (ordering, kernel_params, metric.ranked, metric.spec.info.tie_order,
             metric.tie_order_followed)
            for (kernel_params, _, ordering), metric in zip(
                plan.settings, rankings.values(), strict=True
            )
        ),
    )
    return rankings


def _metric_detail(plan: MetricPlan, means: bool) -> MetricDetail:
    """One metric's per-query values (after its policy) and mean."""
    ranked, spec = plan.ranked, plan.spec
    metric_function = spec.info.function.__name__
    try:
        values = spec.info.per_query(ranked, **plan.kernel_params)
    except RowValueError as error:
        if plan.input_rows is None:
            raise
        raise in_input_rows(error, plan.input_rows) from None
    with renamed_as(metric_function):  # the policy and the mean name the metric function
        per_query_values, weights, skipped = apply_policy(values, ranked, plan.policy)
        undefined = undefined_queries(values)
        warn_tool_nan(  # a preset's NaN where its tool warns (scikit-learn's AUC)
            plan.policy, int(undefined.sum()), len(undefined), values.description
        )
        mean = (
            weighted_mean(per_query_values, weights, skipped, values.total, values)
            if means
            else math.nan
        )
    return MetricDetail(
        per_query_values,
        weights,
        undefined,
        skipped,
        mean,
        values.weight is not None,
        values.total,
        values,
    )

