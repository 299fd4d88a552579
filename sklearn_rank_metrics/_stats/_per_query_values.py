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

import functools
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._caller import caller_name, renamed_as
from .._engine._frames import check_named_columns, from_native
from .._engine._inputs import missing_objects
from .._engine._plain import plain
from .._engine._ranking_rows import bind_call
from .._engine._validation import check_parameter
from .._metrics._base import SHARED_SETTINGS
from .._metrics._evaluate import metric_names, metric_settings
from .._metrics._registry import parse_metric
from .._metrics._settings import Settings

_FROM_FRAME = "PerQueryValues.from_frame"
# the libraries a table can come back in (those of _engine._frames.frame_of)
_OUTPUT_LIBRARIES = ("pandas", "polars", "pyarrow")


def _policy_kind(policy: Any) -> str:
    """``"skip"``, ``"nan"``, ``"raise"`` or ``"number"`` (0.0, 1.0: a value for every query)."""
    if isinstance(policy, str):
        return policy
    return "nan" if math.isnan(policy) else "number"


def weights_queries(kernel_params: Mapping[str, Any]) -> bool:
    """Whether a metric weights its queries itself (hit rate with ``average="micro"``,
    gauc with ``query_weight="rows"`` or ``"positives"``): its per-query values alone
    do not give its mean."""
    return (
        kernel_params.get("average", "macro") == "micro"
        or kernel_params.get("query_weight", "uniform") != "uniform"
    )


def _shown(value: Any) -> str:
    return repr(plain(value))


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
            metrics = _checked_metrics(self.metrics, self.policies)
            runs = _checked_runs(self.runs)
            query_ids = _checked_query_ids(self.query_ids)
            values = _checked_values(self.values, (len(runs), len(metrics), len(query_ids)))
            weights = None if self.weights is None else _checked_weights(
                self.weights, len(query_ids)
            )
        for name, value in (
            ("metrics", metrics), ("policies", tuple(self.policies)), ("runs", runs),
            ("query_ids", query_ids), ("values", values), ("weights", weights),
        ):
            object.__setattr__(self, name, value)
        with renamed_as(caller_name("PerQueryValues")):
            _check_missing(self)

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
        skip = np.array([_policy_kind(p) == "skip" for p in self.policies], dtype=bool)
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
            kind = _policy_kind(policy)
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
            reads, run_names = _read_runs(table, columns, metrics, runs)
            names = _metric_columns(reads, columns, metrics)
            query_ids, values, weights = _aligned(reads, names, run_names, weight is not None)
            policies = tuple(
                metric_settings(parse_metric(name), settings)[1] for name in names
            )
            return cls(
                query_ids, values, tuple(names), policies, run_names, weights,
                reads[0].library,
            )


def chosen_metrics(
    values: PerQueryValues, metrics: str | Sequence[str] | None
) -> tuple[list[str], list[int]]:
    """The metric names asked for (None: all) and their positions in ``values.metrics``;
    a name the values do not hold is a ValueError naming the caller."""
    if metrics is None:
        return list(values.metrics), list(range(len(values.metrics)))
    names = metric_names(metrics)
    unknown = [name for name in names if name not in values.metrics]
    if unknown:
        raise ValueError(
            f"The 'metrics' parameter of {caller_name()} names {unknown[0]!r}, which the "
            f"PerQueryValues does not hold; it holds {list(values.metrics)}. Leave "
            "'metrics' out to use them all."
        )
    return names, [values.metrics.index(name) for name in names]


# --------------------------------------------------------------------------- checks


def _checked_metrics(metrics: Any, policies: Any) -> tuple[str, ...]:
    """The metric names: metrics averaged over equally weighted queries, one policy each."""
    names = tuple(metric_names(list(metrics)))
    if len(policies) != len(names):
        raise ValueError(
            f"{caller_name()}: 'policies' must hold one policy per metric ({len(names)}); "
            f"got {len(policies)}."
        )
    for name, policy in zip(names, policies, strict=True):
        check_parameter(
            caller_name(), "replace_undefined_by", policy, SHARED_SETTINGS["replace_undefined_by"]
        )
        spec = parse_metric(name)
        if weights_queries(spec.kernel_params):
            raise ValueError(
                f"{caller_name()}: {name!r} weights queries itself (by their relevant rows, "
                "rows or positives), and per-query values do not carry those weights; use "
                "its uniform form (hit_rate, gauc) or its mean from evaluate."
            )
    return names


def _checked_runs(runs: Any) -> tuple[str | None, ...]:
    runs = tuple(runs)
    if runs == (None,):
        return runs
    bad = [name for name in runs if not isinstance(name, str)]
    if bad or not runs:
        shown = f"got {bad[0]!r}" if bad else "got none"
        raise TypeError(
            f"{caller_name()}: the run names must be str, or (None,) for one unnamed run; "
            f"{shown}."
        )
    twice = sorted({name for name in runs if runs.count(name) > 1})
    if twice:
        raise ValueError(f"{caller_name()}: run {twice[0]!r} is named twice.")
    return runs


def _sorted_ids(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ids sorted (as :func:`evaluate` sorts queries) and each id's code."""
    try:
        distinct, codes = np.unique(ids, return_inverse=True)
    except TypeError:
        raise TypeError(
            f"{caller_name()}: the query ids mix types that do not sort together (e.g. "
            "int and str); give every table the same id type."
        ) from None
    return distinct, codes.reshape(-1)


def _checked_query_ids(query_ids: Any) -> np.ndarray:
    ids = np.array(query_ids, copy=True)
    if ids.ndim != 1 or not len(ids):
        raise ValueError(
            f"{caller_name()}: query_ids must be 1-D and hold one query at least; got shape "
            f"{ids.shape}."
        )
    missing = _missing_ids(ids)
    if missing.any():
        raise ValueError(f"{caller_name()}: a query id is missing (null or NaN).")
    distinct, codes = _sorted_ids(ids)
    if len(distinct) < len(ids):
        twice = distinct[np.flatnonzero(np.bincount(codes) > 1)[0]]
        raise ValueError(f"{caller_name()}: query {_shown(twice)} is there twice.")
    ids.flags.writeable = False
    return ids


def _missing_ids(ids: np.ndarray) -> np.ndarray:
    if ids.dtype.kind == "f":
        return np.isnan(ids)
    if ids.dtype.kind == "O":
        return missing_objects(ids)
    return np.zeros(len(ids), dtype=bool)


def _checked_values(values: Any, shape: tuple[int, int, int]) -> np.ndarray:
    array = np.array(values, dtype=np.float64, copy=True)
    if array.shape != shape:
        raise ValueError(
            f"{caller_name()}: values must have shape (n_runs, n_metrics, n_queries) = "
            f"{shape}; got {array.shape}."
        )
    array.flags.writeable = False
    return array


def _checked_weights(weights: Any, n_queries: int) -> np.ndarray:
    array = np.array(weights, dtype=np.float64, copy=True)
    if array.shape != (n_queries,):
        raise ValueError(
            f"{caller_name()}: weights must hold one weight per query ({n_queries}); got "
            f"shape {array.shape}."
        )
    bad = _first_bad_weight(array)
    if bad is not None:
        raise ValueError(
            f"{caller_name()}: query weights must be finite and >= 0; got "
            f"{plain(array[bad])!r} at query position {bad}."
        )
    array.flags.writeable = False
    return array


def _first_bad_weight(weights: np.ndarray) -> int | None:
    """The position of the first weight that is not finite and >= 0, or None."""
    bad = np.flatnonzero(~np.isfinite(weights) | (weights < 0))
    return int(bad[0]) if len(bad) else None


def _check_missing(values: PerQueryValues) -> None:
    """Infinite values, values outside the metric's range, and missing ones where the
    policy gives every query a value."""
    data = values.values
    infinite = np.argwhere(np.isinf(data))
    if len(infinite):
        r, j, q = infinite[0]
        raise ValueError(
            f"{caller_name()}: {values.metrics[j]!r} is {plain(data[r, j, q])!r} for query "
            f"{_shown(values.query_ids[q])}{_of_run(values.runs[r])}; a metric value is finite."
        )
    for j, (name, policy) in enumerate(zip(values.metrics, values.policies, strict=True)):
        _check_range(values, j)
        kind = _policy_kind(policy)
        if kind in ("skip", "nan") and not parse_metric(name).info.always_defined:
            continue
        missing = np.argwhere(np.isnan(data[:, j]))
        if len(missing):
            r, q = missing[0]
            raise ValueError(_missing_value_message(values, name, policy, r, q))


def _check_range(values: PerQueryValues, j: int) -> None:
    """Every value of metric ``j`` lies in the metric's range (a count is a whole number):
    a value outside it was not computed by that metric, and no statistic is formed on it."""
    name = values.metrics[j]
    spec = parse_metric(name)
    low, high = spec.info.value_range(spec.kernel_params)
    data = values.values[:, j]
    with np.errstate(invalid="ignore"):
        bad = (data < low - 1e-12) | (data > high + 1e-12)
        if spec.info.total:
            bad |= data != np.round(data)
    found = np.argwhere(bad)
    if len(found):
        r, q = found[0]
        what = ("whole numbers in " if spec.info.total else "") + f"[{plain(low)}, {plain(high)}]"
        raise ValueError(
            f"{caller_name()}: {name!r} is {plain(data[r, q])!r} for query "
            f"{_shown(values.query_ids[q])}{_of_run(values.runs[r])}, outside its range "
            f"{what}: these are not values of {name!r} (a column of another metric?)."
        )


def _of_run(run: str | None) -> str:
    return "" if run is None else f" (run {run!r})"


def _missing_value_message(
    values: PerQueryValues, name: str, policy: Any, r: int, q: int
) -> str:
    query = _shown(values.query_ids[q])
    if parse_metric(name).info.always_defined:
        why = f"{name!r} is defined for every query"
    else:
        why = (
            f"its undefined-query policy is {plain(policy)!r}, which gives every query a "
            "value"
        )
    return (
        f"{caller_name()}: {name!r} has no value (null or NaN) for query {query}"
        f"{_of_run(values.runs[r])}, but {why}. Pass the replace_undefined_by (and "
        "convention) the values were computed with: 'skip' if a missing value is a query "
        "left out of the mean (Spark's null), nan if it is NaN by the 'nan' policy."
    )


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Read:
    """One table's columns as NumPy arrays, by role (``query``, ``run``, ``weight``)
    and by metric name, and the table's library."""

    roles: dict[str, np.ndarray]
    metrics: dict[str, np.ndarray]
    library: str | None
    run: str | None = None  # the run of a table given in a mapping
    # the run column: its distinct names, and each row's position among them
    run_column: tuple[list[Any], np.ndarray] | None = None


def _narwhals() -> Any:
    import narwhals.stable.v2 as nw  # a dependency, imported when a table is read

    return nw


def _is_table(value: Any) -> bool:
    if isinstance(value, Mapping):
        return True
    if isinstance(value, (str, bytes, np.ndarray, list, tuple)):
        return False
    if type(value).__module__.startswith("dask.") and hasattr(value, "columns"):
        return True
    nw = _narwhals()
    frame = from_native(value, caller_name())
    return isinstance(frame, (nw.DataFrame, nw.LazyFrame))


def _tables(table: Any, run: Any) -> dict[str | None, Any]:
    """``{run name: table}`` for a mapping of tables, else ``{None: table}``."""
    if not isinstance(table, Mapping) or not table:
        return {None: table}
    if all(_is_table(value) for value in table.values()):
        if run is not None:
            raise ValueError(
                f"{caller_name()}: a mapping of tables gives one run per table; 'run' names "
                "a run column of one long table instead. Pass one of the two."
            )
        bad = [name for name in table if not isinstance(name, str)]
        if bad:
            raise TypeError(
                f"{caller_name()}: the run names (keys of 'table') must be str; got {bad[0]!r}."
            )
        return dict(table)
    if any(_is_table(value) for value in table.values()):
        raise TypeError(
            f"{caller_name()}: 'table' mixes tables and columns; pass a table (a frame, "
            "or a dict of columns) or a mapping {run name: table}."
        )
    return {None: table}


def _read_runs(
    table: Any, columns: dict[str, Any], metrics: Sequence[str] | None, runs: Any
) -> tuple[list[_Read], tuple[str | None, ...]]:
    """Every table read, and the run names (from the mapping, or the run column)."""
    tables = _tables(table, columns["run"])
    several = list(tables) != [None]
    if runs is not None and columns["run"] is None:
        raise ValueError(
            f"{caller_name()}: 'runs' picks runs of the 'run' column, and no 'run' column "
            "was named."
        )
    reads = [
        _read_table(value, columns, metrics, name) for name, value in tables.items()
    ]
    if several:
        return reads, tuple(tables)
    run_column = reads[0].run_column
    if run_column is None:  # no 'run' column: one unnamed run
        return reads, (None,)
    return reads, _run_names(run_column[0], runs)


def _run_names(names: list[Any], runs: Any) -> tuple[str, ...]:
    """The runs of the run column (its distinct values, none missing): those of
    ``runs`` in that order, else all of them sorted by name."""
    bad = [name for name in names if not isinstance(name, str)]
    if bad:
        raise TypeError(
            f"{caller_name()}: the 'run' column must hold run names (str); got {bad[0]!r}."
        )
    if runs is None:
        return tuple(sorted(names))
    chosen = tuple(runs)
    unknown = [name for name in chosen if name not in names]
    if unknown:
        raise ValueError(
            f"{caller_name()}: 'runs' names {unknown[0]!r}, which the 'run' column does not "
            f"hold; it holds {names}."
        )
    return chosen


def _read_table(
    table: Any, columns: dict[str, Any], metrics: Sequence[str] | None, run: str | None
) -> _Read:
    """The named columns of one table as NumPy arrays (a dict of columns, or a frame)."""
    wanted = {role: column for role, column in columns.items() if column is not None}
    if isinstance(table, Mapping):
        return _read_columns(table, wanted, metrics, run)
    if type(table).__module__.startswith("dask."):
        # a table of queries fits the client; narwhals reads Dask through another package
        table = table.compute()
    nw = _narwhals()
    frame = from_native(table, caller_name())
    if not isinstance(frame, (nw.DataFrame, nw.LazyFrame)):
        raise TypeError(
            f"The 'table' parameter of {caller_name()} must be a DataFrame (pandas, polars, "
            "pyarrow Table, DuckDB relation, Dask, or any frame narwhals reads), a dict of "
            f"columns, or a mapping {{run name: table}}; got {type(table).__name__}."
        )
    lazy = isinstance(frame, nw.LazyFrame)
    available = list(frame.columns)  # collect_schema() would fold duplicated names
    names = _metric_names_of(available, wanted, metrics)
    _check_columns(available, wanted, names, run)
    if lazy:
        frame = frame.select([*dict.fromkeys([*wanted.values(), *names])]).collect()
    library = str(frame.implementation.value)
    roles = {
        role: _ids(frame.get_column(column), role, column)
        for role, column in wanted.items() if role != "run"
    }
    run_column = None
    if "run" in wanted:
        run_column = _factorized(frame.get_column(wanted["run"]), wanted["run"])
    if "weight" in roles:
        roles["weight"] = _weights(_numbers(frame.get_column(wanted["weight"]), wanted["weight"]),
                                   wanted["weight"])
    values = {name: _numbers(frame.get_column(name), name) for name in names}
    return _Read(roles, values, library, run, run_column)


def _read_columns(
    table: Mapping[Any, Any], wanted: dict[str, Any], metrics: Any, run: str | None
) -> _Read:
    """A dict of columns (``evaluate(per_query=True)`` without pandas)."""
    available = list(table)
    names = _metric_names_of(available, wanted, metrics)
    _check_columns(available, wanted, names, run)
    arrays = {column: np.asarray(table[column]) for column in [*wanted.values(), *names]}
    lengths = {len(array) if array.ndim == 1 else -1 for array in arrays.values()}
    if len(lengths) > 1 or -1 in lengths:
        raise ValueError(
            f"{caller_name()}: the columns of the dict must be 1-D and of one length."
        )
    roles = {role: arrays[column] for role, column in wanted.items()}
    for role in ("query", "run"):
        if role in roles and _missing_ids(roles[role]).any():
            first = int(np.flatnonzero(_missing_ids(roles[role]))[0])
            raise _missing_id_error(wanted[role], role, first)
    if "weight" in roles:
        roles["weight"] = _weights(_float_column(roles["weight"], wanted["weight"]),
                                   wanted["weight"])
    values = {name: _float_column(arrays[name], name) for name in names}
    run_column = None
    if "run" in roles:
        distinct, codes = np.unique(roles.pop("run"), return_inverse=True)
        run_column = (distinct.tolist(), codes.reshape(-1))
    return _Read(roles, values, None, run, run_column)


def _weights(values: np.ndarray, column: Any) -> np.ndarray:
    """Query weights: finite and >= 0 (a null is NaN here), else the first bad row."""
    row = _first_bad_weight(values)
    if row is not None:
        shown = "a missing value" if np.isnan(values[row]) else repr(plain(values[row]))
        raise ValueError(
            f"{caller_name()}: column {column!r} (weight) must hold finite weights >= 0; "
            f"got {shown} at row {row}."
        )
    return values


def _float_column(values: np.ndarray, column: Any) -> np.ndarray:
    if values.dtype.kind not in "biuf":
        raise TypeError(
            f"{caller_name()}: column {column!r} must hold numbers; it holds {values.dtype}."
        )
    return values.astype(np.float64)


def _metric_names_of(available: list[Any], wanted: dict[str, Any], metrics: Any) -> list[Any]:
    if metrics is not None:
        return metric_names(metrics)
    return [column for column in available if column not in wanted.values()]


def _check_columns(
    available: list[Any], wanted: dict[str, Any], metrics: list[Any], run: str | None
) -> None:
    """Every named column is there, else a ValueError that lists the table's columns."""
    table = "the table" if run is None else f"the table of run {run!r}"
    named = [(f"the {role!r} parameter", column) for role, column in wanted.items()]
    named += [("a metric", column) for column in metrics]
    check_named_columns(available, named, f"{caller_name()}: {table}")


def _missing_id_error(column: Any, role: str, row: int) -> ValueError:
    return ValueError(
        f"{caller_name()}: column {column!r} ({role}) has a missing value at row {row}."
    )


def _ids(series: Any, role: str, column: Any) -> np.ndarray:
    """Query ids or run names as the frame types them; a null is refused."""
    if series.null_count():
        first = int(np.flatnonzero(series.is_null().to_numpy())[0])
        raise _missing_id_error(column, role, first)
    return np.asarray(series.to_numpy())


def _factorized(series: Any, column: Any) -> tuple[list[Any], np.ndarray]:
    """The distinct run names of a run column (hashed by the frame's library: a few
    runs over many rows) and the position of each row's run among them."""
    if series.null_count():
        first = int(np.flatnonzero(series.is_null().to_numpy())[0])
        raise _missing_id_error(column, "run", first)
    names = series.unique().to_list()
    codes = np.empty(len(series), dtype=np.intp)
    for i, name in enumerate(names):  # one comparison per run, not per row
        codes[np.asarray((series == name).to_numpy(), dtype=bool)] = i
    return names, codes


def _numbers(series: Any, column: Any) -> np.ndarray:
    """A numeric column as float64, nulls as NaN."""
    nw = _narwhals()
    if not series.dtype.is_numeric():
        raise TypeError(
            f"{caller_name()}: column {column!r} must hold numbers; it holds {series.dtype}."
        )
    return np.asarray(series.cast(nw.Float64).to_numpy(), dtype=np.float64)


def _metric_columns(reads: list[_Read], columns: dict[str, Any], metrics: Any) -> list[str]:
    """The metric names: those asked for, or the first table's other columns, which
    every table must share."""
    names = list(reads[0].metrics)
    if not names:
        raise ValueError(
            f"{caller_name()}: the table has no metric column besides "
            f"{[c for c in columns.values() if c is not None]}."
        )
    for read in reads[1:]:
        if metrics is None and set(read.metrics) != set(names):
            raise ValueError(
                f"{caller_name()}: the table of run {read.run!r} has the metric columns "
                f"{list(read.metrics)}, the first table {names}; pass metrics=[...] to "
                "pick the ones they share."
            )
    return names


# --------------------------------------------------------------------------- alignment


def _aligned(
    reads: list[_Read], names: list[str], run_names: tuple[str | None, ...], weighted: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every run's values over the sorted query ids, aligned by id (never by position)."""
    ids = _same_kind_ids([read.roles["query"] for read in reads])
    run_codes = _run_codes(reads, run_names)
    kept = run_codes >= 0
    distinct, codes = _sorted_ids(ids[kept])
    run_codes = run_codes[kept]
    _check_one_value_per_query(distinct, codes, run_codes, run_names)
    values = np.full((len(run_names), len(names), len(distinct)), np.nan)
    for j, name in enumerate(names):
        column = np.concatenate([read.metrics[name] for read in reads])[kept]
        values[run_codes, j, codes] = column
    weights = None
    if weighted:
        given = np.concatenate([read.roles["weight"] for read in reads])[kept]
        weights = _query_weights(given, distinct, codes, run_codes, run_names)
    return distinct, values, weights


def _same_kind_ids(arrays: list[np.ndarray]) -> np.ndarray:
    """The query ids of every table, which must all be numbers or all text."""
    kinds = {"number" if array.dtype.kind in "biuf" else "text" for array in arrays}
    if len(kinds) > 1:
        raise TypeError(
            f"{caller_name()}: some tables hold numeric query ids and others text ids; runs "
            "are aligned by query id, so give every table the same id type."
        )
    if len(arrays) == 1:
        return arrays[0]
    if kinds == {"text"}:
        return np.concatenate([array.astype(object) for array in arrays])
    return np.concatenate(arrays)


def _run_codes(reads: list[_Read], run_names: tuple[str | None, ...]) -> np.ndarray:
    """The run of every row, as its position in ``run_names`` (-1: a run not asked for)."""
    run_column = reads[0].run_column
    if len(reads) > 1 or run_column is None:
        return np.concatenate(
            [np.full(len(read.roles["query"]), i, dtype=np.intp) for i, read in enumerate(reads)]
        )
    distinct, codes = run_column
    position = np.array(
        [run_names.index(name) if name in run_names else -1 for name in distinct],
        dtype=np.intp,
    )
    return position[codes]


def _check_one_value_per_query(
    distinct: np.ndarray, codes: np.ndarray, run_codes: np.ndarray, run_names: tuple
) -> None:
    """Every run holds every query exactly once."""
    n_queries = len(distinct)
    counts = np.bincount(run_codes * n_queries + codes, minlength=len(run_names) * n_queries)
    counts = counts.reshape(len(run_names), n_queries)
    twice = np.argwhere(counts > 1)
    if len(twice):
        r, q = twice[0]
        raise ValueError(
            f"{caller_name()}: query {_shown(distinct[q])} is there {int(counts[r, q])} times"
            f"{_of_run(run_names[r])}; a run holds one value per query."
        )
    absent = np.argwhere(counts == 0)
    if len(absent):
        r, q = absent[0]
        n_absent = int((counts[r] == 0).sum())
        raise ValueError(
            f"{caller_name()}: run {run_names[r]!r} has no row for query "
            f"{_shown(distinct[q])} ({n_absent} of the {n_queries} queries of the runs); "
            "runs are compared on the same queries, aligned by query id. Filter the tables "
            "to the queries they share first (an inner join on the query column), or give "
            "the run its value there."
        )


def _query_weights(
    given: np.ndarray, distinct: np.ndarray, codes: np.ndarray, run_codes: np.ndarray,
    run_names: tuple,
) -> np.ndarray:
    """One weight per query, the same in every run (else a ValueError naming the query)."""
    weights = np.empty(len(distinct))
    weights[codes] = given
    differ = np.flatnonzero(given != weights[codes])
    if len(differ):
        row = int(differ[0])
        raise ValueError(
            f"{caller_name()}: query {_shown(distinct[codes[row]])} has weight "
            f"{plain(given[row])!r}{_of_run(run_names[run_codes[row]])} and "
            f"{plain(weights[codes[row]])!r} in another run; a query weighs the same in "
            "every run."
        )
    return weights


# --------------------------------------------------------------------------- the doors


# the parameters of compare and ranking_report that apply to rows, not to per-query values
_ROW_HINTS = {
    "replace_undefined_by": "pass it to PerQueryValues.from_frame, which reads the values "
    "by it",
    "convention": "pass it to PerQueryValues.from_frame, which reads the values by it",
}


def accepts_per_query_values(
    values_function: Callable[..., Any], row_parameters: tuple[str, ...]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Let ``compare`` or ``ranking_report`` take a :class:`PerQueryValues` first.

    The call is bound to the decorated function's signature and its parameter
    constraints are checked (``_parameter_constraints``); ``row_parameters`` (the
    scores, the query ids, the row-level settings) given next to the values are
    refused, naming them; the other arguments, defaults filled, go to
    ``values_function(values, ...)``, with ``metrics=None`` when not given (every
    metric of the values). Calls with rows pass through untouched.
    """

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(function)
        constraints = getattr(function, "_parameter_constraints", {})
        shown = function.__name__

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            first = args[0] if args else kwargs.get("y_true")
            if not isinstance(first, PerQueryValues):
                return function(*args, **kwargs)
            with renamed_as(shown):
                bound = bind_call(signature, args, kwargs)
                given = dict(bound.arguments)
                _refuse_row_arguments(given, row_parameters)
                for name, value in given.items():
                    if name in constraints:
                        check_parameter(shown, name, value, constraints[name])
            bound.apply_defaults()
            arguments = {
                name: value for name, value in bound.arguments.items()
                if name != "y_true" and name not in row_parameters
            }
            if "metrics" not in given:
                arguments["metrics"] = None
            return values_function(first, **arguments)

        return wrapper

    return decorate


def _refuse_row_arguments(given: dict[str, Any], row_parameters: tuple[str, ...]) -> None:
    named = [name for name in row_parameters if given.get(name) is not None]
    if not named:
        return
    listed = ", ".join(f"{name}=" for name in named)
    hints = [_ROW_HINTS[name] for name in named if name in _ROW_HINTS]
    hint = f" ({hints[0]})" if hints else ""
    raise ValueError(
        f"{caller_name()} got a PerQueryValues as its first argument and also {listed}; "
        "those apply to ranking rows, and the values are computed already, so they do not "
        f"apply. Leave them out{hint}, or pass the rows instead of the values."
    )


def frame_library_of(values: PerQueryValues) -> str | None:
    """The library of the tables returned for ``values`` (None: pandas, as for arrays)."""
    library = values.frame_library
    return library if library in _OUTPUT_LIBRARIES else None
