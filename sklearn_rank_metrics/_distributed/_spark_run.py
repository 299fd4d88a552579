"""The Spark jobs of one call: every bucket (or partition) runs :mod:`._partition`,
the in-memory kernels on whole queries, and sends back a few sums (or its per-query
values); the driver forms the means.

The formulas are not here: the jobs only move rows so that each query's rows meet in
one pandas frame, and move back a few sums (or per-query values).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .._stats._per_query_values import PerQueryValues
from ._call import DistributedCall
from ._layout import split_query_error
from ._means import descriptions_of, means
from ._plan import STATISTICS
from ._spark_buckets import (
    DESCRIPTIONS_FIELD,
    ERROR_FIELD,
    ERROR_SEPARATOR,
    QUERIES_FIELD,
    WARNINGS_FIELD,
    bucket_sums,
    bucket_table,
)
from ._spark_layout import repartition_hint, shared_query
from ._spark_prepare import SparkJob, spark_job
from ._spark_sql import column, quiet_pandas_udfs
from ._worker_warnings import warn_once

BUCKET_COLUMN = "__sklearn_rank_metrics_bucket__"
_PARTS = "__parts__"  # the buckets that held rows (in the collected total)


def spark_means(df: DataFrame, call: DistributedCall) -> dict[str, Any]:
    """``sklearn_rank_metrics.spark.evaluate``: ``{metric: mean}``, or with several score
    columns ``{column: {metric: mean}}``. One Spark job (two with the ``"auto"`` check)."""
    job = spark_job(df, call, check_now=False)  # checked with the sums
    results = collect_means(job)
    if job.runs is None:
        return results[0]
    return dict(zip(job.runs, results, strict=True))


def spark_table(df: DataFrame, call: DistributedCall) -> DataFrame:
    """``sklearn_rank_metrics.spark.evaluate_per_query``: the lazy per-query table."""
    return per_query_frame(spark_job(df, call), call.metrics)


def spark_values(df: DataFrame, call: DistributedCall) -> PerQueryValues:
    """``sklearn_rank_metrics.spark.per_query_values``: :func:`spark_table` collected
    (one row per query and run), as :class:`PerQueryValues`."""
    table = spark_table(df, call)
    several = not isinstance(call.y_score, str)
    names = [name for name in table.columns if name not in ("query", "run", "weight")]
    collected = PerQueryValues.from_frame(
        table.toArrow(),
        run="run" if several else None,
        weight="weight" if call.sample_weight is not None else None,
        metrics=names,
        runs=list(call.y_score) if several else None,
        replace_undefined_by=call.shared.replace_undefined_by,
        convention=call.shared.convention,
    )
    # Arrow is only the way the queries travel: the tables of compare and
    # ranking_report follow the package's rule for input that is not a frame (pandas)
    return dataclasses.replace(collected, frame_library=None)


def _each_part(job: SparkJob, function: Callable[[pd.DataFrame], pd.DataFrame], schema: Any):
    """``function`` on the rows of each bucket (after a shuffle) or each partition."""
    if job.buckets is None:
        columns = job.frame.columns

        def whole_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            frames = list(batches)  # every Arrow batch of the partition: all its rows
            rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
                {name: [] for name in columns}
            )
            yield function(rows)

        with quiet_pandas_udfs():
            return job.frame.mapInPandas(whole_partition, schema)
    bucket = F.pmod(F.xxhash64(column(job.plans[0].call.group)), F.lit(job.buckets))
    keyed = job.frame.withColumn(BUCKET_COLUMN, bucket)
    with quiet_pandas_udfs():
        return keyed.groupBy(BUCKET_COLUMN).applyInPandas(function, schema)


def collect_means(job: SparkJob) -> list[dict[str, float]]:
    """Each run's ``{metric: mean}``, from the sums of every bucket.

    The buckets' rows (one per non-empty bucket or partition: a few floats per metric
    and its warnings) are collected and added on the driver, as Dask adds its
    partitions' rows: no aggregation stage after the Python one.
    """
    statistics = job.statistic_columns()
    fields = [T.StructField(name, T.DoubleType()) for name in statistics] + [
        T.StructField(WARNINGS_FIELD, T.ArrayType(T.StringType())),
        T.StructField(ERROR_FIELD, T.StringType()),
        T.StructField(DESCRIPTIONS_FIELD, T.StringType()),
    ]
    listed = job.check_split and job.buckets is None
    if listed:
        fields.append(T.StructField(QUERIES_FIELD, T.ArrayType(job.group_type)))
    plans = job.plans
    sums = _each_part(
        job, lambda rows: bucket_sums(rows, plans, statistics, listed), T.StructType(fields)
    )
    total = _listed_total(sums, statistics, job) if listed else _total(sums, statistics)
    warn_once(total[WARNINGS_FIELD], plans[0], total[_PARTS])
    if total[ERROR_FIELD] is not None:
        kind, _, message = total[ERROR_FIELD].partition(ERROR_SEPARATOR)
        raise (TypeError if kind == "TypeError" else ValueError)(message)
    n_columns = len(plans[0].call.metrics) * len(STATISTICS)
    results = []
    for run, plan in enumerate(plans):
        names = statistics[run * n_columns : (run + 1) * n_columns]
        pairs = zip(plan.statistic_columns(), names, strict=True)
        sums_of_run = {key: total[name] for key, name in pairs}
        results.append(means(sums_of_run, plan, descriptions_of([total[DESCRIPTIONS_FIELD]], plan)))
    return results


def _ran(statistics: list[str]) -> tuple[str, str]:
    """The columns of the first metric's kept and skipped queries: a bucket whose
    sum of the two is not 0 held rows."""
    return statistics[STATISTICS.index("n_kept")], statistics[STATISTICS.index("n_skipped")]


def _total(sums: DataFrame, statistics: list[str]) -> dict[str, Any]:
    """The buckets' rows, collected: each statistic's sum, every warning, the first error."""
    rows = sums.collect()
    columns = np.array(
        [[row[name] for name in statistics] for row in rows], dtype=float
    ).reshape(len(rows), len(statistics))  # no row: no bucket ran (no rows at all)
    with np.errstate(over="ignore"):  # an overflowing sum is handled by means
        total: dict[str, Any] = dict(zip(statistics, columns.sum(axis=0), strict=True))
    total[WARNINGS_FIELD] = [text for row in rows for text in row[WARNINGS_FIELD] or []]
    errors = [row[ERROR_FIELD] for row in rows if row[ERROR_FIELD] is not None]
    total[ERROR_FIELD] = min(errors) if errors else None
    total[DESCRIPTIONS_FIELD] = max((row[DESCRIPTIONS_FIELD] or "" for row in rows), default="")
    kept, skipped = _ran(statistics)
    total[_PARTS] = sum(1 for row in rows if (row[kept] or 0) + (row[skipped] or 0) > 0)
    return total


def _listed_total(sums: DataFrame, statistics: list[str], job: SparkJob) -> dict[str, Any]:
    """:func:`_total` where each partition also listed its distinct query ids: Spark adds
    the sums and counts the ids (listed more often than once distinct: an id is in two
    partitions, an error), so that the lists never reach the driver."""
    every = F.flatten(F.collect_list(QUERIES_FIELD))
    kept, skipped = _ran(statistics)
    queries = F.coalesce(column(kept), F.lit(0.0)) + F.coalesce(column(skipped), F.lit(0.0))
    ran = F.when(queries > 0, 1)  # counted where it held rows (null elsewhere)
    total = sums.agg(
        *(F.sum(name).alias(name) for name in statistics),
        F.flatten(F.collect_list(WARNINGS_FIELD)).alias(WARNINGS_FIELD),
        F.min(ERROR_FIELD).alias(ERROR_FIELD),
        F.max(DESCRIPTIONS_FIELD).alias(DESCRIPTIONS_FIELD),
        F.count(ran).alias(_PARTS),
        F.size(every).alias("n"),
        F.size(F.array_distinct(every)).alias("distinct"),
    ).collect()[0]  # an aggregation without groupBy: one row
    if total["n"] != total["distinct"]:
        plan = job.plans[0]
        found = shared_query(job.frame, plan.call.group) or (None, 0, 0)
        raise split_query_error(found, plan, repartition_hint(plan))  # type: ignore[misc]
    result = total.asDict()
    result[WARNINGS_FIELD] = result[WARNINGS_FIELD] or []
    return result


def per_query_frame(job: SparkJob, names: Sequence[str]) -> DataFrame:
    """One row per query (and run): ``query``, ``run``, ``weight``, one column per metric.

    A value is null where the query was skipped (``replace_undefined_by="skip"``),
    NaN where the ``nan`` policy made it NaN (the bucket returns a NaN as a null,
    which Arrow makes of it, and a flag saying which nulls were skipped).
    """
    plan = job.plans[0]
    fields = [T.StructField("query", job.group_type)]
    if job.runs is not None:
        fields.append(T.StructField("run", T.StringType()))
    if plan.call.sample_weight is not None:
        fields.append(T.StructField("weight", T.DoubleType()))
    for index in range(len(names)):
        fields += [
            T.StructField(f"v{index}", T.DoubleType()),
            T.StructField(f"k{index}", T.BooleanType()),
        ]
    plans, runs = job.plans, job.runs
    out = [field.name for field in fields]
    table = _each_part(
        job, lambda rows: bucket_table(rows, plans, runs, out), T.StructType(fields)
    )
    nan, null = F.lit(float("nan")), F.lit(None).cast(T.DoubleType())
    values = [
        F.when(F.col(f"k{index}"), null)
        .when(F.col(f"v{index}").isNull(), nan)
        .otherwise(F.col(f"v{index}"))
        .alias(name)
        for index, name in enumerate(names)
    ]
    keys = [field.name for field in fields[: len(fields) - 2 * len(names)]]
    return table.select(*keys, *values)
