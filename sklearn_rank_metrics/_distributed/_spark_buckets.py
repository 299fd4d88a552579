"""What each bucket of a Spark call runs in a Python worker: :mod:`._partition` on its
rows, returned as one row of sums (:func:`bucket_sums`) or as its per-query values
(:func:`bucket_table`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._layout import QUERIES_COLUMN
from ._partition import DESCRIPTIONS_COLUMN, partition_details, partition_sums
from ._plan import PartitionPlan
from ._spark_sql import id_dtype
from ._worker_warnings import captured_warnings

ERROR_FIELD = "__error__"  # "<TypeError or ValueError>\x1f<message>" of a bucket, or null
WARNINGS_FIELD = "__warnings__"  # the warnings a bucket raised (see captured_warnings)
QUERIES_FIELD = "__queries__"  # a partition's distinct query ids (partitioned_by_query=True)
DESCRIPTIONS_FIELD = "__descriptions__"  # per metric, what makes a query undefined
ERROR_SEPARATOR = "\x1f"  # between the error's type and its message


def bucket_sums(
    rows: pd.DataFrame,
    plans: Sequence[PartitionPlan],
    statistics: list[str],
    listed: bool = False,
) -> pd.DataFrame:
    """One row: every run's :func:`partition_sums`, the warnings raised, and the
    bucket's TypeError or ValueError (as text: the driver raises it again).

    ``listed``: then one more column, :data:`QUERIES_FIELD`, the bucket's distinct query ids.
    """
    sums: list[float] = [0.0] * len(statistics)
    error = None
    query_ids: Any = []
    descriptions = ""
    with captured_warnings() as recorded:
        try:
            for run, plan in enumerate(plans):
                part_sums = partition_sums(rows, plan, 0 if listed and run == 0 else None)
                descriptions = part_sums.pop(DESCRIPTIONS_COLUMN).iloc[0]  # alike in each run
                if QUERIES_COLUMN in part_sums.columns:
                    query_ids = part_sums.pop(QUERIES_COLUMN).iloc[0]["query"].to_numpy()
                sums[run * len(part_sums.columns) : (run + 1) * len(part_sums.columns)] = [
                    float(value) for value in part_sums.iloc[0].to_numpy()
                ]
        except (TypeError, ValueError) as raised:
            error = f"{type(raised).__name__}{ERROR_SEPARATOR}{raised}"
    pairs = zip(statistics, sums, strict=True)
    row: dict[str, list[Any]] = {name: [value] for name, value in pairs}
    row[WARNINGS_FIELD] = [list(recorded)]
    row[ERROR_FIELD] = [error]
    row[DESCRIPTIONS_FIELD] = [descriptions]
    if listed:
        row[QUERIES_FIELD] = [query_ids]
    return pd.DataFrame(row)


def bucket_table(
    rows: pd.DataFrame,
    plans: Sequence[PartitionPlan],
    runs: tuple[str, ...] | None,
    out: list[str],
) -> pd.DataFrame:
    """The per-query values of one bucket, run after run (see :func:`per_query_frame`)."""
    tables = []
    for plan in plans:
        if not len(rows):
            continue
        query_ids, results = partition_details(rows, plan)
        # object, not pandas 3's Arrow-backed str, which pyspark 4.3 cannot convert
        columns: dict[str, Any] = {"query": pd.Series(query_ids, dtype=id_dtype(query_ids))}
        if runs is not None:
            columns["run"] = np.full(len(query_ids), plan.y_score, dtype=object)
        if plan.call.sample_weight is not None:
            first = rows.groupby(plan.call.group, sort=False)[plan.call.sample_weight].first()
            columns["weight"] = first.reindex(query_ids).to_numpy(dtype=float)
        for index, metric in enumerate(results):
            columns[f"v{index}"] = metric.values
            columns[f"k{index}"] = metric.skipped
        tables.append(pd.DataFrame(columns).astype({"run": object} if runs else {}))
    if not tables:
        return pd.DataFrame({name: [] for name in out})
    return pd.concat(tables, ignore_index=True)
