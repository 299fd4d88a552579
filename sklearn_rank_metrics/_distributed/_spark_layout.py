"""Where the queries of a Spark DataFrame sit: the ``"auto"`` check (one job over
the query ids) and the exact search for a query in two partitions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ._layout import group_range, query_parts, ranges_are_disjoint
from ._plan import PartitionPlan
from ._spark_sql import column, id_dtype, quiet_pandas_udfs


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
        yield pairs.astype({"query": id_dtype(pairs["query"].to_numpy())})

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


def repartition_hint(plan: PartitionPlan) -> str:
    return f"df.repartition({plan.call.group!r})"
