"""What every display shares (as scikit-learn's ``utils/_plotting.py``): the lazy
matplotlib import, the axes, the shared settings, and the models' scores by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._caller import caller_name, renamed_as
from .._engine._inputs import RESPONSE_METHODS, query_id_column, response_values
from .._engine._ranking_rows import estimator_inputs
from .._engine._validation import Options, check_parameter
from .._metrics._settings import Settings
from .._stats._model_values import per_query_values, score_mapping


def import_pyplot(caller: str) -> Any:
    """``matplotlib.pyplot``, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            f"{caller} requires matplotlib. Install it with "
            "`pip install \"sklearn-rank-metrics[plot]\"` (or `pip install matplotlib`)."
        ) from None
    return plt


def axes(ax: Any, caller: str) -> tuple[Any, Any]:
    """``(ax, figure)``: the given axes, or new ones."""
    plt = import_pyplot(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax, ax.figure


def check_settings(**settings: Any) -> Settings:
    """The shared metric settings (convention, ties, policy, level), checked."""
    return Settings.from_arguments(**settings).checked()


def per_query_metric(
    y_true: Any, scores: dict[str, Any], group: Any, metric: Any, *,
    convention: Any, ties: Any, replace_undefined_by: Any, relevance_level: Any,
    judged: Any, doc_id: Any,
) -> tuple[str, np.ndarray, np.ndarray]:
    """(metric name, query ids, values of shape (n_models, n_queries)) of one metric,
    the shared settings checked first."""
    settings = check_settings(
        convention=convention, ties=ties,
        replace_undefined_by=replace_undefined_by, relevance_level=relevance_level,
    )
    if not isinstance(metric, str):
        raise TypeError(
            f"The 'metric' parameter of {caller_name()} must be a metric name (str) such as "
            f"'ndcg@10'. Got {metric!r} instead."
        )
    query_ids, values = per_query_values(
        y_true, scores, group, [metric], shared=settings, judged=judged, doc_id=doc_id,
    )
    return metric, query_ids, values[:, 0, :]


def display_from_estimator(
    display: Any, estimator: Any, X: Any, y: Any, group: Any, response_method: str,
    name: str | None, kwargs: dict[str, Any],
) -> Any:
    """``display.from_estimator`` of a display of one model or several: the scores of
    the estimator(s) passed to ``display.from_predictions``."""
    with renamed_as(f"{display.__name__}.from_estimator"):
        X, y, group, carried = estimator_rows(estimator, X, y, group)
        scores = estimator_scores(estimator, X, response_method, name)
    return display.from_predictions(y, scores, group, **with_carried(carried, kwargs))


def with_carried(carried: dict[str, Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keywords of ``from_predictions``: the rows' judged flags and document ids,
    and their convention where the call names none."""
    options = dict(kwargs)
    for field, value in carried.items():
        if field != "convention" or options.get("convention") is None:
            options[field] = value
    return options


def model_scores(y_score: Any, name: str | None) -> dict[str, Any]:
    """``{name: scores}`` from one model's scores or a mapping / DataFrame of several.

    A DataFrame is always several models, one per column (as in :func:`compare`): a
    single model's 2-D scores must be given as an array, not a DataFrame.
    """
    if isinstance(y_score, Mapping) or hasattr(y_score, "columns"):
        if name is not None:
            raise ValueError(
                f"The 'name' parameter of {caller_name()} must be None when 'y_score' holds "
                "several models (a mapping or a DataFrame: their names are its keys or "
                f"columns). Got {name!r} instead."
            )
        return score_mapping(y_score)
    return {"model" if name is None else str(name): y_score}


def estimator_scores(
    estimator: Any, X: Any, response_method: str, name: str | None
) -> dict[str, Any]:
    """``{name: scores}`` from one fitted estimator or a mapping name -> estimator."""
    check_parameter(
        caller_name(), "response_method", response_method, [Options(*RESPONSE_METHODS)]
    )
    if isinstance(estimator, Mapping):
        if name is not None:
            raise ValueError(
                f"The 'name' parameter of {caller_name()} must be None when 'estimator' is "
                "a mapping (the names of the estimators are its keys). Got "
                f"{name!r} instead."
            )
        estimators = score_mapping(estimator)
    else:
        estimators = {type(estimator).__name__ if name is None else str(name): estimator}
    return {
        label: response_values(model, X, response_method) for label, model in estimators.items()
    }


def estimator_rows(
    estimator: Any, X: Any, y: Any, group: Any
) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Features, labels, query ids and the other carried fields for ``from_estimator``.

    ``X`` may be a :class:`RankingData` with features (``.X``): its labels, query
    ids, judged rows and document ids are used (``y`` and ``group`` must then be
    left out). Otherwise, without ``group``, the query ids come from the column that
    a :class:`GroupedRanker` (``group_column=``) reads them from; else the metric
    refuses flat rows without ids.
    """
    X, y, group, carried = estimator_inputs(X, y, group)
    if carried:
        return X, y, group, carried
    if y is None:
        raise TypeError(f"{caller_name()} needs y (the relevance labels) with X.")
    if group is None:
        estimators = estimator.values() if isinstance(estimator, Mapping) else [estimator]
        columns = {getattr(model, "group_column", None) for model in estimators}
        if len(columns) == 1 and None not in columns:
            group = query_id_column(X, columns.pop(), caller_name())
    return X, y, group, {}


def per_item(value: Any, names: list[str], parameter: str) -> list[dict]:
    """A dict of plot keywords for every model from None, one dict, or a list of dicts."""
    if value is None:
        return [{} for _ in names]
    if isinstance(value, Mapping):
        return [dict(value) for _ in names]
    items = list(value)
    if len(items) != len(names) or not all(isinstance(item, Mapping) for item in items):
        raise ValueError(
            f"The {parameter!r} parameter of {caller_name()} must be a dict or a list of "
            f"{len(names)} dicts (one per model). Got {value!r} instead."
        )
    return [dict(item) for item in items]


def plot_names(name: Any, defaults: list[str]) -> list[str]:
    """Legend labels: the stored names, or ``name`` (a str for one model, or a list)."""
    if name is None:
        return list(defaults)
    names = [name] if isinstance(name, str) else list(name)
    if len(names) != len(defaults):
        raise ValueError(
            f"The 'name' parameter of {caller_name()} must give {len(defaults)} name(s) (one "
            f"per model). Got {name!r} instead."
        )
    return [str(label) for label in names]
