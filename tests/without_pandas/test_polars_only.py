"""A polars user without pandas: every metric, evaluate, ranking_report and compare.

Run by ``tests/without_pandas/run`` in an environment of the package, narwhals at its
declared floor, polars and pytest only. The expected values are those of the same
calls on NumPy arrays, in the same environment (where per-query tables are dicts of
arrays, the fallback without pandas).
"""

import importlib.util
import math

import numpy as np
import polars as pl
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._metrics._registry import METRICS
from tests.support.metric_data import make_data

METRIC_NAMES = ["ndcg@5", "map", "mrr", "p@3", "recall@5", "err@5"]


def _data(seed=0):
    data = make_data(seed=seed, n_queries=12)
    # the relevant rows and every other row judged: bpref and judged@k read the mask
    judged = (data.y_true > 0) | (np.arange(len(data.y_true)) % 2 == 0)
    return data.y_true, data.y_score, data.group, judged


def _as_polars(*arrays):
    return [pl.Series(values) for values in arrays]


def _assert_columns_equal(frame, expected, names=None):
    """The polars DataFrame holds the columns of ``expected`` (a dict of arrays)."""
    assert isinstance(frame, pl.DataFrame), type(frame)
    assert frame.columns == list(expected if names is None else names)
    for name in frame.columns:
        np.testing.assert_array_equal(frame[name].to_numpy(), np.asarray(expected[name]), name)


def test_the_environment_has_polars_but_neither_pandas_nor_pyarrow():
    assert importlib.util.find_spec("pandas") is None
    assert importlib.util.find_spec("pyarrow") is None
    assert importlib.util.find_spec("polars") is not None


def test_every_metric_of_the_registry_gives_the_numpy_value_on_polars_inputs():
    y_true, y_score, group, judged = _data()
    polars_inputs = _as_polars(y_true, y_score, group, judged)
    wrong = {}
    for name, info in sorted(METRICS.items()):
        kwargs = dict(info.fixed_params)
        if info.takes_k:
            kwargs["k"] = 5
        if info.reads_judgments is True:  # bpref, judged@k
            kwargs["judged"] = judged
        expected = info.function(y_true, y_score, group, **kwargs)
        if "judged" in kwargs:
            kwargs["judged"] = polars_inputs[3]
        got = info.function(*polars_inputs[:3], **kwargs)
        assert isinstance(got, float), (name, type(got))
        if not (got == expected or (math.isnan(got) and math.isnan(expected))):
            wrong[name] = (got, expected)
    assert not wrong, wrong
    assert len(METRICS) >= 20  # the loop ran over the registry


def test_evaluate_per_query_returns_a_polars_dataframe():
    y_true, y_score, group, judged = _data(1)
    metrics = [*METRIC_NAMES, "bpref", "judged@5"]
    expected = srm.evaluate(
        y_true, y_score, group, metrics=metrics, judged=judged, per_query=True
    )
    assert isinstance(expected, dict)  # NumPy inputs without pandas: the dict of arrays
    table = srm.evaluate(
        *_as_polars(y_true, y_score, group), metrics=metrics,
        judged=pl.Series(judged), per_query=True,
    )
    _assert_columns_equal(table, expected)
    assert table.schema["query"] == pl.Int64
    means = srm.evaluate(*_as_polars(y_true, y_score, group), metrics=metrics, judged=judged)
    assert means == srm.evaluate(y_true, y_score, group, metrics=metrics, judged=judged)


def test_string_query_ids_become_a_string_column():
    y_true, y_score, group, _ = _data(2)
    names = np.array([f"q{number:02d}" for number in group])
    table = srm.evaluate(*_as_polars(y_true, y_score, names), metrics="mrr", per_query=True)
    assert table.schema["query"] == pl.String
    assert table["query"].to_list() == sorted(set(names.tolist()))


def test_ranking_report_text_and_polars_frame():
    y_true, y_score, group, _ = _data(3)
    polars_inputs = _as_polars(y_true, y_score, group)
    text = srm.ranking_report(*polars_inputs, metrics=METRIC_NAMES)
    assert text == srm.ranking_report(y_true, y_score, group, metrics=METRIC_NAMES)
    frame = srm.ranking_report(*polars_inputs, metrics=METRIC_NAMES, as_frame=True)
    expected = srm.ranking_report(y_true, y_score, group, metrics=METRIC_NAMES, output_dict=True)
    assert isinstance(frame, pl.DataFrame)
    assert frame["metric"].to_list() == METRIC_NAMES
    for column in ("mean", "std_err", "n_queries", "n_undefined", "n_skipped"):
        got = frame[column].to_list()
        assert got == [expected[metric][column] for metric in METRIC_NAMES], column


def test_ranking_report_frame_of_numpy_inputs_still_needs_pandas():
    y_true, y_score, group, _ = _data(3)
    with pytest.raises(ImportError, match="needs pandas.*or polars or pyarrow inputs"):
        srm.ranking_report(y_true, y_score, group, as_frame=True)


def test_compare_returns_polars_tables():
    y_true, y_score, group, _ = _data(4)
    rng = np.random.default_rng(4)
    scores = {"first": y_score, "second": y_score + rng.normal(0, 1, len(y_score))}
    settings = dict(metrics=["ndcg@5", "mrr"], n_resamples=200, random_state=0)
    expected = srm.compare(y_true, scores, group, **settings)
    result = srm.compare(
        pl.Series(y_true), pl.DataFrame(scores), pl.Series(group), **settings
    )
    _assert_columns_equal(result.table, expected.table)
    _assert_columns_equal(result.means, expected.means)
    _assert_columns_equal(result.per_query, expected.per_query)
    assert result.to_text() == expected.to_text()
    assert result.to_csv() == expected.to_csv()
    report = srm.ranking_report(
        pl.Series(y_true), pl.DataFrame(scores), pl.Series(group), metrics=["ndcg@5", "mrr"],
        baseline="first", n_resamples=200, random_state=0, as_frame=True,
    )
    assert isinstance(report, pl.DataFrame)
    assert report["model"].to_list() == ["first", "second"] * 2


def test_ranking_evaluator_per_query_table_is_polars():
    y_true, y_score, group, _ = _data(5)
    first = group < np.median(np.unique(group))  # two batches of whole queries
    evaluator = srm.RankingEvaluator(METRIC_NAMES)
    for rows in (first, ~first):
        evaluator.update(*_as_polars(y_true[rows], y_score[rows], group[rows]))
    expected = srm.evaluate(y_true, y_score, group, metrics=METRIC_NAMES, per_query=True)
    table = evaluator.compute(per_query=True)
    assert isinstance(table, pl.DataFrame)
    assert table.columns == list(expected)
    for name in METRIC_NAMES:
        np.testing.assert_allclose(table[name].to_numpy(), expected[name], rtol=1e-12)
