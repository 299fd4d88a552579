"""Cross-checks of our metrics against trec_eval, run through ``pytrec_eval``.

trec_eval itself computes every expected value below: the flat rows are turned into
TREC qrels and a TREC run, ``pytrec_eval.RelevanceEvaluator`` evaluates them, and our
functions must return the same per-query values and the same mean.

How the two views map onto each other:

* every row is a judged document: the qrels hold all rows of a query with their
  label; the run holds the rows whose score is finite. A row scored ``-inf`` is a
  judged document the system did not return (in the qrels, not in the run).
* trec_eval orders a run by score descending, then document id descending (byte
  order), after casting the scores to single precision. Either the scores are
  distinct in float32 (setting ``tie_free``), or (setting ``ties_input_order``) our
  input gets the float32-rounded scores and its rows are sorted by document id
  descending, so that ``ties="input"`` reproduces trec_eval's order exactly; the run
  given to trec_eval there also holds pairs that differ in double precision but not
  in single precision, which trec_eval ties.

The measures and the parameters that reproduce them (the README table) are in
``TREC_MEASURES`` and ``SETTINGS``. trec_eval computes in double precision (only the
scores are single precision), so the tolerance is ``rtol=1e-9, atol=1e-12``.
"""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    eleven_point_precision_score,
    evaluate,
    hit_rate_score,
    interpolated_precision_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
    retrieval_count_score,
)
from tests.support.qrels_data import Case, dataset, synthetic

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval (trec_eval) is not installed")

RTOL = 1e-9
ATOL = 1e-12
KS = (1, 3, 5, 10, 20)


def _measures():
    """trec_eval measure -> (our function, its keyword arguments, our name in ``evaluate``)."""
    table = {
        "ndcg": (ndcg_score, {}, "ndcg"),
        "map": (mean_average_precision_score, {}, "map"),
        "recip_rank": (mean_reciprocal_rank_score, {}, "mrr"),
        "Rprec": (r_precision_score, {}, "rprec"),
        # counts: trec_eval's summary is their sum over queries
        "num_rel": (retrieval_count_score, {"count": "relevant"}, "num_rel"),
        "num_ret": (retrieval_count_score, {"count": "retrieved"}, "num_ret"),
        "num_rel_ret": (retrieval_count_score, {"count": "relevant_retrieved"}, "num_rel_ret"),
        "11pt_avg": (eleven_point_precision_score, {}, "11pt_avg"),
    }
    for level in ("0.00", "0.10", "0.30", "0.50", "0.70", "1.00"):
        table[f"iprec_at_recall_{level}"] = (
            interpolated_precision_score, {"recall": float(level)}, f"iprec_at_recall_{level}"
        )
    for k in KS:
        table[f"ndcg_cut_{k}"] = (ndcg_score, {"k": k}, f"ndcg@{k}")
        table[f"map_cut_{k}"] = (mean_average_precision_score, {"k": k}, f"map@{k}")
        table[f"P_{k}"] = (precision_at_k_score, {"k": k}, f"p@{k}")
        table[f"recall_{k}"] = (recall_at_k_score, {"k": k}, f"recall@{k}")
        table[f"success_{k}"] = (hit_rate_score, {"k": k}, f"hit_rate@{k}")
    return table


TREC_MEASURES = _measures()

# setting -> (keyword arguments of RelevanceEvaluator, our keyword arguments)
SETTINGS = {
    # scores distinct in float32; our default ties="average" has nothing to average
    "tie_free": ({}, {}),
    # tied scores: trec_eval's order (float32, then docno descending) as input order
    "ties_input_order": ({}, {"ties": "input"}),
    # trec_eval -l 2: binary measures need label >= 2; ndcg keeps the labels as gains
    "relevance_level_2": ({"relevance_level": 2}, {"relevance_level": 2}),
    # qrels list only relevant documents; label-0 rows are unjudged documents of the
    # run, and a query without a relevant row is not in the qrels: trec_eval leaves
    # it out, which is replace_undefined_by="skip"
    "qrels_relevant_only": ({}, {"replace_undefined_by": "skip"}),
    # some queries return nothing (every row -inf): absent from the run, trec_eval
    # leaves them out of its mean (without -c); ours counts them with value 0
    "query_not_in_run": ({}, {}),
}
DATASETS = ("synthetic", "lambdarank", "lambdarank_top10")


# ---------------------------------------------------------------------------
# Data: tests/support/qrels_data.py (shared with test_crosscheck_ranx.py)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Running trec_eval, and our side of the same data
# ---------------------------------------------------------------------------


def to_trec(flat, score, qrels_rows):
    qrels, run = {}, {}
    for q, d, label, s, judged in zip(flat.group, flat.doc, flat.y, score, qrels_rows, strict=True):
        if judged:
            qrels.setdefault(q, {})[d] = int(label)
        if np.isfinite(s):
            run.setdefault(q, {})[d] = float(s)
    return qrels, run


@cache
def trec_case(dataset_name, setting):
    flat = dataset(dataset_name)
    evaluator_params, params = SETTINGS[setting]
    tool_score = flat.tied_score if setting == "ties_input_order" else flat.score
    if setting == "query_not_in_run":
        queries = np.unique(flat.group)[3::10]  # from query 3 on: some without relevant rows
        tool_score = np.where(np.isin(flat.group, queries), -np.inf, tool_score)
    qrels_rows = flat.y > 0 if setting == "qrels_relevant_only" else np.ones(len(flat.y), bool)
    qrels, run = to_trec(flat, tool_score, qrels_rows)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES), **evaluator_params)
    tool = evaluator.evaluate(run)

    if setting == "ties_input_order":
        # trec_eval's order: score as float32, then document id descending
        order = np.argsort(flat.doc, kind="stable")[::-1]
        our_score = tool_score.astype(np.float32).astype(np.float64)[order]
        return Case(flat.y[order], our_score, flat.group[order], params, tool, len(qrels))
    order = np.random.default_rng(3).permutation(len(flat.y))  # queries interleaved
    return Case(flat.y[order], tool_score[order], flat.group[order], params, tool, len(qrels))


def own_params(function, params):
    """The setting's parameters that ``function`` takes (ndcg has no relevance_level)."""
    names = inspect.signature(function).parameters
    return {name: value for name, value in params.items() if name in names}


@cache
def our_table(dataset_name, setting, only_run_queries=False):
    """Our per-query values of every measure, from one ``evaluate`` call.

    ``only_run_queries``: the input restricted to the queries trec_eval reports.
    """
    case = trec_case(dataset_name, setting)
    rows = np.isin(case.group, list(case.tool)) if only_run_queries else slice(None)
    names = [name for _, _, name in TREC_MEASURES.values()]
    table = evaluate(
        case.y[rows],
        case.score[rows],
        case.group[rows],
        metrics=names,
        per_query=True,
        **case.params,
    )
    return {name: dict(zip(table["query"], table[name], strict=True)) for name in names}


def tool_values(case, measure):
    return {q: values[measure] for q, values in case.tool.items()}


# ---------------------------------------------------------------------------
# Every measure, dataset and setting
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("measure", list(TREC_MEASURES))
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("dataset_name", DATASETS)
def test_matches_trec_eval(dataset_name, setting, measure):
    case = trec_case(dataset_name, setting)
    function, kwargs, name = TREC_MEASURES[measure]
    expected = tool_values(case, measure)
    queries = sorted(expected)

    ours = our_table(dataset_name, setting)[name]
    if setting == "query_not_in_run":
        # trec_eval reports only the queries of the run; ours reports every query,
        # the ones without a returned row at 0 (what trec_eval -c counts them as;
        # num_rel still counts their relevant documents there)
        absent = sorted(set(ours) - set(expected))
        assert len(absent) >= 3
        if measure != "num_rel":
            np.testing.assert_array_equal([ours[q] for q in absent], 0.0)
        if measure not in ("num_rel", "num_ret", "num_rel_ret"):
            # trec_eval -c: the mean over every query of the qrels
            c_mean = sum(expected.values()) / case.n_qrels_queries
            got = function(
                case.y, case.score, case.group, **kwargs, **own_params(function, case.params)
            )
            np.testing.assert_allclose(got, c_mean, rtol=RTOL, atol=ATOL)
        # trec_eval's own mean: our input restricted to the queries of the run
        rows = np.isin(case.group, queries)
        ours = our_table(dataset_name, setting, only_run_queries=True)[name]
    elif setting == "qrels_relevant_only" and measure.startswith("num_"):
        # a count is defined for every query, so "skip" keeps the queries trec_eval
        # leaves out (not in the qrels): compare on the qrels' queries
        rows = np.isin(case.group, queries)
        ours = {q: ours[q] for q in queries}
    else:
        rows = slice(None)
    ours = {q: v for q, v in ours.items() if not np.isnan(v)}  # "skip" leaves NaN
    assert sorted(ours) == queries
    np.testing.assert_allclose(
        [ours[q] for q in queries],
        [expected[q] for q in queries],
        rtol=RTOL,
        atol=ATOL,
        err_msg=f"per-query {measure} ({dataset_name}, {setting})",
    )

    params = own_params(function, case.params)
    got = function(case.y[rows], case.score[rows], case.group[rows], **kwargs, **params)
    want = pytrec_eval.compute_aggregated_measure(measure, [expected[q] for q in queries])
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"mean {measure}")


# ---------------------------------------------------------------------------
# The data exercises what the settings claim
# ---------------------------------------------------------------------------


def test_synthetic_data_has_the_cases_it_claims():
    flat = synthetic()
    case = trec_case("synthetic", "tie_free")
    sizes = {q: n for q, n in zip(*np.unique(flat.group, return_counts=True), strict=True)}
    assert 1 in sizes.values() and len(sizes) >= 100
    assert (~np.isfinite(flat.score)).mean() > 0.1  # unretrieved relevant documents
    retrieved = {q: np.isfinite(flat.score[flat.group == q]).sum() for q in sizes}
    assert sum(n < 20 for n in retrieved.values()) > 50  # runs shorter than k
    # trec_eval reports the query without a relevant row, at 0
    assert case.tool["q002"]["map"] == 0.0 and case.tool["q002"]["ndcg"] == 0.0
    assert case.tool["q005"]["recall_20"] == 0.0  # relevant rows exist, none returned
    # scores tied in float32 but not in float64, across different labels
    s64 = flat.tied_score[np.isfinite(flat.tied_score)]
    assert len(np.unique(s64.astype(np.float32))) < len(np.unique(s64))


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_tie_order_matters_for_trec_eval(dataset_name):
    # With the tied run, trec_eval's values differ from the tie average and from
    # input order without the docno sort, so the ties_input_order setting tests it.
    case = trec_case(dataset_name, "ties_input_order")
    expected = pytrec_eval.compute_aggregated_measure(
        "map", list(tool_values(case, "map").values())
    )
    assert mean_average_precision_score(case.y, case.score, case.group, ties="input") == (
        pytest.approx(expected, rel=RTOL, abs=ATOL)
    )
    averaged = mean_average_precision_score(case.y, case.score, case.group)
    assert averaged != pytest.approx(expected, rel=1e-6)
    order = np.random.default_rng(0).permutation(len(case.y))
    shuffled = mean_average_precision_score(
        case.y[order], case.score[order], case.group[order], ties="input"
    )
    assert shuffled != pytest.approx(expected, rel=1e-6)


def test_trec_eval_compares_scores_in_single_precision():
    # 1 + 2**-24 rounds to 1 in float32: trec_eval ties it with 1 and puts the larger
    # document id first; 1 + 2**-23 is distinct in float32.
    qrels = {"q": {"b": 1, "a": 0}}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    for bump, first_relevant in [(2.0**-24, True), (2.0**-23, False)]:
        tool = evaluator.evaluate({"q": {"a": 1.0 + bump, "b": 1.0}})["q"]["recip_rank"]
        y, s = np.array([1.0, 0.0]), np.array([1.0, 1.0 + bump])  # rows "b", "a"
        q = ["q", "q"]
        as_float32 = s.astype(np.float32).astype(np.float64)
        ours = mean_reciprocal_rank_score(y, as_float32, q, ties="input")
        assert ours == tool == (1.0 if first_relevant else 0.5)
        # uncast, we compare in double precision: "a" ranks first, unlike trec_eval
        assert mean_reciprocal_rank_score(y, s, q, ties="input") == 0.5


# ---------------------------------------------------------------------------
# The check is sensitive: other parameter settings do not reproduce trec_eval
# ---------------------------------------------------------------------------

WRONG_SETTINGS = [
    ("P_20", precision_at_k_score, {"k": 20, "denominator": "min(k,n_retrieved)"}),
    ("map_cut_10", mean_average_precision_score, {"k": 10, "denominator": "min(k,n_relevant)"}),
    ("map", mean_average_precision_score, {"denominator": "n_relevant_in_top_k"}),
    ("ndcg_cut_10", ndcg_score, {"k": 10, "gain": "exponential"}),
    ("ndcg_cut_10", ndcg_score, {"k": 10, "ideal": "top_k"}),
    ("ndcg", ndcg_score, {"discount": "max(1,log(rank))"}),
    ("recall_5", recall_at_k_score, {"k": 5, "replace_undefined_by": 1.0}),
]


@pytest.mark.parametrize(
    ("measure", "function", "kwargs"), WRONG_SETTINGS, ids=[str(w[2]) for w in WRONG_SETTINGS]
)
def test_other_conventions_do_not_match_trec_eval(measure, function, kwargs):
    case = trec_case("synthetic", "tie_free")
    values = list(tool_values(case, measure).values())
    expected = pytrec_eval.compute_aggregated_measure(measure, values)
    got = function(case.y, case.score, case.group, **kwargs)
    assert got != pytest.approx(expected, rel=1e-6, abs=1e-9)
