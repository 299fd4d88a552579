"""RankingMetricEvaluator: params, direction, copy, save/load, and CrossValidator with
query folds, each number checked against the in-memory evaluate on the same rows."""

from __future__ import annotations

import base64
import math
import pickle
import re

import numpy as np
import pandas as pd
import pytest
from pyspark.ml.evaluation import Evaluator
from pyspark.ml.feature import VectorAssembler
from pyspark.ml.regression import LinearRegression
from pyspark.ml.tuning import CrossValidator, ParamGridBuilder
from pyspark.sql import functions as F

from sklearn_rank_metrics import evaluate as evaluate_in_memory
from sklearn_rank_metrics._distributed import _spark_evaluator
from sklearn_rank_metrics.spark import RankingMetricEvaluator

pytestmark = [
    pytest.mark.xdist_group("spark"),
    # pyspark 4.3 warns at every pandas conversion that it does not fully support pandas 3
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    # and its toPandas passes pandas 3's deprecated copy keyword
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


def ranking_rows(seed: int = 0, n_queries: int = 30) -> pd.DataFrame:
    """Queries of 4-12 rows: three features, a graded label driven by them, weights."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 13, n_queries)
    qid = np.repeat(np.arange(100, 100 + n_queries), sizes)
    features = rng.normal(size=(len(qid), 3))
    signal = features @ np.array([1.0, -0.5, 0.2]) + rng.normal(scale=1.0, size=len(qid))
    label = np.clip(np.round(signal), 0, 3)
    weight = np.repeat(rng.integers(1, 4, n_queries).astype(float), sizes)
    frame = pd.DataFrame(features, columns=["f0", "f1", "f2"])
    return frame.assign(qid=qid, label=label, weight=weight, prediction=np.round(signal, 1))


def test_params_direction_copy_and_save_load(spark, tmp_path):
    evaluator = RankingMetricEvaluator(metricName="map", queryCol="qid", weightCol="weight")
    assert isinstance(evaluator, Evaluator)
    assert evaluator.getMetricName() == "map" and evaluator.getQueryCol() == "qid"
    assert evaluator.getLabelCol() == "label" and evaluator.getPredictionCol() == "prediction"
    assert evaluator.getWeightCol() == "weight"
    assert not evaluator.isDefined(evaluator.convention)
    assert evaluator.isLargerBetter()
    assert not RankingMetricEvaluator(metricName="fallout@10").isLargerBetter()
    assert RankingMetricEvaluator().getMetricName() == "ndcg@10"
    copied = evaluator.copy({evaluator.metricName: "fallout@5"})
    assert type(copied) is RankingMetricEvaluator and copied.uid == evaluator.uid
    assert copied.getMetricName() == "fallout@5" and not copied.isLargerBetter()
    assert evaluator.getMetricName() == "map"  # the original is unchanged
    evaluator.setParams(replaceUndefinedBy="skip", relevanceLevel=2, convention="trec_eval")
    path = str(tmp_path / "evaluator")
    evaluator.save(path)
    loaded = RankingMetricEvaluator.load(path)
    assert type(loaded) is RankingMetricEvaluator and loaded.uid == evaluator.uid
    for param in evaluator.params:
        assert loaded.isDefined(param) == evaluator.isDefined(param), param.name
        if evaluator.isDefined(param):
            assert loaded.getOrDefault(param.name) == evaluator.getOrDefault(param), param.name
    with pytest.raises(ValueError, match="Unknown metric 'ndgc@10'"):
        RankingMetricEvaluator(metricName="ndgc@10")
    with pytest.raises(ValueError, match="'metricName' .* 'num_rel' is a count"):
        RankingMetricEvaluator(metricName="num_rel")
    # MLlib RankingEvaluator's names point to ours (not to a near spelling)
    for mllib, ours in (("meanAveragePrecision", "'map'"), ("precisionAtK", "'p@k'"),
                        ("meanAveragePrecisionAtK", "'map(denominator=min(k,n_relevant))@k'")):
        with pytest.raises(ValueError, match=f"MLlib RankingEvaluator's name: use "
                                             f"metricName={re.escape(ours)}"):
            RankingMetricEvaluator(metricName=mllib)
    with pytest.raises(ValueError, match="'replaceUndefinedBy' .* got 'zero'"):
        RankingMetricEvaluator(replaceUndefinedBy="zero")
    # the columns are checked before any job, named by the evaluator's params
    df = spark.createDataFrame(ranking_rows(n_queries=3))
    with pytest.raises(ValueError, match="'queryCol' parameter of RankingMetricEvaluator"):
        RankingMetricEvaluator().evaluate(df)
    with pytest.raises(ValueError, match="'weightCol' .* 'w', which .* 'f0', 'f1'"):
        RankingMetricEvaluator(queryCol="qid", weightCol="w").evaluate(df)
    with pytest.raises(TypeError, match="'dataset' parameter of RankingMetricEvaluator"):
        RankingMetricEvaluator().evaluate(ranking_rows())


def in_memory(frame: pd.DataFrame, name: str, **params) -> float:
    return evaluate_in_memory(
        frame["label"], frame["prediction"], frame["qid"], metrics=[name], **params
    )[name]


def test_evaluate_and_cross_validator_with_query_folds(spark):
    frame = ranking_rows()
    df = spark.createDataFrame(frame)
    evaluator = RankingMetricEvaluator(
        metricName="fallout@5", queryCol="qid", weightCol="weight", replaceUndefinedBy="skip"
    )
    got = evaluator.evaluate(df)
    assert type(got) is float
    expected = in_memory(
        frame, "fallout@5", sample_weight=frame["weight"], replace_undefined_by="skip"
    )
    assert got == pytest.approx(expected, rel=1e-12)
    # CrossValidator: one fold per query (the counterpart of GroupKFold)
    data = VectorAssembler(inputCols=["f0", "f1", "f2"], outputCol="features").transform(df)
    data = data.withColumn("fold", F.pmod(F.xxhash64("qid"), F.lit(2)).cast("int"))
    data = data.drop("prediction")  # the models write their own
    regression = LinearRegression(featuresCol="features", labelCol="label")
    grid = ParamGridBuilder().addGrid(regression.regParam, [0.0, 100.0]).build()
    ndcg = RankingMetricEvaluator(metricName="ndcg@5", queryCol="qid")
    model = CrossValidator(
        estimator=regression,
        estimatorParamMaps=grid,
        evaluator=ndcg,
        numFolds=2,
        foldCol="fold",
        collectSubModels=True,
    ).fit(data)
    folds = [data.filter(F.col("fold") == fold) for fold in range(2)]
    for index in range(len(grid)):
        by_fold = []
        for fold, rows in enumerate(folds):
            predicted = model.subModels[fold][index].transform(rows)
            held_out = predicted.select("qid", "label", "prediction").toPandas()
            assert set(held_out["qid"]).isdisjoint(folds[1 - fold].toPandas()["qid"])
            by_fold.append(in_memory(held_out, "ndcg@5"))
        assert isinstance(model.avgMetrics[index], float)  # CrossValidator averages with NumPy
        assert model.avgMetrics[index] == pytest.approx(np.mean(by_fold), rel=1e-12)
    assert not math.isclose(model.avgMetrics[0], model.avgMetrics[1])


# RankingMetricEvaluator(metricName="map(denominator=min(k,n_relevant))@5", queryCol="qid",
# weightCol="weight", ties="pessimistic", replaceUndefinedBy="skip", relevanceLevel=2.0)
# pickled (protocol 4) by commit dfd8990, when its module was
# sklearn_rank_metrics._spark_evaluator: the class is named by its public path, the
# converters of metricName and replaceUndefinedBy by that module
OLD_PICKLE = base64.b64decode(
    "gASVIAUAAAAAAACMGnNrbGVhcm5fcmFua19tZXRyaWNzLnNwYXJrlIwWUmFua2luZ01ldHJpY0V2YWx1YXRvcpST"
    "lCmBlH2UKIwNX2lucHV0X2t3YXJnc5R9lCiMCm1ldHJpY05hbWWUjCRtYXAoZGVub21pbmF0b3I9bWluKGssbl9y"
    "ZWxldmFudCkpQDWUjAhxdWVyeUNvbJSMA3FpZJSMCXdlaWdodENvbJSMBndlaWdodJSMBHRpZXOUjAtwZXNzaW1p"
    "c3RpY5SMEnJlcGxhY2VVbmRlZmluZWRCeZSMBHNraXCUjA5yZWxldmFuY2VMZXZlbJRHQAAAAAAAAAB1jAN1aWSU"
    "jCNSYW5raW5nTWV0cmljRXZhbHVhdG9yXzcyNzA2NGY4NGUzNJSMCV9wYXJhbU1hcJR9lCiMEHB5c3BhcmsubWwu"
    "cGFyYW2UjAVQYXJhbZSTlCmBlH2UKIwGcGFyZW50lGgTjARuYW1llGgHjANkb2OUjD5yYW5raW5nIG1ldHJpYyBu"
    "YW1lLCBhcyBza2xlYXJuX3JhbmtfbWV0cmljcy5ldmFsdWF0ZSB0YWtlcyBpdJSMDXR5cGVDb252ZXJ0ZXKUjCVz"
    "a2xlYXJuX3JhbmtfbWV0cmljcy5fc3BhcmtfZXZhbHVhdG9ylIwMX21ldHJpY19uYW1llJOUdWJoCGgYKYGUfZQo"
    "aBtoE2gcaAloHYwUcXVlcnkgaWQgY29sdW1uIG5hbWWUaB9oFowXVHlwZUNvbnZlcnRlcnMudG9TdHJpbmeUk5R1"
    "YmgKaBgpgZR9lChoG2gTaBxoC2gdjFZ3ZWlnaHQgY29sdW1uIG5hbWUuIElmIHRoaXMgaXMgbm90IHNldCBvciBl"
    "bXB0eSwgd2UgdHJlYXQgYWxsIGluc3RhbmNlIHdlaWdodHMgYXMgMS4wLpRoH2gndWJoDGgYKYGUfZQoaBtoE2gc"
    "aA1oHYwVaG93IHRpZWQgc2NvcmVzIGNvdW50lGgfaCd1YmgOaBgpgZR9lChoG2gTaBxoD2gdjEN1bmRlZmluZWQt"
    "cXVlcnkgcG9saWN5OiBhIG51bWJlciwgJ25hbicsICdza2lwJyBvciAncmFpc2UnLCBhcyB0ZXh0lGgfaCCMEV91"
    "bmRlZmluZWRfcG9saWN5lJOUdWJoEGgYKYGUfZQoaBtoE2gcaBFoHYwgc21hbGxlc3QgbGFiZWwgb2YgYSByZWxl"
    "dmFudCByb3eUaB9oFowWVHlwZUNvbnZlcnRlcnMudG9GbG9hdJSTlHViR0AAAAAAAAAAdYwQX2RlZmF1bHRQYXJh"
    "bU1hcJR9lChoGCmBlH2UKGgbaBNoHIwNcHJlZGljdGlvbkNvbJRoHYwXcHJlZGljdGlvbiBjb2x1bW4gbmFtZS6U"
    "aB9oJ3VijApwcmVkaWN0aW9ulGgYKYGUfZQoaBtoE2gcjAhsYWJlbENvbJRoHYwSbGFiZWwgY29sdW1uIG5hbWUu"
    "lGgfaCd1YowFbGFiZWyUaBmMB25kY2dAMTCUaCOMBXF1ZXJ5lHWMB19wYXJhbXOUTowKY29udmVudGlvbpRoGCmB"
    "lH2UKGgbaBNoHGhHaB2MTXRvb2wgd2hvc2UgY29udmVudGlvbnMgdG8gZm9sbG93IChza2xlYXJuX3JhbmtfbWV0"
    "cmljcy5ldmFsdWF0ZSdzIGNvbnZlbnRpb24plGgfaCd1YmhBaD9oB2gZaDxoOmgJaCNoEWgzaA9oLmgNaCtoC2go"
    "dWIu"
)


def test_an_evaluator_pickled_before_its_module_moved_still_loads(spark):
    assert b"sklearn_rank_metrics._spark_evaluator\x94\x8c\x0c_metric_name" in OLD_PICKLE
    loaded = pickle.loads(OLD_PICKLE)
    assert type(loaded) is RankingMetricEvaluator
    assert loaded.getMetricName() == "map(denominator=min(k,n_relevant))@5"
    assert (loaded.getQueryCol(), loaded.getWeightCol()) == ("qid", "weight")
    assert loaded.getOrDefault("replaceUndefinedBy") == "skip"
    # the converters are today's, so the loaded evaluator still checks what it is given
    assert loaded.metricName.typeConverter is _spark_evaluator._metric_name
    assert loaded.replaceUndefinedBy.typeConverter is _spark_evaluator._undefined_policy
    with pytest.raises(ValueError, match="Unknown metric 'ndgc@10'"):
        loaded.setMetricName("ndgc@10")
    frame = ranking_rows()
    expected = in_memory(
        frame,
        "map(denominator=min(k,n_relevant))@5",
        sample_weight=frame["weight"],
        ties="pessimistic",
        replace_undefined_by="skip",
        relevance_level=2.0,
    )
    assert loaded.evaluate(spark.createDataFrame(frame)) == pytest.approx(expected, rel=1e-12)
