"""What each partition of a Dask or Spark DataFrame runs: the in-memory kernels on all
of its queries at once, and the means formed from the partitions' sums.

Everything here takes and returns plain pandas / NumPy objects and never imports Dask
or Spark, so worker processes only unpickle these functions and a :class:`PartitionPlan`.
A partition (a Spark bucket) holds *whole* queries (the caller guarantees it, by a
shuffle or a check), so
:func:`~sklearn_rank_metrics._engine._ranked_groups.rank_groups` sees every row of each
of its queries, and the per-query values are exactly those of the in-memory ``evaluate``.
"""

from __future__ import annotations

import builtins
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._engine import _warnings
from ._engine._caller import called_as, renamed_as
from ._engine._plain import plain
from ._engine._warnings import recorded_warnings, warn_at_caller
from ._metrics._aggregate import (
    PerQuery,
    mean_of_scaled_sum,
    scaled_sum,
    warn_every_query_undefined,
    warn_no_query_left,
)
from ._metrics._evaluate import evaluate_details, metric_names, metric_settings
from ._metrics._registry import parse_metric
from ._metrics._settings import Settings

# One row of per-partition sums per metric: these columns, in this order.
# "scaled_sum": sum(w * v) * 2**-512, for a weighted_sum that overflows (see
# sklearn_rank_metrics._metrics._aggregate.scaled_sum); "n_undefined": the queries
# undefined in every tie order (all of them: the mean measures nothing, and warns)
STATISTICS = (
    "weighted_sum", "weight", "n_kept", "n_skipped", "n_nan", "scaled_sum", "n_undefined"
)
# beside the sums: the partition's warnings (captured_warnings) and, per metric, what
# makes a query undefined (the kernel's words, for the mean's warning)
WARNINGS_COLUMN = "__sklearn_rank_metrics_warnings__"
DESCRIPTIONS_COLUMN = "__sklearn_rank_metrics_descriptions__"
_DESCRIPTIONS_SEPARATOR = "\x1e"
ROW_ORDER_COLUMN = "__sklearn_rank_metrics_row__"
_PARTITION_BITS = 32  # row position within a partition: < 2**32 rows per partition


@dataclass(frozen=True)
class PartitionPlan:
    """What every partition computes; plain values only, so that it pickles.

    Attributes
    ----------
    metrics : tuple of str
        Metric names as the user wrote them (parsed again in each partition: a
        parsed spec holds a ``MappingProxyType``, which does not pickle).
    shared : Settings
        ``convention``, ``ties``, ``replace_undefined_by`` and ``relevance_level``
        for every metric.
    y_true, y_score, group, sample_weight : column labels
        ``group`` is read from the index when ``group_on_index``.
    judged : column label, True or None
        The column saying whether each row was judged, ``True`` (every row was), or
        None (not said: the measures that read judgments refuse to run).
    group_on_index : bool
    row_order : bool
        Whether the frame carries :data:`ROW_ORDER_COLUMN` (the input row order,
        needed by ``ties="input"`` after a shuffle moved the rows).
    caller : str
        Name used in error messages.
    doc_id : column label or None
        The column of document ids (tie order of a ``convention`` whose tool orders
        tied rows by document id).
    part, frame_kind : str
        What one call of these functions sees, for messages: one ``part``
        ("partition", "bucket") of a ``frame_kind`` ("Dask DataFrame").
    """

    metrics: tuple[str, ...]
    shared: Settings
    y_true: Any
    y_score: Any
    group: Any
    sample_weight: Any
    judged: Any
    group_on_index: bool
    row_order: bool
    caller: str
    doc_id: Any = None
    part: str = "partition"
    frame_kind: str = "Dask DataFrame"

    def statistic_columns(self) -> list[str]:
        return [f"{index}:{name}" for index in range(len(self.metrics)) for name in STATISTICS]


def checked_metric_names(metrics: Any) -> list[str]:
    """The metric names, each parsed here so that a bad name fails before any task runs."""
    names = metric_names(metrics)
    for name in names:
        parse_metric(name)
    return names


def needs_row_order(names: Sequence[str], shared: Settings) -> bool:
    """Whether some metric orders tied rows by input order (``ties="input"``)."""
    return any(
        metric_settings(parse_metric(name), shared)[0].get("ties") == "input" for name in names
    )


def add_row_order(frame: pd.DataFrame, partition_info: dict | None = None) -> pd.DataFrame:
    """Append the input row order as one int64 key: partition number, then position.

    Comparing keys compares (partition, position) lexicographically, which is the
    row order of the whole Dask DataFrame, without a pass to count partition lengths.
    """
    number = 0 if partition_info is None else int(partition_info["number"])
    key = np.arange(len(frame), dtype=np.int64)
    key += np.int64(number) << _PARTITION_BITS
    return frame.assign(**{ROW_ORDER_COLUMN: key})


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
        f"The 'partitioned_by_query' parameter of {plan.caller} is True, but {where} of "
        f"the {plan.frame_kind}: each {plan.part} would score its own rows of it as a "
        "separate query, and the means would be wrong. Leave partitioned_by_query at "
        "'auto' (or pass False) to shuffle the rows by query, or repartition the data "
        f"by query first ({repartition})."
    )


def judged_column(judged: Any) -> Any:
    """The column of ``judged=``, or None when it says no column (None: judged rows
    unknown; ``True``: every row judged).

    ``True`` is recognised by identity (NumPy's bool too), never by equality: ``1``
    equals ``True`` in Python, and would be read as "every row judged" instead of as
    the column it names.
    """
    if judged is None or (isinstance(judged, (bool, np.bool_)) and bool(judged)):
        return None
    return judged


def _group_of(frame: pd.DataFrame, plan: PartitionPlan) -> pd.Series | pd.Index:
    return frame.index if plan.group_on_index else frame[plan.group]


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
    weights = None if plan.sample_weight is None else frame[plan.sample_weight]
    column = judged_column(plan.judged)
    judged = plan.judged if column is None else frame[column]
    try:
        # a worker runs outside the caller's context: the plan carries its name
        with called_as(plan.caller):
            details = evaluate_details(
                frame[plan.y_true],
                frame[plan.y_score],
                _group_of(frame, plan),
                metrics=list(plan.metrics),
                shared=plan.shared,
                sample_weight=weights,
                means=False,
                judged=judged,
                doc_id=None if plan.doc_id is None else frame[plan.doc_id],
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
    statistics = np.zeros(len(plan.metrics) * len(STATISTICS))
    query_ids: Any = np.array([], dtype=object)
    descriptions = ""
    if len(frame):
        query_ids, results = partition_details(frame, plan)
        for index, metric in enumerate(results):
            start = index * len(STATISTICS)
            statistics[start : start + len(STATISTICS)] = _metric_sums(metric)
        descriptions = _DESCRIPTIONS_SEPARATOR.join(metric.description() for metric in results)
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


def descriptions_of(texts: Sequence[Any], plan: PartitionPlan) -> list[str] | None:
    """Per metric, what makes a query undefined: from the first partition that says."""
    for text in texts:
        if isinstance(text, str) and text:
            found = text.split(_DESCRIPTIONS_SEPARATOR)
            return found if len(found) == len(plan.metrics) else None
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


def partition_table(frame: pd.DataFrame, plan: PartitionPlan) -> pd.DataFrame:
    """Per-query values of one partition: a ``query`` column (the partition's ids,
    sorted, in the dtype of the group column) and one float column per metric."""
    group_dtype = _group_of(frame, plan).dtype
    if len(frame) == 0:
        columns = {"query": pd.Series([], dtype=group_dtype)}
        columns.update({name: pd.Series([], dtype=np.float64) for name in plan.metrics})
        return pd.DataFrame(columns)
    query_ids, results = partition_details(frame, plan)
    columns = {"query": pd.Series(query_ids).astype(group_dtype)}
    for name, metric in zip(plan.metrics, results, strict=True):
        columns[name] = pd.Series(metric.values, dtype=np.float64)
    return pd.DataFrame(columns)


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
        raise ValueError(f"y_true of {plan.caller} is empty; at least one row is needed.")
    result: dict[str, float] = {}
    for index, name in enumerate(plan.metrics):
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


# ---------------------------------------------------------------- warnings of workers

_SEPARATOR = "\x1f"  # between a warning's category and its text
_CATEGORY_MODULES = ("builtins", "sklearn.exceptions")


@contextmanager
def captured_warnings() -> Iterator[list[str]]:
    """Record the package's warnings raised inside the block as
    ``"<category path>\x1f<text>"`` (:func:`~._engine._warnings.recorded_warnings`).

    For a worker, whose warnings would reach its own stderr only: the texts travel
    back with the partition's sums and :func:`warn_once` emits them on the caller's side.
    """
    texts: list[str] = []
    with recorded_warnings() as recorded:
        yield texts
    texts.extend(
        f"{category.__module__}.{category.__qualname__}{_SEPARATOR}{message}"
        for category, message in recorded
    )


def _category(path: str) -> type[Warning]:
    """The warning class named by ``path`` (builtins, ours or scikit-learn's), else UserWarning."""
    module, _, name = path.rpartition(".")
    found: Any = None
    if module == "builtins":
        found = getattr(builtins, name, None)
    elif module == _warnings.__name__:
        found = getattr(_warnings, name, None)
    elif module in _CATEGORY_MODULES:
        from sklearn import exceptions

        found = getattr(exceptions, name, None)
    return found if isinstance(found, type) and issubclass(found, Warning) else UserWarning


# the parts of a warning's text that name one partition's things: numbers, quoted ids
_PARTICULARS = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\d+(?:\.\d+)?""")


def warn_once(recorded: Sequence[str], plan: PartitionPlan, n_parts: int) -> None:
    """Emit each kind of warning recorded by :func:`captured_warnings` once.

    Warnings whose texts differ only in their numbers and quoted ids (one partition's
    counts and queries) are one kind. When each of the ``n_parts`` partitions that
    held rows raised the same text, it is emitted as it is: the in-memory call's
    warning. Otherwise the first text is emitted, saying that it is about one
    partition's rows and how many partitions raised it.
    """
    kinds: dict[tuple[str, str], list[str]] = {}
    for entry in recorded:
        path, _, text = entry.partition(_SEPARATOR)
        kinds.setdefault((path, _PARTICULARS.sub("#", text)), []).append(text)
    for (path, _), texts in kinds.items():
        text = texts[0]
        if len(texts) != n_parts or len(set(texts)) > 1:
            text += (
                f" [Raised in {len(texts)} of the {n_parts} {plan.part}s of the "
                f"{plan.frame_kind}, each about its own rows"
            )
            text += "; its counts and query ids are one's]" if len(set(texts)) > 1 else "]"
        warn_at_caller(text, _category(path))
