"""Per-query values computed elsewhere (Spark, Dask, another process): :class:`PerQueryValues`.

:func:`compare` and :func:`ranking_report` need one value per query, not the rows:
a table of queries, small enough for one machine when the rows are not. A
:class:`PerQueryValues` holds those values for one or several runs over the same
query ids, with the query weights and each metric's undefined-query policy, and is
passed whole as their first argument, as a :class:`RankingData` is.

Missing values are read by the policy, never guessed. The libraries write a query
left out of the mean (``replace_undefined_by="skip"``) and a query NaN by the
``nan`` policy differently or alike (Spark: null and NaN; pandas, Dask and
``evaluate(per_query=True)``: NaN for both; pyarrow and polars read from pandas turn
NaN into null), so a missing value, null or NaN, means what the metric's policy
(given as to :func:`evaluate`) says: left out under ``"skip"``, NaN under ``nan``,
and is refused under any other policy, which leaves every query a value.
"""


from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._caller import caller_name, renamed_as
from .._metrics._evaluate import metric_settings
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings
from ._per_query_alignment import aligned
from ._per_query_checks import (
    check_missing,
    checked_metrics,
    checked_query_ids,
    checked_runs,
    checked_values,
    checked_weights,
    policy_kind,
)
from ._per_query_tables import metric_columns, read_runs

_FROM_FRAME = "PerQueryValues.from_frame"


@dataclass(frozen=True, eq=False, repr=False)
class PerQueryValues:
    """Per-query metric values of one or several runs over the same queries.

    What :func:`compare` and :func:`ranking_report` read, passed whole as their
    first argument (``compare(values, baseline="bm25")``), when the values were
    computed elsewhere: on Spark (``sklearn_rank_metrics.spark``), on Dask
    (``sklearn_rank_metrics.dask.evaluate_per_query``), by
    ``evaluate(..., per_query=True)`` in another process. Build it with
    :meth:`from_frame`; the constructor checks every field and keeps read-only
    copies of the arrays.

    **Missing values.** A query without a value (null or NaN, whichever the table
    holds) is read by the undefined-query policy of its metric (``policies``):
    under ``"skip"`` it was left out of the mean; under ``nan`` it is NaN (the mean
    is NaN; :func:`compare` leaves it out for every run); under ``0.0``, ``1.0``
    or ``"raise"`` it is refused, since those policies give every query a value.
    Tables do not tell the two apart reliably (pandas and Dask hold NaN for both,
    and pyarrow and polars read from pandas turn NaN into null), so the policy
    decides, never the table.

    Attributes
    ----------
    query_ids : ndarray of shape (n_queries,)
        The query ids, each once (:meth:`from_frame` sorts them as :func:`evaluate`
        does, so resampling draws the same queries as on the rows).
    values : ndarray of shape (n_runs, n_metrics, n_queries)
        float64; NaN where a query has no value (see above).
    metrics : tuple of str
        The metric names (as :func:`evaluate` reads them, e.g. ``"ndcg@10"``).
    policies : tuple
        Each metric's undefined-query policy, as the values were computed:
        ``0.0``, ``1.0``, ``nan``, ``"skip"`` or ``"raise"``.
    runs : tuple of str, or (None,)
        The run (model) names; ``(None,)`` for one unnamed run.
    weights : ndarray of shape (n_queries,) or None
        The query weights (``sample_weight``); None: every query counts once.
    frame_library : str or None
        The library of the table read (``"pandas"``, ``"polars"``, ``"pyarrow"``,
        ...): the tables :func:`compare` and ``ranking_report(as_frame=True)``
        return are of that library.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_rank_metrics import PerQueryValues, compare, evaluate
    >>> y_true = [1, 0, 0, 0, 1, 0, 1, 0, 0]
    >>> qid = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> good = evaluate(y_true, [3, 2, 1, 1, 3, 2, 3, 1, 2], qid, metrics="mrr",
    ...                 per_query=True)
    >>> bad = evaluate(y_true, [1, 2, 3, 3, 1, 2, 1, 3, 2], qid, metrics="mrr",
    ...                per_query=True)
    >>> values = PerQueryValues.from_frame({"good": good, "bad": bad})
    >>> values
    PerQueryValues(3 queries, runs=('good', 'bad'), metrics=('mrr',), weighted=False)
    >>> result = compare(values, n_resamples=1000, method="percentile", random_state=0)
    >>> round(float(result.table["mean_difference"][0]), 4)
    0.6667
    """

    query_ids: np.ndarray
    values: np.ndarray
    metrics: tuple[str, ...]
    policies: tuple[Any, ...]
    runs: tuple[str | None, ...] = (None,)
    weights: np.ndarray | None = None
    frame_library: str | None = None

    def __post_init__(self) -> None:
        with renamed_as(caller_name("PerQueryValues")):
            metrics = checked_metrics(self.metrics, self.policies)
            runs = checked_runs(self.runs)
            query_ids = checked_query_ids(self.query_ids)
            values = checked_values(self.values, (len(runs), len(metrics), len(query_ids)))
            weights = None if self.weights is None else checked_weights(
                self.weights, len(query_ids)
            )
        for name, value in (
            ("metrics", metrics), ("policies", tuple(self.policies)), ("runs", runs),
            ("query_ids", query_ids), ("values", values), ("weights", weights),
        ):
            object.__setattr__(self, name, value)
        with renamed_as(caller_name("PerQueryValues")):
            check_missing(self)

    def __repr__(self) -> str:
        runs = self.runs if self.runs != (None,) else None
        return (
            f"PerQueryValues({len(self.query_ids)} queries, runs={runs!r}, "
            f"metrics={self.metrics!r}, weighted={self.weights is not None})"
        )

    @property
    def skipped(self) -> np.ndarray:
        """bool, shape (n_runs, n_metrics, n_queries): the queries left out of each mean
        (no value, under the ``"skip"`` policy)."""
        skip = np.array([policy_kind(p) == "skip" for p in self.policies], dtype=bool)
        return np.isnan(self.values) & skip[None, :, None]

    @property
    def undefined(self) -> np.ndarray:
        """float, shape (n_runs, n_metrics, n_queries): 1.0 where the metric is undefined
        (no relevant row, ...), 0.0 where it is defined, NaN where that is unknown.

        Known under ``"skip"`` and ``nan`` (the queries without a value), ``"raise"``
        (none) and for metrics defined on every query (``judged@k``, the counts);
        unknown under ``0.0`` and ``1.0``, whose replaced values look like any other.
        """
        missing = np.isnan(self.values).astype(np.float64)
        for j, (name, policy) in enumerate(zip(self.metrics, self.policies, strict=True)):
            kind = policy_kind(policy)
            if kind == "raise" or parse_metric(name).info.always_defined:
                missing[:, j] = 0.0
            elif kind == "number":
                missing[:, j] = math.nan
        return missing

    @classmethod
    def from_frame(
        cls,
        table: Any,
        *,
        query: Any = "query",
        run: Any = None,
        weight: Any = None,
        metrics: Sequence[str] | None = None,
        runs: Sequence[str] | None = None,
        replace_undefined_by: float | str | None = None,
        convention: str | None = None,
    ) -> PerQueryValues:
        """Per-query values from a table of queries, by column name.

        Reads any frame narwhals reads (pandas, polars DataFrame or LazyFrame,
        pyarrow Table, DuckDB relation, Dask DataFrame: a lazy one is narrowed to
        the named columns and collected once), and a dict of NumPy columns (what
        ``evaluate(per_query=True)`` returns without pandas). The table is never
        modified.

        Parameters
        ----------
        table : frame, dict of columns, or mapping of str to either
            One row per query (and run): ``evaluate(..., per_query=True)``'s table,
            ``sklearn_rank_metrics.dask.evaluate_per_query(...).compute()``, a Spark
            per-query table collected with ``toArrow()``. A mapping ``{run name:
            table}`` gives one run per table (each table one model's values).
        query : column name, default="query"
            The query ids. Runs are aligned by query id, never by row position:
            every run must hold every query exactly once, else a ValueError names
            the run and a query it lacks (filter the tables to the queries they
            share first, if that is what you mean).
        run : column name, default=None
            The run (model) of each row, for several runs in one long table (Spark's
            ``run`` column); run names must be str.
        weight : column name, default=None
            The query weights (``sample_weight``), finite and >= 0, equal for a query
            in every run; None: every query counts once.
        metrics : list of str, default=None
            The metric columns, named by metric (``"ndcg@10"``); None: every column
            but ``query``, ``run`` and ``weight``, each of which must then be a
            metric name.
        runs : list of str, default=None
            With ``run``: the runs to read, in this order (the order of
            :func:`compare`'s pairs and tables); None: every run, sorted by name.
        replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=None
            The policy the values were computed with, as given to :func:`evaluate`
            (None: each metric's own default, 0.0). It says what a missing value
            means: a query left out of the mean (``"skip"``) or a NaN (``nan``);
            under the other policies a missing value is refused.
        convention : str, default=None
            The convention the values were computed with, as given to
            :func:`evaluate`, when it sets a metric's policy (``"sklearn"`` gives
            ``gauc`` NaN for one class).

        Returns
        -------
        values : PerQueryValues
            Queries sorted by id (as :func:`evaluate` sorts them); runs in the
            mapping's order, or that of ``runs``.

        Raises
        ------
        ValueError
            A missing column (the message lists the table's columns); a missing
            query id or run name; a query twice in a run; a query in one run and not
            in another; weights that differ between runs or are not finite and >= 0;
            a missing value under a policy that gives every query a value; an
            infinite value; a name that is no metric, or a metric that weights
            queries itself (``hit_rate(average=micro)``).
        TypeError
            A table narwhals does not read; a metric column that does not hold
            numbers; query ids of types that do not sort together.

        Examples
        --------
        >>> import pyarrow as pa
        >>> from sklearn_rank_metrics import PerQueryValues, ranking_report
        >>> table = pa.table({"query": [1, 2, 3], "mrr": [1.0, None, 0.5]})
        >>> values = PerQueryValues.from_frame(table, replace_undefined_by="skip")
        >>> ranking_report(values, output_dict=True)["mrr"]["n_queries"]
        2
        """
        with renamed_as(_FROM_FRAME):
            settings = Settings.from_arguments(
                convention=convention, replace_undefined_by=replace_undefined_by
            ).checked()
            columns = {"query": query, "run": run, "weight": weight}
            reads, run_names = read_runs(table, columns, metrics, runs)
            names = metric_columns(reads, columns, metrics)
            query_ids, values, weights = aligned(reads, names, run_names, weight is not None)
            policies = tuple(
                metric_settings(parse_metric(name), settings)[1] for name in names
            )
            return cls(
                query_ids, values, tuple(names), policies, run_names, weights,
                reads[0].library,
            )
