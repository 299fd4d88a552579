"""sklearn_rank_metrics.spark against the in-memory evaluate, on one local Spark session.

The reference is :func:`sklearn_rank_metrics.evaluate` on the same rows held in pandas
(itself checked against trec_eval, scikit-learn and others elsewhere). Each test item
runs a few Spark jobs over a few hundred rows with every registry metric at once:
a Spark job costs about a second here, a test item per setting would cost minutes.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import functions as F
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_rank_metrics import evaluate as evaluate_in_memory
from sklearn_rank_metrics._engine._warnings import TieOrderWarning
from sklearn_rank_metrics.spark import (
    RankingMetricEvaluator,
    evaluate,
    evaluate_per_query,
    per_query_values,
)
from tests.metrics.test_dask import ALL_METRICS, ISSUE_FRAME, make_frame

pytestmark = [
    pytest.mark.xdist_group("spark"),
    # pyspark 4.3 warns at every pandas conversion that it does not fully support pandas 3
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    # and its toPandas passes pandas 3's deprecated copy keyword
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]

RELATIVE = 1e-12


def spark_frame(seed: int = 0, n_queries: int = 50) -> pd.DataFrame:
    """make_frame's rows (scattered queries, ties, -inf, undefined queries, weights) plus a
    second run, string document ids (ties among them) and a judged flag."""
    frame = make_frame(seed=seed, n_queries=n_queries)
    rng = np.random.default_rng(seed + 100)
    frame["score2"] = np.round(rng.normal(size=len(frame)), 1)
    frame["doc"] = [f"d{value}" for value in rng.integers(0, 40, len(frame))]
    frame["judged"] = (rng.random(len(frame)) > 0.2) | (frame["label"] > 0)  # unjudged: label 0
    return frame.drop(columns="other")


def in_memory(frame: pd.DataFrame, metrics=ALL_METRICS, score="score", **params):
    params = {"judged": True, **params}
    for name in ("sample_weight", "judged", "doc_id"):
        if isinstance(params.get(name), str):
            params[name] = frame[params[name]]
    return evaluate_in_memory(
        frame["label"], frame[score], frame["qid"], metrics=metrics, **params
    )


def on_spark(df, metrics=ALL_METRICS, **params):
    # shuffled unless a test says otherwise: the "auto" check would cost a job per call
    params = {"judged": True, "y_score": "score", "partitioned_by_query": False, **params}
    return evaluate(df, metrics, y_true="label", group="qid", **params)


def assert_same_means(got: dict, expected: dict, case: object = "") -> None:
    assert list(got) == list(expected), case
    for name, value in expected.items():
        assert type(got[name]) is float, (case, name)
        if math.isnan(value):
            assert math.isnan(got[name]), (case, name, got[name])
        else:
            assert got[name] == pytest.approx(value, rel=RELATIVE, abs=1e-14), (case, name)


def assert_same_table(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    """``got`` (Spark's table, collected) equals the in-memory table, null read as NaN."""
    got = got.sort_values("query").reset_index(drop=True)
    assert list(got["query"]) == list(expected["query"])
    for name in expected.columns[1:]:
        values = got[name].astype(float).to_numpy()
        np.testing.assert_allclose(values, expected[name], rtol=RELATIVE, atol=1e-14)


def test_metric_list_covers_the_registry():
    from sklearn_rank_metrics._metrics._registry import METRICS, parse_metric

    assert {parse_metric(name).info.name for name in ALL_METRICS} == set(METRICS)


# with 64 buckets for 50 queries, a bucket whose labels are all 0 or 1 warns as ERR
# does for such data (a warning that reads every row in memory reads one bucket here)
@pytest.mark.filterwarnings("ignore:evaluate. every label is within:UserWarning")
def test_every_metric_and_setting_equals_in_memory(spark):
    frame = spark_frame(seed=1)
    df = spark.createDataFrame(frame)  # rows in frame order: ties="input" follows it
    assert df.rdd.getNumPartitions() > 1
    cases = [
        {},
        {"sample_weight": "weight", "judged": "judged", "replace_undefined_by": "skip"},
        {"convention": "trec_eval", "doc_id": "doc", "judged": "judged", "sample_weight": "weight"},
        {"ties": "input", "sample_weight": "weight", "replace_undefined_by": 1.0, "buckets": 64},
        {"relevance_level": 2, "replace_undefined_by": math.nan, "ties": "pessimistic"},
    ]
    for case in cases:
        expected = in_memory(frame, **{k: v for k, v in case.items() if k != "buckets"})
        assert_same_means(on_spark(df, **case), expected, case)
    # the trec_eval cases differ from the default tie order (the doc ids count); without
    # them the call says so
    with pytest.warns(TieOrderWarning, match="convention='trec_eval' orders tied scores"):
        input_order = in_memory(frame, convention="trec_eval")["map"]
    assert in_memory(frame, convention="trec_eval", doc_id="doc")["map"] != pytest.approx(
        input_order, rel=1e-9
    )


def test_several_runs_in_one_pass(spark):
    frame = spark_frame(seed=2)
    df = spark.createDataFrame(frame)
    params = {"sample_weight": "weight", "replace_undefined_by": "skip"}
    got = on_spark(df, y_score=["score", "score2"], **params)
    assert list(got) == ["score", "score2"]
    for run in got:
        assert_same_means(got[run], in_memory(frame, score=run, **params), run)
    assert got["score"]["map"] != pytest.approx(got["score2"]["map"], rel=1e-6)
    table = evaluate_per_query(
        df, ["map", "mrr@10"], y_true="label", y_score=["score", "score2"], group="qid",
        sample_weight="weight",
    ).toPandas()
    assert list(table.columns) == ["query", "run", "weight", "map", "mrr@10"]
    for run in ("score", "score2"):
        expected = in_memory(frame, ["map", "mrr@10"], score=run, per_query=True)
        assert_same_table(table[table["run"] == run].drop(columns=["run", "weight"]), expected)
    weights = frame.groupby("qid")["weight"].first()
    for run in ("score", "score2"):
        of_run = table[table["run"] == run].set_index("query")["weight"]
        assert of_run.sort_index().to_list() == weights.sort_index().to_list()


def test_per_query_table_null_where_skipped_nan_where_nan(spark):
    frame = spark_frame(seed=3)
    df = spark.createDataFrame(frame)
    names = ["map", "ndcg@10", "iprec(recall=0.5)", "gauc", "num_rel"]
    undefined = frame.groupby("qid")["label"].max() == 0
    assert undefined.any()
    for policy in ("skip", math.nan, 0.0):
        table = evaluate_per_query(
            df, names, y_true="label", y_score="score", group="qid", replace_undefined_by=policy
        )
        assert table.columns == ["query", *names]
        map_column = F.col("map")
        nulls, nans = table.select(
            F.sum(map_column.isNull().cast("int")), F.sum(F.isnan(map_column).cast("int"))
        ).first()
        is_skip = policy == "skip"
        is_nan = not isinstance(policy, str) and math.isnan(policy)
        assert nulls == (undefined.sum() if is_skip else 0), policy
        assert nans == (undefined.sum() if is_nan else 0), policy
        expected = in_memory(frame, names, replace_undefined_by=policy, per_query=True)
        assert_same_table(table.toPandas(), expected)
        # Spark's avg of the column is the in-memory mean (it leaves nulls out)
        mean = table.select(F.avg(map_column)).first()[0]
        expected_mean = in_memory(frame, ["map"], replace_undefined_by=policy)["map"]
        assert (math.isnan(mean) and math.isnan(expected_mean)) or mean == pytest.approx(
            expected_mean, rel=RELATIVE
        )


def test_string_and_int_ids_partitioned_or_shuffled(spark):
    frame = spark_frame(seed=4)
    frame["qid"] = "q" + frame["qid"].astype(str)
    expected = in_memory(frame)
    df = spark.createDataFrame(frame)
    ranged = df.repartitionByRange(3, "qid")  # disjoint id ranges: read where they are
    hashed = df.repartition(3, "qid")  # whole queries, overlapping ranges
    for data, partitioned in [(ranged, "auto"), (hashed, True), (hashed, "auto")]:
        table = evaluate_per_query(
            data, ["map"], y_true="label", y_score="score", group="qid",
            partitioned_by_query=partitioned,
        )
        plan = table._jdf.queryExecution().executedPlan().toString()
        shuffled = "FlatMapGroupsInPandas" in plan
        assert shuffled == (data is hashed and partitioned == "auto")
        assert_same_means(on_spark(data, partitioned_by_query=partitioned), expected)
        if data is ranged:  # text ids through the table too
            assert_same_table(table.toPandas(), in_memory(frame, ["map"], per_query=True))
    # int ids (32-bit) sorted, so that a query straddles the two partitions: "auto" shuffles
    frame = spark_frame(seed=5).sort_values("qid", kind="stable").reset_index(drop=True)
    df = spark.createDataFrame(frame).withColumn("qid", F.col("qid").cast("int"))
    assert_same_means(on_spark(df, ties="input"), in_memory(frame, ties="input"))
    # a wrong claim is refused (it gave another ndcg@10 before), naming the query
    parts = [set(rows) for rows in df.select("qid").rdd.map(lambda row: row[0]).glom().collect()]
    assert len(parts) == 2 and parts[0] & parts[1]
    first = min(parts[0] & parts[1])
    with pytest.raises(ValueError, match=f"query {first} has rows in partitions 0 and 1 of"):
        on_spark(df, ["ndcg@10"], partitioned_by_query=True)


def test_partitioned_by_query_true_on_split_queries_is_refused(spark):
    # issue 44, item 6, on Spark: the issue's reshuffled frame in two partitions
    frame = ISSUE_FRAME
    # the reference is the in-memory evaluate (the non-distributed path) on the same rows
    expected = evaluate_in_memory(
        frame["y_true"], frame["y_score"], frame["group"], metrics=["ndcg@3", "map"]
    )
    df = spark.createDataFrame(frame.sample(frac=1, random_state=1))
    parts = [set(rows) for rows in df.select("group").rdd.map(lambda row: row[0]).glom().collect()]
    assert len(parts) == 2 and parts[0] & parts[1] == {1, 2, 3, 4}  # every query is split
    message = (
        r"The 'partitioned_by_query' parameter of evaluate is True, but query 1 has rows in "
        r"partitions 0 and 1 of the Spark DataFrame: .* Leave partitioned_by_query at 'auto' "
        r"\(or pass False\) .* repartition the data by query first "
        r"\(df.repartition\('group'\)\)"
    )
    for flag in (True, np.True_):  # the check made with the sums; NumPy's True too
        with pytest.raises(ValueError, match=message):
            evaluate(df, ["ndcg@3", "map"], partitioned_by_query=flag)
    with pytest.raises(ValueError, match=message.replace("evaluate", "evaluate_per_query")):
        evaluate_per_query(df, ["ndcg@3", "map"], partitioned_by_query=True)  # made now
    with pytest.raises(ValueError, match=message.replace("evaluate", "per_query_values")):
        per_query_values(df, ["ndcg@3", "map"], partitioned_by_query=True)
    # the fixes the message names give the in-memory means
    assert_same_means(evaluate(df, ["ndcg@3", "map"]), expected)
    assert_same_means(evaluate(df, ["ndcg@3", "map"], partitioned_by_query=False), expected)
    by_query = df.repartition(2, "group")
    assert_same_means(evaluate(by_query, ["ndcg@3", "map"], partitioned_by_query=True), expected)
    # one row of one query moved: that query, those partitions, with either check
    rows = frame.sort_values("group", kind="stable")
    moved = pd.concat([rows[rows["group"] <= 2], rows[rows["group"] == 3].iloc[:1]])
    rest = rows.drop(moved.index)
    one_split = spark.createDataFrame(moved).union(spark.createDataFrame(rest)).coalesce(2)
    parts = [
        set(rows) for rows in one_split.select("group").rdd.map(lambda row: row[0]).glom().collect()
    ]
    assert len(parts) == 2 and parts[0] & parts[1] == {3}
    with pytest.raises(ValueError, match="query 3 has rows in partitions 0 and 1 "):
        evaluate(one_split, ["map"], partitioned_by_query=True)
    with pytest.raises(ValueError, match="query 3 has rows in partitions 0 and 1 "):
        evaluate_per_query(one_split, ["map"], partitioned_by_query=True)


def test_raise_policy_and_errors_in_buckets(spark):
    frame = spark_frame(seed=6)
    undefined = set(frame.groupby("qid")["label"].max().loc[lambda s: s == 0].index)
    df = spark.createDataFrame(frame)
    with pytest.raises(ValueError, match="is undefined for query") as error:
        on_spark(df, ["map"], replace_undefined_by="raise")
    message = str(error.value)
    assert int(message.split("for query ")[1].split(" ")[0]) in undefined
    assert "bucket of the Spark DataFrame" in message and "Traceback" not in message
    bad = frame.copy()
    bad.loc[3, "score"] = np.nan
    with pytest.raises(ValueError, match="y_score of evaluate must not be NaN.*one bucket"):
        on_spark(spark.createDataFrame(bad))
    with pytest.raises(ValueError, match="bpref.*judged|judged.*bpref"):
        on_spark(df, ["bpref"], judged=None)


def test_errors_before_any_job(spark):
    frame = spark_frame(seed=7)
    df = spark.createDataFrame(frame)
    with pytest.raises(TypeError, match="'df' parameter of evaluate must be a pyspark"):
        evaluate(frame, ["map"])
    with pytest.raises(ValueError, match=r"'y_score' parameter of evaluate .* 'y_score'.*'qid'"):
        evaluate(df, ["map"], y_true="label", group="qid")
    with pytest.raises(ValueError, match="'group' parameter of evaluate_per_query names"):
        evaluate_per_query(df, ["map"], y_true="label", y_score="score", group="query")
    with pytest.raises(ValueError, match="'doc_id' parameter .* 'docno'"):
        on_spark(df, doc_id="docno")
    with pytest.raises(TypeError, match="'y_score' parameter .* 'doc' of type string"):
        on_spark(df, y_score="doc")
    with pytest.raises(TypeError, match="'sample_weight' parameter .* 'doc'"):
        on_spark(df, sample_weight="doc")
    with pytest.raises(ValueError, match="names a column more than once"):
        on_spark(df, y_score=["score", "score"])
    with pytest.raises(ValueError, match="'ties' parameter of evaluate"):
        on_spark(df, ties="random")
    with pytest.raises(ValueError, match="'partitioned_by_query' parameter of evaluate"):
        on_spark(df, partitioned_by_query="yes")
    with pytest.raises(ValueError, match="'buckets' parameter of evaluate"):
        on_spark(df, buckets=0)
    with pytest.raises(ValueError, match="Unknown metric 'ndgc@10'"):
        on_spark(df, ["ndgc@10"])
    with pytest.raises(ValueError, match="'convention' parameter of evaluate"):
        on_spark(df, convention="spurk")
    with pytest.raises(ValueError, match="y_true of evaluate is empty"):
        on_spark(df.limit(0), ["map"])
    # one column in two roles: scored against itself, or queries keyed by the labels
    for shared in ({"y_score": "label"}, {"y_score": ["score", "label"]},
                   {"sample_weight": "score"}):
        with pytest.raises(ValueError, match="evaluate: column '.*' is named for .* own column"):
            on_spark(df, ["map"], **shared)


def test_worker_warnings_come_back_once(spark):
    frame = spark_frame(seed=8)
    frame["label"] = (frame["label"] > 1).astype(float)  # binary labels: ERR warns
    df = spark.createDataFrame(frame)
    with warnings.catch_warnings(record=True) as in_memory_caught:
        warnings.simplefilter("always")
        expected = in_memory(frame, ["err@10", "map"])
    assert [w.category for w in in_memory_caught] == [UndefinedMetricWarning]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = on_spark(df, ["err@10", "map"], buckets=4)
    assert_same_means(got, expected)
    # every bucket raised it, with one text: the in-memory warning, once (issue 44, item 12)
    assert [(w.category, str(w.message)) for w in caught] == [
        (w.category, str(w.message)) for w in in_memory_caught
    ]
    assert caught[0].filename == __file__  # attributed to the caller's line
    # the mean's own warnings: the in-memory texts too (no query left; every query
    # undefined, which was missing)
    nothing = spark.createDataFrame(frame.assign(label=0.0))
    for metrics, params in ((["map"], {"replace_undefined_by": "skip"}), (["map", "ndcg@5"], {})):
        with warnings.catch_warnings(record=True) as in_memory_caught:
            warnings.simplefilter("always")
            in_memory(frame.assign(label=0.0), metrics, **params)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            on_spark(nothing, metrics, **params)
        assert len(caught) == len(in_memory_caught) == (1 if params else 2)
        assert [(w.category, str(w.message)) for w in caught] == [
            (w.category, str(w.message)) for w in in_memory_caught
        ]


def test_our_calls_print_no_pyspark_pandas_warning_and_leave_the_filters_alone(spark):
    # issue 44, item 9: pyspark 4.3 warns (FutureWarning) each time it makes a pandas
    # UDF under pandas 3, and every call of the package made one or two
    df = spark.createDataFrame(ISSUE_FRAME)  # (a pandas conversion of the test's own)
    filters = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(df, ["map"])  # the "auto" check and the sums
        evaluate(df, ["map"], partitioned_by_query=True)
        evaluate(df, ["map"], partitioned_by_query=False)
        evaluate_per_query(df, ["map"], partitioned_by_query=True).collect()
        per_query_values(df, ["map"])
        RankingMetricEvaluator(
            metricName="map", labelCol="y_true", predictionCol="y_score", queryCol="group"
        ).evaluate(df)
        ours = [str(warning.message) for warning in caught]
        # the user's own pandas UDF still warns: the filter is not global
        df.mapInPandas(lambda batches: batches, df.schema).collect()
    assert ours == []
    assert [warning.category for warning in caught] == [FutureWarning]
    assert "PySpark does not yet fully support pandas" in str(caught[0].message)
    assert warnings.filters == filters


def test_importing_the_package_does_not_import_pyspark_and_missing_pyspark_is_explained():
    code = (
        "import sys; import sklearn_rank_metrics; assert 'pyspark' not in sys.modules\n"
        "sys.modules['pyspark'] = None\n"
        "try:\n    import sklearn_rank_metrics.spark\n"
        "except ImportError as error:\n    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert 'pip install "sklearn-rank-metrics[spark]"' in result.stdout
    assert "pyspark>=4.0" in result.stdout
