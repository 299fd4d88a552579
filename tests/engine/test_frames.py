"""The one output path of tables: the inputs' frame library, and tables built in it."""

import subprocess
import sys

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from sklearn_rank_metrics import RankingData
from sklearn_rank_metrics._engine._frames import (
    frame_library,
    frame_of,
    output_library,
    returns_frames_like_inputs,
)
from tests.support.frames import from_frame


class _MySeries(pl.Series):
    """A user's subclass of a polars Series (defined outside polars)."""


@pytest.mark.parametrize(
    ("value", "library"),
    [
        (np.arange(3), None),
        ([1, 2, 3], None),
        ((1, 2), None),
        (None, None),
        ({"a": np.arange(3), "b": [1, 2, 3]}, None),
        (pd.Series([1, 2]), "pandas"),
        (pd.DataFrame({"a": [1]}), "pandas"),
        (pd.Categorical(["a", "b"]), "pandas"),
        (pd.array([1, None], dtype="Int64"), "pandas"),
        (pl.Series([1, 2]), "polars"),
        (pl.DataFrame({"a": [1]}), "polars"),
        (pl.LazyFrame({"a": [1]}), "polars"),
        (_MySeries([1, 2]), "polars"),
        (pa.array([1, 2]), "pyarrow"),
        (pa.chunked_array([[1], [2]]), "pyarrow"),
        (pa.table({"a": [1]}), "pyarrow"),
        ({"a": np.arange(2), "b": pa.array([1, 2])}, "pyarrow"),
        ({"a": pl.Series([1, 2])}, "polars"),
    ],
    ids=lambda value: type(value).__name__,
)
def test_frame_library_of_one_input(value, library):
    assert frame_library(value) == library


def test_the_first_input_of_a_library_decides_and_ranking_rows_say_theirs():
    assert frame_library(np.arange(2), pa.array([1]), pl.Series([1])) == "pyarrow"
    assert frame_library([1], None, pl.Series([1]), pd.Series([1])) == "polars"
    data = RankingData(np.zeros(2), np.zeros(2), np.zeros(2))
    assert frame_library(data, pl.Series([1])) == "polars"  # read from a file: no library
    for library in ("pandas", "polars", "pyarrow"):
        assert frame_library(from_frame(data, library), pl.Series([1])) == library
    assert frame_library(from_frame(data, "unknown"), pa.array([1])) == "pyarrow"


def test_the_outermost_public_call_records_the_library():
    @returns_frames_like_inputs(("values",))
    def inner(values):
        return output_library()

    @returns_frames_like_inputs(("values",))
    def outer(values, inner_values):
        return output_library(), inner(inner_values)

    assert output_library() is None
    assert inner(pl.Series([1])) == "polars"
    assert inner(values=pa.array([1])) == "pyarrow"
    assert outer(pa.array([1]), pl.Series([1])) == ("pyarrow", "pyarrow")
    # NumPy outside: recorded as None, which the inner call keeps
    assert outer(np.arange(2), pl.Series([1])) == (None, None)
    assert output_library() is None


COLUMNS = {
    "name": np.array(["b", "a", "c"], dtype=object),
    "count": np.array([3, 0, 7], dtype=np.int64),
    "value": np.array([0.5, np.nan, 1.0]),
}


def test_polars_table_keeps_order_dtypes_and_nan():
    table = frame_of(COLUMNS, "polars")
    assert isinstance(table, pl.DataFrame)
    assert table.schema == {"name": pl.String, "count": pl.Int64, "value": pl.Float64}
    assert table["name"].to_list() == ["b", "a", "c"]
    assert table["value"].null_count() == 0 and np.isnan(table["value"][1])  # NaN, not null
    ids = frame_of({"query": np.array([10**12, 3], dtype=object)}, "polars")
    assert ids.schema["query"] == pl.Int64  # Python ints of an object column: integers
    empty = frame_of({"model": np.array([], dtype=object)}, "polars")
    assert empty.schema["model"] == pl.String and empty.height == 0


def test_arrow_table_keeps_order_dtypes_and_nan():
    table = frame_of(COLUMNS, "pyarrow")
    assert isinstance(table, pa.Table)
    assert table.schema.names == ["name", "count", "value"]
    assert table.schema.types == [pa.string(), pa.int64(), pa.float64()]
    assert table["value"].null_count == 0 and np.isnan(table["value"][1].as_py())
    empty = frame_of({"model": np.array([], dtype=object)}, "pyarrow")
    assert empty.schema.types == [pa.string()] and empty.num_rows == 0


@pytest.mark.parametrize("library", ["pandas", None])
def test_pandas_table_is_the_dataframe_of_the_columns(library):
    pd.testing.assert_frame_equal(frame_of(COLUMNS, library), pd.DataFrame(COLUMNS))


def test_no_input_library_and_no_pandas_gives_the_columns(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    assert frame_of(COLUMNS, None) is COLUMNS
    assert isinstance(frame_of(COLUMNS, "polars"), pl.DataFrame)


def test_detection_and_numpy_tables_import_no_frame_library():
    # polars and pyarrow cannot be imported in this process (scikit-learn itself
    # imports pandas, and pandas pyarrow, when installed): the tables of NumPy inputs
    # need neither
    code = (
        "import sys\n"
        "sys.modules['polars'] = sys.modules['pyarrow'] = None\n"
        "import numpy as np\n"
        "from sklearn_rank_metrics import compare, evaluate, ranking_report\n"
        "from sklearn_rank_metrics._engine._frames import frame_library\n"
        "assert frame_library(np.arange(3), [1, 2], {'a': np.arange(2)}) is None\n"
        "rows = [1, 0, 1, 0], [0.3, 0.2, 0.1, 0.4], [1, 1, 2, 2]\n"
        "table = evaluate(*rows, metrics='mrr', per_query=True)\n"
        "assert type(table).__module__.startswith('pandas'), type(table)\n"
        "result = compare(rows[0], {'a': rows[1], 'b': rows[1][::-1]}, rows[2],\n"
        "                 n_resamples=10)\n"
        "assert type(result.per_query).__module__.startswith('pandas')\n"
        "frame = ranking_report(*rows, as_frame=True)\n"
        "assert type(frame).__module__.startswith('pandas')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
