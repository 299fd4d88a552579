"""RankingData.from_frame and read_table of every frame library: the NumPy numbers.

The expected values are those of the same rows given as NumPy arrays (the package is
checked against its peers on NumPy). Each frame library is one test item that loops
over every metric of the registry; the frames are pandas with NumPy dtypes, pandas
with Arrow dtypes, polars (eager and lazy), pyarrow Tables and DuckDB relations.
"""

from __future__ import annotations

import inspect
import pickle
import re
import subprocess
import sys
import textwrap

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from sklearn_rank_metrics import (
    AlignedRuns,
    RankingData,
    compare,
    evaluate,
    ranking_report,
    read_table,
)
from sklearn_rank_metrics._metrics._registry import METRICS
from tests.support.metric_data import make_data


def numpy_rows():
    """The rows as NumPy arrays: graded labels (int64 in the frames), scores with ties
    and -inf, string query and document ids, judged flags (an unjudged row has the
    label 0), query weights (constant within a query) and a second run's scores."""
    data = make_data(seed=3, n_queries=12, neg_inf=True)
    n = len(data.y_true)
    rng = np.random.default_rng(5)
    return {
        "row": np.arange(n),
        "label": data.y_true.astype(np.int64),
        "bm25": data.y_score,
        "dense": rng.random(n).round(1),
        "qid": np.array([f"q{g}" for g in data.group], dtype=object),
        "doc": np.array([f"d{i:03d}" for i in rng.permutation(n)], dtype=object),
        "judged": (data.y_true > 0) | (rng.random(n) < 0.8),
        "weight": data.sample_weight,
    }


ROWS = numpy_rows()
ARROW_TYPES = {"row": pa.int64(), "label": pa.int64(), "bm25": pa.float64(),
               "dense": pa.float64(), "qid": pa.string(), "doc": pa.string(),
               "judged": pa.bool_(), "weight": pa.float64()}


def _lists(columns):
    return {name: list(values) for name, values in columns.items()}


def _arrow(columns):
    return pa.table({name: pa.array(list(v), ARROW_TYPES[name]) for name, v in columns.items()})


def _duckdb(columns):
    connection = duckdb.connect()
    connection.register("ranking_rows", _arrow(columns))
    _CONNECTIONS.append(connection)  # alive as long as the relation is read
    return connection.sql("SELECT * FROM ranking_rows ORDER BY row")


_CONNECTIONS: list = []

# library -> (frame from the columns, frame_library, how messages name the frame)
LIBRARIES = {
    "pandas-numpy": (pd.DataFrame, "pandas", "the DataFrame"),
    "pandas-arrow": (
        lambda columns: pd.DataFrame(
            {name: pd.array(list(v), pd.ArrowDtype(ARROW_TYPES[name]))
             for name, v in columns.items()}
        ),
        "pandas",
        "the DataFrame",
    ),
    "polars": (lambda columns: pl.DataFrame(_lists(columns)), "polars", "the polars DataFrame"),
    "polars-lazy": (
        lambda columns: pl.LazyFrame(_lists(columns)), "polars", "the polars LazyFrame"
    ),
    "pyarrow": (_arrow, "pyarrow", "the pyarrow Table"),
    "duckdb": (_duckdb, "pyarrow", "the DuckDB relation"),
}


def frame_of(library, columns=ROWS):
    return LIBRARIES[library][0](columns)


def snapshot(frame):
    """The frame's content as a pyarrow Table (a copy), to check it is not modified."""
    if isinstance(frame, pd.DataFrame):
        return pa.Table.from_pandas(frame)
    if isinstance(frame, pl.LazyFrame):
        return frame.collect().to_arrow()
    if isinstance(frame, pl.DataFrame):
        return frame.to_arrow()
    if isinstance(frame, pa.Table):
        return frame
    return frame.to_arrow_table()


COLUMNS = {"y_true": "label", "y_score": "bm25", "group": "qid"}
EVERYTHING = {**COLUMNS, "doc_id": "doc", "judged": "judged", "sample_weight": "weight"}


def numpy_call(info, k, **kwargs):
    """The registry metric on the NumPy rows, with the weights (and the judged rows,
    if it takes them)."""
    takes = inspect.signature(info.function).parameters
    if "judged" in takes:
        kwargs["judged"] = ROWS["judged"]
    cutoff = {} if k is None else {"k": k}
    return info.function(
        ROWS["label"].astype(float), ROWS["bm25"], ROWS["qid"],
        sample_weight=ROWS["weight"], **info.fixed_params, **cutoff, **kwargs,
    )


def every_name():
    return [f"{name}@3" if info.takes_k else name for name, info in METRICS.items()]


@pytest.mark.parametrize("library", LIBRARIES)
def test_every_metric_of_a_frame_gives_the_numpy_numbers(library):
    frame = frame_of(library)
    before = snapshot(frame)
    data = RankingData.from_frame(frame, **EVERYTHING)
    assert isinstance(data, RankingData)
    assert data.frame_library == LIBRARIES[library][1]
    np.testing.assert_array_equal(data.y_true, ROWS["label"])
    assert data.y_true.dtype == data.y_score.dtype == data.sample_weight.dtype == np.float64
    np.testing.assert_array_equal(data.y_score, ROWS["bm25"])
    assert data.group.tolist() == ROWS["qid"].tolist()
    assert data.doc_id.tolist() == ROWS["doc"].tolist()
    assert data.judged.tolist() == ROWS["judged"].tolist()
    for name, info in METRICS.items():
        for k in [None, 3] if info.takes_k else [None]:
            cutoff = {} if k is None else {"k": k}
            got = info.function(data, **info.fixed_params, **cutoff)
            np.testing.assert_equal(got, numpy_call(info, k), err_msg=f"{name}, k={k}")
    # the document ids break tied scores under a tool's convention
    numpy_arrays = (ROWS["label"].astype(float), ROWS["bm25"], ROWS["qid"])
    settings = {"metrics": every_name(), "convention": "trec_eval"}
    expected = evaluate(
        *numpy_arrays, sample_weight=ROWS["weight"], judged=ROWS["judged"], doc_id=ROWS["doc"],
        **settings,
    )
    assert evaluate(data, **settings) == expected
    other_ids = evaluate(
        *numpy_arrays, sample_weight=ROWS["weight"], judged=ROWS["judged"],
        doc_id=ROWS["doc"][::-1], **settings,
    )
    assert other_ids != expected  # so the ids did order the ties above
    assert snapshot(frame).equals(before)


@pytest.mark.parametrize("library", ["pandas-numpy", "polars", "pyarrow"])
def test_a_float64_column_without_nulls_is_read_without_a_copy(library):
    frame = frame_of(library)
    data = RankingData.from_frame(frame, **COLUMNS)
    column = frame["bm25"]
    buffer = column.chunk(0).to_numpy() if library == "pyarrow" else column.to_numpy()
    assert np.shares_memory(data.y_score, buffer)
    assert not data.y_score.flags.writeable  # the frame's memory is never written


@pytest.mark.parametrize("library", LIBRARIES)
def test_several_score_columns_compare_as_on_numpy(library):
    frame = frame_of(library)
    before = snapshot(frame)
    columns = {**COLUMNS, "doc_id": "doc", "judged": "judged"}
    runs = RankingData.from_frame(frame, **{**columns, "y_score": ["bm25", "dense"]})
    assert isinstance(runs, AlignedRuns)
    assert runs.frame_library == LIBRARIES[library][1]
    assert list(runs.scores) == ["bm25", "dense"]
    queries = np.unique(ROWS["qid"])
    assert runs.n_queries == len(queries)
    for name in ("bm25", "dense"):  # queries with a score above -inf
        answered = {q for q, s in zip(ROWS["qid"], ROWS[name], strict=True) if s > -np.inf}
        assert runs.n_answered[name] == len(answered)
    settings = {"metrics": ["ndcg@3", "map", "bpref", "p@3"], "n_resamples": 200,
                "random_state": 0, "convention": "trec_eval"}
    expected = compare(
        ROWS["label"].astype(float), {"bm25": ROWS["bm25"], "dense": ROWS["dense"]},
        ROWS["qid"], judged=ROWS["judged"], doc_id=ROWS["doc"], **settings,
    )
    np.testing.assert_equal(compare(runs, **settings).records(), expected.records())
    named = RankingData.from_frame(frame, **{**columns, "y_score": {"a": "bm25", "b": "dense"}})
    assert list(named.scores) == ["a", "b"]
    np.testing.assert_array_equal(named.scores["b"], ROWS["dense"])
    one = runs.run("dense")
    assert one.frame_library == runs.frame_library
    assert evaluate(one, metrics="map") == evaluate(
        ROWS["label"].astype(float), ROWS["dense"], ROWS["qid"], metrics="map"
    )
    assert snapshot(frame).equals(before)


@pytest.mark.parametrize("library", LIBRARIES)
def test_weighted_runs_report_as_on_numpy_and_compare_refuses_them(library):
    frame = frame_of(library)
    runs = RankingData.from_frame(
        frame, **{**EVERYTHING, "y_score": ["bm25", "dense"]}
    )
    np.testing.assert_array_equal(runs.sample_weight, ROWS["weight"])
    metrics = ["ndcg@3", "map", "bpref"]
    expected = ranking_report(
        ROWS["label"].astype(float), {"bm25": ROWS["bm25"], "dense": ROWS["dense"]},
        ROWS["qid"], sample_weight=ROWS["weight"], judged=ROWS["judged"], metrics=metrics,
        output_dict=True,
    )
    np.testing.assert_equal(ranking_report(runs, metrics=metrics, output_dict=True), expected)
    with pytest.raises(ValueError, match=re.escape(
        "compare counts every query once, but the AlignedRuns carries query weights "
        "(sample_weight); they are not dropped silently."
    )):
        compare(runs, metrics=metrics)


@pytest.mark.parametrize("library", LIBRARIES)
def test_read_table_reads_every_frame_library(library):
    frame = frame_of(library)
    before = snapshot(frame)
    data = read_table(frame, y_true="label", y_score="bm25", group="qid", doc_id="doc")
    assert isinstance(data, RankingData)
    assert data.frame_library == LIBRARIES[library][1]
    assert data.source == LIBRARIES[library][2]
    assert data.group.tolist() == ROWS["qid"].tolist()
    assert data.doc_id.tolist() == ROWS["doc"].tolist()
    names = ["ndcg@3", "map", "mrr", "p@3", "gauc"]
    expected = evaluate(ROWS["label"].astype(float), ROWS["bm25"], ROWS["qid"], metrics=names)
    assert evaluate(data, metrics=names) == expected
    assert snapshot(frame).equals(before)


def _with_null(library, column):
    """The rows with a missing value at row 4 of ``column``, in the library's form."""
    columns = {name: values.copy() for name, values in ROWS.items()}
    if library == "pandas-numpy":
        values = columns[column].astype(object if column in ("qid", "doc", "judged") else float)
        values[4] = None if values.dtype == object else np.nan
        columns[column] = values
        return pd.DataFrame(columns)
    columns[column] = [None if i == 4 else v for i, v in enumerate(columns[column].tolist())]
    return frame_of(library, columns)


# column -> (parameter, what the message says after "column '<column>' (<parameter>) ")
NULLS = {
    "label": ("y_true", "must hold a finite number; got {shown}."),
    "bm25": ("y_score", "must hold a number (not NaN); got {shown}."),
    "weight": ("sample_weight", "must hold a finite number; got {shown}."),
    "qid": ("group", "has a missing value."),
    "doc": ("doc_id", "has a missing value."),
    "judged": ("judged", "has a missing value."),
}
# how each library's missing number is shown
SHOWN = {"pandas-numpy": "nan", "pandas-arrow": "<NA>"}


@pytest.mark.parametrize("library", LIBRARIES)
def test_missing_values_are_refused_with_column_parameter_and_row(library):
    _, _, name = LIBRARIES[library]
    row = "row 4 (index 4)" if library.startswith("pandas") else "row 4"
    for column, (parameter, rule) in NULLS.items():
        frame = _with_null(library, column)
        before = snapshot(frame)
        message = (
            f"RankingData.from_frame: {name}, {row}: column {column!r} ({parameter}) "
            + rule.format(shown=SHOWN.get(library, "null"))
        )
        with pytest.raises(ValueError, match=re.escape(message)):
            RankingData.from_frame(frame, **EVERYTHING)
        assert snapshot(frame).equals(before)
        if parameter in ("y_true", "y_score", "group", "doc_id"):
            with pytest.raises(ValueError, match=re.escape(
                message.replace("RankingData.from_frame", "read_table")
            )):
                read_table(frame, y_true="label", y_score="bm25", group="qid", doc_id="doc")


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_missing_column_is_refused_with_the_columns_there_are(library):
    frame = frame_of(library)
    name = LIBRARIES[library][2]
    listed = "'row', 'label', 'bm25', 'dense', 'qid', 'doc', 'judged', 'weight'"
    for parameter in ("y_true", "y_score", "group", "doc_id", "judged", "sample_weight"):
        columns = {**EVERYTHING, parameter: "grade"}
        with pytest.raises(ValueError, match=re.escape(
            f"{name} has no column 'grade' (the {parameter!r} parameter of "
            f"RankingData.from_frame); its columns are {listed}."
        )):
            RankingData.from_frame(frame, **columns)
    with pytest.raises(ValueError, match=re.escape(
        f"{name} has no column 'y_true' (the 'y_true' parameter of read_table)"
    )):
        read_table(frame)  # the default column names
    with pytest.raises(ValueError, match=re.escape(
        f"{name} has no column 'nope' (the 'y_score' parameter of RankingData.from_frame)"
    )):
        RankingData.from_frame(frame, **{**COLUMNS, "y_score": ["bm25", "nope"]})


def test_the_default_column_names_are_read_tables():
    frame = pl.DataFrame({"y_true": [1, 0, 2], "y_score": [0.5, 0.2, 0.1], "group": [7, 7, 8]})
    data = RankingData.from_frame(frame)
    assert data.y_true.tolist() == [1.0, 0.0, 2.0] and data.group.tolist() == [7, 7, 8]
    assert data.group.dtype == np.int64  # ids keep the frame's type
    assert RankingData.from_frame(frame, y_score=None).y_score is None
    lazy = pl.LazyFrame({"y_true": [1], "y_score": [0.5], "group": ["a"], "x": [[1, 2]]})
    assert RankingData.from_frame(lazy).group.tolist() == ["a"]  # the other columns are left


def test_calls_that_could_mean_two_things_are_refused():
    frame = pd.DataFrame({"label": [1, 0], "bm25": [0.5, 0.1], "dense": [0.2, 0.3],
                          "qid": ["a", "a"]})
    columns = {"y_true": "label", "group": "qid"}
    with pytest.raises(TypeError, match="takes 2 positional arguments but 5 were given"):
        RankingData.from_frame(frame, "label", "bm25", "qid")  # keyword-only: no order to guess
    with pytest.raises(TypeError, match=re.escape(
        "The 'y_score' parameter of RankingData.from_frame must be a column name (str); got "
        "tuple. A tuple could name one column or several; pass a list of columns for several"
    )):
        RankingData.from_frame(frame, y_score=("bm25", "dense"), **columns)
    with pytest.raises(TypeError, match=re.escape(
        "The 'sample_weight' parameter of RankingData.from_frame must be a column name (str); "
        "got ndarray. Name the frame's columns here; arrays go to the metric functions"
    )):
        RankingData.from_frame(frame, y_score="bm25", sample_weight=np.ones(2), **columns)
    with pytest.raises(ValueError, match="names the column 'bm25' twice"):
        RankingData.from_frame(frame, y_score=["bm25", "bm25"], **columns)
    with pytest.raises(ValueError, match="must name at least one column"):
        RankingData.from_frame(frame, y_score=[], **columns)
    with pytest.raises(TypeError, match=re.escape("run names (keys of 'y_score')")):
        RankingData.from_frame(frame, y_score={1: "bm25"}, **columns)
    with pytest.raises(TypeError, match=re.escape(
        "The 'y_score' parameter of read_table must be one column name; for several"
    )):
        read_table(frame, y_score=["bm25", "dense"], **columns)
    with pytest.raises(TypeError, match=re.escape(
        "The 'frame' parameter of RankingData.from_frame must be a DataFrame (pandas, polars, "
        "pyarrow Table, DuckDB relation, or any frame narwhals reads); got dict."
    )):
        RankingData.from_frame({"label": [1]}, **columns)
    with pytest.raises(TypeError, match=re.escape(
        "The 'path_or_frame' parameter of read_table must be a file path (str or os.PathLike) "
        "or a DataFrame"
    )):
        read_table(pl.Series([1.0]))
    # weights the rows carry and weights given again: refused, not picked
    data = RankingData.from_frame(
        frame.assign(w=1.0), y_score="bm25", sample_weight="w", **columns
    )
    with pytest.raises(ValueError, match="also sample_weight=; the RankingData carries"):
        evaluate(data, metrics="map", sample_weight=np.ones(2))


def test_number_columns_must_hold_numbers():
    frame = pl.DataFrame({"y_true": ["1", "0"], "y_score": [0.5, 0.1], "group": ["a", "a"]})
    with pytest.raises(TypeError, match=re.escape(
        "RankingData.from_frame: column 'y_true' (y_true) of the polars DataFrame must hold "
        "numbers; it holds String."
    )):
        RankingData.from_frame(frame)
    # pandas text columns are parsed, as read_table always parsed them
    parsed = pd.DataFrame({"y_true": ["1", "0"], "y_score": [0.5, 0.1], "group": ["a", "a"]})
    assert RankingData.from_frame(parsed).y_true.tolist() == [1.0, 0.0]
    bad = parsed.assign(y_true=["1", "x"])
    with pytest.raises(ValueError, match=re.escape(
        "RankingData.from_frame: the DataFrame, row 1 (index 1): column 'y_true' (y_true) must "
        "hold a finite number; got 'x'."
    )):
        RankingData.from_frame(bad)
    # a NaN (not a null) of polars, and a bad value before the first null, come first
    nan_then_null = pl.DataFrame(
        {"y_true": [1.0, float("nan"), None], "y_score": [0.5, 0.1, 0.2], "group": [1, 1, 1]}
    )
    with pytest.raises(ValueError, match=r"row 1: column 'y_true' \(y_true\) .* got nan\."):
        RankingData.from_frame(nan_then_null)
    # booleans, small integers, float32 and DuckDB's decimals are numbers
    typed = duckdb.sql(
        "SELECT true AS y_true, 0.25 AS y_score, 3::TINYINT AS group UNION ALL "
        "SELECT false, 0.5, 3"
    )
    data = RankingData.from_frame(typed)
    assert sorted(data.y_score.tolist()) == [0.25, 0.5] and data.y_true.dtype == np.float64


def test_pandas_nullable_dtypes_read_as_their_numpy_values():
    frame = pd.DataFrame({
        "y_true": pd.array([2, 0, 1], dtype="Int64"),
        "y_score": pd.array([0.5, 0.25, -np.inf], dtype="Float64"),
        "group": pd.array(["a", "a", "b"], dtype="string"),
        "judged": pd.array([True, True, False], dtype="boolean"),
        "weight": pd.array([2, 2, 1], dtype="UInt8"),
    }, index=["x", "y", "z"])
    data = RankingData.from_frame(frame, judged="judged", sample_weight="weight")
    assert data.y_true.tolist() == [2.0, 0.0, 1.0] and data.y_true.dtype == np.float64
    assert data.y_score.tolist() == [0.5, 0.25, -np.inf]
    assert data.sample_weight.tolist() == [2.0, 2.0, 1.0]
    assert data.group.tolist() == ["a", "a", "b"] and data.judged.tolist() == [True, True, False]
    # y_true 1 on an unjudged row: refused by the metric, as with NumPy arrays
    with pytest.raises(ValueError, match="a document nobody judged has the label 0"):
        evaluate(data, metrics="bpref")
    missing = frame.assign(y_score=pd.array([0.5, None, 0.1], dtype="Float64"))
    with pytest.raises(ValueError, match=re.escape(
        "RankingData.from_frame: the DataFrame, row 1 (index 'y'): column 'y_score' (y_score) "
        "must hold a number (not NaN); got <NA>."
    )):
        RankingData.from_frame(missing)


def test_an_empty_frame_is_refused():
    frame = pl.DataFrame(schema={"y_true": pl.Int64, "y_score": pl.Float64, "group": pl.Utf8})
    with pytest.raises(ValueError, match=re.escape(
        "RankingData.from_frame: the polars DataFrame has no rows."
    )):
        RankingData.from_frame(frame)


def test_from_frame_results_pickle_and_keep_their_repr():
    frame = frame_of("polars")
    data = RankingData.from_frame(frame, **EVERYTHING)
    assert repr(data) == (
        f"RankingData(n_rows={len(ROWS['row'])}, n_queries=12, "
        "source='the polars DataFrame')"
    )
    copy = pickle.loads(pickle.dumps(data))
    assert copy.frame_library == "polars"
    np.testing.assert_array_equal(copy.sample_weight, data.sample_weight)
    runs = RankingData.from_frame(frame, **{**EVERYTHING, "y_score": ["bm25", "dense"]})
    assert "frame_library" not in repr(runs)
    assert pickle.loads(pickle.dumps(runs)).frame_library == "polars"
    # files and arrays come from no frame library
    assert RankingData(np.ones(2), np.ones(2), np.zeros(2)).frame_library is None


def test_a_narwhals_too_old_for_the_frame_says_what_to_upgrade(monkeypatch):
    import narwhals.stable.v2 as nw

    def old_narwhals(*args, **kwargs):  # narwhals < 2.8 reading a DuckDB 2 relation
        raise ModuleNotFoundError("No module named 'duckdb.typing'")

    monkeypatch.setattr(nw, "from_native", old_narwhals)
    relation = duckdb.sql("SELECT 1 AS y_true, 0.5 AS y_score, 1 AS group")
    with pytest.raises(ImportError, match=re.escape(
        "cannot read a duckdb DuckDBPyRelation (No module named 'duckdb.typing'); upgrade it: "
        "pip install -U narwhals (the relations of DuckDB 2 need narwhals >= 2.8)."
    )):
        RankingData.from_frame(relation)


def test_polars_frames_are_read_without_pandas():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["pandas"] = None
        import polars as pl
        from sklearn_rank_metrics import RankingData, evaluate, read_table
        frame = pl.DataFrame({"y_true": [1, 0, 2], "y_score": [0.2, 0.1, 0.3],
                              "other": [0.1, 0.2, 0.3], "group": ["a", "a", "b"]})
        data = RankingData.from_frame(frame.lazy())
        runs = RankingData.from_frame(frame, y_score=["y_score", "other"])
        print(evaluate(data, metrics="mrr"), data.frame_library, runs.n_answered,
              read_table(frame).frame_library)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["{'mrr':", "1.0}", "polars", "{'y_score':", "2,", "'other':", "2}",
                           "polars"]


def test_carried_weights_are_never_dropped_silently():
    from dataclasses import replace

    import scipy.sparse as sp
    from sklearn.linear_model import LinearRegression

    from sklearn_rank_metrics import MetricAtKDisplay, make_ranking_scorer

    frame = pl.DataFrame({"y_true": [1, 0, 2, 0], "a": [0.2, 0.1, 0.3, 0.4],
                          "b": [0.1, 0.2, 0.3, 0.1], "w": [1.0, 1.0, 3.0, 3.0],
                          "group": ["q", "q", "r", "r"]})
    runs = RankingData.from_frame(frame, y_score=["a", "b"], sample_weight="w")
    with pytest.raises(ValueError, match=re.escape(
        "MetricAtKDisplay.from_predictions counts every query once, but the AlignedRuns "
        "carries query weights"
    )):
        MetricAtKDisplay.from_predictions(runs, metric="ndcg")
    unweighted = replace(runs, sample_weight=None)  # what the message proposes
    np.testing.assert_equal(
        compare(unweighted, metrics="mrr", n_resamples=10, random_state=0).records(),
        compare(
            np.array([1.0, 0, 2, 0]), {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()},
            np.array(["q", "q", "r", "r"]), metrics="mrr", n_resamples=10, random_state=0,
        ).records(),
    )
    # the query weights reach the metric: RR 1 for q (weight 1), 1/2 for r (weight 3)
    one = runs.run("a")
    assert evaluate(one, metrics="mrr") == {"mrr": pytest.approx((1.0 * 1 + 0.5 * 3) / 4)}
    X = sp.csr_matrix(np.arange(8.0).reshape(4, 2))
    with_features = replace(one, X=X)
    scorer = make_ranking_scorer("ndcg@2")
    model = LinearRegression().fit(X.toarray(), one.y_true)
    with pytest.raises(ValueError, match="does not read the query weights"):
        scorer(model, with_features)


def test_ranking_data_of_array_api_arrays_counts_rows_by_shape():
    import array_api_strict as xp

    from sklearn_rank_metrics import ndcg_score

    labels, scores, ids = [1.0, 0.0, 2.0], [0.2, 0.1, 0.3], [1, 1, 2]
    data = RankingData(xp.asarray(labels), xp.asarray(scores), xp.asarray(ids))
    assert "n_rows=3" in repr(data)
    # query 1 ranks its relevant row first (1.0), query 2 has one row (1.0)
    assert ndcg_score(data) == 1.0
    with pytest.raises(ValueError, match="y_score has 2 rows but y_true has 3"):
        RankingData(xp.asarray(labels), xp.asarray(scores[:2]), xp.asarray(ids))


def test_unpacking_rows_that_carry_weights_is_refused():
    frame = pl.DataFrame({"q": [1, 1, 1, 2, 2, 2], "y": [2, 0, 1, 1, 0, 0],
                          "a": [1.2, 3.4, 1.2, 0.9, 0.9, 0.5], "b": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                          "w": [1.0, 1, 1, 3, 3, 3]})
    weighted = RankingData.from_frame(frame, y_true="y", y_score="a", group="q", sample_weight="w")
    runs = RankingData.from_frame(frame, y_true="y", y_score=["a", "b"], group="q",
                                  sample_weight="w")
    for rows in (weighted, runs):
        with pytest.raises(TypeError, match=r"carries query weights .* Pass it whole"):
            list(rows)
    # whole, the weights count: query 1 (mrr 1/2, weight 1), query 2 (mrr 1, weight 3)
    assert evaluate(weighted, metrics=["mrr"], ties="input")["mrr"] == pytest.approx(3.5 / 4)
    # without weights, unpacking keeps working as before
    y_true, y_score, group = RankingData.from_frame(frame, y_true="y", y_score="a", group="q")
    assert evaluate(y_true, y_score, group, metrics=["mrr"], ties="input")["mrr"] == 0.75


@pytest.mark.parametrize("columns", [
    {"y_true": "y", "y_score": "y", "group": "q"},
    {"y_true": "y", "y_score": "s", "group": "y"},
    {"y_true": "y", "y_score": "s", "group": "s"},
    {"y_true": "y", "y_score": ["s", "y"], "group": "q"},
    {"y_true": "y", "y_score": {"a": "s", "b": "s"}, "group": "q"},
    {"y_true": "y", "y_score": "s", "group": "q", "sample_weight": "s"},
])
def test_one_column_in_two_roles_is_refused(columns):
    frame = pl.DataFrame({"q": [1, 1, 2], "y": [2, 0, 1], "s": [0.3, 0.9, 0.1]})
    with pytest.raises(ValueError, match="is named for .*; each must read its own column"):
        RankingData.from_frame(frame, **columns)


def test_duplicated_column_names_of_a_duckdb_relation_are_refused():
    frame = pl.DataFrame({"q": [1, 1, 1], "y": [2, 0, 1], "a": [1.2, 3.4, 0.3]})  # noqa: F841
    relation = duckdb.sql("SELECT q, a AS y, a, y FROM frame")  # 'y' twice: scores, labels
    with pytest.raises(ValueError, match="has 2 columns named 'y' \\(the 'y_true' parameter"):
        RankingData.from_frame(relation, y_true="y", y_score="a", group="q")


def test_read_table_names_a_dataframe_index_as_written():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(
        {"label": [1, 0, "x", 0], "score": [1.0, 2, 3, 4], "qid": [1, 1, 2, 2]},
        index=[10, 11, 12, 13],
    )
    with pytest.raises(ValueError, match=r"row 2 \(index 12\)") as info:
        read_table(frame, y_true="label", y_score="score", group="qid")
    assert "np." not in str(info.value)
