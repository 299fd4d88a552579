"""Cross-checks of ``convention="spark"`` against pyspark's own MLlib measures.

MLlib's ``pyspark.mllib.evaluation.RankingMetrics`` and
``pyspark.ml.evaluation.RankingEvaluator`` read lists, not rows: per query, the
predicted ids in rank order and the ground-truth ids (a set). The tests build
random flat rows (graded labels, tied scores, queries without a relevant row,
relevant rows the run did not return: score ``-inf``, lists of 1 to 14 rows, the
rows of a query scattered), turn them into MLlib's pairs the way the convention
orders them, and compare Spark's numbers with ours:

* the predicted list: the rows with a finite score, by score descending, tied rows
  by document id ascending (compared as text) when ``doc_id`` is given, else in
  input order;
* the ground truth: the rows with ``y_true > 0`` (relevance level 1 on integer
  labels), or ``y_true >= 2``; a ground-truth row with score ``-inf`` is a relevant
  item never predicted. At level 2 ours reads the labels ``y_true >= 2`` (NDCG's
  binary gain counts ``y_true > 0``), and P@k, R@k and MAP also the graded labels
  with ``relevance_level=2``.

MLlib sums in double precision in another order: the tolerance is 1e-12. The
queries without a relevant row also make Spark log ``Empty ground truth set``
(JVM log, level WARN; the suite's session logs ERROR only).
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager, nullcontext

import numpy as np
import pytest
from pytest import approx
from sklearn.exceptions import UndefinedMetricWarning

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate
from sklearn_rank_metrics._engine._warnings import TieOrderWarning

pytestmark = pytest.mark.xdist_group("spark")

TOL = 1e-12
LONGEST = 14
KS = (1, 3, 10, 50)  # 50: beyond every list
LEVELS = (None, 2.0)  # None: y > 0 (level 1 on integer labels)
BINARY_MEASURES = ("p", "recall", "map")  # those with a relevance_level


def flat_rows(seed: int = 35, n_queries: int = 40) -> dict[str, np.ndarray]:
    """Random flat rows, the rows of each query scattered among the others."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, LONGEST + 1, n_queries)
    group = np.repeat([f"q{q:02d}" for q in range(n_queries)], sizes)
    n = len(group)
    y = rng.choice([0.0, 0.0, 0.0, 1.0, 2.0, 3.0], n)
    # a quarter of the queries have no relevant row
    y[np.isin(group, [f"q{q:02d}" for q in range(0, n_queries, 4)])] = 0.0
    score = np.round(rng.uniform(0, 1, n), 1)  # ties in most queries
    score[rng.uniform(size=n) < 0.15] = -np.inf  # judged, not returned
    # document ids unique within a query; "d12" < "d7" as text
    doc = np.concatenate([rng.choice(400, size, replace=False) for size in sizes])
    doc_id = np.array([f"d{d}" for d in doc])
    order = rng.permutation(n)
    return {
        "y": y[order],
        "score": score[order],
        "group": group[order],
        "doc_id": doc_id[order],
    }


def mllib_lists(
    rows, level: float | None, by_doc_id: bool, graded: bool = False
) -> list[tuple[list, ...]]:
    """``(predicted ids in rank order, ground-truth ids)`` per query, as float codes.

    ``graded``: ``(predicted, ground truth by grade descending, grades)`` triples,
    the input of Scala's graded ``ndcgAt``.
    """
    codes = {doc: float(i) for i, doc in enumerate(sorted(set(rows["doc_id"])))}
    relevant = rows["y"] > 0 if level is None else rows["y"] >= level
    pairs = []
    for query in np.unique(rows["group"]):
        mine = np.flatnonzero(rows["group"] == query)  # input order
        returned = [i for i in mine if np.isfinite(rows["score"][i])]
        if by_doc_id:
            returned.sort(key=lambda i: (-rows["score"][i], rows["doc_id"][i]))
        else:
            returned.sort(key=lambda i: -rows["score"][i])  # stable: input order
        predicted = [codes[rows["doc_id"][i]] for i in returned]
        truth = sorted((i for i in mine if relevant[i]), key=lambda i: -rows["y"][i])
        ids = [codes[rows["doc_id"][i]] for i in truth]
        if graded:
            pairs.append((predicted, ids, [float(rows["y"][i]) for i in truth]))
        else:
            pairs.append((predicted, ids))
    return pairs


def metric_names() -> list[str]:
    at_k = [f"{name}@{k}" for k in KS for name in ("ndcg", "p", "recall", "map")]
    return [*at_k, "map"]


def ranking_metrics(rdd):
    """``RankingMetrics(rdd)``, without pyspark's own FutureWarning (its SQLContext)."""
    from pyspark.mllib.evaluation import RankingMetrics

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Deprecated in 3.0.0", FutureWarning)
        return RankingMetrics(rdd)


def mllib_values(spark, pairs) -> dict[str, float]:
    """``RankingMetrics``' numbers under our metric names."""
    rdd = spark.sparkContext.parallelize(pairs, 2).cache()
    tool = ranking_metrics(rdd)
    values = {"map": tool.meanAveragePrecision}
    for k in KS:
        values[f"ndcg@{k}"] = tool.ndcgAt(k)
        values[f"p@{k}"] = tool.precisionAt(k)
        values[f"recall@{k}"] = tool.recallAt(k)
        values[f"map@{k}"] = tool.meanAveragePrecisionAt(k)
    rdd.unpersist()
    return values


EVALUATOR_NAMES = {
    "ndcg": "ndcgAtK",
    "p": "precisionAtK",
    "recall": "recallAtK",
    "map": "meanAveragePrecisionAtK",
}


def evaluator_values(spark, pairs) -> dict[str, float]:
    """``RankingEvaluator``'s numbers under our metric names."""
    from pyspark.ml.evaluation import RankingEvaluator
    from pyspark.sql.types import ArrayType, DoubleType, StructField, StructType

    schema = StructType(
        [
            StructField("prediction", ArrayType(DoubleType()), False),
            StructField("label", ArrayType(DoubleType()), False),
        ]
    )
    frame = spark.createDataFrame(pairs, schema).cache()
    tool = RankingEvaluator()  # metricName="meanAveragePrecision", k=10
    assert tool.isLargerBetter()
    values = {"map": tool.evaluate(frame)}
    for k in KS:
        for ours, theirs in EVALUATOR_NAMES.items():
            values[f"{ours}@{k}"] = tool.evaluate(frame, {tool.metricName: theirs, tool.k: k})
    frame.unpersist()
    return values


def without_ids(by_doc_id=False):
    """Expect the warning of a call without document ids on tied rows (the data has them)."""
    if by_doc_id:
        return nullcontext()
    return pytest.warns(
        TieOrderWarning, match="convention='spark' orders tied scores by document id"
    )


@contextmanager
def no_tie_warning():
    """Fail on a TieOrderWarning: no order of the tied rows changes the value."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieOrderWarning)
        yield


def ours_under_spark(rows, metrics=None, level=None, by_doc_id=True) -> dict[str, float]:
    """``evaluate`` of ``rows`` under ``convention="spark"``.

    ``level``: the labels read are ``y_true >= level`` (0 or 1), MLlib's ground truth.
    Without document ids the tied rows keep their input order, with a warning.
    """
    y = rows["y"] if level is None else (rows["y"] >= level).astype(float)
    with without_ids(by_doc_id):
        return evaluate(
            y,
            rows["score"],
            rows["group"],
            metrics=metric_names() if metrics is None else metrics,
            convention="spark",
            doc_id=rows["doc_id"] if by_doc_id else None,
        )


def ours_at_level(rows, level, by_doc_id=True) -> dict[str, float]:
    """P@k, R@k and MAP on the graded labels with ``relevance_level=level``."""
    names = [name for name in metric_names() if name.split("@")[0] in BINARY_MEASURES]
    with without_ids(by_doc_id):
        return evaluate(
            rows["y"],
            rows["score"],
            rows["group"],
            metrics=names,
            convention="spark",
            relevance_level=level,
            doc_id=rows["doc_id"] if by_doc_id else None,
        )


def assert_same(ours: dict[str, float], theirs: dict[str, float]) -> None:
    assert set(ours) == set(theirs)
    for name, value in theirs.items():
        assert ours[name] == approx(value, rel=TOL, abs=TOL), name


@pytest.mark.parametrize("level", LEVELS)
def test_spark_convention_matches_ranking_metrics(spark, level):
    rows = flat_rows()
    pairs = mllib_lists(rows, level, by_doc_id=True)
    # the data holds what the comparison is about
    assert sum(not truth for _, truth in pairs) >= 8  # queries without relevant rows
    assert any(set(truth) - set(predicted) for predicted, truth in pairs)  # not returned
    assert len({len(predicted) for predicted, _ in pairs}) > 5
    assert len(rows["score"]) > len(np.unique(np.c_[rows["group"], rows["score"]], axis=0))
    theirs = mllib_values(spark, pairs)
    assert_same(ours_under_spark(rows, level=level), theirs)
    if level is not None:
        at_level = ours_at_level(rows, level)
        assert_same(at_level, {name: theirs[name] for name in at_level})
    # each setting of the preset is needed: the input order of tied rows, trec_eval's
    # MAP@k denominator, P@k over the rows returned, and (level 1) the graded gain
    # give other numbers on the same rows
    names = [
        "ndcg@3",
        "map(denominator=n_relevant)@3",
        "p(denominator=min(k,n_retrieved))@10",
        "ndcg(gain=linear)@10",
    ]
    other = ours_under_spark(rows, names, level, by_doc_id=False)
    assert other["ndcg@3"] != approx(theirs["ndcg@3"], rel=1e-6)
    assert other["map(denominator=n_relevant)@3"] != approx(theirs["map@3"], rel=1e-6)
    assert other["p(denominator=min(k,n_retrieved))@10"] != approx(theirs["p@10"], rel=1e-6)
    if level is None:
        assert other["ndcg(gain=linear)@10"] != approx(theirs["ndcg@10"], rel=1e-6)


def test_spark_convention_matches_ranking_evaluator(spark):
    rows = flat_rows(seed=7)
    pairs = mllib_lists(rows, None, by_doc_id=True)
    assert_same(ours_under_spark(rows), evaluator_values(spark, pairs))


def test_spark_convention_without_doc_ids_keeps_tied_rows_in_input_order(spark):
    rows = flat_rows(seed=11, n_queries=30)
    pairs = mllib_lists(rows, 2.0, by_doc_id=False)
    theirs = mllib_values(spark, pairs)
    assert_same(ours_under_spark(rows, level=2.0, by_doc_id=False), theirs)
    at_level = ours_at_level(rows, 2.0, by_doc_id=False)
    assert_same(at_level, {name: theirs[name] for name in at_level})
    y, s, g = rows["y"], rows["score"], rows["group"]
    binary = (y >= 2).astype(float)
    # each metric function reads the same preset: NDCG on the binarised labels, the
    # others on those or on the graded labels at relevance_level=2
    for k in KS:
        with without_ids():
            value = srm.ndcg_score(binary, s, g, k=k, convention="spark")
        assert value == approx(theirs[f"ndcg@{k}"], rel=TOL, abs=TOL), k
    functions = {
        "p": srm.precision_at_k_score,
        "recall": srm.recall_at_k_score,
        "map": srm.mean_average_precision_score,
    }
    for k in KS:
        for name, function in functions.items():
            # P@50 and R@50 take every row of these lists (at most 14): which rows are in
            # the top 50 does not depend on the order of tied rows, so no warning
            whole_list = name != "map" and k > LONGEST
            with no_tie_warning() if whole_list else without_ids():
                graded = function(y, s, g, k=k, relevance_level=2, convention="spark")
            with no_tie_warning() if whole_list else without_ids():
                binarised = function(binary, s, g, k=k, convention="spark")
            for value in (graded, binarised):
                assert value == approx(theirs[f"{name}@{k}"], rel=TOL, abs=TOL), (name, k)
    with without_ids():
        value = srm.mean_average_precision_score(y, s, g, relevance_level=2, convention="spark")
    assert value == approx(theirs["map"], rel=TOL, abs=TOL)


def test_pyspark_drops_the_relevance_array(spark):
    # RankingMetrics on (prediction, ground truth, relevance) triples, the ground truth
    # sorted by grade: Scala's ndcgAt would give NDCG with gain 2^rel - 1; PySpark keeps
    # the two lists only, so ndcgAt stays the binary one (graded NDCG is Scala-only)
    rows = flat_rows(seed=3, n_queries=12)
    triples = mllib_lists(rows, None, by_doc_id=True, graded=True)
    tool = ranking_metrics(spark.sparkContext.parallelize(triples, 2))
    ours = ours_under_spark(rows, ["ndcg@5", "ndcg(gain=exponential)@5"])
    assert tool.ndcgAt(5) == approx(ours["ndcg@5"], rel=TOL, abs=TOL)
    assert ours["ndcg(gain=exponential)@5"] != approx(ours["ndcg@5"], rel=1e-3)


# ---------------------------------------------------------------------------
# the preset by hand (no Spark): what each of its settings is for
# ---------------------------------------------------------------------------


def test_spark_preset_by_hand():
    one = [0, 0, 0, 0]
    y, s = [0.0, 2.0, 0.0, 1.0], [0.9, 0.8, 0.5, -np.inf]
    # binary gain, natural-log discount (any base: it cancels); ideal over both relevant
    # rows, the unreturned one too: (1/ln 3) / (1/ln 2 + 1/ln 3)
    expected = (1 / np.log(3)) / (1 / np.log(2) + 1 / np.log(3))
    assert srm.ndcg_score(y, s, one, k=3, convention="spark") == approx(expected, rel=1e-15)
    assert srm.ndcg_score(y, s, one, k=3) != approx(expected)  # linear gain: label 2 counts 2
    # P@k / k also for a list shorter than k: 1 hit in 3 returned rows, k = 5
    assert srm.precision_at_k_score(y, s, one, k=5, convention="spark") == approx(1 / 5)
    # MAP@2: the hit at rank 2 adds P@2 = 1/2, divided by min(2, 2 relevant)
    assert srm.mean_average_precision_score(y, s, one, k=2, convention="spark") == 0.25
    y2, s2 = [1.0, 1.0, 0.0], [0.9, 0.8, 0.1]
    # MAP@1 / min(1, 2) = 1, where trec_eval's map_cut_1 divides by 2
    assert srm.mean_average_precision_score(y2, s2, [0, 0, 0], k=1, convention="spark") == 1.0
    assert srm.mean_average_precision_score(y2, s2, [0, 0, 0], k=1) == 0.5
    # a query without a relevant row scores 0 and stays in the mean
    two = [0, 0, 1, 1]
    y3, s3 = [1.0, 0.0, 0.0, 0.0], [0.9, 0.1, 0.5, 0.4]
    for function in (srm.ndcg_score, srm.mean_average_precision_score):
        assert function(y3, s3, two, convention="spark") == 0.5


def test_spark_preset_orders_ties_by_document_id_ascending():
    # rows 0 and 1 tie; "d10" < "d9" as text, so d10 (not relevant) ranks first
    y, s, g = [1.0, 0.0], [0.5, 0.5], [0, 0]
    got = evaluate(y, s, g, metrics=["p@1", "mrr"], convention="spark", doc_id=["d9", "d10"])
    assert got == {"p@1": 0.0, "mrr": 0.5}
    with without_ids():  # input order
        got = evaluate(y, s, g, metrics=["p@1", "mrr"], convention="spark")
    assert got == {"p@1": 1.0, "mrr": 1.0}
    got = evaluate(y, s, g, metrics=["p@1"], convention="spark", doc_id=["d9", "d8"])
    assert got == {"p@1": 0.0}


def test_spark_preset_reads_a_negative_label_as_not_relevant():
    # MLlib's ground truth is the rows the caller puts in it: a negative grade is not
    y, s, g = [-1.0, 1.0, 0.0], [0.9, 0.8, 0.1], [0, 0, 0]
    assert srm.ndcg_score(y, s, g, convention="spark") == approx(
        (1 / np.log(3)) / (1 / np.log(2))
    )
    with pytest.raises(ValueError, match="must be >= 0"):
        srm.ndcg_score(y, s, g)


def test_binary_gain():
    y, s, g = [0.0, 2.0, 0.5, 3.0], [0.9, 0.8, 0.5, -np.inf], [0, 0, 0, 0]
    # gains 0, 1, 1 (ranks 1-3) and 1 (not returned); ideal: three rows of gain 1
    dcg = 1 / np.log2(3) + 1 / np.log2(4)
    ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert srm.dcg_score(y, s, g, gain="binary") == approx(dcg)
    assert srm.idcg_score(y, s, g, gain="binary") == approx(ideal)
    assert srm.ndcg_score(y, s, g, gain="binary") == approx(dcg / ideal)
    # ideal="top_k": the top 2 rows hold one row of gain 1
    top = srm.ndcg_score(y, s, g, k=2, gain="binary", ideal="top_k")
    assert top == approx(1 / np.log2(3))
    with pytest.warns(UndefinedMetricWarning, match="undefined for every one"):
        assert srm.ndcg_score([0.0, 0.0], [0.2, 0.1], [0, 0], gain="binary") == 0.0


@pytest.mark.parametrize("metrics", [["ndcg@3", "map"], ["dcg(gain=binary)@3"], ["idcg"]])
def test_a_relevance_level_the_binary_gain_cannot_read_is_an_error(metrics):
    # NDCG would count y > 0 and MAP y >= 2: two ground truths in one call
    y, s, g = [1.0, 2.0, 0.0], [0.9, 0.8, 0.1], [0, 0, 0]
    with pytest.raises(ValueError, match=r"y_true >= 2\.0 \(0 or 1\) and no relevance_level"):
        evaluate(y, s, g, metrics=metrics, convention="spark", relevance_level=2.0)
    # graded gains do not read it, as before; the recipe: binarised labels
    got = evaluate(y, s, g, metrics=["ndcg@3"], convention="trec_eval", relevance_level=2.0)
    assert got == {"ndcg@3": srm.ndcg_score(y, s, g, k=3, convention="trec_eval")}
    binary = evaluate([0.0, 1.0, 0.0], s, g, metrics=["ndcg@3", "map"], convention="spark")
    assert binary == {"ndcg@3": approx(1 / np.log2(3)), "map": 0.5}
