"""One Spark call planned on the driver: the columns to read, the shuffle or not, and a
:class:`~._plan.PartitionPlan` per run (score column)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .._engine._caller import caller_name
from .._metrics._settings import Settings
from ._call import checked_metric_names, needs_row_order
from ._layout import split_query_error
from ._partition import ROW_ORDER_COLUMN
from ._plan import STATISTICS, PartitionPlan, judged_column
from ._spark_checks import check_columns, check_frame, score_columns
from ._spark_layout import query_ranges_are_disjoint, repartition_hint, shared_query
from ._spark_sql import column


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
        error = split_query_error(shared_query(df, plan.group), plan, repartition_hint(plan))
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
    check_columns(df, arguments, scores)
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
