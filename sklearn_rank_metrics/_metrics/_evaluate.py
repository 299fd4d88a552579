"""Several metrics from one sort: :func:`evaluate`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._ranked_groups import RankedGroups, rank_groups
from .._engine._validation import BOOLEAN, check_parameter, validate_params
from ._aggregate import apply_policy, undefined_queries, weighted_mean
from ._base import SHARED_SETTINGS
from ._registry import MetricSpec, parse_metric

DEFAULT_METRICS = ("ndcg@10", "map", "mrr@10", "p@10", "recall@10")



def _metric_settings(spec: MetricSpec, shared: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Kernel parameters and the undefined-query policy of one metric."""
    kernel_params = spec.kernel_params
    defaults = spec.info.defaults
    policy = spec.params.get("replace_undefined_by", defaults["replace_undefined_by"])
    for name, value in shared.items():
        if value is None or name in spec.params:
            continue
        if name == "replace_undefined_by":
            policy = value
        elif name in kernel_params:
            kernel_params[name] = value
    return kernel_params, policy


@validate_params({**SHARED_SETTINGS, "per_query": [BOOLEAN]})
def evaluate(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    metrics: str | Sequence[str] = DEFAULT_METRICS,
    ties: str | None = None,
    replace_undefined_by: float | str | None = None,
    relevance_level: float | None = None,
    sample_weight: Any = None,
    per_query: bool = False,
) -> Any:
    """Compute several ranking metrics from one validation and one sort.

    Parameters
    ----------
    y_true, y_score, group
        As in every metric function (flat rows with query ids, or 2-D).
    metrics : str or sequence of str, default=("ndcg@10", "map", "mrr@10", "p@10", "recall@10")
        Metric names: ``name``, ``name@k`` or ``name(param=value,...)@k`` with a
        name among ``ndcg, dcg, cg, idcg, err, map, mrr, p, recall, rprec, f1,
        fbeta, hit_rate, gauc``; the parameters are those of the metric's function, e.g.
        ``"ndcg(gain=exponential)@10"``, ``"map(denominator=min(k,n_relevant))@10"``,
        ``"p(denominator=min(k,n_retrieved))@5"``. ``cg@k`` is DCG without discount.
    ties, replace_undefined_by, relevance_level : default=None
        Applied to every metric that has the parameter, unless its name sets it;
        ``None`` keeps each metric's own default.
    sample_weight : array-like, default=None
        Query weights, as in every metric function.
    per_query : bool, default=False
        Return the per-query values instead of the means.

    Returns
    -------
    scores : dict or DataFrame
        ``per_query=False``: a dict mapping each name, as given, to a float.
        ``per_query=True``: a pandas DataFrame (a dict of arrays without pandas)
        with a ``"query"`` column (the query ids, sorted) and one column per
        metric; queries skipped by ``replace_undefined_by="skip"`` are NaN.

    Examples
    --------
    >>> from sklearn_rank_metrics import evaluate
    >>> y_true = [2, 0, 1, 0, 1, 0]
    >>> y_score = [0.9, 0.8, 0.1, 0.3, 0.7, 0.2]
    >>> qid = [1, 1, 1, 2, 2, 2]
    >>> evaluate(y_true, y_score, qid, metrics=["mrr", "p@1", "recall@2"])
    {'mrr': 1.0, 'p@1': 1.0, 'recall@2': 0.75}
    """
    shared = {
        "ties": ties,
        "replace_undefined_by": replace_undefined_by,
        "relevance_level": relevance_level,
    }
    ranked, names, specs = _ranked_metrics(
        y_true, y_score, group, metrics, shared, sample_weight, "evaluate"
    )
    if not per_query:
        # one metric at a time, its per-query arrays dropped once its mean is known
        return {
            name: _metric_detail(ranked, spec, shared, means=True).mean
            for name, spec in zip(names, specs, strict=True)
        }
    tables = {
        name: _metric_detail(ranked, spec, shared, means=True).values
        for name, spec in zip(names, specs, strict=True)
    }
    return _table({"query": ranked.query_ids, **tables})


@dataclass(frozen=True)
class MetricDetail:
    """One metric over all queries, after the undefined-query policy.

    ``values`` holds NaN where a query was skipped (or where the policy is ``nan``),
    ``weights`` the query weights (``sample_weight`` times any metric weight),
    ``undefined`` the queries where the metric is undefined in at least one tie order,
    ``skipped`` those left out of the mean, ``mean`` the weighted mean, and
    ``weights_queries`` whether the metric itself weights queries unequally (e.g.
    micro-averaged hit rate), beyond ``sample_weight``.
    """

    values: np.ndarray
    weights: np.ndarray
    undefined: np.ndarray
    skipped: np.ndarray
    mean: float
    weights_queries: bool = False


@dataclass(frozen=True)
class EvaluationDetails:
    """The sorted query ids and one :class:`MetricDetail` per metric name."""

    query_ids: np.ndarray
    metrics: dict[str, MetricDetail]


def metric_names(metrics: str | Sequence[str], function_name: str) -> list[str]:
    """The metric names as a non-empty list without duplicates."""
    if isinstance(metrics, str):
        names = [metrics]
    elif isinstance(metrics, (list, tuple)) or (
        hasattr(metrics, "__iter__") and not isinstance(metrics, (bytes, dict))
    ):
        names = list(metrics)
    else:
        raise TypeError(
            f"The 'metrics' parameter of {function_name} must be a metric name or a list "
            f"of metric names, e.g. ['ndcg@10', 'map']; got {type(metrics).__name__}."
        )
    wrong = [name for name in names if not isinstance(name, str)]
    if wrong:
        raise TypeError(
            f"The 'metrics' parameter of {function_name} must hold metric names (str); got "
            f"{wrong[0]!r} of type {type(wrong[0]).__name__}."
        )
    if not names:
        raise ValueError(
            f"The 'metrics' parameter of {function_name} must name at least one metric."
        )
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(
            f"The 'metrics' parameter of {function_name} names {duplicates} more than once."
        )
    return names


def evaluate_details(
    y_true: Any,
    y_score: Any,
    group: Any,
    *,
    metrics: str | Sequence[str],
    shared: dict[str, Any],
    sample_weight: Any,
    function_name: str,
    means: bool = True,
) -> EvaluationDetails:
    """Validate, sort once, and compute every metric's per-query values and mean.

    ``means=False`` leaves every ``mean`` NaN (and warns about nothing), for callers
    that combine the per-query values of several calls themselves.
    """
    ranked, names, specs = _ranked_metrics(
        y_true, y_score, group, metrics, shared, sample_weight, function_name
    )
    results = {
        name: _metric_detail(ranked, spec, shared, means)
        for name, spec in zip(names, specs, strict=True)
    }
    return EvaluationDetails(ranked.query_ids, results)


def _ranked_metrics(
    y_true: Any,
    y_score: Any,
    group: Any,
    metrics: str | Sequence[str],
    shared: dict[str, Any],
    sample_weight: Any,
    function_name: str,
) -> tuple[RankedGroups, list[str], list[MetricSpec]]:
    """The checked settings and metric names, and the inputs sorted once."""
    # every caller (evaluate, the report, compare, the displays, the command line)
    # passes its shared settings through the same checks as evaluate's own
    for name, value in shared.items():
        check_parameter(function_name, name, value, SHARED_SETTINGS[name])
    names = metric_names(metrics, function_name)
    specs = [parse_metric(name, function_name=function_name) for name in names]
    ranked = rank_groups(
        y_true, y_score, group, sample_weight=sample_weight, function_name=function_name
    )
    return ranked, names, specs


def _metric_detail(
    ranked: RankedGroups, spec: MetricSpec, shared: dict[str, Any], means: bool
) -> MetricDetail:
    """One metric's per-query values (after its policy) and mean."""
    kernel_params, policy = _metric_settings(spec, shared)
    metric_function = spec.info.function.__name__
    values = spec.info.per_query(ranked, function_name=metric_function, **kernel_params)
    per_query_values, weights, skipped = apply_policy(values, ranked, policy, metric_function)
    mean = weighted_mean(per_query_values, weights, skipped, metric_function) if means else math.nan
    return MetricDetail(
        per_query_values,
        weights,
        undefined_queries(values),
        skipped,
        mean,
        values.weight is not None,
    )


def _table(columns: dict[str, np.ndarray]) -> Any:
    try:
        import pandas as pd
    except ImportError:
        return columns
    return pd.DataFrame(columns)
