"""The names of trec_eval, ir_measures and ranx: each resolves to one registry entry.

Every alias is checked entry by entry twice: against the canonical text it must
parse to (written here by hand), and by value, against the tool itself
(pytrec_eval for trec_eval's names and for the ir_measures names that ir_measures
computes with pytrec_eval, ranx for ranx's names), on a small tie-free collection
with judged but unretrieved documents (score ``-inf``), an unjudged retrieved one
(label 0, as trec_eval counts it) and a query without relevant documents.
"""

import math
import re
import warnings

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._metrics._registry import ALIASES, parse_metric

pytrec_eval = pytest.importorskip("pytrec_eval")
ranx = pytest.importorskip("ranx")

# (query, document, label or None for unjudged, score or None for unretrieved)
COLLECTION = [
    ("q1", "a", 2, 6.0), ("q1", "b", 0, 5.0), ("q1", "c", 1, 4.0), ("q1", "d", None, 3.0),
    ("q1", "e", 0, 2.0), ("q1", "f", 3, 1.0), ("q1", "g", 1, None),
    ("q2", "a", 0, 3.0), ("q2", "b", 1, 2.0), ("q2", "c", 0, 1.0),
    ("q3", "a", 0, 2.0), ("q3", "b", 0, 1.0),
    ("q4", "a", 1, 2.0), ("q4", "b", 2, 1.0), ("q4", "c", 1, None),
]
QUERIES = ["q1", "q2", "q3", "q4"]


def _flat():
    y_true = np.array([0 if label is None else label for _, _, label, _ in COLLECTION], float)
    y_score = np.array([-np.inf if score is None else score for *_, score in COLLECTION])
    group = np.array([query for query, *_ in COLLECTION])
    return y_true, y_score, group


def _qrels_and_run():
    qrels, run = {}, {}
    for query, doc, label, score in COLLECTION:
        if label is not None:
            qrels.setdefault(query, {})[doc] = label
        if score is not None:
            run.setdefault(query, {})[doc] = score
    return qrels, run


def _ours(name, **settings):
    y_true, y_score, group = _flat()
    table = srm.evaluate(
        y_true, y_score, group, metrics=[name], ties="input", replace_undefined_by=0.0,
        per_query=True, **settings,
    )
    return dict(zip(np.asarray(table["query"]).tolist(), np.asarray(table[name]), strict=True))


def _trec_eval(measure, result_key, relevance_level=1):
    qrels, run = _qrels_and_run()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure}, relevance_level=relevance_level)
    return {query: values[result_key] for query, values in evaluator.evaluate(run).items()}


def _ranx(metric):
    qrels, run = _qrels_and_run()
    ranx_run = ranx.Run(run)
    with warnings.catch_warnings():  # numba's note on a cast inside ranx's own NDCG
        warnings.filterwarnings("ignore", message="unsafe cast", category=Warning)
        ranx.evaluate(ranx.Qrels(qrels), ranx_run, metric, save_results_in_run=True)
    return dict(ranx_run.scores[metric])


# name -> canonical registry text, written by hand from each tool's documentation
CANONICAL = {
    # trec_eval
    "map": "map", "map_cut_10": "map@10", "map_cut.5": "map@5", "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10", "P_10": "p@10", "P.5": "p@5", "recall_100": "recall@100",
    "recip_rank": "mrr", "success_10": "hit_rate@10", "set_P": "p", "set_recall": "recall",
    "set_F": "f1", "Rprec": "rprec", "bpref": "bpref",
    "iprec_at_recall_0.50": "iprec(recall=0.5)", "iprec_at_recall.0.1": "iprec(recall=0.1)",
    "iprec_at_recall_0.00": "iprec(recall=0.0)", "11pt_avg": "11pt_avg",
    # ir_measures
    "nDCG@10": "ndcg@10", "nDCG": "ndcg", "nDCG(dcg='exp-log2')@10": "ndcg(gain=exponential)@10",
    "nDCG(dcg='log2')@10": "ndcg@10", "P@10": "p@10", "P(rel=2)@10": "p(relevance_level=2)@10",
    "R@100": "recall@100", "R(rel=2)@100": "recall(relevance_level=2)@100", "AP": "map",
    "AP@10": "map@10", "AP(rel=2)": "map(relevance_level=2)", "RR": "mrr", "RR@10": "mrr@10",
    "Success@10": "hit_rate@10", "ERR@10": "err@10", "SetP": "p", "SetR": "recall", "SetF": "f1",
    "Bpref": "bpref", "Bpref(rel=2)": "bpref(relevance_level=2)", "Judged@10": "judged@10",
    "Judged": "judged", "RBP(p=0.8,rel=2)": "rbp(relevance_level=2)", "RBP": "rbp",
    "RBP(p=0.5)": "rbp(p=0.5)", "rbp.8": "rbp(graded=True)",
    "rbp.95-l2": "rbp(graded=True,p=0.95,relevance_level=2)",
    "num_rel": "num_rel", "num_ret": "num_ret", "num_rel_ret": "num_rel_ret",
    "NumRel": "num_rel", "NumRet": "num_ret", "NumRelRet": "num_rel_ret",
    "NumRelRet@10": "num_rel_ret@10", "IPrec@0.5": "iprec(recall=0.5)",
    "IPrec@1": "iprec(recall=1.0)",
    # ranx
    "ndcg@10": "ndcg@10", "ndcg_burges@10": "ndcg(gain=exponential)@10",
    "precision@10": "p@10", "recall@10": "recall@10", "map@10": "map@10", "mrr@10": "mrr@10",
    "hit_rate@10": "hit_rate@10", "f1@10": "f1@10", "precision@10-l2": "p(relevance_level=2)@10",
    "map-l2": "map(relevance_level=2)", "r-precision": "rprec",
    # other letter case
    "MAP": "map", "NDCG@10": "ndcg@10", "MRR@10": "mrr@10", "IDCG@10": "idcg@10",
    # issue 31: ranx's hits (a mean) and dcg_burges; ir_measures' rel on Rprec, NumRet
    # (with rel it is trec_eval's num_rel_ret) and IPrec; recommender HR; ml_metrics mapk
    "hits@5": "num_rel_ret(summary=mean)@5", "hits": "num_rel_ret(summary=mean)",
    "hits@5-l2": "num_rel_ret(relevance_level=2,summary=mean)@5",
    "dcg_burges@5": "dcg(gain=exponential)@5", "dcg_burges": "dcg(gain=exponential)",
    "Rprec(rel=2)": "rprec(relevance_level=2)", "NumRet(rel=2)": "num_rel_ret(relevance_level=2)",
    "IPrec(rel=2)@0.5": "iprec(recall=0.5,relevance_level=2)",
    "HR@10": "hit_rate@10", "hr@10": "hit_rate@10", "hr_10": "hit_rate@10",
    "HitRatio@10": "hit_rate@10", "HitRate@5": "hit_rate@5",
    "mapk@10": "map(denominator=min(k,n_relevant))@10",
    "MAPK@5": "map(denominator=min(k,n_relevant))@5",
}


@pytest.mark.parametrize(("name", "canonical"), CANONICAL.items())
def test_every_alias_resolves_to_its_registry_entry(name, canonical):
    spec, expected = parse_metric(name), parse_metric(canonical)
    assert str(spec) == canonical
    assert spec.info is expected.info and spec.kernel_params == expected.kernel_params


def test_every_entry_of_the_alias_table_is_tested():
    tested = {
        alias.base.lower() for alias in ALIASES for name in CANONICAL
        if re.match(rf"{re.escape(alias.base)}(?![A-Za-z])", name, flags=re.IGNORECASE)
    }
    assert tested == {alias.base.lower() for alias in ALIASES}


# name, pytrec_eval measure and result key, relevance level
TREC_EVAL_VALUES = [
    ("map", "map", "map", 1), ("map_cut_3", "map_cut.3", "map_cut_3", 1),
    ("ndcg", "ndcg", "ndcg", 1), ("ndcg_cut_3", "ndcg_cut.3", "ndcg_cut_3", 1),
    ("ndcg_cut_10", "ndcg_cut.10", "ndcg_cut_10", 1), ("P_3", "P.3", "P_3", 1),
    ("P_10", "P.10", "P_10", 1), ("recall_3", "recall.3", "recall_3", 1),
    ("recip_rank", "recip_rank", "recip_rank", 1), ("success_1", "success.1", "success_1", 1),
    ("set_P", "set_P", "set_P", 1), ("set_recall", "set_recall", "set_recall", 1),
    ("set_F", "set_F", "set_F", 1), ("Rprec", "Rprec", "Rprec", 1),
    # ir_measures computes these with pytrec_eval
    ("nDCG@3", "ndcg_cut.3", "ndcg_cut_3", 1), ("P@3", "P.3", "P_3", 1),
    ("P(rel=2)@3", "P.3", "P_3", 2), ("R@3", "recall.3", "recall_3", 1),
    ("R(rel=2)@3", "recall.3", "recall_3", 2), ("AP", "map", "map", 1),
    ("AP@3", "map_cut.3", "map_cut_3", 1), ("AP(rel=2)", "map", "map", 2),
    ("RR", "recip_rank", "recip_rank", 1), ("Success@1", "success.1", "success_1", 1),
    ("SetP", "set_P", "set_P", 1), ("SetR", "set_recall", "set_recall", 1),
    ("SetF", "set_F", "set_F", 1),
    ("iprec_at_recall_0.00", "iprec_at_recall.0.0", "iprec_at_recall_0.00", 1),
    ("iprec_at_recall_0.50", "iprec_at_recall.0.5", "iprec_at_recall_0.50", 1),
    ("IPrec@0.3", "iprec_at_recall.0.3", "iprec_at_recall_0.30", 1),
    ("IPrec@1", "iprec_at_recall.1.0", "iprec_at_recall_1.00", 1),
    ("11pt_avg", "11pt_avg", "11pt_avg", 1),
]


@pytest.mark.parametrize(("name", "measure", "key", "level"), TREC_EVAL_VALUES)
def test_trec_eval_and_ir_measures_names_give_trec_evals_values(name, measure, key, level):
    ours, theirs = _ours(name), _trec_eval(measure, key, relevance_level=level)
    assert set(theirs) == set(QUERIES)
    for query in QUERIES:
        assert ours[query] == pytest.approx(theirs[query], abs=1e-4), query  # 4 decimals


RANX_VALUES = ["ndcg@3", "ndcg_burges@3", "precision@3", "recall@3", "map@3", "mrr@3",
               "hit_rate@1", "f1@3", "precision@3-l2", "map-l2", "recall@3-l2", "r-precision",
               "hits@3", "hits@1", "hits", "hits@3-l2", "dcg@3", "dcg_burges@3", "dcg_burges"]


@pytest.mark.parametrize("name", RANX_VALUES)
def test_ranx_names_give_ranxs_values(name):
    ours, theirs = _ours(name), _ranx(name)
    for query in QUERIES:
        assert ours[query] == pytest.approx(theirs[query], rel=1e-12, abs=1e-12), query


@pytest.mark.parametrize("name", ["hits@3", "hits", "hits@3-l2", "dcg_burges@3", "ndcg_burges@3"])
def test_ranx_names_give_ranxs_means(name):
    # ranx's hits@k is the MEAN over queries of the relevant rows in the top k, where
    # trec_eval's num_rel_ret sums them: the mean, not only the per-query values
    qrels, run = _qrels_and_run()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="unsafe cast", category=Warning)
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), name)
    y_true, y_score, group = _flat()
    ours = srm.evaluate(
        y_true, y_score, group, metrics=[name], ties="input", replace_undefined_by=0.0
    )[name]
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


def _ir_measures(name):
    """Per-query values and the aggregate of ir_measures itself, on the same string."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = _qrels_and_run()
    measure = ir_measures.parse_measure(name)
    per_query = {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
    return per_query, float(ir_measures.calc_aggregate([measure], qrels, run)[measure])


@pytest.mark.parametrize(
    "name",
    ["Rprec(rel=2)", "Rprec", "NumRet(rel=2)", "NumRet", "NumRelRet", "IPrec(rel=2)@0.5",
     "IPrec@0.5", "IPrec(rel=2)@0.2"],
)
def test_ir_measures_names_give_ir_measures_values(name):
    theirs, aggregate = _ir_measures(name)
    ours = _ours(name)
    assert set(theirs) == set(QUERIES)
    for query in QUERIES:
        assert ours[query] == pytest.approx(theirs[query], abs=1e-12), query
    y_true, y_score, group = _flat()
    mean = srm.evaluate(
        y_true, y_score, group, metrics=[name], ties="input", replace_undefined_by=0.0
    )[name]
    assert mean == pytest.approx(aggregate, abs=1e-12)  # NumRet: ir_measures sums


@pytest.mark.parametrize(("name", "ranx_name"), [("HR@1", "hit_rate@1"), ("hr@3", "hit_rate@3"),
                                                 ("HitRatio@2", "hit_rate@2")])
def test_hit_rate_names_give_ranxs_hit_rate(name, ranx_name):
    # recommender HR@k: the share of users with a relevant item in the top k
    ours, theirs = _ours(name), _ranx(ranx_name)
    for query in QUERIES:
        assert ours[query] == pytest.approx(theirs[query], abs=1e-15), query
    # by hand at k=1: q1 (a, grade 2) and q4 (a, grade 1) hit, q2 and q3 do not
    if name == "HR@1":
        assert [ours[q] for q in QUERIES] == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("typo", ["HRs@10", "hR@10", "HitRatios@10"])
def test_hit_rate_typos_never_suggest_recall(typo):
    try:
        parse_metric(typo)
    except ValueError as error:
        assert "recall" not in str(error).split("Known names")[0], str(error)
        assert "hit_rate@10" in str(error)
    else:
        assert str(parse_metric(typo)) == "hit_rate@10"


def test_ir_measures_exponential_ndcg_and_err_by_hand():
    # nDCG(dcg='exp-log2')@3 of q4: retrieved a (1), b (2); judged c (1) unretrieved
    dcg = 1 + 3 / math.log2(3)
    ideal = 3 + 1 / math.log2(3) + 1 / 2
    assert _ours("nDCG(dcg='exp-log2')@3")["q4"] == pytest.approx(dcg / ideal, rel=1e-12)
    # ERR@10 of q4 with grades out of 4: R(g) = (2**g - 1) / 16
    first, second = 1 / 16, 3 / 16
    assert _ours("ERR@10")["q4"] == pytest.approx(first + (1 - first) * second / 2, rel=1e-12)


def test_interpolated_precision_needs_its_recall_level():
    with pytest.raises(ValueError, match=r"name one, as in 'iprec_at_recall_0\.50'.*'11pt_avg'"):
        parse_metric("iprec_at_recall")
    with pytest.raises(TypeError, match=r"'recall' parameter .* range \[0\.0, 1\.0\]"):
        parse_metric("IPrec@1.5")


@pytest.mark.parametrize(
    ("typo", "suggested"),
    [("precison@10", "'p@10'"), ("ndcg_cut10", "'ndcg@10'"), ("P10", "'p@10'"),
     ("ndgc@10", "'ndcg@10'"), ("recal@5", "'recall@5'")],
)
def test_unknown_names_get_did_you_mean(typo, suggested):
    with pytest.raises(ValueError, match=rf"Unknown metric .*Did you mean {re.escape(suggested)}"):
        parse_metric(typo)


@pytest.mark.parametrize(
    ("name", "message"),
    [("P", "needs a cutoff, as in 'P_10'"), ("recip_rank@10", "takes no cutoff"),
     ("ndcg@10-l2", "zeroes the gains"), ("nDCG(dcg='exp')@10", "dcg takes"),
     ("P(judged_only=True)@10", "Unknown parameter")],
)
def test_alias_misuse_is_explained(name, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_metric(name)


def test_aliases_work_in_every_entry_point():
    y_true, y_score, group = _flat()
    expected = srm.precision_at_k_score(
        y_true, y_score, group, k=3, ties="input", replace_undefined_by=0.0
    )
    assert srm.evaluate(
        y_true, y_score, group, metrics=["P_3"], ties="input", replace_undefined_by=0.0
    )["P_3"] == pytest.approx(expected, rel=1e-15)
    scorer = srm.make_ranking_scorer("P_3", group=group, ties="input", replace_undefined_by=0.0)

    class Scores:
        def predict(self, X):
            return y_score

        def __sklearn_tags__(self):
            from sklearn.utils import Tags, TargetTags

            return Tags(estimator_type="regressor", target_tags=TargetTags(required=True))

    assert scorer(Scores(), np.zeros((len(y_true), 1)), y_true) == pytest.approx(expected)
    scorers = srm.make_ranking_scorers(["nDCG@3", "precision@3"], group=group)
    assert sorted(scorers) == ["nDCG@3", "precision@3"]


def test_ranx_hits_is_a_mean_on_dask_too():
    # the Dask path sums a count only when the parsed name's summary is the sum
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    from sklearn_rank_metrics.dask import evaluate as evaluate_dask

    y_true, y_score, group = _flat()
    frame = pd.DataFrame({"label": y_true, "score": y_score, "qid": group})
    ddf = dd.from_pandas(frame, npartitions=2, sort=False)
    got = evaluate_dask(
        ddf, ["hits@3", "num_rel_ret@3"], y_true="label", y_score="score", group="qid",
        ties="input",
    )
    # relevant rows in the top 3: q1 a, c (2); q2 b (1); q3 0; q4 a, b (2)
    assert got["hits@3"] == pytest.approx(5 / 4, rel=1e-15)
    assert got["num_rel_ret@3"] == pytest.approx(5.0, rel=1e-15)


def test_peer_names_are_the_reverse_of_the_alias_table():
    from sklearn_rank_metrics._metrics._registry import peer_names

    assert peer_names("ndcg", "trec_eval") == ("ndcg_cut",)
    assert set(peer_names("p", "trec_eval")) == {"P", "set_P"}
    assert peer_names("rbp", "ir_measures") == ("RBP",)
    assert peer_names("num_rel_ret", "ranx") == ("hits",)
    assert peer_names("gauc", "trec_eval") == ()
    for alias in ALIASES:  # every alias is found back from its target
        assert alias.base in peer_names(alias.target, alias.tool)
        targets = {alias.target, *dict(alias.retarget).values()}
        assert parse_metric(alias.example).info.name in targets
