"""Inputs of each frame library, and the tables that come back, read as plain columns.

The expected values of the frame tests are the NumPy calls' (pandas DataFrames in the
main suite): :func:`assert_same_table` reads a table of any library column by column.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

from sklearn_rank_metrics import AlignedRuns, RankingData

# the type each library's tables come back as
TABLE_TYPES = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "pyarrow": pa.Table}


def as_library(values, library):
    """One input column as the library holds it: a Series, or a pyarrow Array."""
    if library == "pandas":
        return pd.Series(values)
    if library == "polars":
        return pl.Series(values)
    if library == "pyarrow":
        return pa.array(values)
    return np.asarray(values)


def as_chunked(values):
    """A pyarrow ChunkedArray of two chunks."""
    values = np.asarray(values)
    half = len(values) // 2
    return pa.chunked_array([pa.array(values[:half]), pa.array(values[half:])])


@dataclass(frozen=True, eq=False)
class DataFromFrame(RankingData):
    """A RankingData as ``RankingData.from_frame`` gives it: with ``frame_library``."""

    frame_library: str | None = None


@dataclass(frozen=True, eq=False)
class RunsFromFrame(AlignedRuns):
    """An AlignedRuns read from a frame: with ``frame_library``."""

    frame_library: str | None = None


def from_frame(data, library):
    """``data`` (a RankingData or AlignedRuns) as read from a frame of ``library``."""
    kind = DataFromFrame if isinstance(data, RankingData) else RunsFromFrame
    values = {f.name: getattr(data, f.name) for f in fields(data) if f.init}
    values["frame_library"] = library
    return kind(**values)


def table_columns(table):
    """``{column: list of Python values}`` of a pandas, polars or pyarrow table, or dict."""
    if isinstance(table, pa.Table):
        return {name: table[name].to_pylist() for name in table.column_names}
    if isinstance(table, dict):
        return {name: np.asarray(values).tolist() for name, values in table.items()}
    return {name: list(table[name].to_list()) for name in table.columns}


def _kind(table, name):
    """``"int"``, ``"float"`` or ``"str"``: the kind of a column's dtype, in any library."""
    if isinstance(table, pa.Table):
        kind = table.schema.field(name).type
        checks = {"int": pa.types.is_integer, "float": pa.types.is_floating,
                  "str": pa.types.is_string}
        return next(label for label, check in checks.items() if check(kind))
    if isinstance(table, pl.DataFrame):
        dtype = table.schema[name]
        kinds = {"int": dtype.is_integer(), "float": dtype.is_float(), "str": dtype == pl.String}
        return next(label for label, matches in kinds.items() if matches)
    dtype = table[name].dtype
    return "int" if dtype.kind in "iu" else "float" if dtype.kind == "f" else "str"


def assert_same_table(got, expected, library):
    """``got`` is a table of ``library`` with the columns, kinds and values of ``expected``
    (NaN equal to NaN)."""
    assert isinstance(got, TABLE_TYPES[library]), (library, type(got))
    got_columns, expected_columns = table_columns(got), table_columns(expected)
    assert list(got_columns) == list(expected_columns)
    for name, values in expected_columns.items():
        assert _kind(got, name) == _kind(expected, name), name
        np.testing.assert_array_equal(
            np.asarray(got_columns[name], dtype=object if _kind(got, name) == "str" else None),
            np.asarray(values, dtype=object if _kind(got, name) == "str" else None),
            err_msg=name,
        )
