"""The Spark half of :mod:`sklearn_rank_metrics.spark`: checks on the driver, the plan of
one call, and what each bucket of rows runs in a Python worker.

The formulas are not here: every bucket runs :mod:`._partitions` (what each Dask
partition runs), that is the in-memory kernels on whole queries. This module only
moves rows so that each query's rows meet in one pandas frame, and moves back a few
sums (or per-query values). It uses the DataFrame API only (no RDD, no
``SparkContext``), so that Spark Connect is not excluded.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ._distributed._call import checked_metric_names, needs_row_order
from ._distributed._layout import (
    QUERIES_COLUMN,
    group_range,
    query_parts,
    ranges_are_disjoint,
    split_query_error,
)
from ._distributed._means import descriptions_of, means
from ._distributed._partition import (
    DESCRIPTIONS_COLUMN,
    ROW_ORDER_COLUMN,
    partition_details,
    partition_sums,
)
from ._distributed._plan import STATISTICS, PartitionPlan, judged_column
from ._distributed._worker_warnings import captured_warnings, warn_once
from ._engine._caller import caller_name
from ._io._frames import refuse_shared_columns
from ._metrics._settings import Settings

BUCKET_COLUMN = "__sklearn_rank_metrics_bucket__"
_ERROR = "__error__"  # "<TypeError or ValueError>\x1f<message>" of a bucket, or null
_WARNINGS = "__warnings__"  # the warnings a bucket raised (see captured_warnings)
_QUERIES = "__queries__"  # a partition's distinct query ids (partitioned_by_query=True)
_DESCRIPTIONS = "__descriptions__"  # per metric, what makes a query undefined
_PARTS = "__parts__"  # the buckets that held rows (in the collected total)
_SEPARATOR = "\x1f"


@dataclass(frozen=True)
class SparkCall:
    """One call, ready to run: the rows to read and what each bucket computes.

    Attributes
    ----------
    frame : pyspark.sql.DataFrame
        The needed columns (and the row key when ``ties="input"`` meets a shuffle).
    plans : tuple of PartitionPlan
        One per run (score column).
    runs : tuple of str or None
        The score columns when ``y_score`` named several, else None.
    buckets : int or None
        Hash buckets of query ids to shuffle into; None: the partitions hold whole
        queries already and are read where they are.
    group_type : pyspark.sql.types.DataType
        The type of the query id column.
    check_split : bool
        ``partitioned_by_query=True``, not checked yet: the job that forms the
        sums also makes sure that no query id occurs in two partitions.
    """

    frame: DataFrame
    plans: tuple[PartitionPlan, ...]
    runs: tuple[str, ...] | None
    buckets: int | None
    group_type: T.DataType
    check_split: bool = False

    def statistic_columns(self) -> list[str]:
        """The sums' columns, run by run: ``s<run>_<metric>_<statistic>``."""
        return [
            f"s{run}_{index}_{number}"
            for run in range(len(self.plans))
            for index in range(len(self.plans[0].metrics))
            for number in range(len(STATISTICS))
        ]


# --------------------------------------------------------------------------- driver


@contextmanager
def quiet_pandas_udfs() -> Iterator[None]:
    """Around this module's ``mapInPandas`` and ``applyInPandas`` calls: without pyspark's
    ``FutureWarning`` "PySpark does not yet fully support pandas >= 3.0.0".

    pyspark 4 checks the pandas version each time it makes a pandas UDF (those two
    methods make one per call) and warns under pandas 3, so every call of this
    package printed it. The code it runs here is tested on pandas 3. Only that
    message, raised from pyspark's own modules, inside these calls, is ignored: the
    filters are restored on the way out (the user's own pandas UDFs, and pyspark's
    check when a session starts, still warn).
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore",
            message="PySpark does not yet fully support pandas",
            category=FutureWarning,
            module=r"pyspark\.",
        )
        yield


def column(name: str) -> Any:
    """``F.col`` of a column named ``name`` exactly (dots and backticks included)."""
    return F.col("`" + name.replace("`", "``") + "`")


def check_frame(df: Any, parameter: str = "df") -> None:
    if not isinstance(df, DataFrame):
        raise TypeError(
            f"The {parameter!r} parameter of {caller_name()} must be a pyspark.sql.DataFrame; got "
            f"{type(df).__name__}. For data in memory use sklearn_rank_metrics.evaluate, "
            "or make one with spark.createDataFrame."
        )


def check_column(df: DataFrame, parameter: str, name: Any, kinds: tuple[type, ...]) -> None:
    """Error naming ``parameter`` unless ``name`` is a column of ``df`` of one of ``kinds``."""
    if not isinstance(name, str) or name not in df.columns:
        listed = ", ".join(repr(existing) for existing in df.columns[:20])
        more = ", ..." if len(df.columns) > 20 else ""
        raise ValueError(
            f"The {parameter!r} parameter of {caller_name()} names column {name!r}, which "
            f"the Spark DataFrame does not have. Its columns are {listed}{more}."
        )
    data_type = df.schema[name].dataType
    if not isinstance(data_type, kinds):
        wanted = " or ".join(_TYPE_WORDS[kind] for kind in kinds)
        raise TypeError(
            f"The {parameter!r} parameter of {caller_name()} names column {name!r} of type "
            f"{data_type.simpleString()}; it must hold {wanted}."
        )


_TYPE_WORDS: dict[type, str] = {
    T.NumericType: "numbers",
    T.BooleanType: "booleans",
    T.AtomicType: "ids (numbers or strings)",
}
NUMBERS = (T.NumericType,)
LABELS = (T.NumericType, T.BooleanType)
IDS = (T.AtomicType,)


def score_columns(y_score: Any) -> tuple[list[str], bool]:
    """The score columns, and whether ``y_score`` named several (one run each)."""
    if isinstance(y_score, str):
        return [y_score], False
    if not isinstance(y_score, (list, tuple)) or not y_score:
        raise TypeError(
            f"The 'y_score' parameter of {caller_name()} must be a column name or a "
            f"non-empty list of column names (one run each); got {y_score!r}."
        )
    if len(set(y_score)) != len(y_score):
        raise ValueError(
            f"The 'y_score' parameter of {caller_name()} names a column more than once: "
            f"{list(y_score)!r}."
        )
    return list(y_score), True


def query_ranges_are_disjoint(df: DataFrame, group: str) -> bool:
    """One pass over the query ids: are the partitions' id ranges disjoint?

    The ranges come from ``mapInPandas``, the operator that reads the partitions
    afterwards (an aggregation of ``spark_partition_id()`` can be folded on the
    driver for local data, and then sees one partition). Three values per
    partition reach the driver.
    """
    id_type = df.schema[group].dataType
    schema = T.StructType(
        [
            T.StructField("n", T.LongType()),
            T.StructField("low", id_type),
            T.StructField("high", id_type),
        ]
    )

    def id_range(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        ids = [batch[group] for batch in batches]
        n_rows, low, high = group_range(pd.concat(ids) if ids else pd.Series([], dtype=object))
        yield pd.DataFrame({"n": [n_rows], "low": [low], "high": [high]})

    with quiet_pandas_udfs():
        per_partition = df.select(column(group)).mapInPandas(id_range, schema)
    ranges = [(row["n"], row["low"], row["high"]) for row in per_partition.collect()]
    return ranges_are_disjoint(ranges)


def shared_query(df: DataFrame, group: str) -> tuple[Any, int, int] | None:
    """The smallest query id found in two partitions of ``df``, with the first and
    last of them; None when every query sits in one partition.

    Exact: each partition's distinct ids (one row per query and partition, read by
    ``mapInPandas``, the operator that reads the partitions afterwards) are grouped
    by id where they are (a shuffle of one row per query); one row reaches the driver.
    """
    schema = T.StructType(
        [
            T.StructField("query", df.schema[group].dataType),
            T.StructField("part", T.LongType()),
        ]
    )

    def partition_queries(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        from pyspark import TaskContext

        context = TaskContext.get()
        ids = [batch[group] for batch in batches]
        pairs = query_parts(
            pd.concat(ids) if ids else pd.Series([], dtype=object),
            0 if context is None else context.partitionId(),
        )
        yield pairs.astype({"query": _id_dtype(pairs["query"].to_numpy())})

    with quiet_pandas_udfs():
        pairs = df.select(column(group)).mapInPandas(partition_queries, schema)
    shared = (
        pairs.groupBy("query")
        .agg(F.count("*").alias("n"), F.min("part").alias("part"), F.max("part").alias("other"))
        .where(F.col("n") > 1)
        .orderBy("query")
        .limit(1)
        .collect()
    )
    return (shared[0]["query"], shared[0]["part"], shared[0]["other"]) if shared else None


def prepare(
    df: DataFrame,
    plan: PartitionPlan,
    *,
    scores: list[str],
    several: bool,
    partitioned_by_query: bool | str,
    buckets: int | None,
    check_now: bool = True,
) -> SparkCall:
    """Keep the needed columns, add the row key if needed, and decide on the shuffle.

    ``check_now``: with ``partitioned_by_query=True``, look for a query in two
    partitions now (one Spark job), else with the sums (:func:`collect_means`).
    """
    values = [plan.y_true, *scores, plan.sample_weight, plan.doc_id]
    if judged_column(plan.judged) is not None:
        values.append(plan.judged)
    needed = list(dict.fromkeys(name for name in [plan.group, *values] if name is not None))
    if partitioned_by_query == "auto":
        shuffle = not query_ranges_are_disjoint(df, plan.group)
    else:
        shuffle = not partitioned_by_query
    if partitioned_by_query is True and check_now:
        error = split_query_error(shared_query(df, plan.group), plan, _repartition(plan))
        if error is not None:
            raise error
    frame = df.select(*(column(name) for name in needed))
    row_order = shuffle and needs_row_order(plan.metrics, plan.shared)
    if row_order:  # before the exchange, which keeps no order
        frame = frame.withColumn(ROW_ORDER_COLUMN, F.monotonically_increasing_id())
    if shuffle and buckets is None:
        buckets = int(df.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)
    plan = dataclasses.replace(
        plan, row_order=row_order, part="bucket" if shuffle else "partition"
    )
    plans = tuple(dataclasses.replace(plan, y_score=score) for score in scores)
    return SparkCall(
        frame=frame,
        plans=plans,
        runs=tuple(scores) if several else None,
        buckets=buckets if shuffle else None,
        group_type=df.schema[plan.group].dataType,
        check_split=partitioned_by_query is True and not check_now,
    )


def _repartition(plan: PartitionPlan) -> str:
    return f"df.repartition({plan.group!r})"


def prepared_call(
    df: Any, metrics: Any, arguments: dict[str, Any], *, check_now: bool = True
) -> SparkCall:
    """Check everything on the driver (no Spark job), then plan the call.

    ``check_now=False`` leaves the ``partitioned_by_query=True`` check to
    :func:`collect_means`, which makes it in the same job as the sums.
    """
    check_frame(df)
    names = checked_metric_names(metrics)
    shared = Settings.from_arguments(
        convention=arguments["convention"],
        ties=arguments["ties"],
        replace_undefined_by=arguments["replace_undefined_by"],
        relevance_level=arguments["relevance_level"],
    ).checked()
    scores, several = score_columns(arguments["y_score"])
    _check_columns(df, arguments, scores)
    plan = PartitionPlan(
        metrics=tuple(names),
        shared=shared,
        y_true=arguments["y_true"],
        y_score=scores[0],
        group=arguments["group"],
        sample_weight=arguments["sample_weight"],
        judged=arguments["judged"],
        group_on_index=False,
        row_order=False,
        caller=caller_name(),
        doc_id=arguments["doc_id"],
        frame_kind="Spark DataFrame",
    )
    return prepare(
        df,
        plan,
        scores=scores,
        several=several,
        partitioned_by_query=arguments["partitioned_by_query"],
        buckets=arguments["buckets"],
        check_now=check_now,
    )


def _check_columns(df: DataFrame, arguments: dict[str, Any], scores: list[str]) -> None:
    """Every column named exists and has a type the parameter takes."""
    check_column(df, "group", arguments["group"], IDS)
    check_column(df, "y_true", arguments["y_true"], LABELS)
    for score in scores:
        check_column(df, "y_score", score, NUMBERS)
    if arguments["sample_weight"] is not None:
        check_column(df, "sample_weight", arguments["sample_weight"], NUMBERS)
    if judged_column(arguments["judged"]) is not None:
        check_column(df, "judged", arguments["judged"], LABELS)
    if arguments["doc_id"] is not None:
        check_column(df, "doc_id", arguments["doc_id"], IDS)
    named = [("group", arguments["group"]), ("y_true", arguments["y_true"])]
    named += [("y_score", score) for score in scores]
    named += [(parameter, arguments[parameter]) for parameter in ("sample_weight", "doc_id")
              if arguments[parameter] is not None]
    refuse_shared_columns(named, caller_name())


def _each_part(call: SparkCall, function: Callable[[pd.DataFrame], pd.DataFrame], schema: Any):
    """``function`` on the rows of each bucket (after a shuffle) or each partition."""
    if call.buckets is None:
        columns = call.frame.columns

        def whole_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            frames = list(batches)  # every Arrow batch of the partition: all its rows
            rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
                {name: [] for name in columns}
            )
            yield function(rows)

        with quiet_pandas_udfs():
            return call.frame.mapInPandas(whole_partition, schema)
    bucket = F.pmod(F.xxhash64(column(call.plans[0].group)), F.lit(call.buckets))
    keyed = call.frame.withColumn(BUCKET_COLUMN, bucket)
    with quiet_pandas_udfs():
        return keyed.groupBy(BUCKET_COLUMN).applyInPandas(function, schema)


def collect_means(call: SparkCall) -> list[dict[str, float]]:
    """Each run's ``{metric: mean}``, from the sums of every bucket.

    The buckets' rows (one per non-empty bucket or partition: a few floats per metric
    and its warnings) are collected and added on the driver, as Dask adds its
    partitions' rows: no aggregation stage after the Python one.
    """
    statistics = call.statistic_columns()
    fields = [T.StructField(name, T.DoubleType()) for name in statistics] + [
        T.StructField(_WARNINGS, T.ArrayType(T.StringType())),
        T.StructField(_ERROR, T.StringType()),
        T.StructField(_DESCRIPTIONS, T.StringType()),
    ]
    listed = call.check_split and call.buckets is None
    if listed:
        fields.append(T.StructField(_QUERIES, T.ArrayType(call.group_type)))
    plans = call.plans
    sums = _each_part(
        call, lambda rows: bucket_sums(rows, plans, statistics, listed), T.StructType(fields)
    )
    total = _listed_total(sums, statistics, call) if listed else _total(sums, statistics)
    warn_once(total[_WARNINGS], plans[0], total[_PARTS])
    if total[_ERROR] is not None:
        kind, _, message = total[_ERROR].partition(_SEPARATOR)
        raise (TypeError if kind == "TypeError" else ValueError)(message)
    n_columns = len(plans[0].metrics) * len(STATISTICS)
    results = []
    for run, plan in enumerate(plans):
        names = statistics[run * n_columns : (run + 1) * n_columns]
        pairs = zip(plan.statistic_columns(), names, strict=True)
        sums_of_run = {key: total[name] for key, name in pairs}
        results.append(means(sums_of_run, plan, descriptions_of([total[_DESCRIPTIONS]], plan)))
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
    total[_WARNINGS] = [text for row in rows for text in row[_WARNINGS] or []]
    errors = [row[_ERROR] for row in rows if row[_ERROR] is not None]
    total[_ERROR] = min(errors) if errors else None
    total[_DESCRIPTIONS] = max((row[_DESCRIPTIONS] or "" for row in rows), default="")
    kept, skipped = _ran(statistics)
    total[_PARTS] = sum(1 for row in rows if (row[kept] or 0) + (row[skipped] or 0) > 0)
    return total


def _listed_total(sums: DataFrame, statistics: list[str], call: SparkCall) -> dict[str, Any]:
    """:func:`_total` where each partition also listed its distinct query ids: Spark adds
    the sums and counts the ids (listed more often than once distinct: an id is in two
    partitions, an error), so that the lists never reach the driver."""
    every = F.flatten(F.collect_list(_QUERIES))
    kept, skipped = _ran(statistics)
    queries = F.coalesce(column(kept), F.lit(0.0)) + F.coalesce(column(skipped), F.lit(0.0))
    ran = F.when(queries > 0, 1)  # counted where it held rows (null elsewhere)
    total = sums.agg(
        *(F.sum(name).alias(name) for name in statistics),
        F.flatten(F.collect_list(_WARNINGS)).alias(_WARNINGS),
        F.min(_ERROR).alias(_ERROR),
        F.max(_DESCRIPTIONS).alias(_DESCRIPTIONS),
        F.count(ran).alias(_PARTS),
        F.size(every).alias("n"),
        F.size(F.array_distinct(every)).alias("distinct"),
    ).collect()[0]  # an aggregation without groupBy: one row
    if total["n"] != total["distinct"]:
        plan = call.plans[0]
        found = shared_query(call.frame, plan.group) or (None, 0, 0)
        raise split_query_error(found, plan, _repartition(plan))  # type: ignore[misc]
    result = total.asDict()
    result[_WARNINGS] = result[_WARNINGS] or []
    return result


def per_query_frame(call: SparkCall, names: Sequence[str]) -> DataFrame:
    """One row per query (and run): ``query``, ``run``, ``weight``, one column per metric.

    A value is null where the query was skipped (``replace_undefined_by="skip"``),
    NaN where the ``nan`` policy made it NaN (the bucket returns a NaN as a null,
    which Arrow makes of it, and a flag saying which nulls were skipped).
    """
    plan = call.plans[0]
    fields = [T.StructField("query", call.group_type)]
    if call.runs is not None:
        fields.append(T.StructField("run", T.StringType()))
    if plan.sample_weight is not None:
        fields.append(T.StructField("weight", T.DoubleType()))
    for index in range(len(names)):
        fields += [
            T.StructField(f"v{index}", T.DoubleType()),
            T.StructField(f"k{index}", T.BooleanType()),
        ]
    plans, runs = call.plans, call.runs
    out = [field.name for field in fields]
    table = _each_part(
        call, lambda rows: bucket_table(rows, plans, runs, out), T.StructType(fields)
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


# --------------------------------------------------------------------------- workers


def bucket_sums(
    rows: pd.DataFrame,
    plans: Sequence[PartitionPlan],
    statistics: list[str],
    listed: bool = False,
) -> pd.DataFrame:
    """One row: every run's :func:`partition_sums`, the warnings raised, and the
    bucket's TypeError or ValueError (as text: the driver raises it again).

    ``listed``: then one more column, :data:`_QUERIES`, the bucket's distinct query ids.
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
            error = f"{type(raised).__name__}{_SEPARATOR}{raised}"
    pairs = zip(statistics, sums, strict=True)
    row: dict[str, list[Any]] = {name: [value] for name, value in pairs}
    row[_WARNINGS] = [list(recorded)]
    row[_ERROR] = [error]
    row[_DESCRIPTIONS] = [descriptions]
    if listed:
        row[_QUERIES] = [query_ids]
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
        columns: dict[str, Any] = {"query": pd.Series(query_ids, dtype=_id_dtype(query_ids))}
        if runs is not None:
            columns["run"] = np.full(len(query_ids), plan.y_score, dtype=object)
        if plan.sample_weight is not None:
            first = rows.groupby(plan.group, sort=False)[plan.sample_weight].first()
            columns["weight"] = first.reindex(query_ids).to_numpy(dtype=float)
        for index, metric in enumerate(results):
            columns[f"v{index}"] = metric.values
            columns[f"k{index}"] = metric.skipped
        tables.append(pd.DataFrame(columns).astype({"run": object} if runs else {}))
    if not tables:
        return pd.DataFrame({name: [] for name in out})
    return pd.concat(tables, ignore_index=True)


def _id_dtype(query_ids: np.ndarray) -> Any:
    """object for text ids (so that pandas keeps them so), else their own dtype."""
    return object if query_ids.dtype.kind in "OUS" else query_ids.dtype
