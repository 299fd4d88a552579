"""Negative qrels grades (TREC Web's -2 for spam), measure by measure, as each tool reads them.

trec_eval (``form_res_rels.c``) keeps a document with a negative grade in the pool
but not judged (``RELVALUE_UNJUDGED``) and out of its relevance counts: bpref skips
it, ``unj@k`` and ``rbp_resid`` count it unjudged, every other measure sees a
retrieved document that is not relevant and has gain 0. ir_measures' own Judged@k
counts it judged (it is in the qrels), its Bpref comes from pytrec_eval. ranx reads
it as gain 0 and, in its bpref, as judged non-relevant.

Expected values come from pytrec_eval, ir_measures and ranx, or (trec_eval 10's
``unj`` and ``rbp_resid``, which pytrec_eval's trec_eval 9 lacks) from the formula
written in the test. Every call passes ``group`` and ``judged`` explicitly.
"""

from __future__ import annotations

import warnings
from functools import cache

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate

RTOL = 1e-9
ATOL = 1e-12
# the preset that reproduces pytrec_eval (trec_eval 9.0.x)
PYTREC_EVAL = "pytrec_eval"

# the minimal case: qrels d1 1, d2 -2, d3 0; run d2 > d1 > d3
MIN_QRELS = {"q": {"d1": 1, "d2": -2, "d3": 0}}
MIN_RUN = {"q": {"d2": 3.0, "d1": 2.0, "d3": 1.0}}
MIN_Y = np.array([1.0, -2.0, 0.0])  # rows d1, d2, d3
MIN_SCORE = np.array([2.0, 3.0, 1.0])
MIN_GROUP = np.zeros(3)
MIN_JUDGED = np.ones(3, dtype=bool)  # all three are in the qrels


def _min(function, convention, **kwargs):
    return function(MIN_Y, MIN_SCORE, MIN_GROUP, judged=MIN_JUDGED, convention=convention, **kwargs)


def test_minimal_case_bpref_against_pytrec_eval_and_ir_measures():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    tool = pytrec_eval.RelevanceEvaluator(MIN_QRELS, {"bpref"}).evaluate(MIN_RUN)["q"]["bpref"]
    (irm,) = ir_measures.iter_calc([ir_measures.Bpref], MIN_QRELS, MIN_RUN)
    # d2 is skipped: the relevant d1 has no judged non-relevant row above it
    assert tool == irm.value == 1.0
    for convention in (PYTREC_EVAL, "trec_eval", "ir_measures", None):
        assert _min(srm.bpref_score, convention) == 1.0, convention
        got = evaluate(
            MIN_Y, MIN_SCORE, MIN_GROUP, metrics=["bpref", "Bpref"], judged=MIN_JUDGED,
            convention=convention,
        )  # fmt: skip
        assert got == {"bpref": 1.0, "Bpref": 1.0}, convention


def test_minimal_case_ranx_counts_the_negative_grade_as_judged_non_relevant():
    ranx = pytest.importorskip("ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's warnings inside ranx
        tool = ranx.evaluate(ranx.Qrels(MIN_QRELS), ranx.Run(MIN_RUN), ["bpref", "ndcg"])
    assert tool["bpref"] == 0.0  # d2 (judged non-relevant for ranx) is above d1
    assert _min(srm.bpref_score, "ranx") == 0.0
    # gain 0: ranx leaves grades below 1 out; NDCG = (1 / log2 3) / 1
    assert srm.ndcg_score(MIN_Y, MIN_SCORE, MIN_GROUP, convention="ranx") == pytest.approx(
        tool["ndcg"], rel=RTOL
    )


def test_minimal_case_judged_at_k_against_ir_measures_and_trec_eval_unj():
    ir_measures = pytest.importorskip("ir_measures")
    for k in (1, 2, 3):
        (irm,) = ir_measures.iter_calc([ir_measures.Judged @ k], MIN_QRELS, MIN_RUN)
        assert irm.value == 1.0  # every document of the run is in the qrels
        assert _min(srm.judged_at_k_score, "ir_measures", k=k) == 1.0
        assert _min(srm.judged_at_k_score, None, k=k) == 1.0
        # trec_eval 10's unj_k (m_unjudged.c): d2 at rank 1 is unjudged, so
        # Judged@k = 1 - unj_k = 1 - 1/k
        assert _min(srm.judged_at_k_score, "trec_eval", k=k) == pytest.approx(1 - 1 / k)


def test_minimal_case_rbp_residual_of_trec_eval():
    # trec_eval 10's rbp_resid (m_rbp_resid.c): p^n + (1 - p) sum over the unjudged
    # ranks of p^(rank-1); d2 at rank 1 is unjudged, n = 3 retrieved
    p = 0.9
    expected = p**3 + (1 - p) * p**0
    got = _min(srm.rbp_score, "trec_eval", p=p, part="residual")
    assert got == pytest.approx(expected, rel=RTOL)
    # cwl_eval (ir_measures' RBP) and our default: d2 is in the qrels, judged
    assert _min(srm.rbp_score, None, p=p, part="residual") == pytest.approx(p**3, rel=RTOL)
    assert _min(srm.rbp_score, "ir_measures", p=p, part="residual") == pytest.approx(p**3, rel=RTOL)


def test_minimal_case_gain_and_relevance_measures_read_gain_zero():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    names = {"map": "map", "ndcg": "ndcg", "P_5": "P_5", "recip_rank": "recip_rank"}
    tool = pytrec_eval.RelevanceEvaluator(MIN_QRELS, {"map", "ndcg", "P", "recip_rank"}).evaluate(
        MIN_RUN
    )["q"]
    for convention in ("trec_eval", "ir_measures", PYTREC_EVAL):
        got = evaluate(
            MIN_Y, MIN_SCORE, MIN_GROUP, metrics=list(names), judged=MIN_JUDGED,
            convention=convention,
        )  # fmt: skip
        for ours, theirs in names.items():
            assert got[ours] == pytest.approx(tool[theirs], rel=RTOL, abs=ATOL), (convention, ours)


def test_inputs_are_not_modified():
    y, judged = MIN_Y.copy(), MIN_JUDGED.copy()
    for convention in ("trec_eval", "ranx", "ir_measures"):
        srm.bpref_score(y, MIN_SCORE, MIN_GROUP, judged=judged, convention=convention)
        evaluate(y, MIN_SCORE, MIN_GROUP, metrics=["bpref", "judged@2"], judged=judged,
                 convention=convention)  # fmt: skip
    np.testing.assert_array_equal(y, MIN_Y)
    np.testing.assert_array_equal(judged, MIN_JUDGED)


# ---------------------------------------------------------------------------
# A TREC-Web-style collection: -2 spam grades, unjudged documents in the run
# ---------------------------------------------------------------------------


@cache
def web_collection(tied):
    """Flat rows, the judged mask, and the same data as TREC qrels and run dicts.

    Every query judges at least one document with a grade >= 0 (pytrec_eval fails
    on a query whose qrels hold only negative grades) and retrieves at least one.
    A retrieved document missing from the qrels is unjudged (label 0). ``tied``:
    integer scores with ties, which trec_eval breaks by docno descending.
    """
    rng = np.random.default_rng(31)
    sizes = rng.integers(2, 41, size=80)
    group = np.repeat([f"{1000 + q}" for q in range(len(sizes))], sizes)
    n = len(group)
    doc = np.concatenate([[f"d{v}" for v in rng.choice(500, m, replace=False)] for m in sizes])
    grade = rng.choice([-2, 0, 1, 2, 3], size=n, p=[0.2, 0.4, 0.2, 0.12, 0.08])
    in_qrels = rng.random(n) < 0.85
    retrieved = ~in_qrels | (rng.random(n) < 0.8)
    first = np.r_[0, np.cumsum(sizes)[:-1]]
    in_qrels[first], grade[first] = True, 0  # a judged grade >= 0 in every query
    retrieved[first + 1] = True  # something retrieved in every query
    grade = np.where(in_qrels, grade, 0)
    score = rng.integers(0, 6, size=n).astype(float) if tied else rng.permutation(n) + 1.0
    score = np.where(retrieved, score, -np.inf)
    qrels, run = {}, {}
    for q, d, g, s, j in zip(group, doc, grade, score, in_qrels, strict=True):
        if j:
            qrels.setdefault(q, {})[d] = int(g)
        if np.isfinite(s):
            run.setdefault(q, {})[d] = float(s)
    order = rng.permutation(n)  # queries interleaved: ties need the doc ids
    rows = (grade[order].astype(float), score[order], group[order], doc[order], in_qrels[order])
    return rows, qrels, run


# trec_eval measure -> our name in evaluate (both spellings are understood)
TREC_MEASURES = {
    "map": "map", "map_cut_10": "map_cut_10", "ndcg": "ndcg", "ndcg_cut_10": "ndcg_cut_10",
    "P_5": "P_5", "P_20": "P_20", "recall_10": "recall_10", "recip_rank": "recip_rank",
    "success_1": "success_1", "success_10": "success_10", "Rprec": "Rprec", "bpref": "bpref",
    "num_rel": "num_rel", "num_ret": "num_ret", "num_rel_ret": "num_rel_ret",
    "set_P": "set_P", "set_recall": "set_recall", "set_F": "set_F",
    "iprec_at_recall_0.00": "iprec_at_recall_0.00",
    "iprec_at_recall_0.20": "iprec_at_recall_0.20",
    "iprec_at_recall_0.60": "iprec_at_recall_0.60", "11pt_avg": "11pt_avg",
}  # fmt: skip


def _trec_family(name):
    return (
        name
        if name in ("11pt_avg", "set_P", "set_recall", "set_F")
        else (name.rsplit("_", 1)[0] if name[-1].isdigit() else name)
    )


@cache
def pytrec_eval_values(tied):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    _, qrels, run = web_collection(tied)
    measures = {_trec_family(name) for name in TREC_MEASURES}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


@pytest.mark.parametrize("convention", [PYTREC_EVAL, "trec_eval"])
@pytest.mark.parametrize("tied", [False, True], ids=["tie_free", "tied"])
def test_web_collection_every_trec_eval_measure_matches_pytrec_eval(tied, convention):
    # integer scores: trec_eval 9 (float32) and 10 (double) order them alike, so
    # trec_eval 10 differs from pytrec_eval only in the iprec cutoff, left out here
    # (tests/test_conventions.py checks it by hand)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    (y, score, group, doc, judged), qrels, _ = web_collection(tied)
    assert (y < 0).sum() > 100 and (~judged).sum() > 50
    tool = pytrec_eval_values(tied)
    assert sorted(tool) == sorted(qrels)
    measures = {
        measure: name for measure, name in TREC_MEASURES.items()
        if convention == PYTREC_EVAL or not measure.startswith(("iprec", "11pt"))
    }  # fmt: skip
    table = evaluate(
        y, score, group, metrics=list(measures.values()), judged=judged, doc_id=doc,
        convention=convention, per_query=True,
    )  # fmt: skip
    queries = [str(q) for q in table["query"]]
    assert sorted(queries) == sorted(tool)
    for measure, name in measures.items():
        expected = [tool[q][measure] for q in queries]
        np.testing.assert_allclose(table[name], expected, RTOL, ATOL, err_msg=measure)
        mean = evaluate(
            y, score, group, metrics=name, judged=judged, doc_id=doc, convention=convention
        )[name]
        want = pytrec_eval.compute_aggregated_measure(measure, expected)
        np.testing.assert_allclose(mean, want, RTOL, ATOL, err_msg=f"mean {measure}")


def test_web_collection_bpref_differs_where_the_spam_is_read_as_judged():
    # the check above can fail: read as judged non-relevant (ranx's reading), the
    # spam rows change bpref on many queries
    (y, score, group, doc, judged), _, _ = web_collection(False)
    tool = pytrec_eval_values(False)
    as_judged = evaluate(
        np.maximum(y, 0.0), score, group, metrics="bpref", judged=judged, doc_id=doc,
        convention=PYTREC_EVAL, per_query=True,
    )  # fmt: skip
    differ = [
        q for q, v in zip(as_judged["query"], as_judged["bpref"], strict=True)
        if abs(v - tool[str(q)]["bpref"]) > 1e-9
    ]  # fmt: skip
    assert len(differ) > 0.2 * len(tool)


def test_web_collection_bpref_function_and_default_convention():
    # bpref_score with the preset, and without one (it follows trec_eval by default)
    (y, score, group, doc, judged), _, _ = web_collection(False)
    tool = pytrec_eval_values(False)
    expected = np.mean([tool[q]["bpref"] for q in tool])
    for convention in (PYTREC_EVAL, None):
        got = srm.bpref_score(y, score, group, judged=judged, convention=convention)
        np.testing.assert_allclose(got, expected, RTOL, ATOL, err_msg=str(convention))


def test_web_collection_ir_measures_bpref_and_judged():
    ir_measures = pytest.importorskip("ir_measures")
    (y, score, group, doc, judged), qrels, run = web_collection(False)
    names = ["Bpref", "Judged@5", "Judged@20", "Judged"]
    table = evaluate(
        y, score, group, metrics=names, judged=judged, doc_id=doc, convention="ir_measures",
        per_query=True,
    )  # fmt: skip
    queries = [str(q) for q in table["query"]]
    for name in names:
        measure = ir_measures.parse_measure(name)
        tool = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        assert sorted(tool) == sorted(queries), name
        np.testing.assert_allclose(table[name], [tool[q] for q in queries], RTOL, ATOL, name)
    # trec_eval reads the spam as unjudged: Judged@20 is lower there
    trec = evaluate(
        y, score, group, metrics="Judged@20", judged=judged, doc_id=doc, convention="trec_eval"
    )["Judged@20"]
    assert trec < np.mean(table["Judged@20"]) - 0.05


def test_web_collection_ranx_reads_negative_grades_as_gain_zero():
    ranx = pytest.importorskip("ranx")
    (y, score, group, doc, judged), qrels, run = web_collection(False)
    names = ["ndcg@10", "map", "precision@5", "recall@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx_run = ranx.Run(run)
        ranx.evaluate(ranx.Qrels(qrels), ranx_run, names, threads=1)
    table = evaluate(
        y, score, group, metrics=names, judged=judged, convention="ranx", per_query=True
    )
    queries = [str(q) for q in table["query"]]
    for name in names:
        tool = ranx_run.scores[name]
        np.testing.assert_allclose(table[name], [tool[q] for q in queries], RTOL, ATOL, name)


def test_read_trec_keeps_what_bpref_needs():
    # the reader's rows must let the presets apply trec_eval's rule: through
    # read_trec the minimal case must give trec_eval's bpref 1.0, as the arrays do
    data = srm.read_trec(MIN_QRELS, MIN_RUN)
    assert srm.bpref_score(data, convention="trec_eval") == 1.0
    assert srm.bpref_score(data) == 1.0  # the rows carry trec_eval's convention
    assert srm.bpref_score(data, convention="none") == 1.0  # bpref follows trec_eval
    assert srm.evaluate(data, metrics=["bpref"], convention="ir_measures")["bpref"] == 1.0
    assert srm.evaluate(data, metrics=["bpref"], convention="ranx")["bpref"] == 0.0
    # the graded metrics read the -2 as gain 0 under the convention the rows carry ...
    assert srm.ndcg_score(data) == srm.ndcg_score(data, convention="trec_eval")
    # ... and refuse it without one, saying which to pass
    with pytest.raises(ValueError, match="convention"):
        srm.ndcg_score(data, convention="none")


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", "ir_measures"])
def test_a_masked_judged_mask_is_refused_where_negative_grades_rewrite_it(convention):
    y = np.array([-2.0, 1.0, 0.0, 1.0])
    judged = np.ma.array([True, True, False, True], mask=[0, 0, 1, 0])
    with pytest.raises(ValueError, match=r"(?s)judged.*masked"):
        srm.bpref_score(y, [0.4, 0.3, 0.2, 0.1], [0, 0, 0, 0], judged=judged,
                        convention=convention)
