"""Checks of per-query values: the fields of a :class:`PerQueryValues`, one home.

What the constructor of :class:`~._per_query_values.PerQueryValues` checks (metric
names and policies, run names, query ids, the values' shape, range and missing
values, the query weights), and the helpers the reading and the alignment share
(missing ids, bad weights, the query-id factoriser, how a query and a run are shown).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from .._engine._caller import caller_name
from .._engine._inputs import factorize_groups, missing_objects
from .._engine._plain import plain
from .._engine._validation import check_parameter
from .._metrics._base import SHARED_SETTINGS
from .._metrics._evaluate import metric_names
from .._metrics._registry import parse_metric


def policy_kind(policy: Any) -> str:
    """``"skip"``, ``"nan"``, ``"raise"`` or ``"number"`` (0.0, 1.0: a value for every query)."""
    if isinstance(policy, str):
        return policy
    return "nan" if math.isnan(policy) else "number"


def weights_queries(kernel_params: Mapping[str, Any]) -> bool:
    """Whether a metric weights its queries itself (hit rate with ``average="micro"``,
    gauc with ``query_weight="rows"`` or ``"positives"``): its per-query values alone
    do not give its mean."""
    return (
        kernel_params.get("average", "macro") == "micro"
        or kernel_params.get("query_weight", "uniform") != "uniform"
    )


def shown(value: Any) -> str:
    return repr(plain(value))


class Fields(Protocol):
    """What :func:`check_missing` reads of a :class:`PerQueryValues` (which imports
    this module)."""

    @property
    def query_ids(self) -> np.ndarray: ...
    @property
    def values(self) -> np.ndarray: ...
    @property
    def metrics(self) -> tuple[str, ...]: ...
    @property
    def policies(self) -> tuple[Any, ...]: ...
    @property
    def runs(self) -> tuple[str | None, ...]: ...


def checked_metrics(metrics: Any, policies: Any) -> tuple[str, ...]:
    """The metric names: metrics averaged over equally weighted queries, one policy each."""
    names = tuple(metric_names(list(metrics)))
    if len(policies) != len(names):
        raise ValueError(
            f"{caller_name()}: 'policies' must hold one policy per metric ({len(names)}); "
            f"got {len(policies)}."
        )
    for name, policy in zip(names, policies, strict=True):
        check_parameter(
            caller_name(), "replace_undefined_by", policy, SHARED_SETTINGS["replace_undefined_by"]
        )
        spec = parse_metric(name)
        if weights_queries(spec.kernel_params):
            raise ValueError(
                f"{caller_name()}: {name!r} weights queries itself (by their relevant rows, "
                "rows or positives), and per-query values do not carry those weights; use "
                "its uniform form (hit_rate, gauc) or its mean from evaluate."
            )
    return names


def checked_runs(runs: Any) -> tuple[str | None, ...]:
    runs = tuple(runs)
    if runs == (None,):
        return runs
    bad = [name for name in runs if not isinstance(name, str)]
    if bad or not runs:
        shown = f"got {bad[0]!r}" if bad else "got none"
        raise TypeError(
            f"{caller_name()}: the run names must be str, or (None,) for one unnamed run; "
            f"{shown}."
        )
    twice = sorted({name for name in runs if runs.count(name) > 1})
    if twice:
        raise ValueError(f"{caller_name()}: run {twice[0]!r} is named twice.")
    return runs


def sorted_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ids sorted and each id's code, by the engine's query-id factoriser
    (:func:`evaluate` sorts queries with it).

    Per-query values may carry ids no ranking input holds, which the engine refuses as
    a ``group`` (dates, numbers with a fraction, NaN or None, complex numbers): those
    are sorted by ``np.unique``, as the engine sorts the ids it takes.
    """
    try:
        if not _ranking_ids(ids):
            distinct, codes = np.unique(ids, return_inverse=True)
            return distinct, codes.reshape(-1)
        if not len(ids):
            return ids[:0].copy(), np.zeros(0, dtype=np.intp)
        codes, distinct = factorize_groups(ids, len(ids))
    except TypeError:
        raise TypeError(
            f"{caller_name()}: the query ids mix types that do not sort together (e.g. "
            "int and str); give every table the same id type."
        ) from None
    return distinct, codes


def _ranking_ids(ids: np.ndarray) -> bool:
    """Whether the engine takes ``ids`` as query ids (whole numbers, text, objects, none
    missing: what a ``group`` of :func:`evaluate` holds)."""
    if ids.dtype.kind == "f":
        return bool(np.all(np.floor(ids) == ids))  # False for NaN
    if ids.dtype.kind == "O":
        return not missing_objects(ids).any()
    return ids.dtype.kind in "biuUS"


def checked_query_ids(query_ids: Any) -> np.ndarray:
    ids = np.array(query_ids, copy=True)
    if ids.ndim != 1 or not len(ids):
        raise ValueError(
            f"{caller_name()}: query_ids must be 1-D and hold one query at least; got shape "
            f"{ids.shape}."
        )
    missing = missing_ids(ids)
    if missing.any():
        raise ValueError(f"{caller_name()}: a query id is missing (null or NaN).")
    distinct, codes = sorted_ids(ids)
    if len(distinct) < len(ids):
        twice = distinct[np.flatnonzero(np.bincount(codes) > 1)[0]]
        raise ValueError(f"{caller_name()}: query {shown(twice)} is there twice.")
    ids.flags.writeable = False
    return ids


def missing_ids(ids: np.ndarray) -> np.ndarray:
    if ids.dtype.kind == "f":
        return np.isnan(ids)
    if ids.dtype.kind == "O":
        return missing_objects(ids)
    return np.zeros(len(ids), dtype=bool)


def checked_values(values: Any, shape: tuple[int, int, int]) -> np.ndarray:
    array = np.array(values, dtype=np.float64, copy=True)
    if array.shape != shape:
        raise ValueError(
            f"{caller_name()}: values must have shape (n_runs, n_metrics, n_queries) = "
            f"{shape}; got {array.shape}."
        )
    array.flags.writeable = False
    return array


def checked_weights(weights: Any, n_queries: int) -> np.ndarray:
    array = np.array(weights, dtype=np.float64, copy=True)
    if array.shape != (n_queries,):
        raise ValueError(
            f"{caller_name()}: weights must hold one weight per query ({n_queries}); got "
            f"shape {array.shape}."
        )
    bad = first_bad_weight(array)
    if bad is not None:
        raise ValueError(
            f"{caller_name()}: query weights must be finite and >= 0; got "
            f"{plain(array[bad])!r} at query position {bad}."
        )
    array.flags.writeable = False
    return array


def first_bad_weight(weights: np.ndarray) -> int | None:
    """The position of the first weight that is not finite and >= 0, or None."""
    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
    return int(bad[0]) if len(bad) else None


def check_missing(values: Fields) -> None:
    """Infinite values, values outside the metric's range, and missing ones where the
    policy gives every query a value."""
    data = values.values
    infinite = np.argwhere(np.isinf(data))
    if len(infinite):
        r, j, q = infinite[0]
        raise ValueError(
            f"{caller_name()}: {values.metrics[j]!r} is {plain(data[r, j, q])!r} for query "
            f"{shown(values.query_ids[q])}{of_run(values.runs[r])}; a metric value is finite."
        )
    for j, (name, policy) in enumerate(zip(values.metrics, values.policies, strict=True)):
        _check_range(values, j)
        kind = policy_kind(policy)
        if kind in ("skip", "nan") and not parse_metric(name).info.always_defined:
            continue
        missing = np.argwhere(np.isnan(data[:, j]))
        if len(missing):
            r, q = missing[0]
            raise ValueError(_missing_value_message(values, name, policy, r, q))


def _check_range(values: Fields, j: int) -> None:
    """Every value of metric ``j`` lies in the metric's range (a count is a whole number):
    a value outside it was not computed by that metric, and no statistic is formed on it."""
    name = values.metrics[j]
    spec = parse_metric(name)
    low, high = spec.info.value_range(spec.kernel_params)
    data = values.values[:, j]
    with np.errstate(invalid="ignore"):
        bad = (data < low - 1e-12) | (data > high + 1e-12)
        if spec.info.total:
            bad |= data != np.round(data)
    found = np.argwhere(bad)
    if len(found):
        r, q = found[0]
        what = ("whole numbers in " if spec.info.total else "") + f"[{plain(low)}, {plain(high)}]"
        raise ValueError(
            f"{caller_name()}: {name!r} is {plain(data[r, q])!r} for query "
            f"{shown(values.query_ids[q])}{of_run(values.runs[r])}, outside its range "
            f"{what}: these are not values of {name!r} (a column of another metric?)."
        )


def of_run(run: str | None) -> str:
    return "" if run is None else f" (run {run!r})"


def _missing_value_message(
    values: Fields, name: str, policy: Any, r: int, q: int
) -> str:
    query = shown(values.query_ids[q])
    if parse_metric(name).info.always_defined:
        why = f"{name!r} is defined for every query"
    else:
        why = (
            f"its undefined-query policy is {plain(policy)!r}, which gives every query a "
            "value"
        )
    return (
        f"{caller_name()}: {name!r} has no value (null or NaN) for query {query}"
        f"{of_run(values.runs[r])}, but {why}. Pass the replace_undefined_by (and "
        "convention) the values were computed with: 'skip' if a missing value is a query "
        "left out of the mean (Spark's null), nan if it is NaN by the 'nan' policy."
    )
