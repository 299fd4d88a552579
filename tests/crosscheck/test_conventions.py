"""``convention=``: each preset alone reproduces its tool, run on the same data.

Every test below gives our side *only* ``convention=...`` (plus the document ids
where the tool breaks ties by them): no ``ties``, gain, denominator, policy or cast
of its own. The tool computes the expected values: trec_eval (pytrec_eval),
ir_measures, ranx, scikit-learn, LightGBM and XGBoost; torchmetrics is not a test
dependency (it needs torch), so its preset is checked against hand computations of
the behaviour its documentation and source describe.

Data: ``tests/support/qrels_data.py`` (synthetic queries with float32 ties, empty
queries and unretrieved rows, and the real sample) and the booster cross-check's
datasets (``tests/test_crosscheck_boosters.py``).
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from pytest import approx
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import roc_auc_score

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate, read_trec
from sklearn_rank_metrics._cli import main as _cli_main
from sklearn_rank_metrics._engine._warnings import TieOrderWarning
from tests.support.qrels_data import dataset

RTOL = 1e-9
ATOL = 1e-12
TREC_NAMES = [
    "map", "map_cut_10", "ndcg", "ndcg_cut_5", "ndcg_cut_20", "P_5", "P_20", "recall_10",
    "recip_rank", "success_1", "success_10", "Rprec", "iprec_at_recall_0.00",
    "iprec_at_recall_0.50", "iprec_at_recall_1.00", "11pt_avg",
]  # fmt: skip


def close(ours, expected, message=""):
    np.testing.assert_allclose(ours, expected, rtol=RTOL, atol=ATOL, err_msg=message)


def shuffled(flat, score, seed=3):
    """Rows interleaved across queries: the tie order must come from the doc ids."""
    order = np.random.default_rng(seed).permutation(len(flat.y))
    return flat.y[order], score[order], flat.group[order], flat.doc[order]


def qrels_and_run(y, score, group, doc):
    qrels, run = {}, {}
    for q, d, label, s in zip(group, doc, y, score, strict=True):
        qrels.setdefault(str(q), {})[str(d)] = int(label)
        if np.isfinite(s):
            run.setdefault(str(q), {})[str(d)] = float(s)
    return qrels, run


def per_query(table, name):
    return dict(zip(map(str, table["query"]), np.asarray(table[name]), strict=True))


# ---------------------------------------------------------------------------
# pytrec_eval (trec_eval 9.0.8): float32 scores, ties by docno descending, -l 1,
# negative labels; trec_eval (10): float64 scores, iprec cutoff round(X*R)
# ---------------------------------------------------------------------------


@cache
def trec_data(dataset_name, variant):
    flat = dataset(dataset_name)
    y = flat.y.copy()
    score = flat.tied_score.copy()  # ties in float32, some not in float64
    if variant == "negative_labels":  # TREC Web's -2 (spam): non-relevant, gain 0
        # never every judged document of a query: pytrec_eval 0.5 crashes on a query
        # whose qrels hold only negative labels
        sizes = dict(zip(*np.unique(flat.group, return_counts=True), strict=True))
        several = np.array([sizes[q] > 1 for q in flat.group])
        y[(y == 0) & several & (np.arange(len(y)) % 3 == 1)] = -2.0
        assert (y == -2).sum() > 50
    if variant == "query_not_in_run":
        absent = np.unique(flat.group)[3::10]
        score[np.isin(flat.group, absent)] = -np.inf
    return shuffled(replace(flat, y=y), score)


@pytest.mark.parametrize("variant", ["tied", "negative_labels", "query_not_in_run"])
@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_pytrec_eval_preset_matches_pytrec_eval(dataset_name, variant):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, score, group, doc = trec_data(dataset_name, variant)
    qrels, run = qrels_and_run(y, score, group, doc)
    measures = {name.rsplit("_", 1)[0] if name[-1].isdigit() else name for name in TREC_NAMES}
    tool = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert variant != "query_not_in_run" or len(tool) < len(qrels)
    ours = evaluate(
        y, score, group, metrics=TREC_NAMES, convention="pytrec_eval", doc_id=doc, per_query=True
    )
    for name in TREC_NAMES:
        values = per_query(ours, name)
        # trec_eval -c: a query of the qrels that the run does not answer scores 0
        expected = {q: tool[q][name] if q in tool else 0.0 for q in qrels}
        assert sorted(values) == sorted(expected)
        close([values[q] for q in expected], list(expected.values()), name)
        mean = evaluate(y, score, group, metrics=name, convention="pytrec_eval", doc_id=doc)[name]
        close(mean, np.mean(list(expected.values())), name)


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_dask_with_a_doc_id_column_matches_pytrec_eval(dataset_name):
    # Dask takes the document ids as a column, as Spark and the in-memory call do:
    # without it, tied rows kept their partition order (and a TieOrderWarning said so)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as dask_evaluate

    y, score, group, doc = trec_data(dataset_name, "tied")
    qrels, run = qrels_and_run(y, score, group, doc)
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "P"}).evaluate(run)
    frame = pd.DataFrame({"qid": group, "label": y, "score": score, "docno": doc})
    names = ["map", "recip_rank", "P_5"]
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("error", TieOrderWarning)
        got = dask_evaluate(
            dd.from_pandas(frame, npartitions=3, sort=False), names, y_true="label",
            y_score="score", group="qid", doc_id="docno", convention="pytrec_eval",
        )
    for name in names:
        expected = np.mean([tool[q][name] if q in tool else 0.0 for q in qrels])
        close(got[name], expected, name)


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_pytrec_eval_preset_needs_no_other_setting(dataset_name):
    # without the preset, the same call is off: the check above can fail
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, score, group, doc = trec_data(dataset_name, "tied")
    qrels, run = qrels_and_run(y, score, group, doc)
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P"}).evaluate(run)
    expected = np.mean([tool[q]["map"] for q in qrels])
    assert evaluate(y, score, group, metrics="map")["map"] != approx(expected, rel=1e-6)
    # doc ids matter: input order of the shuffled rows is not trec_eval's order
    with pytest.warns(TieOrderWarning, match="convention='pytrec_eval' orders tied scores"):
        plain = evaluate(y, score, group, metrics="map", convention="pytrec_eval")["map"]
    assert plain != approx(expected, rel=1e-6)
    with_ids = evaluate(y, score, group, metrics="map", convention="pytrec_eval", doc_id=doc)
    assert with_ids["map"] == approx(expected, rel=RTOL, abs=ATOL)


def test_pytrec_eval_preset_in_the_metric_functions_on_rows_in_docno_order():
    # the metric functions take no doc ids: rows sorted by document id descending
    # (what read_trec returns) give trec_eval's order
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, score, group, doc = trec_data("lambdarank", "negative_labels")
    qrels, run = qrels_and_run(y, score, group, doc)
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut", "P", "recip_rank"}).evaluate(
        run
    )
    order = np.argsort(doc, kind="stable")[::-1]
    y, score, group = y[order], score[order], group[order]
    for function, kwargs, measure in [
        (srm.mean_average_precision_score, {}, "map"),
        (srm.ndcg_score, {"k": 10}, "ndcg_cut_10"),
        (srm.precision_at_k_score, {"k": 5}, "P_5"),
        (srm.mean_reciprocal_rank_score, {}, "recip_rank"),
    ]:
        # right, but the function cannot know it: it warns, naming RankingData
        with pytest.warns(TieOrderWarning, match=r"RankingData of read_trec whole"):
            got = function(y, score, group, convention="pytrec_eval", **kwargs)
        close(got, np.mean([tool[q][measure] for q in qrels]), measure)


def lround(x):
    """C's lround of a double x >= 0: nearest integer, halves away from zero."""
    whole = math.floor(x)
    return whole + (x - whole >= 0.5)


def iprec_by_hand(labels_in_rank_order, n_relevant, level, rounding):
    """trec_eval's interpolated precision of one query, ranks in the given order."""
    product = level * n_relevant
    c = lround(product) if rounding == "round" else math.floor(product + 0.9)
    hits = np.flatnonzero(np.asarray(labels_in_rank_order) >= 1)  # retrieved relevant
    precisions = [(j + 1) / (rank + 1) for j, rank in enumerate(hits)]
    below = precisions[max(c, 1) - 1 :]
    return max(below) if below else 0.0


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_trec_eval_preset_is_trec_eval_10(dataset_name):
    # trec_eval 10 = trec_eval 9 (pytrec_eval) but for two things: scores compared
    # in double precision and the iprec cutoff lround(X R). On scores distinct in
    # float32 (so equally ordered by both), every other measure is pytrec_eval's
    pytrec_eval = pytest.importorskip("pytrec_eval")
    flat = dataset(dataset_name)
    y = flat.y.copy()
    # spam, never every judged row of a query (pytrec_eval crashes on such a query)
    sizes = dict(zip(*np.unique(flat.group, return_counts=True), strict=True))
    several = np.array([sizes[q] > 1 for q in flat.group])
    y[(y == 0) & several & (np.arange(len(y)) % 3 == 1)] = -2.0
    y, score, group, doc = shuffled(replace(flat, y=y), flat.score)
    qrels, run = qrels_and_run(y, score, group, doc)
    names = [n for n in TREC_NAMES if not n.startswith(("iprec", "11pt"))]
    measures = {name.rsplit("_", 1)[0] if name[-1].isdigit() else name for name in names}
    tool = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = evaluate(
        y, score, group, metrics=names, convention="trec_eval", doc_id=doc, per_query=True
    )
    for name in names:
        values = per_query(ours, name)
        close([values[q] for q in tool], [tool[q][name] for q in tool], name)
    # the cutoff: lround(X R), by hand, on each query in trec_eval's order
    levels = [0.0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 1.0]
    iprec_names = [f"iprec_at_recall_{level:.2f}" for level in levels]
    table = evaluate(
        y, score, group, metrics=[*iprec_names, "11pt_avg"], convention="trec_eval",
        doc_id=doc, per_query=True,
    )  # fmt: skip
    old = evaluate(
        y, score, group, metrics=iprec_names, convention="pytrec_eval", doc_id=doc,
        per_query=True,
    )  # fmt: skip
    differ = 0
    for name, level in zip(iprec_names, levels, strict=True):
        values, old_values = per_query(table, name), per_query(old, name)
        for q in tool:
            rows = (group == q) & np.isfinite(score)
            order = np.lexsort((-np.argsort(np.argsort(doc[rows])), -score[rows]))
            labels = y[rows][order]
            n_rel = int(((group == q) & (y >= 1)).sum())
            expected = iprec_by_hand(labels, n_rel, level, "round")
            close(values[q], expected, f"{name} {q}")
            close(old_values[q], iprec_by_hand(labels, n_rel, level, "+0.9"), f"{name} {q}")
            differ += expected != iprec_by_hand(labels, n_rel, level, "+0.9")
    assert differ > 10  # the two rules give other values on this data


def test_trec_eval_10_compares_scores_in_double_precision():
    # 1 + 2**-30 equals 1 in float32: pytrec_eval (trec_eval 9) ties the two rows and
    # puts docno "b" first; trec_eval 10 reads the scores as double and ranks "a" first
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = {"q": {"b": 1, "a": 0}}, {"q": {"a": 1.0 + 2**-30, "b": 1.0}}
    tool = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q"]
    y, s, group, doc = [1.0, 0.0], [1.0, 1.0 + 2**-30], [0, 0], ["b", "a"]
    old = evaluate(y, s, group, metrics="recip_rank", convention="pytrec_eval", doc_id=doc)
    assert old["recip_rank"] == tool["recip_rank"] == 1.0
    new = evaluate(y, s, group, metrics="recip_rank", convention="trec_eval", doc_id=doc)
    assert new["recip_rank"] == 0.5  # "a" (not relevant) at rank 1, "b" at rank 2


def test_trec_eval_10_iprec_cutoff_by_hand():
    # R = 6, relevant at ranks 1, 4, 5, 6, 7, 8: precisions 1, 1/2, 3/5, 2/3, 5/7, 3/4.
    # X = 0.2: X R = 1.2. trec_eval 9: c = (long)(1.2 + 0.9) = 2 -> max over j >= 2 =
    # 3/4; trec_eval 10: c = lround(1.2) = 1 -> 1.
    y = np.array([1.0, 0, 0, 1, 1, 1, 1, 1])
    s, group = -np.arange(8.0), np.zeros(8)
    assert lround(0.2 * 6) == 1 and math.floor(0.2 * 6 + 0.9) == 2
    for function, kwargs in [
        (srm.interpolated_precision_score, {"recall": 0.2}),
        (srm.eleven_point_precision_score, {}),
    ]:
        new = function(y, s, group, convention="trec_eval", **kwargs)
        old = function(y, s, group, convention="pytrec_eval", **kwargs)
        assert new == function(y, s, group, rounding="round(X*R)", **kwargs)
        assert old == function(y, s, group, rounding="floor(X*R+0.9)", **kwargs)
    assert srm.interpolated_precision_score(y, s, group, recall=0.2, convention="trec_eval") == 1
    assert (
        srm.interpolated_precision_score(y, s, group, recall=0.2, convention="pytrec_eval") == 0.75
    )
    # a half rounds away from zero: R = 5, X = 0.5 gives c = lround(2.5) = 3 (banker's
    # rounding would give 2); relevant at ranks 1, 2, 5, 8, 10: 1, 1, 3/5, 1/2, 1/2
    y = np.array([1.0, 1, 0, 0, 1, 0, 0, 1, 0, 1])
    s, group = -np.arange(10.0), np.zeros(10)
    assert lround(0.5 * 5) == 3 and round(0.5 * 5) == 2
    got = srm.interpolated_precision_score(y, s, group, recall=0.5, convention="trec_eval")
    assert got == 0.6  # max(3/5, 1/2, 1/2); c = 2 would give 1


# ---------------------------------------------------------------------------
# ir_measures: its names, and a provider per measure (tie order and precision)
# ---------------------------------------------------------------------------

IR_MEASURES_NAMES = [
    "nDCG@10", "nDCG", "nDCG(dcg='exp-log2')@10", "P@5", "P(rel=2)@5", "R@20", "AP", "AP@10",
    "RR", "RR@10", "Success@5", "Rprec", "ERR@10", "IPrec@0.0", "IPrec@0.5", "IPrec@1.0",
]  # fmt: skip

GDEVAL_NAMES = ("nDCG(dcg='exp-log2')@10", "ERR@10")


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_ir_measures_preset_matches_ir_measures(dataset_name):
    ir_measures = pytest.importorskip("ir_measures")
    y, score, group, doc = trec_data(dataset_name, "query_not_in_run")
    group = np.array([f"{1000 + int(q[1:])}" for q in group])  # gdeval needs numeric ids
    qrels_dict, run_dict = qrels_and_run(y, score, group, doc)
    qrels = [
        ir_measures.Qrel(q, d, rel) for q, docs in qrels_dict.items() for d, rel in docs.items()
    ]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in run_dict.items() for d, s in docs.items()]
    ours = evaluate(
        y, score, group, metrics=IR_MEASURES_NAMES, convention="ir_measures", doc_id=doc,
        per_query=True,
    )  # fmt: skip
    for name in IR_MEASURES_NAMES:
        measure = ir_measures.parse_measure(name)
        tool = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        values = per_query(ours, name)
        # every query of the qrels, those the run does not answer at 0 (in both)
        assert sorted(values) == sorted(tool)
        queries = sorted(tool)
        # gdeval (ERR, nDCG(dcg='exp-log2')) prints its values with 5 decimals
        atol = 5.1e-6 if name in GDEVAL_NAMES else ATOL
        ours_values = [values[q] for q in queries]
        np.testing.assert_allclose(ours_values, [tool[q] for q in queries], RTOL, atol, name)
        assert all(values[q] == 0.0 for q in queries if q not in run_dict), name
        mean = ir_measures.calc_aggregate([measure], qrels, run)[measure]
        np.testing.assert_allclose(np.mean(ours_values), mean, RTOL, atol, name)


def test_ir_measures_providers_order_ties_differently():
    # one run, two providers: trec_eval's RR (float32, docno descending) and the
    # msmarco provider's RR@10 (float64, docno ascending); hand-checked
    y = [1.0, 0.0, 0.0, 1.0]
    score = [0.5, 0.5, 0.7, 0.7]
    group, doc = ["1", "1", "2", "2"], ["a", "b", "a", "b"]
    got = evaluate(
        y, score, group, metrics=["RR", "RR@10"], convention="ir_measures", doc_id=doc,
        per_query=True,
    )  # fmt: skip
    # query 1: "b" (not relevant) first by docno descending, "a" first ascending
    assert list(got["RR"]) == [0.5, 1.0]
    assert list(got["RR@10"]) == [1.0, 0.5]


# on TREC files ir_measures' float64 providers see float64 scores
HI, LO = 1.0 + 2.0**-29, 1.0 + 2.0**-30  # distinct in float64, equal in float32
# query 1: the non-relevant "b" scores higher in float64; in float32 the two tie and
# RR@10 (docno ascending) would put the relevant "a" first: 1.0 instead of 0.5.
# query 2: the same for ERR@10 (docno descending). query 3: Judged@1 (ascending).
FLOAT64_QRELS = [("1", "a", 1), ("1", "b", 0), ("2", "a", 0), ("2", "b", 2), ("3", "a", 0)]
FLOAT64_RUN = [("1", "b", HI), ("1", "a", LO), ("2", "a", HI), ("2", "b", LO), ("3", "b", HI),
               ("3", "a", LO)]
FLOAT64_MEASURES = ["RR@10", "ERR@10", "Judged@1"]


def _write_trec(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in FLOAT64_QRELS))
    lines = (f"{q} Q0 {d} {i} {s!r} run\n" for i, (q, d, s) in enumerate(FLOAT64_RUN))
    run.write_text("".join(lines))
    return qrels, run


def test_float64_measures_of_ir_measures_match_it_on_trec_files(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    assert np.float32(HI) == np.float32(LO) and HI > LO
    qrels_path, run_path = _write_trec(tmp_path)
    data = read_trec(qrels_path, run_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ERR's 0-4 grade scale on labels 0-2
        ours = evaluate(data, metrics=FLOAT64_MEASURES, convention="ir_measures",
                        per_query=True)
    qrels = [ir_measures.Qrel(q, d, r) for q, d, r in FLOAT64_QRELS]
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in FLOAT64_RUN]
    for name in FLOAT64_MEASURES:
        measure = ir_measures.parse_measure(name)
        tool = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        got = dict(zip(ours["query"], ours[name], strict=True))
        assert got == pytest.approx(tool, rel=1e-12, abs=1e-15), name
    # the case discriminates: read as float32, RR@10 of query 1 would be 1.0
    assert dict(zip(ours["query"], ours["RR@10"], strict=True))["1"] == 0.5


# ---------------------------------------------------------------------------
# ranx
# ---------------------------------------------------------------------------

RANX_NAMES = [
    "ndcg@10", "ndcg_burges@10", "precision@5", "recall@10", "map@10", "map", "mrr@10",
    "hit_rate@5", "f1@10", "r-precision",
]  # fmt: skip


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_ranx_preset_matches_ranx(dataset_name):
    ranx = pytest.importorskip("ranx")
    flat = dataset(dataset_name)
    score = flat.score.copy()  # tie-free: ranx's tie order is unspecified
    score[np.isin(flat.group, np.unique(flat.group)[3::10])] = -np.inf
    y, score, group, doc = shuffled(flat, score)
    qrels_dict, run_dict = qrels_and_run(y, score, group, doc)
    qrels, run = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's cast warning inside ranx
        means = ranx.evaluate(qrels, run, RANX_NAMES, make_comparable=True, threads=1)
    ours = evaluate(y, score, group, metrics=RANX_NAMES, convention="ranx", per_query=True)
    for name in RANX_NAMES:
        values = per_query(ours, name)
        tool = {q: float(v) for q, v in run.scores[name].items()}
        close([values[q] for q in tool], list(tool.values()), name)
        close(np.mean(list(values.values())), means[name], name)


# ---------------------------------------------------------------------------
# scikit-learn
# ---------------------------------------------------------------------------


def test_sklearn_preset_matches_sklearn():
    import sklearn.metrics as skm

    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 4, size=(30, 12)).astype(float)
    y_true[:3] = 0.0  # queries without relevant rows
    y_score = np.round(rng.random((30, 12)), 1)  # ties across labels
    for k in (None, 3, 10):
        assert srm.ndcg_score(y_true, y_score, k=k, convention="sklearn") == approx(
            skm.ndcg_score(y_true, y_score, k=k)
        )
        assert srm.dcg_score(y_true, y_score, k=k, convention="sklearn") == approx(
            skm.dcg_score(y_true, y_score, k=k)
        )
    # per-query roc_auc_score, averaged: a one-class query gives NaN, and so the mean
    binary = (y_true > 1).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per_query_auc = [skm.roc_auc_score(b, s) for b, s in zip(binary, y_score, strict=True)]
        assert np.isnan(np.mean(per_query_auc))
        assert np.isnan(srm.group_roc_auc_score(binary, y_score, convention="sklearn"))
    defined = binary.min(axis=1) != binary.max(axis=1)
    assert srm.group_roc_auc_score(
        binary[defined], y_score[defined], convention="sklearn"
    ) == approx(np.mean(np.array(per_query_auc)[defined]))
    # tie-free: average_precision_score per query (0 where no row is relevant)
    tie_free = rng.permutation(y_true.size).reshape(y_true.shape) / y_true.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.mean(
            [skm.average_precision_score(b, s) for b, s in zip(binary, tie_free, strict=True)]
        )
    assert srm.mean_average_precision_score(binary, tie_free, convention="sklearn") == approx(
        expected
    )


# GAUC under the sklearn preset: NaN for one class, with scikit-learn's warning
ONE_CLASS = ([0.0, 1.0, 1.0, 1.0], [0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])  # query 1: all relevant


def test_scikit_learn_warns_and_returns_nan_for_one_class():
    # the reference: roc_auc_score on query 1 alone
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(roc_auc_score([1, 1], [0.3, 0.4]))


@pytest.mark.parametrize("entry", ["metric", "evaluate", "ranking_report", "RankingEvaluator",
                                   "compare"])
def test_the_sklearn_preset_warns_when_gauc_is_nan(entry):
    y, s, g = ONE_CLASS
    calls = {
        "metric": lambda: srm.group_roc_auc_score(y, s, g, convention="sklearn"),
        "evaluate": lambda: evaluate(y, s, g, metrics="gauc", convention="sklearn")["gauc"],
        "ranking_report": lambda: srm.ranking_report(
            y, s, g, metrics=["gauc"], convention="sklearn", output_dict=True
        ),
        "RankingEvaluator": lambda: _evaluator_gauc(y, s, g),
        "compare": lambda: srm.compare(y, {"a": s, "b": s[::-1]}, g, metrics=["gauc"],
                                       convention="sklearn", n_resamples=10, random_state=0),
    }
    with pytest.warns(UndefinedMetricWarning, match=r"(?s)NaN.*replace_undefined_by"):
        result = calls[entry]()
    if entry in ("metric", "evaluate", "RankingEvaluator"):
        assert np.isnan(result)


def _evaluator_gauc(y, s, g):
    evaluator = srm.RankingEvaluator(["gauc"], convention="sklearn")
    evaluator.update(y, s, g)
    return evaluator.compute()["gauc"]


def test_a_nan_the_caller_asks_for_stays_silent():
    y, s, g = ONE_CLASS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = srm.group_roc_auc_score(y, s, g, convention="sklearn",
                                      replace_undefined_by=np.nan)
        assert np.isnan(got)
        got = evaluate(y, s, g, metrics="gauc", convention="sklearn",
                       replace_undefined_by=np.nan)["gauc"]
        assert np.isnan(got)
        # both queries defined: scikit-learn's mean, no warning
        got = srm.group_roc_auc_score([0, 1, 0, 1], s, g, convention="sklearn")
    assert got == np.mean([roc_auc_score([0, 1], s[:2]), roc_auc_score([0, 1], s[2:])])


# ---------------------------------------------------------------------------
# LightGBM and XGBoost: their own evaluation of the same scores
# ---------------------------------------------------------------------------

BOOSTER_DATA = ["synthetic-tied", "real-tied"]


@pytest.mark.parametrize("name", BOOSTER_DATA)
def test_lightgbm_preset_matches_lightgbm(name):
    pytest.importorskip("lightgbm")
    from tests.crosscheck.test_crosscheck_boosters import LGB_KS, lightgbm_eval
    from tests.crosscheck.test_crosscheck_boosters import dataset as booster_dataset

    y, score, qid, sizes = booster_dataset(name)
    ndcg = lightgbm_eval(y, score, sizes, "ndcg", LGB_KS)
    map_ = lightgbm_eval(y, score, sizes, "map", LGB_KS)
    for k in LGB_KS:
        got = srm.ndcg_score(y, score, qid, k=k, convention="lightgbm")
        assert got == approx(ndcg[f"ndcg@{k}"], rel=1e-12, abs=1e-12)
        got = srm.mean_average_precision_score(y, score, qid, k=k, convention="lightgbm")
        assert got == approx(map_[f"map@{k}"], rel=1e-12, abs=1e-12)
    names = [f"ndcg@{k}" for k in LGB_KS] + [f"map@{k}" for k in LGB_KS]
    means = evaluate(y, score, qid, metrics=names, convention="lightgbm")
    assert means == approx({**ndcg, **map_}, rel=1e-12, abs=1e-12)


def test_lightgbm_preset_reads_weights_in_single_precision():
    # (the real sample: every query has a relevant row; the boosters' weighted NDCG
    # of a query without one is not reproducible, tests/test_crosscheck_boosters.py)
    name = "real-tied"
    pytest.importorskip("lightgbm")
    from tests.crosscheck.test_crosscheck_boosters import dataset as booster_dataset
    from tests.crosscheck.test_crosscheck_boosters import lightgbm_eval

    y, score, qid, sizes = booster_dataset(name)
    query_weight = np.random.default_rng(1).random(len(sizes)) + 0.1
    weight = np.repeat(query_weight, sizes)
    tool = lightgbm_eval(y, score, sizes, "ndcg", [5], weight=weight)["ndcg@5"]
    got = srm.ndcg_score(y, score, qid, k=5, sample_weight=weight, convention="lightgbm")
    # LightGBM also averages a query's row weights in float32: about 1e-9 relative
    assert got == approx(tool, rel=1e-8)
    float64_weights = srm.ndcg_score(
        y, score, qid, k=5, sample_weight=weight, gain="exponential", ties="input"
    )
    assert float64_weights != approx(tool, rel=1e-10)


@pytest.mark.parametrize("name", BOOSTER_DATA)
def test_xgboost_preset_matches_xgboost(name):
    pytest.importorskip("xgboost")
    from tests.crosscheck.test_crosscheck_boosters import BINARY_LEVEL, XGB_KS, xgboost_eval
    from tests.crosscheck.test_crosscheck_boosters import dataset as booster_dataset

    y, score, qid, _ = booster_dataset(name)
    names = [f"ndcg@{k}" if k else "ndcg" for k in XGB_KS]
    tool = xgboost_eval(y, score, qid, names, "rank:ndcg")
    binary = (y >= BINARY_LEVEL).astype(float)
    binary_names = [f"{m}@{k}" if k else m for m in ("map", "pre") for k in XGB_KS]
    binary_tool = xgboost_eval(binary, score, qid, binary_names, "rank:map")
    for k in XGB_KS:
        ndcg = srm.ndcg_score(y, score, qid, k=k, convention="xgboost")
        assert ndcg == approx(tool[f"ndcg@{k}" if k else "ndcg"], rel=1e-9, abs=1e-12)
        suffix = f"@{k}" if k else ""
        map_ = srm.mean_average_precision_score(binary, score, qid, k=k, convention="xgboost")
        assert map_ == approx(binary_tool["map" + suffix], rel=1e-9, abs=1e-12)
        if k is not None:
            pre = srm.precision_at_k_score(binary, score, qid, k=k, convention="xgboost")
            assert pre == approx(binary_tool["pre" + suffix], rel=1e-9, abs=1e-12)


def test_booster_presets_rank_minus_infinity_last_as_a_score():
    # y = [1, 0, 1], scores [0.5, -inf, -inf]: the boosters rank the -inf rows 2nd and
    # 3rd (input order), so the third row's gain counts: DCG = 1 + 1/log2(4) = 1.5,
    # ideal 1 + 1/log2(3); we otherwise treat -inf as "not returned" (DCG = 1)
    y, s, g = [1.0, 0.0, 1.0], [0.5, -np.inf, -np.inf], [0, 0, 0]
    ideal = 1 + 1 / np.log2(3)
    for convention in ("lightgbm", "xgboost"):
        assert srm.ndcg_score(y, s, g, convention=convention) == approx(1.5 / ideal)
    assert srm.ndcg_score(y, s, g) == approx(1 / ideal)
    assert srm.ndcg_score(y, s, g, convention="trec_eval") == approx(1 / ideal)


# ---------------------------------------------------------------------------
# torchmetrics (hand computations of its documented behaviour)
# ---------------------------------------------------------------------------


def test_torchmetrics_preset_by_hand():
    # AP@2 divides by the relevant rows within the top 2: relevant at ranks 1, 3, 4
    # -> (1/1) / 1 = 1 (LightGBM's min(k, n_relevant) would give 1/2)
    y, s = [1.0, 0.0, 1.0, 1.0], [0.9, 0.8, 0.7, 0.6]
    one = [0, 0, 0, 0]  # one query
    assert srm.mean_average_precision_score(y, s, one, k=2, convention="torchmetrics") == 1.0
    # P@5 of a 2-row query divides by k = 5
    two = [0, 0]  # one query of two rows
    assert (
        srm.precision_at_k_score([1.0, 0.0], [0.9, 0.8], two, k=5, convention="torchmetrics")
        == 0.2
    )
    # NDCG is tie-averaged, like scikit-learn: one tied pair (1, 0) -> (1 + 1/log2 3) / 2
    assert srm.ndcg_score([1.0, 0.0], [0.5, 0.5], two, convention="torchmetrics") == approx(
        (1 + 1 / np.log2(3)) / 2
    )
    # the other metrics take the tied rows in input order
    assert srm.mean_reciprocal_rank_score(
        [0.0, 1.0], [0.5, 0.5], two, convention="torchmetrics"
    ) == (0.5)
    # float32: 1 + 2**-30 equals 1 in single precision, so the pair ties
    y, s = [1.0, 0.0], [1.0, 1.0 + 2**-30]
    assert srm.mean_reciprocal_rank_score(y, s, two, convention="torchmetrics") == 1.0
    assert srm.mean_reciprocal_rank_score(y, s, two, ties="input") == 0.5
    # rows scored <= 0: not relevant for MAP, MRR and P@k (their target is zeroed),
    # not returned for recall (still in its denominator); the others keep them.
    # y = [1, 1, 0], s = [0.9, -0.5, 0.1]: MAP 1/1 (not (1 + 2/3) / 2), P@3 1/3,
    # R@3 1/2, NDCG (1 + 1/log2 4) / (1 + 1/log2 3), AUROC 1/2
    y, s, g = [1.0, 1.0, 0.0], [0.9, -0.5, 0.1], [0, 0, 0]
    assert srm.mean_average_precision_score(y, s, g, convention="torchmetrics") == 1.0
    assert srm.precision_at_k_score(y, s, g, k=3, convention="torchmetrics") == approx(1 / 3)
    assert srm.recall_at_k_score(y, s, g, k=3, convention="torchmetrics") == 0.5
    assert srm.ndcg_score(y, s, g, convention="torchmetrics") == approx(
        1.5 / (1 + 1 / np.log2(3))
    )
    assert srm.group_roc_auc_score(y, s, g, convention="torchmetrics") == 0.5
    assert (
        srm.mean_reciprocal_rank_score([1.0, 0.0], [-0.5, 0.1], two, convention="torchmetrics")
        == 0
    )
    got = evaluate(y, s, g, metrics=["map", "recall@3", "ndcg"], convention="torchmetrics")
    assert got == approx({"map": 1.0, "recall@3": 0.5, "ndcg": 1.5 / (1 + 1 / np.log2(3))})
    # a query without a relevant row scores 0 (empty_target_action="neg"); AUROC too
    assert srm.ndcg_score([0.0, 0.0], [0.2, 0.1], two, convention="torchmetrics") == 0.0
    assert srm.group_roc_auc_score([0.0, 0.0], [0.2, 0.1], two, convention="torchmetrics") == 0.0


# ---------------------------------------------------------------------------
# Explicit settings win; every entry point takes the preset
# ---------------------------------------------------------------------------


@cache
def small_tied():
    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(40), rng.integers(1, 12, size=40))
    y = rng.integers(0, 4, size=len(qid)).astype(float)
    score = np.round(rng.random(len(qid)), 1)
    return y, score, qid


def test_explicit_arguments_win_over_the_preset():
    y, s, qid = small_tied()
    # lightgbm's preset is gain="exponential", ties="input", replace_undefined_by=1
    linear = srm.ndcg_score(y, s, qid, k=5, gain="linear", convention="lightgbm")
    assert linear == srm.ndcg_score(
        y, s, qid, k=5, gain="linear", ties="input", replace_undefined_by=1.0
    )
    assert linear != srm.ndcg_score(y, s, qid, k=5, convention="lightgbm")
    # in evaluate: a parameter in the name, then a shared setting, then the preset
    got = evaluate(
        y, s, qid, metrics=["ndcg(gain=linear)@5", "map@5"], convention="lightgbm", ties="average"
    )
    assert got["ndcg(gain=linear)@5"] == approx(
        srm.ndcg_score(y, s, qid, k=5, gain="linear", replace_undefined_by=1.0)
    )
    assert got["map@5"] == approx(
        srm.mean_average_precision_score(
            y, s, qid, k=5, denominator="min(k,n_relevant)", replace_undefined_by=1.0
        )
    )
    # scikit-learn's ignore_ties=True keeps its meaning (input order) under a preset
    assert srm.ndcg_score(y, s, qid, ignore_ties=True, convention="sklearn") == srm.ndcg_score(
        y, s, qid, ties="input"
    )


def test_every_entry_point_takes_the_preset():
    y, s, qid = small_tied()
    names = ["ndcg@5", "map@5", "p@3"]
    expected = evaluate(y, s, qid, metrics=names, convention="xgboost")
    assert expected["ndcg@5"] == srm.ndcg_score(y, s, qid, k=5, convention="xgboost")
    assert expected != approx(evaluate(y, s, qid, metrics=names))
    report = srm.ranking_report(y, s, qid, metrics=names, convention="xgboost", output_dict=True)
    assert {name: report[name]["mean"] for name in names} == approx(expected)
    result = srm.compare(
        y, {"a": s, "b": s[::-1].copy()}, qid, metrics=names, convention="xgboost",
        n_resamples=10, random_state=0,
    )  # fmt: skip
    means = result.means.set_index("model").loc["a"]
    assert {name: means[name] for name in names} == approx(expected)
    scorers = srm.make_ranking_scorers(names, group=qid, convention="xgboost")

    class Fixed(RegressorMixin, BaseEstimator):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return s

    X = np.zeros((len(y), 1))
    assert {name: scorer(Fixed(), X, y) for name, scorer in scorers.items()} == approx(expected)
    single = srm.make_ranking_scorer("ndcg@5", group=qid, convention="xgboost")
    assert single(Fixed(), X, y) == approx(expected["ndcg@5"])


def test_dask_takes_the_preset():
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd
    import pandas as pd

    from sklearn_rank_metrics import dask as srm_dask

    y, s, qid = small_tied()
    frame = pd.DataFrame({"y_true": y, "y_score": s + 2.0**-30, "group": qid})
    names = ["ndcg@5", "mrr", "p@3"]
    with pytest.warns(TieOrderWarning):  # float32 ties them, and no doc ids
        expected = evaluate(
            frame.y_true, frame.y_score, frame.group, metrics=names, convention="pytrec_eval"
        )
    assert expected != approx(evaluate(frame.y_true, frame.y_score, frame.group, metrics=names))
    # the partitions warn too: the worker's TieOrderWarning, re-emitted on the caller's side
    with pytest.warns(TieOrderWarning, match="orders tied scores by document id"):
        got = srm_dask.evaluate(
            dd.from_pandas(frame, npartitions=3), names, convention="pytrec_eval", compute=True
        )
    assert got == approx(expected, rel=1e-12)


# ---------------------------------------------------------------------------
# Inputs and errors
# ---------------------------------------------------------------------------


def test_inputs_are_not_modified_and_keep_their_values():
    y = np.array([1.0, -2.0, 0.0, 2.0])
    s = np.array([0.5, 0.5 + 1e-12, -np.inf, 0.1])
    w = np.full(4, 0.1)
    g = np.zeros(4)  # one query
    copies = y.copy(), s.copy(), w.copy(), g.copy()
    for convention in ("trec_eval", "xgboost", "lightgbm"):
        evaluate(y, s, g, metrics=["map", "mrr"], convention=convention, sample_weight=w)
        srm.mean_average_precision_score(y, s, g, convention=convention, sample_weight=w)
    for array, copy in zip((y, s, w, g), copies, strict=True):
        np.testing.assert_array_equal(array, copy)


def test_bad_convention_and_doc_ids_are_errors_naming_the_argument():
    with pytest.raises(ValueError, match="'convention' parameter of ndcg_score.*trec_eval"):
        srm.ndcg_score([1, 0], [0.2, 0.1], [0, 0], convention="trec")
    with pytest.raises(TypeError, match="'convention' parameter of evaluate"):
        evaluate([1, 0], [0.2, 0.1], [0, 0], convention=1)
    with pytest.raises(ValueError, match="'doc_id' parameter of evaluate has 1 rows"):
        evaluate([1, 0], [0.2, 0.1], [0, 0], convention="trec_eval", doc_id=["a"])
    with pytest.raises(ValueError, match="'doc_id' parameter of evaluate takes flat rows"):
        evaluate([[1, 0]], [[0.2, 0.1]], convention="trec_eval", doc_id=["a", "b"])
    with pytest.raises(TypeError, match="'doc_id' parameter of evaluate must hold str.*row 1"):
        evaluate([1, 0], [0.2, 0.1], [0, 0], convention="trec_eval", doc_id=np.array(["a", None]))
    # a preset with a metric name it has no opinion about still checks that name
    with pytest.raises(ValueError, match="Unknown metric"):
        evaluate([1, 0], [0.2, 0.1], [0, 0], metrics="nope@3", convention="ranx")


def test_ir_measures_counts_are_summed():
    # NumRel, NumRet, NumRelRet: per query as ir_measures counts them (0 for a query
    # the run does not answer, NumRel included), and its aggregate is their sum over
    # the qrels' queries, as ours is
    ir_measures = pytest.importorskip("ir_measures")
    y, score, group, doc = trec_data("synthetic", "query_not_in_run")
    qrels_dict, run_dict = qrels_and_run(y, score, group, doc)
    qrels = [
        ir_measures.Qrel(q, d, rel) for q, docs in qrels_dict.items() for d, rel in docs.items()
    ]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in run_dict.items() for d, s in docs.items()]
    names = ["NumRel", "NumRet", "NumRelRet"]
    means = evaluate(y, score, group, metrics=names, convention="ir_measures")
    table = evaluate(y, score, group, metrics=names, convention="ir_measures", per_query=True)
    for name in names:
        measure = ir_measures.parse_measure(name)
        tool = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        ours = per_query(table, name)
        assert sorted(tool) == sorted(ours) and set(tool) - set(run_dict)  # unanswered too
        close([ours[q] for q in tool], [tool[q] for q in tool], name)
        close(means[name], ir_measures.calc_aggregate([measure], qrels, run)[measure], name)
        assert means[name] == pytest.approx(sum(ours.values()), rel=1e-12)
    # trec_eval -c (and the package's default) counts the unanswered queries' relevant rows
    unanswered = [q for q in set(group.tolist()) if q not in run_dict]
    relevant_unanswered = int(np.sum((y > 0) & np.isin(group, unanswered)))
    assert relevant_unanswered > 0
    assert evaluate(y, score, group, metrics=["num_rel"])["num_rel"] == approx(
        means["NumRel"] + relevant_unanswered, rel=1e-12
    )


def test_pandas_inputs_with_other_indexes_are_refused_before_the_preset_casts_them():
    # the preset turns the inputs into arrays (and evaluate moves rows by doc id):
    # misaligned pandas indexes must be an error first, never paired by position
    pd = pytest.importorskip("pandas")
    y = pd.Series([1.0, 0.0, 1.0], index=[0, 1, 2])
    g = [0, 0, 0]  # one query (a list: no index of its own)
    shuffled_index = pd.Series([0.3, 0.2, 0.1], index=[2, 1, 0])
    with pytest.raises(ValueError, match="y_true and y_score of ndcg_score are pandas"):
        srm.ndcg_score(y, shuffled_index, g, convention="trec_eval")
    with pytest.raises(ValueError, match="y_true and y_score of evaluate are pandas"):
        evaluate(y, shuffled_index, g, convention="xgboost")
    ids = pd.Series(["a", "b", "c"], index=[5, 6, 7])
    with pytest.raises(ValueError, match="y_true and doc_id of evaluate are pandas"):
        evaluate(y, [0.3, 0.2, 0.1], g, doc_id=ids, convention="trec_eval")
    judged = pd.Series([True, True, True], index=[9, 8, 7])
    with pytest.raises(ValueError, match="y_true and judged of bpref_score are pandas"):
        srm.bpref_score(y, [0.3, 0.2, 0.1], g, judged=judged)
    # the same index is fine, and gives the numbers of the arrays
    same = pd.Series([0.3, 0.2, 0.1], index=[0, 1, 2])
    assert srm.ndcg_score(y, same, g, convention="trec_eval") == srm.ndcg_score(
        y.to_numpy(), same.to_numpy(), g, convention="trec_eval"
    )


def test_ir_measures_rbp_breaks_ties_in_the_run_files_order(tmp_path, capsys):
    # cwl_eval (ir_measures' RBP) ranks each query's documents by score, tied ones in
    # the order the run lists them; read_trec's rows keep that order beside their ids
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(11)
    qrels, runs = {}, {"a": {}, "b": {}}
    for q in range(12):
        docs = [f"d{d}" for d in rng.permutation(12)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:9]}
        for name in runs:
            listed = list(rng.permutation(docs))  # the run's line order, not by docno
            runs[name][f"q{q}"] = {d: float(rng.integers(0, 3)) for d in listed}  # ties
    measures = ["RBP(p=0.8,rel=1)", "RBP(p=0.5,rel=2)"]
    parsed = [ir_measures.parse_measure(m) for m in measures]
    aligned = srm.align_trec_runs(qrels, runs)
    for name, run in runs.items():
        ours_of = dict(zip(parsed, measures, strict=True))
        tool = {(m.query_id, ours_of[m.measure]): m.value
                for m in ir_measures.iter_calc(parsed, qrels, run)}
        # the run as a file, its lines in the dict's order
        path = tmp_path / f"{name}.run"
        path.write_text("".join(
            f"{q} Q0 {d} {r} {s} {name}\n"
            for q, docs in run.items() for r, (d, s) in enumerate(docs.items(), start=1)
        ))
        for data in (srm.read_trec(qrels, run), srm.read_trec(qrels, str(path)),
                     aligned.run(name)):
            table = evaluate(data, metrics=measures, convention="ir_measures", per_query=True)
            for measure in measures:
                ours = per_query(table, measure)
                close([ours[q] for q in qrels], [tool[q, measure] for q in qrels], measure)
        assert srm.rbp_score(srm.read_trec(qrels, run), p=0.8, convention="ir_measures") == (
            approx(np.mean([tool[q, "RBP(p=0.8,rel=1)"] for q in qrels]), rel=1e-12)
        )
    # several runs on the same rows: each with its own order
    means = srm.compare(aligned, metrics=measures, convention="ir_measures",
                        n_resamples=10, random_state=0).means
    for name, run in runs.items():
        expected = ir_measures.calc_aggregate(parsed, qrels, run)
        row = means[means["model"] == name]
        for measure, parsed_measure in zip(measures, parsed, strict=True):
            assert float(row[measure].iloc[0]) == approx(expected[parsed_measure], rel=1e-12)
    # the command line, on the files, aligned (-c) and each run on its own rows
    qrels_path = tmp_path / "q.qrels"
    qrels_path.write_text("".join(
        f"{q} 0 {d} {label}\n" for q, docs in qrels.items() for d, label in docs.items()
    ))
    run_options = [option for name in runs for option in ("--run", str(tmp_path / f"{name}.run"))]
    for extra in ([], ["--answered-only"]):
        assert _cli_main(["evaluate", "--qrels", str(qrels_path), *run_options,
                          "--metrics", measures[0], "--convention", "ir_measures",
                          "--format", "json", *extra]) == 0
        results = json.loads(capsys.readouterr().out)["results"]
        for name, run in runs.items():
            expected = ir_measures.calc_aggregate(parsed[:1], qrels, run)[parsed[0]]
            (printed,) = results[f"{name}.run"].values()
            assert printed["mean"] == approx(expected, rel=1e-12)
    # the bare arrays without the run's order warn that they cannot follow it
    data = srm.read_trec(qrels, runs["a"])
    with pytest.warns(TieOrderWarning, match="as the run file lists them"):
        evaluate(data.y_true, data.y_score, data.group, metrics=["RBP(p=0.8,rel=1)"],
                 convention="ir_measures", doc_id=data.doc_id)


@pytest.mark.parametrize("metric", ["map", "recall@2", "mrr"])
def test_torchmetrics_checks_judged_against_the_labels_given_for_every_metric(metric):
    # an unjudged row with a label above 0 contradicts itself whatever a preset then
    # reads into a score <= 0: refused alike for every metric (it once depended on
    # the metric's torchmetrics reading)
    with pytest.raises(ValueError, match="judged of evaluate is False at row 1, where "
                       "y_true is 1.0; a document nobody judged has the label 0"):
        evaluate([1, 1, 0, 2], [0.5, -0.4, 0.9, 0.1], [1, 1, 1, 1], metrics=[metric],
                 judged=[True, False, True, True], convention="torchmetrics")
