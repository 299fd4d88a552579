"""Hostile input under the presets (``convention=``), issue 32.

The registry-wide sweeps are in ``test_hostile_sweep.py``; here the cases that need
a peer tool, a hand computation or one particular preset.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import roc_auc_score

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import RankingData, evaluate, rbp_score, read_trec

# ---------------------------------------------------------------------------
# ir_measures on TREC files: its float64 providers see float64 scores
# ---------------------------------------------------------------------------

HI, LO = 1.0 + 2.0**-29, 1.0 + 2.0**-30  # distinct in float64, equal in float32
# query 1: the non-relevant "b" scores higher in float64; in float32 the two tie and
# RR@10 (docno ascending) would put the relevant "a" first: 1.0 instead of 0.5.
# query 2: the same for ERR@10 (docno descending). query 3: Judged@1 (ascending).
QRELS = [("1", "a", 1), ("1", "b", 0), ("2", "a", 0), ("2", "b", 2), ("3", "a", 0)]
RUN = [("1", "b", HI), ("1", "a", LO), ("2", "a", HI), ("2", "b", LO), ("3", "b", HI),
       ("3", "a", LO)]
FLOAT64_MEASURES = ["RR@10", "ERR@10", "Judged@1"]


def _write_trec(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS))
    run.write_text("".join(f"{q} Q0 {d} {i} {s!r} run\n" for i, (q, d, s) in enumerate(RUN)))
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
    qrels = [ir_measures.Qrel(q, d, r) for q, d, r in QRELS]
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in RUN]
    for name in FLOAT64_MEASURES:
        measure = ir_measures.parse_measure(name)
        tool = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        got = dict(zip(ours["query"], ours[name], strict=True))
        assert got == pytest.approx(tool, rel=1e-12, abs=1e-15), name
    # the case discriminates: read as float32, RR@10 of query 1 would be 1.0
    assert dict(zip(ours["query"], ours["RR@10"], strict=True))["1"] == 0.5


# ---------------------------------------------------------------------------
# RBP with graded labels near the largest float
# ---------------------------------------------------------------------------


def test_graded_rbp_of_huge_tied_labels_is_finite_and_exact():
    # two tied rows of gain 1e308 at ranks 1 and 2 (p = 0.5): each position takes the
    # block's mean gain 1e308, so RBP = (0.5 + 0.25) * 1e308; the block's sum of
    # gains (2e308) used to overflow to inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rbp_score([1e308, 1e308, 0.0], [1.0, 1.0, 0.0], [0, 0, 0], graded=True, p=0.5)
    assert got == pytest.approx(0.75e308, rel=1e-15)
    top = float(np.finfo(np.float64).max)
    got = rbp_score([top] * 3, [1.0] * 3, [0] * 3, graded=True, p=0.5)
    assert np.isfinite(got) and got == pytest.approx(0.875 * top, rel=1e-15)


def test_graded_rbp_of_ordinary_labels_is_unchanged():
    # hand computation, p = 0.5, ties averaged: the block {3, 1} at ranks 1-2 gains
    # 2 each, then 0 and 2: 0.5 * (2 + 0.5 * 2 + 0.25 * 0 + 0.125 * 2)
    got = rbp_score([3.0, 1.0, 0.0, 2.0], [0.9, 0.9, 0.5, 0.1], [0] * 4, graded=True, p=0.5)
    assert got == 0.5 * (2 + 0.5 * 2 + 0.25 * 0 + 0.125 * 2)


# ---------------------------------------------------------------------------
# The sklearn preset's GAUC: NaN for one class, with scikit-learn's warning
# ---------------------------------------------------------------------------

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
# A RankingData under a doc-id preset: the metric functions name the input row
# ---------------------------------------------------------------------------

ROW = 5  # doc ids d0 d5 d4 d3 d2 d1: both text orders move row 5


def _ranking_data(**override):
    columns = {
        "y_true": np.array([1.0, 0.0, 2.0, 0.0, 1.0, 1.0]),
        "y_score": np.full(6, 0.5),
        "group": np.array(["q1"] * 3 + ["q2"] * 3),
        "doc_id": np.array([f"d{5 * row % 6}" for row in range(6)]),
        "judged": np.ones(6, dtype=bool),
    }
    columns.update(override)
    return RankingData(**columns)


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", "ir_measures"])
@pytest.mark.parametrize("metric", [srm.ndcg_score, srm.mean_average_precision_score,
                                    srm.bpref_score])
def test_a_metric_names_the_input_row_of_a_ranking_data(metric, convention):
    metric(_ranking_data(), convention=convention)  # the base data is valid
    scores = np.full(6, 0.5)
    scores[ROW] = np.nan
    with pytest.raises(ValueError, match=rf"(?s)y_score.*\brow {ROW}\b"):
        metric(_ranking_data(y_score=scores), convention=convention)
    if metric is not srm.bpref_score:
        return  # the others do not read judgments
    unjudged = np.ones(6, dtype=bool)
    unjudged[ROW] = False  # y_true is 1 there: refused, named by its input row
    with pytest.raises(ValueError, match=rf"(?s)judged.*\brow {ROW}\b"):
        metric(_ranking_data(judged=unjudged), convention=convention)


# ---------------------------------------------------------------------------
# A masked judged mask where a trec_eval preset rewrites it (negative grades)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", "ir_measures"])
def test_a_masked_judged_mask_is_refused_where_negative_grades_rewrite_it(convention):
    y = np.array([-2.0, 1.0, 0.0, 1.0])
    judged = np.ma.array([True, True, False, True], mask=[0, 0, 1, 0])
    with pytest.raises(ValueError, match=r"(?s)judged.*masked"):
        srm.bpref_score(y, [0.4, 0.3, 0.2, 0.1], [0, 0, 0, 0], judged=judged,
                        convention=convention)
