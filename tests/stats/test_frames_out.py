"""compare's tables and ranking_report's frame come back in the inputs' frame library.

Polars in, polars out; pyarrow in, pyarrow out; pandas otherwise (issue 34, item 3).
The expected values are the NumPy call's (pandas DataFrames), column by column, with
the same ``random_state``; the renderers read internal columns, so their text is the
NumPy call's whatever the frame type.
"""

import sys

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from sklearn_rank_metrics import AlignedRuns, compare, ranking_report
from tests.support.frames import as_chunked, as_library, assert_same_table, from_frame
from tests.support.metric_data import make_data

METRICS = ["ndcg@5", "map", "mrr", "p@3", "fallout@5"]
SETTINGS = dict(n_resamples=200, random_state=0)


def _data(seed=0):
    data = make_data(seed=seed, n_queries=14)
    rng = np.random.default_rng(seed)
    scores = {
        "bm25": data.y_score,
        "ltr": data.y_score + rng.normal(0, 1, len(data.y_score)),
        "dense": rng.normal(0, 1, len(data.y_score)),
    }
    return data.y_true, scores, data.group


def _scores_of(scores, library, how):
    """Several models' scores as a frame of ``library`` or a mapping of its columns."""
    if how == "frame":
        if library == "pandas":
            return pd.DataFrame(scores)
        return pl.DataFrame(scores) if library == "polars" else pa.table(scores)
    if library == "pyarrow" and how == "chunked":
        return {name: as_chunked(values) for name, values in scores.items()}
    return {name: as_library(values, library) for name, values in scores.items()}


def _assert_same_renderings(result, expected):
    for render in ("to_text", "to_markdown", "to_latex", "to_long_text", "to_csv", "to_json"):
        assert getattr(result, render)() == getattr(expected, render)(), render
    assert repr(result.records()) == repr(expected.records())  # NaN != NaN in ==
    assert repr(result) == repr(expected)


CASES = [
    ("pandas", "frame"), ("pandas", "mapping"),
    ("polars", "frame"), ("polars", "mapping"),
    ("pyarrow", "frame"), ("pyarrow", "mapping"), ("pyarrow", "chunked"),
]


@pytest.mark.parametrize(("library", "how"), CASES, ids=[f"{a}-{b}" for a, b in CASES])
def test_compare_tables_are_of_the_scores_library(library, how):
    y_true, scores, group = _data()
    expected = compare(y_true, scores, group, metrics=METRICS, correction="holm", **SETTINGS)
    result = compare(
        y_true, _scores_of(scores, library, how), group, metrics=METRICS, correction="holm",
        **SETTINGS,
    )
    for name in ("table", "means", "per_query"):
        assert_same_table(getattr(result, name), getattr(expected, name), library)
        if library == "pandas":
            pd.testing.assert_frame_equal(getattr(result, name), getattr(expected, name))
    _assert_same_renderings(result, expected)


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_compare_labels_or_query_ids_of_a_library_decide(library):
    y_true, scores, group = _data(1)
    expected = compare(y_true, scores, group, metrics="mrr", baseline="bm25", **SETTINGS)
    by_labels = compare(
        as_library(y_true, library), scores, group, metrics="mrr", baseline="bm25", **SETTINGS
    )
    by_ids = compare(
        y_true, scores, as_library(group, library), metrics="mrr", baseline="bm25", **SETTINGS
    )
    for result in (by_labels, by_ids):
        assert_same_table(result.table, expected.table, library)
        assert_same_table(result.per_query, expected.per_query, library)


@pytest.mark.parametrize("library", ["polars", "pyarrow", None])
def test_compare_aligned_runs_read_from_a_frame(library):
    y_true, scores, group = _data(2)
    runs = AlignedRuns(
        y_true=y_true, scores=scores, group=group, doc_id=np.arange(len(y_true)),
        n_queries=len(np.unique(group)), n_answered={name: 14 for name in scores},
        n_dropped_queries={name: 0 for name in scores},
    )
    expected = compare(y_true, scores, group, metrics=METRICS, **SETTINGS)
    result = compare(from_frame(runs, library), metrics=METRICS, **SETTINGS)
    for name in ("table", "means", "per_query"):
        assert_same_table(getattr(result, name), getattr(expected, name), library or "pandas")
    _assert_same_renderings(result, expected)


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
def test_report_frame_is_of_the_input_library(library):
    y_true, scores, group = _data(3)
    expected = ranking_report(y_true, scores["ltr"], group, metrics=METRICS, as_frame=True)
    inputs = [as_library(values, library) for values in (y_true, scores["ltr"], group)]
    frame = ranking_report(*inputs, metrics=METRICS, as_frame=True)
    assert_same_table(frame, expected, library)
    assert ranking_report(*inputs, metrics=METRICS) == ranking_report(
        y_true, scores["ltr"], group, metrics=METRICS
    )


@pytest.mark.parametrize("library", ["pandas", "polars", "pyarrow"])
def test_report_frame_with_a_baseline_is_of_the_scores_library(library):
    y_true, scores, group = _data(4)
    settings = dict(metrics=METRICS, baseline="bm25", **SETTINGS)
    expected = ranking_report(y_true, scores, group, as_frame=True, **settings)
    frame = ranking_report(
        y_true, _scores_of(scores, library, "frame"), group, as_frame=True, **settings
    )
    # the comparison's columns are NaN on the baseline's rows, in every library
    assert_same_table(frame, expected, library)
    text = ranking_report(y_true, _scores_of(scores, library, "frame"), group, **settings)
    assert text == ranking_report(y_true, scores, group, **settings)


def test_report_frame_without_pandas(monkeypatch):
    y_true, scores, group = _data(5)
    expected = ranking_report(y_true, scores, group, metrics=METRICS, as_frame=True)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    frame = ranking_report(
        pl.Series(y_true), pl.DataFrame(scores), pl.Series(group), metrics=METRICS,
        as_frame=True,
    )
    assert_same_table(frame, expected, "polars")
    with pytest.raises(ImportError, match=r"needs pandas: pip install"):
        ranking_report(y_true, scores, group, metrics=METRICS, as_frame=True)
