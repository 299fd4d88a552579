"""The means of one call, formed once from the sums of every partition."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._engine._caller import renamed_as
from .._metrics._aggregate import (
    mean_of_scaled_sum,
    warn_every_query_undefined,
    warn_no_query_left,
)
from .._metrics._registry import parse_metric
from ._layout import QUERIES_COLUMN, first_shared_query
from ._partition import DESCRIPTIONS_COLUMN, DESCRIPTIONS_SEPARATOR, WARNINGS_COLUMN
from ._plan import STATISTICS, PartitionPlan


def descriptions_of(texts: Sequence[Any], plan: PartitionPlan) -> list[str] | None:
    """Per metric, what makes a query undefined: from the first partition that says."""
    for text in texts:
        if isinstance(text, str) and text:
            found = text.split(DESCRIPTIONS_SEPARATOR)
            return found if len(found) == len(plan.call.metrics) else None
    return None


@dataclass(frozen=True)
class Totals:
    """Every partition's :func:`partition_sums` row, combined on one task.

    Attributes
    ----------
    sums : pandas.Series
        Each statistic column's sum over the partitions.
    found : tuple or None
        The first query found in two partitions (:func:`first_shared_query`), when
        the partitions listed their queries.
    warnings : list of str
        Every partition's warnings, as :func:`captured_warnings` records them.
    descriptions : list of str or None
        Per metric, what makes a query undefined (:func:`descriptions_of`).
    n_parts : int
        The partitions that held rows (each ran the kernels).
    """

    sums: pd.Series
    found: tuple[Any, int, int] | None
    warnings: list[str]
    descriptions: list[str] | None
    n_parts: int


def combined_sums(frames: Sequence[pd.DataFrame], plan: PartitionPlan) -> Totals:
    """:class:`Totals` of the partitions' :func:`partition_sums` rows."""
    frame = pd.concat(list(frames), ignore_index=True)
    found = None
    if QUERIES_COLUMN in frame.columns:
        found = first_shared_query(list(frame.pop(QUERIES_COLUMN)))
    recorded: list[str] = []
    if WARNINGS_COLUMN in frame.columns:
        recorded = [text for texts in frame.pop(WARNINGS_COLUMN) for text in texts]
    descriptions = descriptions_of(list(frame.pop(DESCRIPTIONS_COLUMN)), plan)
    n_parts = int(((frame["0:n_kept"] + frame["0:n_skipped"]) > 0).sum())
    return Totals(quiet_sum(frame), found, recorded, descriptions, n_parts)


def quiet_sum(frame: pd.DataFrame) -> pd.Series:
    """``frame.sum()`` without NumPy's overflow warning: a ``weighted_sum`` that
    overflows is replaced by the mean of ``scaled_sum`` (:func:`means`)."""
    with np.errstate(over="ignore"):  # thread-local
        return frame.sum()


def means(
    totals: Mapping[str, Any], plan: PartitionPlan, descriptions: Sequence[str] | None = None
) -> dict[str, float]:
    """Each metric's weighted mean from the statistics summed over every partition.

    ``totals`` maps each of ``plan.statistic_columns()`` to its sum (a pandas Series,
    a dict, a Spark Row's ``asDict()``; a missing or None sum is 0: no partition).
    The mean's two warnings are the in-memory ``evaluate``'s, with its texts: no
    query left to average (the mean is NaN), and every query undefined in every tie
    order (the mean measures nothing; needs ``descriptions``, per metric).
    """
    total = {column: float(totals.get(column) or 0.0) for column in plan.statistic_columns()}
    if total["0:n_kept"] + total["0:n_skipped"] == 0:
        raise ValueError(f"y_true of {plan.call.caller} is empty; at least one row is needed.")
    result: dict[str, float] = {}
    for index, name in enumerate(plan.call.metrics):
        spec = parse_metric(name)
        # as in memory, the mean's warnings name the metric function
        with renamed_as(spec.info.function.__name__):
            result[name] = _mean(
                {statistic: total[f"{index}:{statistic}"] for statistic in STATISTICS},
                spec.total,
                None if descriptions is None else descriptions[index],
            )
    return result


def _mean(sums: dict[str, float], total: bool, description: str | None) -> float:
    """One metric's mean from its summed :data:`STATISTICS` (``weighted_mean``'s steps)."""
    if sums["n_nan"] > 0:
        return math.nan
    if total:  # a count: the sum over queries
        return sums["weighted_sum"]
    if sums["weight"] == 0:
        warn_no_query_left()
        return math.nan
    if math.isinf(sums["weighted_sum"]):  # the sum overflowed, the mean need not
        mean = mean_of_scaled_sum(sums["scaled_sum"], sums["weight"])
    else:
        mean = sums["weighted_sum"] / sums["weight"]
    n_queries = int(sums["n_kept"] + sums["n_skipped"])
    if description is not None and not math.isnan(mean) and sums["n_undefined"] == n_queries:
        warn_every_query_undefined(n_queries, description, mean)
    return mean
