"""DataFrames read by column name, through narwhals: the one path of
:meth:`RankingData.from_frame` and of :func:`read_table` given a frame.

Any frame narwhals reads is accepted: pandas (NumPy, nullable or Arrow dtypes),
polars DataFrame and LazyFrame, pyarrow Table, DuckDB relation, Dask, ... A lazy
frame is narrowed to the named columns, then collected once, to the library
narwhals collects it to (polars for a polars LazyFrame, pyarrow for a DuckDB
relation); ``frame_library`` records that library.

Columns become NumPy arrays without a Python loop per row. A float64 column without
nulls in one chunk is a read-only view of the frame's memory (no copy); other
numeric and boolean columns are cast to float64 by the frame's own library (one
copy). Nulls are refused like NaN labels, naming the column, the parameter and the
first bad row (pandas rows with their index label). The frame is never modified.
narwhals is imported when a frame is read, not with the package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._engine._frames import check_named_columns, from_native
from .._engine._plain import plain

# the parameters that hold numbers; the others (ids, judged flags) are read as typed
_NUMBERS = frozenset({"y_true", "y_score", "sample_weight"})
# how messages name a frame: pandas' "the DataFrame" is read_table's wording of old
_EAGER_NAMES = {"pandas": "the DataFrame", "polars": "the polars DataFrame",
                "pyarrow": "the pyarrow Table"}
_LAZY_NAMES = {"polars": "the polars LazyFrame", "duckdb": "the DuckDB relation"}
_ACCEPTED = (
    "a DataFrame (pandas, polars, pyarrow Table, DuckDB relation, or any frame "
    "narwhals reads)"
)


def check_columns(
    available: list, wanted: Sequence[tuple[str, Any]], name: str, owner: str
) -> None:
    """Every wanted column is in ``available``, else a ValueError that lists them.

    ``wanted`` holds ``(parameter, column)`` pairs; ``name`` names the table (the
    file, or the frame) and ``owner`` the function whose parameter it is.
    """
    roles = [(f"the {parameter!r} parameter of {owner}", column) for parameter, column in wanted]
    check_named_columns(available, roles, name)


def bad_number_error(
    name: str, location: str, column: Any, parameter: str, shown: str
) -> ValueError:
    """The error for a label, score or weight that is not a usable number.

    ``location`` is where the row is (``"line 3"``, ``"row 2 (index 'c')"``) and
    ``shown`` the value as the user would write it (a repr, or ``null``).
    """
    rule = "a number (not NaN)" if parameter == "y_score" else "a finite number"
    return ValueError(
        f"{name}, {location}: column {column!r} ({parameter}) must hold {rule}; got {shown}."
    )


def check_numbers(
    values: np.ndarray, unreadable: Any, shown: Any, column: Any, parameter: str, where: Any,
    name: str,
) -> None:
    """Labels and weights must be finite numbers and scores not NaN (``-inf``: unretrieved).

    ``unreadable`` marks texts that are not numbers (or is None); ``shown(i)`` gives
    the value of row ``i`` as read, as text for the message, which names the first
    bad row.
    """
    bad = np.isnan(values) if parameter == "y_score" else ~np.isfinite(values)
    if unreadable is not None:
        bad |= unreadable
    first = np.flatnonzero(bad)
    if len(first):
        i = int(first[0])
        raise bad_number_error(name, where(i), column, parameter, shown(i))


def _narwhals() -> Any:
    import narwhals.stable.v2 as nw  # a dependency, imported when a frame is read

    return nw


def as_frame(value: Any, owner: str) -> Any:
    """``value`` as a narwhals DataFrame or LazyFrame, or None when it is not a frame.

    An installed narwhals too old for the frame's library (narwhals < 2.8 imports
    ``duckdb.typing``, which DuckDB 2 no longer has) is an ImportError that says
    which package to upgrade.
    """
    if isinstance(value, (str, bytes, np.ndarray, Mapping, list, tuple)):
        return None  # paths, arrays and containers: never a frame (and quick to tell)
    nw = _narwhals()
    try:
        frame = from_native(value, owner)
    except ImportError as error:
        import narwhals

        library = type(value).__module__.split(".")[0]
        raise ImportError(
            f"{owner}: narwhals {narwhals.__version__} cannot read a {library} "
            f"{type(value).__name__} ({error}); upgrade it: pip install -U narwhals "
            "(the relations of DuckDB 2 need narwhals >= 2.8)."
        ) from error
    return frame if isinstance(frame, (nw.DataFrame, nw.LazyFrame)) else None


def not_a_frame(value: Any, argument: str, owner: str, also: str = "") -> TypeError:
    """The error for a ``frame`` argument narwhals reads no frame from."""
    return TypeError(
        f"The {argument!r} parameter of {owner} must be {also}{_ACCEPTED}; got "
        f"{type(value).__name__}."
    )


@dataclass(frozen=True)
class _Columns:
    """A frame's named columns, collected: what the readers of its columns share."""

    frame: Any  # an eager narwhals DataFrame
    name: str  # the frame as messages name it
    where: Callable[[int], str]  # row i as messages name it
    library: str  # the library of ``frame``
    pandas_like: bool
    # what a message about a row starts with: the frame, after the function read_table
    # or from_frame (a file's rows: the file alone, as the text reader names them)
    rows_of: str


def _library(frame: Any) -> str:
    return str(frame.implementation.value)


def _frame_name(frame: Any, lazy: bool) -> str:
    library = _library(frame)
    names = _LAZY_NAMES if lazy else _EAGER_NAMES
    return names.get(library, f"the {library} {'lazy frame' if lazy else 'DataFrame'}")


def collect_columns(value: Any, wanted: list[tuple[str, Any]], owner: str) -> _Columns:
    """The frame's ``wanted`` columns (``(parameter, column)`` pairs), checked and collected.

    A missing column is a ValueError naming the parameter and listing the frame's
    columns; a frame without rows is refused.
    """
    frame = as_frame(value, owner)
    if frame is None:
        raise not_a_frame(value, "frame", owner)
    nw = _narwhals()
    lazy = isinstance(frame, nw.LazyFrame)
    name = _frame_name(frame, lazy)
    available = list(frame.columns)  # collect_schema() would fold duplicated names
    check_columns(available, wanted, name, owner)
    if lazy:  # the named columns only, collected once
        frame = frame.select(list(dict.fromkeys(column for _, column in wanted))).collect()
    if len(frame) == 0:
        raise ValueError(f"{owner}: {name} has no rows.")
    pandas_like = frame.implementation.is_pandas_like()
    if pandas_like:
        index = frame.to_native().index

        def where(i: int) -> str:
            return f"row {i} (index {plain(index[i])!r})"
    else:

        def where(i: int) -> str:
            return f"row {i}"

    return _Columns(frame, name, where, _library(frame), pandas_like, f"{owner}: {name}")


def pandas_columns(frame: Any, name: str, where: Callable[[int], str]) -> _Columns:
    """A pandas DataFrame a reader parsed from a file, read as any frame's columns:
    ``name`` names the file and ``where(i)`` its row ``i`` (``"line 9"``)."""
    frame = _narwhals().from_native(frame, eager_only=True)
    return _Columns(frame, name, where, "pandas", True, name)


def _shown(columns: _Columns, series: Any, i: int) -> str:
    """Row ``i`` of a column as its library shows it, for messages (``null``: missing)."""
    value = series.to_native().iloc[i] if columns.pandas_like else series.item(i)
    return "null" if value is None else repr(plain(value))


def _floats(series: Any) -> np.ndarray:
    """A numeric or boolean column without nulls as float64: no copy when it is
    float64 already (and in one chunk), else one cast by the frame's library."""
    nw = _narwhals()
    if series.dtype != nw.Float64:
        series = series.cast(nw.Float64)
    return np.asarray(series.to_numpy(), dtype=np.float64)


def _pandas_numbers(series: Any) -> np.ndarray:
    """A pandas column that does not hold numbers (object, text, categories, dates),
    parsed as :func:`read_table` always parsed it: unreadable values become NaN."""
    import pandas as pd  # the frame is pandas', so pandas is there

    native = series.to_native()
    return pd.to_numeric(native, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def column_numbers(columns: _Columns, column: Any, parameter: str, owner: str) -> np.ndarray:
    """Labels, scores or weights as float64; a missing or bad value is a ValueError
    naming the column, the parameter and the first bad row."""
    nw = _narwhals()
    series = columns.frame.get_column(column)
    dtype = series.dtype
    numeric = dtype.is_numeric() or dtype == nw.Boolean
    if not numeric and not columns.pandas_like:
        raise TypeError(
            f"{owner}: column {column!r} ({parameter}) of {columns.name} must hold "
            f"numbers; it holds {dtype}. Cast it to a number type first."
        )
    if numeric and series.null_count():
        first = int(np.flatnonzero(series.is_null().to_numpy())[0])
        # a bad value before the first null is the first bad row
        _checked(columns, series.head(first), _floats(series.head(first)), column, parameter)
        shown = _shown(columns, series, first)
        raise bad_number_error(columns.rows_of, columns.where(first), column, parameter, shown)
    values = _floats(series) if numeric else _pandas_numbers(series)
    _checked(columns, series, values, column, parameter)
    return values


def _checked(
    columns: _Columns, series: Any, values: np.ndarray, column: Any, parameter: str
) -> None:
    def shown(i: int) -> str:
        return _shown(columns, series, i)

    check_numbers(values, None, shown, column, parameter, columns.where, columns.rows_of)


def column_values(columns: _Columns, column: Any, parameter: str) -> np.ndarray:
    """Query ids, document ids or judged flags as the frame types them; a missing
    value is a ValueError naming the column, the parameter and the first bad row.

    Text comes as ``str`` objects, as pandas and pyarrow give it (narwhals gives
    polars text as fixed-width NumPy strings, as wide as the longest id).
    """
    series = columns.frame.get_column(column)
    if series.null_count():
        first = int(np.flatnonzero(series.is_null().to_numpy())[0])
        raise ValueError(
            f"{columns.rows_of}, {columns.where(first)}: column {column!r} ({parameter}) has a "
            "missing value."
        )
    if columns.library == "polars":
        return np.asarray(series.to_native().to_numpy())
    return np.asarray(series.to_numpy())


def _column_name(value: Any, parameter: str, owner: str, hint: str) -> None:
    """A parameter that names a column: a str (or an int, as pandas columns may be)."""
    if isinstance(value, str) or (isinstance(value, (int, np.integer)) and not isinstance(
        value, (bool, np.bool_)
    )):
        return
    raise TypeError(
        f"The {parameter!r} parameter of {owner} must be a column name (str); got "
        f"{type(value).__name__}.{hint}"
    )


def named_runs(runs: Mapping[Any, Any], parameter: str, owner: str) -> dict[str, Any]:
    """``{run name: run}`` as a dict, every name a str (else a TypeError)."""
    bad = [name for name in runs if not isinstance(name, str)]
    if bad:
        raise TypeError(
            f"The run names (keys of {parameter!r}) of {owner} must be str; got {bad[0]!r}."
        )
    return dict(runs)


def score_runs(y_score: Any, owner: str) -> dict[str, Any] | None:
    """Several score columns by run name (a list: named by column), or None for one."""
    if isinstance(y_score, Mapping):
        runs = named_runs(y_score, "y_score", owner)
    elif isinstance(y_score, list):
        runs = {str(column): column for column in y_score}
        if len(runs) < len(y_score):
            twice = next(c for c in y_score if y_score.count(c) > 1)
            raise ValueError(
                f"The 'y_score' parameter of {owner} names the column {twice!r} twice; "
                "each column is one run."
            )
    else:
        return None
    if not runs:
        raise ValueError(f"The 'y_score' parameter of {owner} must name at least one column.")
    return runs


_ARRAY_HINT = (
    " Name the frame's columns here; arrays go to the metric functions directly, "
    "e.g. evaluate(y_true, y_score, group, sample_weight=weights)."
)


def _wanted(columns: Mapping[str, Any], runs: dict[str, Any] | None, owner: str) -> list:
    """The ``(parameter, column)`` pairs to read; every name checked."""
    wanted = []
    for parameter, column in columns.items():
        if column is None and parameter not in ("y_true", "group"):
            continue
        if parameter == "y_score" and runs is not None:
            for run_column in runs.values():
                _column_name(run_column, parameter, owner, "")
                wanted.append((parameter, run_column))
            continue
        hint = (
            " A tuple could name one column or several; pass a list of columns for "
            "several runs." if parameter == "y_score" and isinstance(column, tuple)
            else _ARRAY_HINT
        )
        _column_name(column, parameter, owner, hint)
        wanted.append((parameter, column))
    refuse_shared_columns(wanted, owner)
    return wanted


def refuse_shared_columns(wanted: list[tuple[str, Any]], owner: str) -> None:
    """One column named for two roles (labels and scores, two runs, query ids and
    scores...) is refused: such a call is almost surely a slip, and scores it without
    a word. To score the labels themselves (an oracle run), copy the column."""
    roles: dict[Any, str] = {}
    for parameter, column in wanted:
        if column in roles:
            first = roles[column]
            what = "two runs of y_score" if first == parameter else f"both {first} and {parameter}"
            raise ValueError(
                f"{owner}: column {column!r} is named for {what}; each must read its own "
                "column. To score a column against itself on purpose (an oracle run), "
                "copy it under another name first."
            )
        roles[column] = parameter


def read_columns(read: _Columns, wanted: Mapping[str, Any], owner: str) -> dict[str, np.ndarray]:
    """The arrays of ``wanted`` (``{parameter: column}``), by parameter: labels, scores
    and weights as float64, the others as the frame types them."""
    return {
        parameter: column_numbers(read, column, parameter, owner) if parameter in _NUMBERS
        else column_values(read, column, parameter)
        for parameter, column in wanted.items()
    }


@dataclass(frozen=True)
class Runs:
    """Several score columns of a frame: each run's scores, and the queries it answered."""

    scores: dict[str, np.ndarray]
    n_queries: int
    n_answered: dict[str, int]  # queries with a score above -inf, by run


@dataclass(frozen=True)
class FrameRows:
    """What a frame's columns hold, for :class:`RankingData` or :class:`AlignedRuns`."""

    values: dict[str, np.ndarray]  # by parameter (no y_score with several runs)
    runs: Runs | None  # several score columns, or None
    name: str  # the frame, as messages name it
    library: str  # the frame's library ("pandas", "polars", "pyarrow", ...)


def read_frame(frame: Any, columns: Mapping[str, Any], owner: str) -> FrameRows:
    """The rows of ``frame`` by column name: :meth:`RankingData.from_frame`.

    ``columns`` maps each parameter (``y_true``, ``y_score``, ``group``, ``doc_id``,
    ``judged``, ``sample_weight``) to its column, or None when the frame has none.
    Several score columns (a list or ``{run: column}``) give several runs.
    """
    runs = score_runs(columns.get("y_score"), owner)
    read = collect_columns(frame, _wanted(columns, runs, owner), owner)
    single = {
        parameter: column for parameter, column in columns.items()
        if column is not None and not (parameter == "y_score" and runs is not None)
    }
    values = read_columns(read, single, owner)
    several = None
    if runs is not None:
        scores = {
            name: column_numbers(read, column, "y_score", owner) for name, column in runs.items()
        }
        several = _answered(read, scores, columns["group"])
    return FrameRows(values, several, read.name, read.library)


def _answered(read: _Columns, scores: dict[str, np.ndarray], group_column: Any) -> Runs:
    """The queries, and those each run answered (a score above ``-inf``), counted by the
    frame's own library in one pass grouped by query (no sort of the ids here)."""
    nw = _narwhals()
    backend = read.frame.implementation
    flags = read.frame.select(nw.col(group_column).alias("query")).with_columns(
        nw.new_series(f"run{i}", np.isfinite(values), nw.Boolean, backend=backend)
        for i, values in enumerate(scores.values())
    )
    per_query = flags.group_by("query").agg(nw.all().max())
    n_answered = {
        name: int(per_query.get_column(f"run{i}").sum()) for i, name in enumerate(scores)
    }
    return Runs(scores, len(per_query), n_answered)
