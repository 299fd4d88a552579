"""The calls users actually make, at every entry point (issue 31, items 1, 2, 4, 9).

- Flat rows without ``group`` are refused everywhere (never one silent query); the
  2-D form of scikit-learn keeps working.
- A reader's ``RankingData`` (and ``AlignedRuns``) is passed whole and everything it
  carries is used; ``*data`` drops the judgments, so the measures that read them
  refuse to run instead of assuming every row was judged.
- Integer document ids break ties as trec_eval's docnos do: as text.
- pyarrow arrays are array-likes like any other.

Reference values come from pytrec_eval (trec_eval), ir_measures, scikit-learn and
hand computations.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import ndcg_score as sklearn_ndcg

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import (
    RankingEvaluator,
    align_trec_runs,
    bpref_score,
    compare,
    evaluate,
    judged_at_k_score,
    ndcg_score,
    ranking_report,
    rbp_score,
    read_trec,
)
from sklearn_rank_metrics._metrics._registry import METRICS

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")


# --------------------------------------------------------------------------- data


def _qrels_and_runs(seed=3, n_queries=12):
    """Qrels with non-relevant judgments and runs that return unjudged documents.

    Every query of the qrels is answered by both runs (the query sets agree, so no
    policy for unanswered queries is involved); scores are distinct within a run.
    """
    rng = np.random.default_rng(seed)
    qrels, run_a, run_b = {}, {}, {}
    for q in range(n_queries):
        docs = [f"d{d}" for d in rng.choice(60, 14, replace=False)]
        judged = docs[:9]
        qrels[f"q{q}"] = {d: int(rng.choice([0, 0, 1, 2])) for d in judged}
        qrels[f"q{q}"][judged[0]] = 1  # at least one relevant document
        for run in (run_a, run_b):
            returned = rng.choice(docs, 10, replace=False)
            scores = rng.permutation(10) / 10 + 0.05
            run[f"q{q}"] = {str(d): float(s) for d, s in zip(returned, scores, strict=True)}
    return qrels, run_a, run_b


def _trec_eval(qrels, run, measures):
    values = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    return {m: float(np.mean([v[m] for v in values.values()])) for m in measures}, values


# --------------------------------------------------------------------------- item 1


FLAT = ([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.1, 0.3, 0.7, 0.2])


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metric_function_refuses_flat_rows_without_group(name):
    function = METRICS[name].function
    with pytest.raises(ValueError, match=r"'group' parameter .* required .*np\.zeros"):
        function(*FLAT)


@pytest.mark.parametrize(
    "call",
    [
        lambda: evaluate(*FLAT, metrics=["ndcg@10"]),
        lambda: ranking_report(*FLAT),
        lambda: compare(FLAT[0], {"a": FLAT[1], "b": FLAT[1][::-1]}),
        lambda: RankingEvaluator(["ndcg@10"]).update(*FLAT),
        lambda: srm.sampled_ranks([0, 1, 0], [0.3, 0.2, 0.1]),
    ],
    ids=["evaluate", "ranking_report", "compare", "RankingEvaluator.update", "sampled_ranks"],
)
def test_multi_metric_entry_points_refuse_flat_rows_without_group(call):
    with pytest.raises(ValueError, match=r"'group' parameter .* required"):
        call()


def test_one_query_on_purpose_and_the_2d_form_still_work():
    y, s = FLAT
    # hand computation, one query of 6 rows: DCG = 2/log2(2) + 0/log2(3) + 1/log2(4)...
    order = np.argsort(s)[::-1]
    gains = np.asarray(y, float)[order]
    dcg = np.sum(gains / np.log2(np.arange(2, 8)))
    ideal = np.sort(np.asarray(y, float))[::-1]
    expected = dcg / np.sum(ideal / np.log2(np.arange(2, 8)))
    assert ndcg_score(y, s, np.zeros(len(y))) == pytest.approx(expected)
    assert ndcg_score([y], [s]) == pytest.approx(sklearn_ndcg([y], [s]))


def test_displays_refuse_flat_rows_without_group_and_read_the_rankers_column():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    pd = pytest.importorskip("pandas")
    lightgbm = pytest.importorskip("lightgbm")

    with pytest.raises(ValueError, match=r"'group' parameter .* required"):
        srm.PerQueryMetricDisplay.from_predictions(*FLAT, metric="ndcg@10")
    with pytest.raises(ValueError, match=r"'group' parameter .* required"):
        srm.MetricAtKDisplay.from_predictions(*FLAT, metric="ndcg", k_max=3)

    rng = np.random.default_rng(0)
    n_queries, per_query = 8, 6
    qid = np.repeat(np.arange(n_queries), per_query)
    X = pd.DataFrame({"qid": qid, "f": rng.normal(size=qid.size)})
    y = rng.integers(0, 3, size=qid.size)
    y[::per_query] = 2  # every query has a relevant row
    model = lightgbm.LGBMRanker(n_estimators=5, min_child_samples=1, verbose=-1)
    ranker = srm.GroupedRanker(model, group_column="qid").fit(X, y)
    display = srm.PerQueryMetricDisplay.from_estimator(ranker, X, y, metric="ndcg@3")
    scores = ranker.predict(X)
    # scikit-learn's ndcg_score query by query, the rows of one query as one 2-D row
    expected = [
        sklearn_ndcg([y[qid == q]], [scores[qid == q]], k=3) for q in range(n_queries)
    ]
    (values,) = display.values.values()
    np.testing.assert_allclose(np.sort(values), np.sort(expected))
    curve = srm.MetricAtKDisplay.from_estimator(ranker, X, y, metric="ndcg", k_max=3)
    (means,) = curve.values.values()
    assert means[2] == pytest.approx(np.mean(expected))


# --------------------------------------------------------------------------- item 2


@pytest.fixture(scope="module")
def trec():
    qrels, run_a, run_b = _qrels_and_runs()
    data = read_trec(qrels, run_a)
    assert data.judged is not None and not data.judged.all()  # unjudged rows exist
    return qrels, run_a, run_b, data


def test_ranking_data_passed_whole_gives_trec_evals_bpref(trec):
    qrels, run_a, _, data = trec
    means, per_query = _trec_eval(qrels, run_a, ["bpref"])
    assert evaluate(data, metrics=["bpref"], convention="trec_eval")["bpref"] == pytest.approx(
        means["bpref"], abs=1e-4
    )
    assert bpref_score(data, convention="trec_eval") == pytest.approx(means["bpref"], abs=1e-4)
    table = evaluate(data, metrics=["bpref"], convention="trec_eval", per_query=True)
    for query, value in zip(table["query"], table["bpref"], strict=True):
        assert value == pytest.approx(per_query[query]["bpref"], abs=1e-4)


def test_ranking_data_gives_ir_measures_judged_at_k(trec):
    qrels, run_a, _, data = trec
    expected = ir_measures.calc_aggregate([ir_measures.Judged @ 5], qrels, run_a)
    assert judged_at_k_score(data, k=5, convention="ir_measures") == pytest.approx(
        expected[ir_measures.Judged @ 5], abs=1e-4
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda d: evaluate(*d, metrics=["bpref"], convention="trec_eval"),
        lambda d: evaluate(*d, metrics=["judged@5"]),
        lambda d: bpref_score(*d),
        lambda d: judged_at_k_score(*d, k=5),
        lambda d: rbp_score(*d, part="residual"),
        lambda d: rbp_score(*d, part="upper"),
        lambda d: ranking_report(*d, metrics=["bpref"]),
        lambda d: compare(d.y_true, {"a": d.y_score, "b": -d.y_score}, d.group, metrics=["bpref"]),
    ],
)
def test_unpacked_data_never_assumes_every_row_judged(trec, call):
    # TREC rows refuse to unpack (it would drop their convention: see
    # tests/io/test_data_convention.py); the same arrays without their judged flags
    # (rows that unpack) never read every row as judged
    data = trec[3]
    arrays = srm.RankingData(data.y_true, data.y_score, data.group)
    with pytest.raises(ValueError, match=r"judged=True"):
        call(arrays)


def test_judged_true_says_every_row_was_judged():
    # relevant, non-relevant, relevant; R = 2, N = 1: bpref = (1 + (1 - 1/1)) / 2
    y, s, q = [1, 0, 1], [0.9, 0.8, 0.7], [0, 0, 0]
    assert bpref_score(y, s, q, judged=True) == pytest.approx(0.5)
    assert bpref_score(y, s, q, judged=[True, True, True]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="judged"):
        bpref_score(y, s, q, judged=False)
    # the measures that do not read judgments need none
    assert rbp_score(y, s, q, p=0.5) == pytest.approx(0.5 * (1 + 0.25))


def test_every_entry_point_takes_the_ranking_data(trec):
    qrels, run_a, run_b, data = trec
    means, per_query = _trec_eval(qrels, run_a, ["bpref", "map"])
    expected = means["bpref"]
    settings = {"convention": "trec_eval"}
    assert ranking_report(data, metrics=["bpref"], output_dict=True, **settings)["bpref"][
        "mean"
    ] == pytest.approx(expected, abs=1e-4)
    evaluator = RankingEvaluator(["bpref", "map"], **settings)
    evaluator.update(data)
    assert evaluator.compute()["bpref"] == pytest.approx(expected, abs=1e-4)
    assert evaluator.compute()["map"] == pytest.approx(means["map"], abs=1e-4)

    aligned = align_trec_runs(qrels, {"a": run_a, "b": run_b})
    result = compare(aligned, metrics=["bpref"], n_resamples=50, random_state=0, **settings)
    means_b, _ = _trec_eval(qrels, run_b, ["bpref"])
    row = {(r["model_a"], r["model_b"]): r for r in result.records()}[("a", "b")]
    assert row["mean_a"] == pytest.approx(expected, abs=1e-4)
    assert row["mean_b"] == pytest.approx(means_b["bpref"], abs=1e-4)
    report = ranking_report(aligned, metrics=["bpref"], output_dict=True, **settings)
    assert report["b"]["bpref"]["mean"] == pytest.approx(means_b["bpref"], abs=1e-4)
    assert bpref_score(aligned.run("b"), **settings) == pytest.approx(means_b["bpref"], abs=1e-4)

    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    display = srm.PerQueryMetricDisplay.from_predictions(data, metric="bpref", **settings)
    (values,) = display.values.values()
    np.testing.assert_allclose(
        np.sort(values), np.sort([v["bpref"] for v in per_query.values()]), atol=1e-4
    )


def test_ambiguous_calls_are_refused_with_both_spellings(trec):
    _, _, _, data = trec
    with pytest.raises(ValueError, match=r"also group=.*ndcg_score\(data, \.\.\.\)"):
        ndcg_score(data, group=data.group)
    with pytest.raises(ValueError, match=r"also y_score=.*data\.y_true, y_score"):
        ndcg_score(data, data.y_score)
    with pytest.raises(ValueError, match="also judged="):
        evaluate(data, metrics=["bpref"], judged=np.ones(len(data.y_true), bool))
    aligned = align_trec_runs(*_qrels_and_runs()[:1], {"a": trec[1], "b": trec[2]})
    with pytest.raises(TypeError, match=r"\.run\(name\)"):
        ndcg_score(aligned)
    no_scores = srm.RankingData(data.y_true, None, data.group)
    with pytest.raises(ValueError, match="without scores"):
        ndcg_score(no_scores)
    # scores given next to a RankingData without scores are the scores
    assert ndcg_score(no_scores, data.y_score) == ndcg_score(data)


def test_scorer_takes_a_ranking_data_with_features():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(1)
    qid = np.repeat(np.arange(10), 5)
    X = rng.normal(size=(qid.size, 3))
    y = rng.integers(0, 3, size=qid.size).astype(float)
    model = Ridge().fit(X, y)
    data = srm.RankingData(y, None, qid, X=X)
    scorer = srm.make_ranking_scorer("ndcg@3")
    scores = model.predict(X)
    expected = np.mean(
        [sklearn_ndcg([y[qid == q]], [scores[qid == q]], k=3) for q in range(10)]
    )
    assert scorer(model, data) == pytest.approx(expected)
    with pytest.raises(ValueError, match="also y or group"):
        scorer(model, data, y)


# --------------------------------------------------------------------------- item 4


def test_integer_document_ids_break_ties_as_text_like_trec_eval():
    # "9" > "10" as text: trec_eval (ties by docno descending) ranks 9 first
    qrels = {"q": {"9": 1, "10": 0}}
    run = {"q": {"9": 1.0, "10": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run)["q"]["P_1"]
    assert expected == 1.0
    for doc_id in ([9, 10], np.array([9, 10]), ["9", "10"]):
        got = evaluate(
            [1, 0], [1.0, 1.0], ["q", "q"], metrics=["p@1"], convention="trec_eval",
            doc_id=doc_id,
        )
        assert got["p@1"] == expected
    # the other row order gives the same: the ids decide, not the input order
    got = evaluate(
        [0, 1], [1.0, 1.0], ["q", "q"], metrics=["p@1"], convention="trec_eval", doc_id=[10, 9]
    )
    assert got["p@1"] == expected


def test_metric_functions_order_ties_by_the_carried_doc_ids():
    # rows in an order trec_eval would not give them; the RankingData's doc ids decide
    qrels = {"q": {"d1": 1, "d2": 0, "d3": 0}}
    run = {"q": {"d1": 1.0, "d2": 1.0, "d3": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]
    data = srm.RankingData(
        np.array([1.0, 0.0, 0.0]), np.ones(3), np.array(["q"] * 3),
        doc_id=np.array(["d1", "d2", "d3"]),
    )
    got = srm.mean_reciprocal_rank_score(data, convention="trec_eval")
    assert got == pytest.approx(expected["recip_rank"])  # d3, d2, d1: 1/3


# --------------------------------------------------------------------------- item 9


def test_pyarrow_arrays_are_array_likes():
    pa = pytest.importorskip("pyarrow")
    y, s = FLAT
    q = ["a", "a", "a", "b", "b", "b"]
    expected = np.mean(
        [sklearn_ndcg([y[:3]], [s[:3]], k=2), sklearn_ndcg([y[3:]], [s[3:]], k=2)]
    )
    assert ndcg_score(pa.array(y), pa.array(s), pa.array(q), k=2) == pytest.approx(expected)
    chunked = pa.chunked_array([q[:3], q[3:]])
    got = evaluate(pa.array(y), pa.array(s), chunked, metrics=["ndcg@2"])
    assert got["ndcg@2"] == pytest.approx(expected)
    with pytest.raises(ValueError, match="row 1"):
        ndcg_score(pa.array([2, None, 1, 0, 1, 0]), pa.array(s), pa.array(q))


def test_dask_reads_judgments_from_a_column_and_never_assumes_them(trec):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics import dask as srm_dask

    qrels, run_a, _, data = trec
    means, _ = _trec_eval(qrels, run_a, ["bpref"])
    frame = pd.DataFrame(
        {"y_true": data.y_true, "y_score": data.y_score, "group": data.group,
         "judged": data.judged}
    )
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match="judged=True"):
        srm_dask.evaluate(ddf, ["bpref"], convention="trec_eval")
    got = srm_dask.evaluate(ddf, ["bpref"], judged="judged", convention="trec_eval")
    assert got["bpref"] == pytest.approx(means["bpref"], abs=1e-4)


def test_booster_metrics_refuse_the_measures_that_read_judgments():
    # a booster's dataset carries no judgments: refused when made, not at round one
    for name in ("bpref", "judged@5", "rbp(part=upper)@10", "rbp(part=residual)"):
        for factory in (srm.make_lightgbm_metric, srm.make_xgboost_metric):
            with pytest.raises(ValueError, match="reads which rows were judged"):
                factory(name)
    srm.make_xgboost_metric("rbp@10")  # RBP's value needs no judgments


def test_sampled_ranks_takes_a_ranking_data():
    # user u1: the positive (0.5) below one negative (0.9): rank 2; user u2: the
    # positive (0.3) ties a negative (0.3) and sits below 0.8: pessimistic rank 3
    data = srm.RankingData(
        np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0]),
        np.array([0.9, 0.5, 0.1, 0.3, 0.3, 0.8]),
        np.array(["u1"] * 3 + ["u2"] * 3),
    )
    assert srm.sampled_ranks(data).rank.tolist() == [2, 3]


def test_doc_id_given_to_a_metric_function_says_where_it_goes():
    with pytest.raises(TypeError, match=r"mean_average_precision_score: .*doc_id.*evaluate"):
        srm.mean_average_precision_score(
            [1, 0], [1.0, 1.0], [0, 0], convention="trec_eval", doc_id=["a", "b"]
        )
