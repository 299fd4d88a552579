"""Where the queries sit: does every query's rows lie in one partition?

Two answers, both from the query ids alone: the partitions' ``[min, max]`` id ranges
(disjoint ranges prove it: the ``"auto"`` check), and each partition's distinct ids
compared (exact: the ``partitioned_by_query=True`` check), with the error that names
a query found in two partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._engine._plain import plain
from ._plan import PartitionPlan


def group_range(series: pd.Series | pd.Index) -> tuple[int, Any, Any]:
    """Number of rows, smallest and largest query id of one partition's group column."""
    if len(series) == 0:
        return 0, None, None
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = pd.Series(np.asarray(series.unique()))
    return len(series), series.min(), series.max()


def ranges_are_disjoint(ranges: Sequence[tuple[int, Any, Any]]) -> bool:
    """Whether the ``[low, high]`` id ranges of the non-empty partitions do not overlap.

    Disjoint ranges prove that no query id occurs in two partitions. Overlapping
    ranges prove nothing (hash-partitioned data overlaps), and the caller shuffles.
    """
    spans = [(low, high) for n_rows, low, high in ranges if n_rows]
    try:
        if any(pd.isna(low) or pd.isna(high) for low, high in spans):
            return False
        spans.sort(key=lambda span: span[0])
        return all(left[1] < right[0] for left, right in zip(spans[:-1], spans[1:], strict=True))
    except TypeError:  # ids that cannot be compared (e.g. ints and strings)
        return False


# ------------------------------------------- is any query in two partitions? (exact)
# Each partition lists its distinct query ids (one row per query, not per row), with its
# number; one task compares the lists. With ``partitioned_by_query=True`` the lists
# ride with the partitions' sums (the ranking has the ids already: no extra pass).

QUERIES_COLUMN = "__sklearn_rank_metrics_queries__"  # a partition's query_parts frame


def query_parts(ids: pd.Series | pd.Index | np.ndarray, part: int) -> pd.DataFrame:
    """The distinct query ids of one partition, each with the partition's number.

    Categorical ids become their values (two partitions may code one id
    differently), text ids Python strings (object dtype). Null ids are left out:
    the evaluation refuses them itself.
    """
    values = ids if isinstance(ids, pd.Series) else pd.Series(ids)
    if isinstance(values.dtype, pd.CategoricalDtype) or values.dtype.kind in "OSUT":
        values = values.astype(object)
    unique = pd.unique(values.dropna().to_numpy())
    return pd.DataFrame({"query": unique, "part": np.full(len(unique), part, dtype=np.int64)})


def first_shared_query(lists: Sequence[pd.DataFrame]) -> tuple[Any, int, int] | None:
    """The smallest query id found in two of the partitions' :func:`query_parts`
    frames, with the smallest two of its partitions; None when no id is.
    """
    pairs = pd.concat(list(lists), ignore_index=True) if len(lists) else None
    if pairs is None or not len(pairs):
        return None
    shared = pairs[pairs["query"].duplicated(keep=False)]
    if not len(shared):
        return None
    try:
        shared = shared.sort_values(["query", "part"], kind="stable")
    except TypeError:  # ids that do not compare (ints and strings in one column)
        shared = shared.sort_values("part", kind="stable")
    query = shared["query"].iloc[0]
    parts = shared.loc[shared["query"] == query, "part"].to_numpy()
    return query, int(parts[0]), int(parts[1])


def split_query_error(
    found: tuple[Any, int, int] | None, plan: PartitionPlan, repartition: str
) -> ValueError | None:
    """The error for ``partitioned_by_query=True`` when a query was ``found`` in two
    partitions (``(query, part, other)``, ``query`` None when not known), else None."""
    if found is None:
        return None
    query, part, other = found
    where = (
        f"query {plain(query)!r} has rows in {plan.part}s {part} and {other}"
        if query is not None
        else f"some query has rows in two {plan.part}s"
    )
    return ValueError(
        f"The 'partitioned_by_query' parameter of {plan.call.caller} is True, but {where} of "
        f"the {plan.frame_kind}: each {plan.part} would score its own rows of it as a "
        "separate query, and the means would be wrong. Leave partitioned_by_query at "
        "'auto' (or pass False) to shuffle the rows by query, or repartition the data "
        f"by query first ({repartition})."
    )
