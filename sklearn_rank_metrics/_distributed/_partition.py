"""What each partition of a Dask or Spark DataFrame runs: the in-memory kernels on all
of its queries at once.

Everything here takes and returns plain pandas / NumPy objects and never imports Dask
or Spark, so worker processes only unpickle these functions and a :class:`PartitionPlan`.
A partition (a Spark bucket) holds *whole* queries (the caller guarantees it, by a
shuffle or a check), so
:func:`~sklearn_rank_metrics._engine._ranked_groups.rank_groups` sees every row of each
of its queries, and the per-query values are exactly those of the in-memory ``evaluate``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._engine._caller import called_as
from .._metrics._aggregate import PerQuery, scaled_sum
from .._metrics._evaluate import evaluate_details
from ._call import judged_column
from ._layout import QUERIES_COLUMN, query_parts
from ._plan import STATISTICS, PartitionPlan

# beside the sums: the partition's warnings (captured_warnings) and, per metric, what
# makes a query undefined (the kernel's words, for the mean's warning)
WARNINGS_COLUMN = "__sklearn_rank_metrics_warnings__"
DESCRIPTIONS_COLUMN = "__sklearn_rank_metrics_descriptions__"
DESCRIPTIONS_SEPARATOR = "\x1e"
ROW_ORDER_COLUMN = "__sklearn_rank_metrics_row__"
_PARTITION_BITS = 32  # row position within a partition: < 2**32 rows per partition


def add_row_order(frame: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
    """Append the input row order as one int64 key: partition number, then position.

    Comparing keys compares (partition, position) lexicographically, which is the
    row order of the whole Dask DataFrame, without a pass to count partition lengths.
    """
    number = 0 if partition_info is None else int(partition_info["number"])
    key = np.arange(len(frame), dtype=np.int64)
    key += np.int64(number) << _PARTITION_BITS
    return frame.assign(**{ROW_ORDER_COLUMN: key})


def _group_of(frame: pd.DataFrame, plan: PartitionPlan) -> pd.Series | pd.Index:
    return frame.index if plan.group_on_index else frame[plan.call.group]


def partition_details(
    frame: pd.DataFrame, plan: PartitionPlan
) -> tuple[np.ndarray, list[PartitionMetric]]:
    """Query ids and, per metric, a :class:`PartitionMetric` of one partition's queries.

    The same steps as the in-memory ``evaluate_details`` (one validation and sort
    by :func:`rank_groups`, each metric's vectorised kernel, the undefined-query
    policy) without the per-partition mean: the mean is formed once, from the sums
    of every partition.
    """
    if plan.row_order:
        order = np.argsort(frame[ROW_ORDER_COLUMN].to_numpy(), kind="stable")
        frame = frame.iloc[order]
    weights = None if plan.call.sample_weight is None else frame[plan.call.sample_weight]
    column = judged_column(plan.call.judged)
    judged = plan.call.judged if column is None else frame[column]
    try:
        # a worker runs outside the caller's context: the plan carries its name
        with called_as(plan.call.caller):
            details = evaluate_details(
                frame[plan.call.y_true],
                frame[plan.y_score],
                _group_of(frame, plan),
                metrics=list(plan.call.metrics),
                shared=plan.call.shared,
                sample_weight=weights,
                means=False,
                judged=judged,
                doc_id=None if plan.call.doc_id is None else frame[plan.call.doc_id],
            )
    except (TypeError, ValueError) as error:
        kind = TypeError if isinstance(error, TypeError) else ValueError
        raise kind(
            f"{error} [Raised in one {plan.part} of the {plan.frame_kind}: row numbers "
            f"and query counts refer to that {plan.part}.]"
        ) from None
    results = [
        PartitionMetric(detail.values, detail.weights, detail.skipped, detail.kernel)
        for detail in details.metrics.values()
    ]
    return details.query_ids, results


@dataclass(frozen=True)
class PartitionMetric:
    """One metric over one partition's queries: values and weights after the policy,
    the skipped queries, and the kernel's output (undefined shares, their description)."""

    values: np.ndarray
    weights: np.ndarray
    skipped: np.ndarray
    kernel: PerQuery | None

    def n_undefined(self) -> int:
        """The queries undefined in every tie order."""
        if self.kernel is None:
            return 0
        share = np.asarray(self.kernel.undefined)
        return int(np.count_nonzero(share if share.dtype == bool else share >= 1))

    def description(self) -> str:
        return "" if self.kernel is None else self.kernel.description


def partition_sums(
    frame: pd.DataFrame, plan: PartitionPlan, part: int | None = None
) -> pd.DataFrame:
    """One row of sums per partition: for each metric, over the queries not skipped,
    ``sum(w * v)`` (NaN values left out), ``sum(w)``, their count, the number of
    skipped queries, the number of NaN values (the ``nan`` policy),
    ``sum(w * v) * 2**-512`` (the mean when the first sum overflows) and the number
    of queries undefined in every tie order; then :data:`DESCRIPTIONS_COLUMN`, what
    makes a query undefined for each metric (one text, ``\\x1e`` between metrics).

    With ``part`` (the partition's number), a last column :data:`QUERIES_COLUMN`
    holds the partition's :func:`query_parts`, for :func:`first_shared_query`.
    """
    statistics = np.zeros(len(plan.call.metrics) * len(STATISTICS))
    query_ids: Any = np.array([], dtype=object)
    descriptions = ""
    if len(frame):
        query_ids, results = partition_details(frame, plan)
        for index, metric in enumerate(results):
            start = index * len(STATISTICS)
            statistics[start : start + len(STATISTICS)] = _metric_sums(metric)
        descriptions = DESCRIPTIONS_SEPARATOR.join(metric.description() for metric in results)
    sums = pd.DataFrame([statistics], columns=plan.statistic_columns())
    sums[DESCRIPTIONS_COLUMN] = pd.Series([descriptions], dtype=object)
    if part is not None:
        sums[QUERIES_COLUMN] = pd.Series([query_parts(query_ids, part)], dtype=object)
    return sums


def _metric_sums(metric: PartitionMetric) -> tuple[float, ...]:
    """The :data:`STATISTICS` of one metric over one partition's queries."""
    kept = ~metric.skipped
    kept_values, kept_weights = metric.values[kept], metric.weights[kept]
    is_nan = np.isnan(kept_values)
    summed_values, summed_weights = kept_values[~is_nan], kept_weights[~is_nan]
    with np.errstate(over="ignore"):  # thread-local; scaled_sum is kept for it
        weighted_sum = np.sum(summed_values * summed_weights)  # no BLAS threads
    return (
        float(weighted_sum),
        float(kept_weights.sum()),
        float(kept.sum()),
        float(metric.skipped.sum()),
        float(is_nan.sum()),
        scaled_sum(summed_values, summed_weights),
        float(metric.n_undefined()),
    )


def partition_table(frame: pd.DataFrame, plan: PartitionPlan) -> pd.DataFrame:
    """Per-query values of one partition: a ``query`` column (the partition's ids,
    sorted, in the dtype of the group column) and one float column per metric."""
    group_dtype = _group_of(frame, plan).dtype
    if len(frame) == 0:
        columns = {"query": pd.Series([], dtype=group_dtype)}
        columns.update({name: pd.Series([], dtype=np.float64) for name in plan.call.metrics})
        return pd.DataFrame(columns)
    query_ids, results = partition_details(frame, plan)
    columns = {"query": pd.Series(query_ids).astype(group_dtype)}
    for name, metric in zip(plan.call.metrics, results, strict=True):
        columns[name] = pd.Series(metric.values, dtype=np.float64)
    return pd.DataFrame(columns)
