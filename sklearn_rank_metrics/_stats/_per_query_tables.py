"""Reading per-query values from tables: frames, dicts of columns, mappings of runs.

:meth:`PerQueryValues.from_frame` reads its table(s) here into NumPy columns by role
(query, run, weight) and by metric (:class:`TableRead`), checking that every named
column is there and holds what its role needs; :mod:`._per_query_alignment` then lines
the runs up by query id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._frames import check_named_columns, from_native
from .._engine._inputs import factorize_text_ids
from .._engine._plain import plain
from .._metrics._evaluate import metric_names
from ._per_query_checks import first_bad_weight, missing_ids


@dataclass(frozen=True)
class TableRead:
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


def read_runs(
    table: Any, columns: dict[str, Any], metrics: Sequence[str] | None, runs: Any
) -> tuple[list[TableRead], tuple[str | None, ...]]:
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
) -> TableRead:
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
    return TableRead(roles, values, library, run, run_column)


def _read_columns(
    table: Mapping[Any, Any], wanted: dict[str, Any], metrics: Any, run: str | None
) -> TableRead:
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
        if role in roles and missing_ids(roles[role]).any():
            first = int(np.flatnonzero(missing_ids(roles[role]))[0])
            raise _missing_id_error(wanted[role], role, first)
    if "weight" in roles:
        roles["weight"] = _weights(_float_column(roles["weight"], wanted["weight"]),
                                   wanted["weight"])
    values = {name: _float_column(arrays[name], name) for name in names}
    run_column = _run_column(roles.pop("run")) if "run" in roles else None
    return TableRead(roles, values, None, run, run_column)


def _run_column(names: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """The distinct run names of a dict's run column, sorted (by code point, as
    ``np.unique`` sorts them), and the position of each row's run among them: by the
    engine's factoriser of text ids. Names that are not all str are refused next
    (:func:`_run_names`, naming the first in sorted order): sorted as before."""
    if names.dtype.kind == "U" or (
        names.dtype.kind == "O" and all(isinstance(name, str) for name in names)
    ):
        codes, distinct = factorize_text_ids(names.astype(object))
        return distinct.tolist(), codes
    distinct, codes = np.unique(names, return_inverse=True)
    return distinct.tolist(), codes.reshape(-1)


def _weights(values: np.ndarray, column: Any) -> np.ndarray:
    """Query weights: finite and >= 0 (a null is NaN here), else the first bad row."""
    row = first_bad_weight(values)
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


def metric_columns(reads: list[TableRead], columns: dict[str, Any], metrics: Any) -> list[str]:
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
