"""One Spark call planned on the driver: the columns to read, the shuffle or not, and a
:class:`~._plan.PartitionPlan` per run (score column)."""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ._call import DistributedCall
from ._layout import split_query_error
from ._partition import ROW_ORDER_COLUMN
from ._plan import STATISTICS, PartitionPlan
from ._spark_checks import check_columns, score_columns
from ._spark_layout import query_ranges_are_disjoint, repartition_hint, shared_query
from ._spark_sql import column


@dataclass(frozen=True)
class SparkJob:
    """One call's Spark job, ready to run: the rows to read and what each bucket computes.

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
            for index in range(len(self.plans[0].call.metrics))
            for number in range(len(STATISTICS))
        ]


def spark_job(df: DataFrame, call: DistributedCall, *, check_now: bool = True) -> SparkJob:
    """Check the columns on the driver (no Spark job), then plan the call's job.

    ``check_now=False`` leaves the ``partitioned_by_query=True`` check to
    :func:`~._spark_run.collect_means`, which makes it in the same job as the sums.
    """
    scores, several = score_columns(call.y_score)
    check_columns(df, call, scores)
    return _prepared(df, call, scores=scores, several=several, check_now=check_now)


def _prepared(
    df: DataFrame, call: DistributedCall, *, scores: list[str], several: bool, check_now: bool
) -> SparkJob:
    """Keep the needed columns, add the row key if needed, and decide on the shuffle.

    ``check_now``: with ``partitioned_by_query=True``, look for a query in two
    partitions now (one Spark job), else with the sums (:func:`collect_means`).
    """
    group = call.group
    needed = list(dict.fromkeys([group, *call.value_columns(scores)]))
    if call.partitioned_by_query == "auto":
        shuffle = not query_ranges_are_disjoint(df, group)
    else:
        shuffle = not call.partitioned_by_query
    # the row key (ties="input") only after a shuffle, which keeps no order
    row_order = shuffle and call.needs_row_order()
    plans = tuple(
        PartitionPlan(
            call,
            y_score=score,
            group_on_index=False,
            row_order=row_order,
            part="bucket" if shuffle else "partition",
            frame_kind="Spark DataFrame",
        )
        for score in scores
    )
    if call.partitioned_by_query is True and check_now:
        error = split_query_error(shared_query(df, group), plans[0], repartition_hint(plans[0]))
        if error is not None:
            raise error
    frame = df.select(*(column(name) for name in needed))
    if row_order:  # before the exchange, which keeps no order
        frame = frame.withColumn(ROW_ORDER_COLUMN, F.monotonically_increasing_id())
    buckets = call.buckets
    if shuffle and buckets is None:
        buckets = int(df.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)
    return SparkJob(
        frame=frame,
        plans=plans,
        runs=tuple(scores) if several else None,
        buckets=buckets if shuffle else None,
        group_type=df.schema[group].dataType,
        check_split=call.partitioned_by_query is True and not check_now,
    )
