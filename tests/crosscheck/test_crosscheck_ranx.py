"""Cross-checks of our metrics against ranx.

ranx itself computes every expected value below: the flat rows become a
``ranx.Qrels`` (every judged row with its integer label) and a ``ranx.Run`` (the rows
with a finite score), both built from dicts (``from_df`` breaks under pandas 3), and
``ranx.evaluate`` returns the per-query values (kept in ``run.scores``) and the mean
(``run.mean_scores``). Our functions must return the same numbers.

* A row scored ``-inf`` is judged but not returned: in the qrels, not in the run.
* ranx sorts a run by score with a non-stable sort, so the order of tied scores is
  unspecified. Either the scores are distinct (setting ``tie_free``), or (setting
  ``ties_input_order``) the order ranx actually used is read back from the ``Run``
  after the evaluation and given to us as input order with ``ties="input"``.
* ranx's ``-lN`` suffix drops judgments below grade N: binary metrics use
  ``relevance_level=N``, and NDCG loses the gains of the lower grades, which is a
  gain array with zeros below N (``gain=[0, 0, 2, 3, 4]`` for ``ndcg``,
  ``gain=[0, 0, 3, 7, 15]`` for ``ndcg_burges``).

The metrics and the parameters that reproduce them are in ``RANX_METRICS`` and
``SETTINGS``. ranx computes in float64 (numba), so the tolerance is
``rtol=1e-9, atol=1e-12``. The first ranx evaluation on a fresh installation compiles
its numba kernels (about 35 s, cached in ranx's ``__pycache__`` afterwards); every new
process still compiles ranx's typed containers (a few seconds, in the first case).
"""

from __future__ import annotations

import inspect
import warnings
from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    evaluate,
    fbeta_at_k_score,
    hit_rate_score,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from tests.support.qrels_data import Case, dataset, synthetic

ranx = pytest.importorskip("ranx", reason="ranx is not installed")

RTOL = 1e-9
ATOL = 1e-12
KS = (None, 1, 3, 5, 10, 20)
LINEAR_GAIN_L2 = [0.0, 0.0, 2.0, 3.0, 4.0]  # labels 0..4; grades below 2 dropped
EXPONENTIAL_GAIN_L2 = [0.0, 0.0, 3.0, 7.0, 15.0]


def _metrics():
    """ranx metric -> (our function, keyword arguments, our name in ``evaluate``)."""
    table = {"r-precision": (r_precision_score, {}, "rprec")}
    for k in KS:
        at = "" if k is None else f"@{k}"
        cut = {} if k is None else {"k": k}
        table[f"ndcg{at}"] = (ndcg_score, cut, f"ndcg{at}")
        table[f"ndcg_burges{at}"] = (
            ndcg_score,
            {**cut, "gain": "exponential"},
            f"ndcg(gain=exponential){at}",
        )
        table[f"map{at}"] = (mean_average_precision_score, cut, f"map{at}")
        table[f"mrr{at}"] = (mean_reciprocal_rank_score, cut, f"mrr{at}")
        table[f"precision{at}"] = (precision_at_k_score, cut, f"p{at}")
        table[f"recall{at}"] = (recall_at_k_score, cut, f"recall{at}")
        table[f"hit_rate{at}"] = (hit_rate_score, cut, f"hit_rate{at}")
        table[f"f1{at}"] = (fbeta_at_k_score, cut, f"f1{at}")
    return table


RANX_METRICS = _metrics()

# setting -> (suffix of ranx's metric names, make_comparable, our keyword arguments)
SETTINGS = {
    # distinct scores: our default ties="average" has nothing to average
    "tie_free": ("", False, {}),
    # tied scores in the order ranx's sort left them, as our input order
    "ties_input_order": ("", False, {"ties": "input"}),
    # "-l2": relevant means label >= 2; NDCG gains of grades 0 and 1 dropped
    "relevance_level_2": ("-l2", False, {"relevance_level": 2}),
    # qrels list only relevant documents; a query without one is not in the qrels
    # and make_comparable drops it from the run: replace_undefined_by="skip"
    "qrels_relevant_only": ("", True, {"replace_undefined_by": "skip"}),
    # some queries return nothing (every row -inf); make_comparable adds them to the
    # run empty and ranx scores them 0, as ours does
    "query_not_in_run": ("", True, {}),
}
DATASETS = ("synthetic", "lambdarank", "lambdarank_top10")


# ---------------------------------------------------------------------------
# Data: tests/support/qrels_data.py (shared with test_crosscheck_trec_eval.py)
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Running ranx, and our side of the same data
# ---------------------------------------------------------------------------


def to_dicts(flat, score, qrels_rows):
    qrels, run = {}, {}
    for q, d, label, s, judged in zip(flat.group, flat.doc, flat.y, score, qrels_rows, strict=True):
        if judged:
            qrels.setdefault(q, {})[d] = int(label)
        if np.isfinite(s):
            run.setdefault(q, {})[d] = float(s)
    return qrels, run


def run_ranx(qrels_dict, run_dict, metrics, make_comparable):
    qrels, run = ranx.Qrels(qrels_dict), ranx.Run(run_dict)
    with warnings.catch_warnings():
        # ranx's numba kernels warn about a uint64 -> int64 cast of the doc id hashes
        warnings.simplefilter("ignore")
        ranx.evaluate(qrels, run, metrics, make_comparable=make_comparable, threads=1)
    tool = {m: {q: float(v) for q, v in run.scores[m].items()} for m in metrics}
    means = {m: float(run.mean_scores[m]) for m in metrics}
    return run, tool, means


@cache
def ranx_case(dataset_name, setting):
    flat = dataset(dataset_name)
    suffix, make_comparable, params = SETTINGS[setting]
    tool_score = flat.tied_score if setting == "ties_input_order" else flat.score
    if setting == "query_not_in_run":
        queries = np.unique(flat.group)[3::10]  # from query 3 on: some without relevant rows
        tool_score = np.where(np.isin(flat.group, queries), -np.inf, tool_score)
    qrels_rows = flat.y > 0 if setting == "qrels_relevant_only" else np.ones(len(flat.y), bool)
    qrels, run_dict = to_dicts(flat, tool_score, qrels_rows)
    metrics = [m + suffix for m in RANX_METRICS]
    run, tool, means = run_ranx(qrels, run_dict, metrics, make_comparable)
    tool = {m: tool[m + suffix] for m in RANX_METRICS}
    means = {m: means[m + suffix] for m in RANX_METRICS}

    if setting == "ties_input_order":
        # the order ranx evaluated: its Run keeps each query's documents sorted
        row_of = {(q, d): i for i, (q, d) in enumerate(zip(flat.group, flat.doc, strict=True))}
        ranked = [row_of[q, d] for q in run.get_query_ids() for d in run.run[q].keys()]
        unretrieved = np.flatnonzero(~np.isfinite(tool_score))
        order = np.concatenate([np.array(ranked, dtype=np.intp), unretrieved])
    else:
        order = np.random.default_rng(3).permutation(len(flat.y))  # queries interleaved
    return Case(flat.y[order], tool_score[order], flat.group[order], params, tool, means=means)


def own_params(function, params):
    """The setting's parameters that ``function`` takes (ndcg has no relevance_level)."""
    names = inspect.signature(function).parameters
    return {name: value for name, value in params.items() if name in names}


def our_call(case, metric, setting):
    """Our function and its full keyword arguments for one ranx metric in one setting."""
    function, kwargs, name = RANX_METRICS[metric]
    kwargs = {**kwargs, **own_params(function, case.params)}
    if setting == "relevance_level_2" and function is ndcg_score:
        exponential = kwargs.pop("gain", "linear") == "exponential"
        kwargs["gain"] = EXPONENTIAL_GAIN_L2 if exponential else LINEAR_GAIN_L2
        name = None  # a gain array has no text form: per query by one call per query
    return function, kwargs, name


@cache
def our_table(dataset_name, setting):
    """Our per-query values of every metric of the setting, from one ``evaluate`` call."""
    case = ranx_case(dataset_name, setting)
    names = [our_call(case, metric, setting)[2] for metric in RANX_METRICS]
    names = [name for name in names if name is not None]
    table = evaluate(case.y, case.score, case.group, metrics=names, per_query=True, **case.params)
    return {name: dict(zip(table["query"], table[name], strict=True)) for name in names}


def our_per_query(dataset_name, setting, metric):
    case = ranx_case(dataset_name, setting)
    function, kwargs, name = our_call(case, metric, setting)
    if name is not None:
        return our_table(dataset_name, setting)[name]
    # a gain array has no text form in evaluate: one call of the function per query
    return {
        q: function(*(a[case.group == q] for a in (case.y, case.score, case.group)), **kwargs)
        for q in np.unique(case.group)
    }


# ---------------------------------------------------------------------------
# Every metric, dataset and setting
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("metric", list(RANX_METRICS))
@pytest.mark.parametrize("setting", list(SETTINGS))
@pytest.mark.parametrize("dataset_name", DATASETS)
def test_matches_ranx(dataset_name, setting, metric):
    case = ranx_case(dataset_name, setting)
    expected = case.tool[metric]
    queries = sorted(expected)
    function, kwargs, name = our_call(case, metric, setting)

    ours = our_per_query(dataset_name, setting, metric)
    ours = {q: v for q, v in ours.items() if not np.isnan(v)}  # "skip" leaves NaN
    assert sorted(ours) == queries
    np.testing.assert_allclose(
        [ours[q] for q in queries],
        [expected[q] for q in queries],
        rtol=RTOL,
        atol=ATOL,
        err_msg=f"per-query {metric} ({dataset_name}, {setting})",
    )
    got = function(case.y, case.score, case.group, **kwargs)
    np.testing.assert_allclose(got, case.means[metric], rtol=RTOL, atol=ATOL, err_msg="mean")


# ---------------------------------------------------------------------------
# The data exercises what the settings claim
# ---------------------------------------------------------------------------


def test_synthetic_data_has_the_cases_it_claims():
    flat = synthetic()
    case = ranx_case("synthetic", "tie_free")
    assert len(np.unique(flat.group)) >= 100
    assert (~np.isfinite(flat.score)).mean() > 0.1  # unretrieved relevant documents
    # ranx reports the query without a relevant row at 0
    assert case.tool["map"]["q002"] == 0.0 and case.tool["ndcg"]["q002"] == 0.0
    assert case.tool["recall@20"]["q005"] == 0.0  # relevant rows exist, none returned
    # the one-row query with a relevant row
    assert case.tool["ndcg"]["q000"] == 1.0 and case.tool["precision@5"]["q000"] == 0.2
    # with -l2 the query relevant only at grade 1 gets 0, also in NDCG
    assert ranx_case("synthetic", "relevance_level_2").tool["ndcg"]["q004"] == 0.0
    assert case.tool["ndcg"]["q004"] > 0.0
    # query_not_in_run: ranx scores the queries it added to the run empty at 0
    empty = ranx_case("synthetic", "query_not_in_run")
    assert empty.tool["precision"]["q013"] == 0.0 and case.tool["precision"]["q013"] > 0.0


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_tie_order_matters_for_ranx(dataset_name):
    # On the tied run, ranx's values are those of its own order, not the tie average.
    case = ranx_case(dataset_name, "ties_input_order")
    for metric in ("map", "ndcg@10", "mrr"):
        function, kwargs, _ = RANX_METRICS[metric]
        averaged = function(case.y, case.score, case.group, **kwargs)
        assert averaged != pytest.approx(case.means[metric], rel=1e-6)


# ---------------------------------------------------------------------------
# The check is sensitive: other parameter settings do not reproduce ranx
# ---------------------------------------------------------------------------

WRONG_SETTINGS = [
    ("tie_free", "precision@20", {"denominator": "min(k,n_retrieved)"}),
    ("tie_free", "f1@20", {"denominator": "min(k,n_retrieved)"}),
    ("tie_free", "map@10", {"denominator": "min(k,n_relevant)"}),
    ("tie_free", "map", {"denominator": "n_relevant_in_top_k"}),
    ("tie_free", "ndcg@10", {"gain": "exponential"}),
    ("tie_free", "ndcg_burges@10", {"gain": "linear"}),
    ("tie_free", "ndcg@10", {"ideal": "top_k"}),
    ("tie_free", "hit_rate@5", {"average": "micro"}),
    ("tie_free", "mrr@5", {"replace_undefined_by": 1.0}),
    # -l2 NDCG is not the plain NDCG: the grade-1 gains must be dropped
    ("relevance_level_2", "ndcg@10", {"gain": "linear"}),
    ("relevance_level_2", "ndcg_burges", {"gain": "exponential"}),
    # a query missing from the qrels is dropped by ranx, not scored 0
    ("qrels_relevant_only", "ndcg@5", {"replace_undefined_by": 0.0}),
]


@pytest.mark.parametrize(
    ("setting", "metric", "wrong"),
    WRONG_SETTINGS,
    ids=[f"{s}-{m}-{w}" for s, m, w in WRONG_SETTINGS],
)
def test_other_conventions_do_not_match_ranx(setting, metric, wrong):
    case = ranx_case("synthetic", setting)
    function, kwargs, _ = our_call(case, metric, setting)
    got = function(case.y, case.score, case.group, **{**kwargs, **wrong})
    assert got != pytest.approx(case.means[metric], rel=1e-6, abs=1e-9)
