"""Per-query tables come back in the inputs' frame library (issue 34, item 3).

``evaluate(per_query=True)`` and ``RankingEvaluator.compute(per_query=True)``: polars
in, polars out; pyarrow in, pyarrow out; pandas otherwise. The expected values are the
NumPy call's (a pandas DataFrame), column by column.
"""

import pickle
import sys

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from sklearn_rank_metrics import RankingData, RankingEvaluator, evaluate
from sklearn_rank_metrics._metrics._registry import METRICS
from tests.support.frames import (
    TABLE_TYPES,
    as_chunked,
    as_library,
    assert_same_table,
    from_frame,
    table_columns,
)
from tests.support.metric_data import make_data

# every metric of the registry, in one call
ALL_METRICS = [f"{name}@5" if info.takes_k else name for name, info in sorted(METRICS.items())]
LIBRARIES = ["pandas", "polars", "pyarrow"]


def _data(seed=3):
    data = make_data(seed=seed, n_queries=12)
    # the relevant rows and every other row judged (bpref and judged@k read the mask)
    judged = (data.y_true > 0) | (np.arange(len(data.y_true)) % 2 == 0)
    return data.y_true, data.y_score, data.group, judged


@pytest.mark.parametrize("library", LIBRARIES)
def test_evaluate_per_query_table_is_of_the_input_library(library):
    y_true, y_score, group, judged = _data()
    expected = evaluate(
        y_true, y_score, group, metrics=ALL_METRICS, judged=judged, per_query=True
    )
    inputs = [as_library(values, library) for values in (y_true, y_score, group, judged)]
    table = evaluate(*inputs[:3], metrics=ALL_METRICS, judged=inputs[3], per_query=True)
    assert_same_table(table, expected, library)
    if library == "pandas":  # pandas results are those of NumPy inputs, dtypes and all
        pd.testing.assert_frame_equal(table, expected, check_exact=True)


def test_pyarrow_chunked_arrays_give_a_pyarrow_table():
    y_true, y_score, group, _ = _data(4)
    expected = evaluate(y_true, y_score, group, metrics=["ndcg@5", "map"], per_query=True)
    table = evaluate(
        as_chunked(y_true), as_chunked(y_score), as_chunked(group),
        metrics=["ndcg@5", "map"], per_query=True,
    )
    assert_same_table(table, expected, "pyarrow")


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_text_query_ids_become_a_text_column(library):
    y_true, y_score, group, _ = _data(5)
    names = np.array([f"q{number:03d}" for number in group], dtype=object)
    expected = evaluate(y_true, y_score, names, metrics="mrr", per_query=True)
    table = evaluate(
        *(as_library(values, library) for values in (y_true, y_score, names)),
        metrics="mrr", per_query=True,
    )
    assert_same_table(table, expected, library)  # the query column is of kind "str"


def test_the_first_input_of_a_frame_library_decides():
    y_true, y_score, group, _ = _data(6)
    # NumPy labels and scores, polars query ids: polars
    table = evaluate(y_true, y_score, pl.Series(group), metrics="map", per_query=True)
    assert isinstance(table, pl.DataFrame)
    # polars labels before pyarrow scores
    table = evaluate(pl.Series(y_true), pa.array(y_score), group, metrics="map", per_query=True)
    assert isinstance(table, pl.DataFrame)
    table = evaluate(pa.array(y_true), pl.Series(y_score), group, metrics="map", per_query=True)
    assert isinstance(table, pa.Table)


@pytest.mark.parametrize("library", [*LIBRARIES, None])
def test_ranking_data_read_from_a_frame_gives_a_table_of_that_library(library):
    y_true, y_score, group, judged = _data(7)
    data = from_frame(RankingData(y_true, y_score, group, judged=judged), library)
    expected = evaluate(
        y_true, y_score, group, metrics=ALL_METRICS, judged=judged, per_query=True
    )
    table = evaluate(data, metrics=ALL_METRICS, per_query=True)
    assert_same_table(table, expected, library or "pandas")


def test_means_are_a_dict_whatever_the_library():
    y_true, y_score, group, judged = _data(8)
    expected = evaluate(y_true, y_score, group, metrics=ALL_METRICS, judged=judged)
    for library in ("polars", "pyarrow"):
        inputs = [as_library(values, library) for values in (y_true, y_score, group, judged)]
        assert evaluate(*inputs[:3], metrics=ALL_METRICS, judged=inputs[3]) == expected


def test_without_pandas_polars_inputs_still_give_polars_and_numpy_a_dict(monkeypatch):
    y_true, y_score, group, _ = _data(9)
    expected = evaluate(y_true, y_score, group, metrics=["ndcg@5", "mrr"], per_query=True)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    table = evaluate(
        pl.Series(y_true), pl.Series(y_score), pl.Series(group), metrics=["ndcg@5", "mrr"],
        per_query=True,
    )
    assert_same_table(table, expected, "polars")
    columns = evaluate(y_true, y_score, group, metrics=["ndcg@5", "mrr"], per_query=True)
    assert isinstance(columns, dict)
    np.testing.assert_array_equal(columns["ndcg@5"], expected["ndcg@5"].to_numpy())


# --------------------------------------------------------------------------- streaming


def _batches(seed=10):
    y_true, y_score, group, _ = _data(seed)
    first = group < np.median(np.unique(group))  # two batches of whole queries
    return (y_true, y_score, group), [
        (y_true[rows], y_score[rows], group[rows]) for rows in (first, ~first)
    ]


@pytest.mark.parametrize("library", LIBRARIES)
def test_streaming_table_is_of_the_first_batch_library(library):
    (y_true, y_score, group), batches = _batches()
    metrics = ["ndcg@5", "map", "mrr@5", "p@5"]
    expected = evaluate(y_true, y_score, group, metrics=metrics, per_query=True)
    evaluator = RankingEvaluator(metrics)
    evaluator.update(*(as_library(values, library) for values in batches[0]))
    evaluator.update(*batches[1])  # NumPy: the first batch decides
    table = evaluator.compute(per_query=True)
    assert isinstance(table, TABLE_TYPES[library])
    columns = table_columns(table)
    assert list(columns) == ["query", *metrics]
    np.testing.assert_array_equal(columns["query"], expected["query"].to_numpy())
    for name in metrics:  # the means of batches equal one call's to about 1e-16
        np.testing.assert_allclose(columns[name], expected[name].to_numpy(), rtol=1e-12)


def test_streaming_numpy_first_batch_gives_pandas_and_merge_and_pickle_keep_the_library():
    _, batches = _batches(11)
    numpy_first = RankingEvaluator("mrr")
    numpy_first.update(*batches[0])
    numpy_first.update(*(pl.Series(values) for values in batches[1]))
    assert isinstance(numpy_first.compute(per_query=True), pd.DataFrame)

    polars_worker = RankingEvaluator("mrr")
    polars_worker.update(*(pl.Series(values) for values in batches[0]))
    empty = RankingEvaluator("mrr")
    empty.merge(polars_worker)  # the first batch recorded came from polars
    assert isinstance(empty.compute(per_query=True), pl.DataFrame)

    restored = pickle.loads(pickle.dumps(polars_worker))
    restored.update(*batches[1])
    assert isinstance(restored.compute(per_query=True), pl.DataFrame)

    state = polars_worker.__getstate__()
    del state["_frame_library"]  # pickled before tables followed the inputs
    older = RankingEvaluator.__new__(RankingEvaluator)
    older.__setstate__(state)
    assert isinstance(older.compute(per_query=True), pd.DataFrame)


def test_streaming_ranking_data_of_a_frame():
    (y_true, y_score, group), batches = _batches(12)
    evaluator = RankingEvaluator(["ndcg@5"])
    evaluator.update(from_frame(RankingData(*batches[0]), "pyarrow"))
    evaluator.update(*batches[1])
    table = evaluator.compute(per_query=True)
    assert isinstance(table, pa.Table)
    expected = evaluate(y_true, y_score, group, metrics=["ndcg@5"], per_query=True)
    np.testing.assert_allclose(
        table["ndcg@5"].to_numpy(), expected["ndcg@5"].to_numpy(), rtol=1e-12
    )
