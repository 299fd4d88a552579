"""The Dask half of :mod:`sklearn_rank_metrics.dask`: the frame and its columns checked,
the rows shuffled by query when needed, and the partitions' sums (or per-query values)
computed where the rows are.

The formulas are not here: every partition runs :mod:`._partition`, the in-memory
kernels on whole queries.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd

from ._call import DistributedCall, judged_column
from ._layout import (
    QUERIES_COLUMN,
    first_shared_query,
    group_range,
    query_parts,
    ranges_are_disjoint,
    split_query_error,
)
from ._means import Totals, combined_sums, means
from ._partition import (
    DESCRIPTIONS_COLUMN,
    WARNINGS_COLUMN,
    add_row_order,
    partition_sums,
    partition_table,
)
from ._plan import PartitionPlan
from ._worker_warnings import captured_warnings, warn_once


def _check_column(ddf: Any, parameter: str, column: Any, *, index_allowed: bool) -> bool:
    """Whether ``column`` names the index (only for ``group``); error if it names nothing."""
    if not isinstance(column, Hashable):  # an array where a column name belongs
        raise TypeError(
            f"The {parameter!r} parameter of evaluate must name a column of the Dask "
            f"DataFrame (a column label); got {type(column).__name__}."
        )
    if column in ddf.columns:
        return False
    if index_allowed and column is not None and column == ddf.index.name:
        return True
    listed = ", ".join(repr(name) for name in list(ddf.columns)[:20])
    more = ", ..." if len(ddf.columns) > 20 else ""
    index = f"; its index is named {ddf.index.name!r}" if ddf.index.name is not None else ""
    raise ValueError(
        f"The {parameter!r} parameter of evaluate names column {column!r}, which the Dask "
        f"DataFrame does not have. Its columns are {listed}{more}{index}."
    )


def dask_means(ddf: Any, call: DistributedCall, *, compute: bool) -> Any:
    """``sklearn_rank_metrics.dask.evaluate``: the means, or a Delayed of them."""
    prepared, plan = _prepared(ddf, call, check_now=False)
    # with partitioned_by_query=True, the ranking lists each partition's queries: one
    # task adds the sums and compares the lists
    totals = _totals(prepared, plan, check=call.partitioned_by_query is True)
    if not compute:
        return dask.delayed(_means, pure=True)(totals, plan)
    return _means(totals.compute(), plan)


def dask_table(ddf: Any, call: DistributedCall) -> Any:
    """``sklearn_rank_metrics.dask.evaluate_per_query``: a lazy per-query table."""
    prepared, plan = _prepared(ddf, call, check_now=True)
    meta = partition_table(prepared._meta, plan)
    return prepared.map_partitions(partition_table, plan, meta=meta, clear_divisions=True)


def _prepared(ddf: Any, call: DistributedCall, *, check_now: bool) -> tuple[Any, PartitionPlan]:
    """Check the frame and its columns, keep only those needed, and shuffle by query
    if needed: the steps of every Dask call.

    ``check_now``: with ``partitioned_by_query=True``, look for a query in two
    partitions now (else the caller looks for it with the sums).
    """
    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(
            "The 'ddf' parameter of evaluate must be a dask.dataframe.DataFrame; got "
            f"{type(ddf).__name__}. For data in memory use sklearn_rank_metrics.evaluate, "
            "or wrap a pandas DataFrame with dask.dataframe.from_pandas."
        )
    group = call.group
    group_on_index = _checked_columns(ddf, call)
    value_columns = call.value_columns([call.y_score])
    if call.partitioned_by_query == "auto":
        shuffle = not _ranges_are_disjoint(ddf, group, on_index=group_on_index)
    else:
        shuffle = not call.partitioned_by_query
    if group_on_index and shuffle:  # the index becomes a column, shuffled as one
        ddf = ddf.reset_index()
        group_on_index = False
    if group_on_index:
        prepared = ddf[value_columns]
    else:
        prepared = ddf[list(dict.fromkeys([group, *value_columns]))]
    row_order = shuffle and call.needs_row_order()
    if row_order:
        prepared = prepared.map_partitions(add_row_order)
    if shuffle:
        prepared = prepared.shuffle(on=group)
    plan = PartitionPlan(
        call,
        y_score=call.y_score,
        group_on_index=group_on_index,
        row_order=row_order,
        part="partition",
        frame_kind="Dask DataFrame",
    )
    if call.partitioned_by_query is True and ddf.npartitions > 1 and check_now:
        error = split_query_error(
            _shared_query(ddf, group, on_index=group_on_index), plan, f"ddf.shuffle(on={group!r})"
        )
        if error is not None:
            raise error
    return prepared, plan


def _checked_columns(ddf: Any, call: DistributedCall) -> bool:
    """Whether the group is the index, once every column named is checked (an error
    names the parameter)."""
    group_on_index = _check_column(ddf, "group", call.group, index_allowed=True)
    _check_column(ddf, "y_true", call.y_true, index_allowed=False)
    _check_column(ddf, "y_score", call.y_score, index_allowed=False)
    if call.sample_weight is not None:
        _check_column(ddf, "sample_weight", call.sample_weight, index_allowed=False)
    if judged_column(call.judged) is not None:
        _check_column(ddf, "judged", call.judged, index_allowed=False)
    if call.doc_id is not None:
        _check_column(ddf, "doc_id", call.doc_id, index_allowed=False)
    return group_on_index


def _ranges_are_disjoint(ddf: Any, group: Any, *, on_index: bool = False) -> bool:
    """One pass over the group column (or index): are the partitions' id ranges disjoint?

    Known divisions are not trusted instead: ``read_parquet(calculate_divisions=True)``
    reports the files' minima as divisions even when a boundary id occurs in two files.
    """
    if ddf.npartitions == 1:
        return True
    parts = (ddf.index if on_index else ddf[group]).to_delayed()
    ranges = dask.compute(*[dask.delayed(group_range)(part) for part in parts])
    return ranges_are_disjoint(ranges)


def _totals(prepared: Any, plan: PartitionPlan, *, check: bool) -> Any:
    """A delayed :class:`~._means.Totals` of every partition."""
    check = check and prepared.npartitions > 1
    meta = pd.DataFrame({column: pd.Series([], dtype=float) for column in plan.statistic_columns()})
    for column in (DESCRIPTIONS_COLUMN, WARNINGS_COLUMN, QUERIES_COLUMN if check else None):
        if column is not None:
            meta[column] = pd.Series([], dtype=object)
    sums = prepared.map_partitions(_partition_sums, plan, check, meta=meta, clear_divisions=True)
    return dask.delayed(combined_sums, pure=True)(sums.to_delayed(), plan)


def _partition_sums(
    frame: pd.DataFrame, plan: PartitionPlan, check: bool, partition_info: dict | None = None
) -> pd.DataFrame:
    """:func:`partition_sums` of one partition, with the warnings it raised (emitted
    once per call by :func:`_means`) and, when ``check``, its queries."""
    part = None
    if check:
        part = 0 if partition_info is None else int(partition_info["number"])
    with captured_warnings() as recorded:
        sums = partition_sums(frame, plan, part)
    sums.insert(len(plan.statistic_columns()) + 1, WARNINGS_COLUMN, pd.Series([recorded]))
    return sums


def _means(totals: Totals, plan: PartitionPlan) -> dict[str, float]:
    """:func:`means` of the summed statistics, unless a query was found in two
    partitions; the partitions' warnings are emitted once each, as in memory."""
    error = split_query_error(totals.found, plan, f"ddf.shuffle(on={plan.call.group!r})")
    if error is not None:
        raise error
    warn_once(totals.warnings, plan, totals.n_parts)
    return means(totals.sums, plan, totals.descriptions)


def _partition_queries(ids: Any, partition_info: dict | None = None) -> pd.DataFrame:
    """:func:`query_parts` of one partition, numbered by Dask."""
    return query_parts(ids, 0 if partition_info is None else int(partition_info["number"]))


def _shared_query(ddf: Any, group: Any, *, on_index: bool) -> tuple[Any, int, int] | None:
    """The first query id found in two partitions, with two of them; None if none is.

    Exact: each partition lists its distinct ids (one row per query), and one task
    compares the lists (memory for one id per query and partition, on a worker).
    """
    ids = ddf.index if on_index else ddf[group]
    meta = query_parts(ids._meta, 0)
    lists = ids.map_partitions(_partition_queries, meta=meta, clear_divisions=True)
    return dask.delayed(first_shared_query, pure=True)(lists.to_delayed()).compute()
