"""compare and ranking_report on per-query values computed on Spark.

``spark.per_query_values`` brings queries (not rows) to the driver; the paired
statistics on them must equal the same calls on the rows in memory (same means,
intervals, p-values: the bootstrap draws the same queries with the same seed).
"""

from __future__ import annotations

import numpy as np
import pytest

from sklearn_rank_metrics import PerQueryValues, compare, ranking_report
from sklearn_rank_metrics.spark import per_query_values
from tests.spark.test_spark_evaluate import spark_frame

pytestmark = [
    pytest.mark.xdist_group("spark"),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

METRICS = ["ndcg@10", "map", "mrr@10", "p@5", "err@10", "gauc"]


def assert_same_table(got, expected):
    assert list(got.columns) == list(expected.columns)
    for column in expected.columns:
        if expected[column].dtype.kind in "fiu":
            np.testing.assert_allclose(
                got[column].to_numpy(float), expected[column].to_numpy(float),
                rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=column,
            )
        else:
            assert got[column].tolist() == expected[column].tolist(), column


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_compare_and_report_on_spark_values_equal_the_rows(spark):
    frame = spark_frame(seed=3, n_queries=60)
    df = spark.createDataFrame(frame)
    for policy in ("skip", 0.0, float("nan")):
        values = per_query_values(
            df, METRICS, y_true="label", y_score=["score", "score2"], group="qid",
            replace_undefined_by=policy, partitioned_by_query=False,
        )
        assert isinstance(values, PerQueryValues)
        assert values.runs == ("score", "score2")
        scores = {"score": frame["score"], "score2": frame["score2"]}
        on_rows = compare(frame["label"], scores, frame["qid"], metrics=METRICS,
                          replace_undefined_by=policy, n_resamples=300, random_state=0)
        on_values = compare(values, metrics=METRICS, n_resamples=300, random_state=0)
        assert_same_table(on_values.table, on_rows.table)
        report_rows = ranking_report(frame["label"], scores, frame["qid"], metrics=METRICS,
                                     replace_undefined_by=policy, output_dict=True)
        report_values = ranking_report(values, metrics=METRICS, output_dict=True)
        for run, by_metric in report_rows.items():
            for metric, summary in by_metric.items():
                got = report_values[run][metric]
                for key in ("mean", "std_err", "n_queries"):
                    np.testing.assert_allclose(got[key], summary[key], rtol=1e-12,
                                               equal_nan=True, err_msg=(policy, run, metric))


def test_weighted_report_on_spark_values_equals_the_rows(spark):
    frame = spark_frame(seed=4, n_queries=40)
    df = spark.createDataFrame(frame)
    values = per_query_values(
        df, ["ndcg@10", "map"], y_true="label", y_score="score", group="qid",
        sample_weight="weight", replace_undefined_by="skip", partitioned_by_query=False,
    )
    assert values.weights is not None
    expected = ranking_report(frame["label"], frame["score"], frame["qid"],
                              metrics=["ndcg@10", "map"], sample_weight=frame["weight"],
                              replace_undefined_by="skip", output_dict=True)
    got = ranking_report(values, metrics=["ndcg@10", "map"], output_dict=True)
    for metric, summary in expected.items():
        assert got[metric]["mean"] == pytest.approx(summary["mean"], rel=1e-12), metric
        assert got[metric]["n_queries"] == summary["n_queries"], metric
