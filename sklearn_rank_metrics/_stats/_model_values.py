"""Per-query values of several models from one set of labels and query ids.

The shared input layer of :func:`compare` and the displays: the per-query values of
:func:`evaluate` (one sort per model, every metric's kernel, the undefined-query
policy), stacked for all models.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .._engine._caller import caller_name, renamed_as
from .._engine._inputs import check_pandas_indexes, to_numpy
from .._metrics._aggregate import warn_if_nothing_defined
from .._metrics._evaluate import CallPlan, EvaluationDetails, details_of_rows, plan_metrics
from .._metrics._reading import rows_at_door
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings


def greater_is_better(metric: str) -> bool:
    """The declared direction of a metric name (fall-out: lower is better).

    A name this package cannot read (a display made by hand with a label of its own)
    counts as greater-is-better, as every metric but fall-out is.
    """
    try:
        return parse_metric(metric).info.greater_is_better
    except (TypeError, ValueError):
        return True


def score_mapping(
    scores: Any, *, min_models: int = 1, parameter: str = "scores"
) -> dict[str, Any]:
    """``{model name: scores}`` from a mapping, or a frame with one column per model: a
    pandas or polars DataFrame, a pyarrow Table (its columns are ``column_names``)."""
    caller = caller_name()
    if hasattr(scores, "columns") and hasattr(scores, "__getitem__"):
        names = getattr(scores, "column_names", scores.columns)
        scores = {column: scores[column] for column in names}
    if not isinstance(scores, Mapping):
        raise TypeError(
            f"The {parameter!r} parameter of {caller} must be a mapping from model "
            f"name to scores (e.g. {{'bm25': s1, 'ltr': s2}}); got {type(scores).__name__} "
            "instead."
        )
    names = list(scores)
    bad = [name for name in names if not isinstance(name, str)]
    if bad:
        raise TypeError(
            f"The model names (keys of {parameter!r}) of {caller} must be str; got "
            f"{bad[0]!r}."
        )
    if len(names) < min_models:
        raise ValueError(
            f"The {parameter!r} parameter of {caller} must hold at least {min_models} "
            f"model(s); got {len(names)}."
        )
    return dict(scores)


def check_shapes(y_true: Any, scores: dict[str, Any]) -> None:
    """Every model's scores have the shape of ``y_true`` (the error names the model).

    Each array is read by the engine's :func:`~.._engine._inputs.to_numpy`, so that
    what no metric function takes (an iterator: "pass list(...)", a null, a sparse
    matrix, a scalar) is refused in the same words, not compared as a shape ``()``.
    """
    expected = np.shape(to_numpy(y_true, "y_true"))
    for name, values in scores.items():
        # a null (or another device) named by model: scores['bm25'], or y_score alone
        argument = f"scores[{name!r}]" if len(scores) > 1 else "y_score"
        shape = np.shape(to_numpy(values, argument))
        if shape != expected:
            raise ValueError(
                f"The scores of model {name!r} passed to {caller_name()} have shape {shape}, "
                f"but y_true has shape {expected}; every model must score every row."
            )


def count_error(name: str, caller: str | None = None) -> ValueError:
    """The error for a count (summed over queries, not averaged) given to compare."""
    return ValueError(
        f"The 'metrics' parameter of {caller or caller_name()} must name metrics averaged "
        f"over queries; {name!r} is a count summed over queries (as trec_eval "
        "reports num_rel, num_ret and num_rel_ret). Compare precision or recall "
        "instead, or the per-query counts from evaluate(..., per_query=True)."
    )


def per_query_values(
    y_true: Any,
    scores: dict[str, Any],
    group: Any,
    metrics: Sequence[str],
    *,
    shared: Settings,
    judged: Any = None,
    doc_id: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-query values of every metric for every model, the rows checked once.

    Returns
    -------
    query_ids : ndarray of shape (n_queries,)
    values : ndarray of shape (n_models, n_metrics, n_queries)
        NaN where a query is skipped (``replace_undefined_by="skip"``) or NaN.
    """
    caller = caller_name()
    check_shapes(y_true, scores)
    plan = plan_metrics(metrics, shared)
    details = models_details(y_true, scores, group, plan, judged=judged, doc_id=doc_id)
    return values_of(list(details.values()), caller)


def models_details(
    y_true: Any,
    scores: Mapping[Any, Any],
    group: Any,
    plan: CallPlan,
    *,
    judged: Any = None,
    doc_id: Any = None,
    sample_weight: Any = None,
    means: bool = False,
) -> dict[Any, EvaluationDetails]:
    """Every model's details on the same rows: the rows checked (and their ids
    factorised) once, each model's scores on their own, each run with its own order (a
    TREC run's line order)."""
    details = {}
    rows = documents = None
    for model, y_score in scores.items():
        if rows is None:
            rows = rows_at_door(
                y_true, y_score, group, sample_weight=sample_weight, judged=judged,
                doc_id=doc_id, convention=plan.convention,
            )
            documents = rows.doc
            if documents is not None and isinstance(documents.run_position, np.ndarray):
                # one run's line order, read with the rows: the order of their own
                # scores, not of the models given here (a tie then warns, as without it)
                documents = documents.without_run_order()
        else:
            # the rows' inputs were checked with the first model's scores; this model's
            # pandas index must match them too (rows are paired by position)
            check_pandas_indexes(
                {"y_true": y_true, "y_score": y_score, "group": group,
                 "sample_weight": sample_weight, "judged": judged, "doc_id": doc_id}
            )
            rows = rows.with_scores(y_score)
        if documents is not None and model is not None:
            rows = replace(rows, doc=documents.for_run(model))
        details[model] = details_of_rows(rows, plan, means=means)
    return details


def values_of(details: Sequence[EvaluationDetails], caller: str) -> tuple[np.ndarray, np.ndarray]:
    """The per-query values of every model's details, as :func:`per_query_values` gives
    them; metrics that weight queries unequally or are summed are refused, naming
    ``caller``."""
    query_ids = None
    values = None
    for m, model in enumerate(details):
        if values is None:
            query_ids = model.query_ids
            values = np.empty((len(details), len(model.metrics), len(query_ids)))
        for j, (name, detail) in enumerate(model.metrics.items()):
            if detail.weights_queries:
                raise ValueError(
                    f"The 'metrics' parameter of {caller} must name metrics that "
                    "weight every query equally (e.g. not hit_rate with average='micro', nor "
                    "gauc with query_weight='rows'/'positives': use their uniform form). Got "
                    f"{name!r}, which weights queries unequally, instead."
                )
            if detail.total:
                raise count_error(name, caller)
            values[m, j] = detail.values
            if m == 0 and detail.kernel is not None:  # the labels decide: once per metric
                policy_value = detail.values[0] if len(detail.values) else math.nan
                with renamed_as(f"{caller} ({name})"):
                    warn_if_nothing_defined(detail.kernel, policy_value)
    if query_ids is None or values is None:  # the callers ask for one model at least
        raise ValueError(f"{caller} needs the scores of one model at least.")
    return query_ids, values
