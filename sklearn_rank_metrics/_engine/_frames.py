"""Tables in the caller's frame library: the one output path of every table we return.

Per-query tables (``evaluate(per_query=True)``, ``RankingEvaluator.compute``), the
tables of :func:`compare` and ``ranking_report(as_frame=True)`` come back in the frame
library the inputs came in: polars in, polars out; pyarrow in, pyarrow out; pandas
otherwise (a dict of NumPy arrays when pandas is not installed, as before).

The library is read from the inputs before any conversion (:func:`frame_library`), by
the type's module only, so no library the user did not import is ever imported. Like
the caller's name (``_caller``), it is recorded on entry in a context variable by the
public function (:func:`returns_frames_like_inputs`), because an entry point that
takes a :class:`~._ranking_rows.RankingRows` object spreads it into arrays before its
body runs; the outermost public function wins (``ranking_report`` calling ``compare``
keeps the report's library). :func:`frame_of` builds the table from NumPy columns.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar, cast

import numpy as np

from ._ranking_rows import RankingRows

# the libraries a table can come back in; None: NumPy, lists, anything else
FRAME_LIBRARIES = ("pandas", "polars", "pyarrow")

# (library,) once a public call recorded its inputs' library; None outside any
_LIBRARY: ContextVar[tuple[str | None] | None] = ContextVar(
    "sklearn_rank_metrics_frames", default=None
)

F = TypeVar("F", bound=Callable[..., Any])


def _library_of_type(value: Any) -> str | None:
    """``"pandas"``, ``"polars"`` or ``"pyarrow"`` when the value's class (or a base) is
    defined by that library, else None; nothing is imported."""
    for klass in type(value).__mro__:
        root = klass.__module__.partition(".")[0]
        if root in FRAME_LIBRARIES:
            return root
    return None


def _library_of(value: Any) -> str | None:
    """The frame library of one input (see :func:`frame_library`)."""
    if isinstance(value, RankingRows):
        declared = getattr(value, "frame_library", None)
        return declared if declared in FRAME_LIBRARIES else None
    if isinstance(value, Mapping):  # several models' scores
        return frame_library(*value.values())
    return _library_of_type(value)


def frame_library(*inputs: Any) -> str | None:
    """The frame library of the first input that belongs to one, or None.

    An input belongs to ``"polars"`` (Series, DataFrame), ``"pyarrow"`` (Array,
    ChunkedArray, Table) or ``"pandas"`` (Series, DataFrame, Index, Categorical) by its
    type's module; a :class:`~._ranking_rows.RankingRows` object by its
    ``frame_library`` attribute (the library of the frame it was read from, None for
    a file or arrays); a mapping (several models' scores) by its values. NumPy arrays,
    lists and anything else belong to none (None: pandas if installed). The inputs
    are looked at in the order given (``y_true``, the scores, ``group``).
    """
    for value in inputs:
        library = _library_of(value)
        if library is not None:
            return library
    return None


def output_library() -> str | None:
    """The frame library of the current public call's inputs (None outside one)."""
    recorded = _LIBRARY.get()
    return None if recorded is None else recorded[0]


def returns_frames_like_inputs(
    parameters: Sequence[str] = ("y_true", "y_score", "group"),
) -> Callable[[F], F]:
    """Record the frame library of the call's inputs for the tables it returns.

    ``parameters`` name the inputs looked at (:func:`frame_library`), in that order.
    Decorate above :func:`~._ranking_rows.accepts_ranking_rows`, which replaces a
    :class:`~._ranking_rows.RankingRows` first argument by its arrays. An enclosing
    public call that recorded a library keeps it.
    """

    def decorate(function: F) -> F:
        names = list(inspect.signature(function).parameters)
        positions = [(names.index(name), name) for name in parameters]

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if _LIBRARY.get() is not None:
                return function(*args, **kwargs)
            inputs = [
                args[position] if position < len(args) else kwargs.get(name)
                for position, name in positions
            ]
            token = _LIBRARY.set((frame_library(*inputs),))
            try:
                return function(*args, **kwargs)
            finally:
                _LIBRARY.reset(token)

        return cast(F, wrapper)

    return decorate


def frame_of(columns: dict[str, np.ndarray], library: str | None) -> Any:
    """The columns (1-D NumPy arrays of one length) as a table of ``library``.

    ``library`` (usually :func:`output_library`): ``"polars"`` gives a polars
    DataFrame, ``"pyarrow"`` a pyarrow Table; ``"pandas"`` and None (no input was a
    frame) a pandas DataFrame, or the dict itself when pandas is not installed.
    Column order is kept; integer and float columns keep their dtype (NaN stays NaN,
    not null), and object columns of text become text columns.
    """
    if library == "polars":
        return _polars_frame(columns)
    if library == "pyarrow":
        return _arrow_table(columns)
    try:
        import pandas as pd
    except ImportError:
        return columns
    return pd.DataFrame(columns)


def _polars_frame(columns: dict[str, np.ndarray]) -> Any:
    import polars as pl

    series = []
    for name, values in columns.items():
        if values.dtype != object:
            series.append(pl.Series(name, values))
        elif len(values):  # polars keeps object arrays as Object: read the Python values
            series.append(pl.Series(name, values.tolist()))
        else:
            series.append(pl.Series(name, [], dtype=pl.String))
    return pl.DataFrame(series)


def _arrow_table(columns: dict[str, np.ndarray]) -> Any:
    import pyarrow as pa

    arrays = [
        pa.array(values) if len(values) or values.dtype != object else pa.array([], pa.string())
        for values in columns.values()
    ]
    return pa.table(arrays, names=list(columns))


def from_native(value: Any, owner: str) -> Any:
    """``narwhals.from_native(value, pass_through=True)``, with narwhals' own errors
    turned into the package's: a frame with duplicated column names is a ValueError
    from ``owner`` (which column would be meant?), never narwhals' DuplicateError."""
    import narwhals.stable.v2 as nw  # a dependency, imported when a frame is read
    from narwhals.exceptions import DuplicateError

    try:
        return nw.from_native(value, pass_through=True)
    except DuplicateError as error:
        details = " ".join(str(error).split())
        raise ValueError(
            f"{owner}: the {type(value).__name__} has duplicated column names ({details}); "
            "rename them so that one column is meant."
        ) from None


def check_named_columns(available: list[Any], named: list[tuple[str, Any]], table: str) -> None:
    """Each named column is in ``available`` exactly once, else a ValueError.

    ``named`` holds ``(role, column)`` pairs, the role as the message shows it (``"the
    'y_true' parameter of read_table"``, ``"a metric"``); ``table`` starts the message
    (``"results.csv"``, ``"PerQueryValues.from_frame: the table"``). A missing column's
    message lists the columns there are; a name that stands twice is refused (which
    column would be meant?).
    """
    for role, column in named:
        count = available.count(column)
        if count > 1:
            raise ValueError(
                f"{table} has {count} columns named {column!r} ({role}); rename them so "
                "that one column is meant."
            )
        if not count:
            listed = ", ".join(repr(c) for c in available[:20])
            more = ", ..." if len(available) > 20 else ""
            raise ValueError(
                f"{table} has no column {column!r} ({role}); its columns are {listed}{more}."
            )
