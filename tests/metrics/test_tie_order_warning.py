"""A convention that orders ties by document id, called without ids, warns.

trec_eval (and pytrec_eval, ir_measures, MLlib for ``convention="spark"``) break
tied scores by document id; bare arrays carry none, so the preset keeps the tied
rows in input order. When that order can change a number (tied rows that differ,
among the returned rows, under ``ties="input"``), the call says so once, with both
fixes: ``doc_id=`` or the reader's RankingData passed whole. The reference values
come from pytrec_eval itself, or by hand.
"""

import itertools
import math
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
import pytrec_eval

import sklearn_rank_metrics as srm
from sklearn_rank_metrics import evaluate, read_trec
from sklearn_rank_metrics._engine._warnings import TieOrderWarning

TIE = "orders tied scores by document id"


@contextmanager
def no_warning():
    """Fail on any TieOrderWarning inside the block."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieOrderWarning)
        yield


def test_the_review_case_warns_and_doc_ids_give_trec_eval():
    # trec_eval: docno "b" sorts after "a", and ties go by docno descending, so the
    # relevant "b" ranks first: recip_rank 1
    tool = pytrec_eval.RelevanceEvaluator({"q": {"a": 0, "b": 1}}, {"recip_rank"}).evaluate(
        {"q": {"a": 0.5, "b": 0.5}}
    )["q"]["recip_rank"]
    assert tool == 1.0
    with pytest.warns(TieOrderWarning) as record:
        got = evaluate([0, 1], [0.5, 0.5], [1, 1], metrics=["recip_rank"], convention="trec_eval")
    assert got == {"recip_rank": 0.5}  # input order, as documented
    message = str(record[0].message)
    assert message.startswith("evaluate: convention='trec_eval' orders tied scores by document")
    assert "tied rows (first in query 1) keep their input order" in message
    # both fixes, spelt out
    assert "doc_id=<one id per row>" in message
    assert "RankingData of read_trec whole" in message
    assert (
        "read_trec whole, which carries them: evaluate(data, ...), not evaluate(*data, ...)"
        in message
    )
    with no_warning():
        got = evaluate(
            [0, 1], [0.5, 0.5], [1, 1], metrics=["recip_rank"], convention="trec_eval",
            doc_id=["a", "b"],
        )
    assert got == {"recip_rank": tool}


def test_metric_function_warns_and_a_ranking_data_passed_whole_does_not():
    qrels = {"q": {"a": 0, "b": 1}}
    run = {"q": {"a": 0.5, "b": 0.5}}
    data = read_trec(qrels, run)
    with pytest.warns(TieOrderWarning, match="mean_reciprocal_rank_score: convention="):
        srm.mean_reciprocal_rank_score([0, 1], [0.5, 0.5], [1, 1], convention="trec_eval")
    with no_warning():
        assert srm.mean_reciprocal_rank_score(data, convention="trec_eval") == 1.0
        assert evaluate(data, metrics=["recip_rank"], convention="trec_eval") == {
            "recip_rank": 1.0
        }


@pytest.mark.parametrize("convention", ["trec_eval", "pytrec_eval", "ir_measures", "spark"])
def test_every_doc_id_convention_warns(convention):
    with pytest.warns(TieOrderWarning, match=f"convention='{convention}' {TIE}"):
        evaluate([0, 1], [0.5, 0.5], [1, 1], metrics=["mrr"], convention=convention)


@pytest.mark.parametrize("convention", [None, "ranx", "sklearn", "lightgbm", "xgboost"])
def test_input_order_conventions_do_not_warn(convention):
    with no_warning():
        evaluate([0, 1], [0.5, 0.5], [1, 1], metrics=["mrr"], convention=convention)
        srm.mean_reciprocal_rank_score([0, 1], [0.5, 0.5], [1, 1], convention=convention)


def test_ir_measures_warns_for_its_doc_id_providers():
    # RR@10 comes from the msmarco provider (ties by document id ascending)
    with pytest.warns(TieOrderWarning, match="ir_measures"):
        evaluate([0, 1], [0.5, 0.5], [1, 1], metrics=["RR@10"], convention="ir_measures")


def test_once_per_call():
    with pytest.warns(TieOrderWarning) as record:
        evaluate(
            [0, 1, 1, 0], [0.5, 0.5, 0.2, 0.2], [1, 1, 2, 2],
            metrics=["mrr", "map", "p@1", "ndcg@2"], convention="trec_eval",
        )
    assert len([w for w in record if w.category is TieOrderWarning]) == 1


@pytest.mark.parametrize(
    ("y", "s"),
    [
        ([0, 1, 0], [0.9, 0.5, 0.4]),  # no tie
        ([1, 1, 0], [0.5, 0.5, 0.4]),  # tied rows of one label: their order changes nothing
        ([0, 0, 1], [0.5, 0.5, 0.9]),
        ([1, 0, 1], [0.9, -np.inf, -np.inf]),  # tied only where not returned
    ],
)
def test_no_warning_where_tie_order_changes_nothing(y, s):
    with no_warning():
        evaluate(y, s, [1, 1, 1], metrics=["mrr", "map", "ndcg@2"], convention="trec_eval")
        srm.mean_average_precision_score(y, s, [1, 1, 1], convention="trec_eval")


def test_no_warning_when_ties_are_not_in_input_order():
    y, s, q = [0, 1], [0.5, 0.5], [1, 1]
    with no_warning():
        assert evaluate(y, s, q, metrics=["mrr"], convention="trec_eval", ties="average") == {
            "mrr": 0.75  # (1 + 1/2) / 2
        }
        srm.mean_reciprocal_rank_score(y, s, q, convention="trec_eval", ties="optimistic")
        evaluate(y, s, q, metrics=["mrr(ties=pessimistic)"], convention="trec_eval")


def test_counts_over_every_returned_row_do_not_warn():
    y, s, q = [0, 1], [0.5, 0.5], [1, 1]
    with no_warning():
        evaluate(y, s, q, metrics=["NumRel", "NumRet", "NumRelRet"], convention="ir_measures")
    with pytest.warns(TieOrderWarning):  # a cutoff inside the tie: the order counts
        evaluate(y, s, q, metrics=["NumRelRet@1"], convention="ir_measures")


def test_judged_and_unjudged_rows_tied_warn_for_judged_at_k():
    # both label 0, but one judged: Judged@1 is 1 or 0 by their order
    y, s, q = [0, 0], [0.5, 0.5], [1, 1]
    with pytest.warns(TieOrderWarning):
        evaluate(y, s, q, metrics=["Judged@1"], convention="ir_measures", judged=[True, False])
    with no_warning():
        evaluate(y, s, q, metrics=["Judged@1"], convention="ir_measures", judged=[True, True])


def test_the_command_line_comparison_reads_the_document_ids(tmp_path, capsys):
    from sklearn_rank_metrics._cli import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 0\nq1 0 b 1\nq2 0 c 1\nq2 0 d 0\n")
    runs = []
    for name, lines in {
        "one": "q1 Q0 a 1 0.5 one\nq1 Q0 b 2 0.5 one\nq2 Q0 c 1 0.9 one\nq2 Q0 d 2 0.1 one\n",
        "two": "q1 Q0 a 1 0.9 two\nq1 Q0 b 2 0.1 two\nq2 Q0 c 1 0.5 two\nq2 Q0 d 2 0.5 two\n",
    }.items():
        path = tmp_path / f"{name}.run"
        path.write_text(lines)
        runs += ["--run", str(path)]
    with no_warning():
        code = main(
            ["evaluate", "--qrels", str(qrels), *runs, "--metrics", "recip_rank",
             "--baseline", str(tmp_path / "two.run"), "--resamples", "50",
             "--convention", "spark"]
        )
    assert code == 0


# The cases: measures over the whole list that tie order cannot change
TIED = ([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1])


@pytest.mark.parametrize(
    "function",
    [srm.precision_at_k_score, srm.recall_at_k_score, srm.fbeta_at_k_score, srm.hit_rate_score,
     srm.retrieval_count_score],
)
def test_whole_list_measures_never_warn(function):
    with no_warning():
        function(*TIED, convention="trec_eval")
        evaluate(*TIED, metrics=["set_P", "set_recall", "set_F", "num_rel_ret"],
                 convention="trec_eval")


@pytest.mark.parametrize(
    "function",
    [srm.precision_at_k_score, srm.recall_at_k_score, srm.fbeta_at_k_score, srm.hit_rate_score],
)
def test_a_tie_across_the_cutoff_warns_and_one_inside_it_does_not(function):
    with pytest.warns(TieOrderWarning, match=f"^{function.__name__}: convention='trec_eval'"):
        function(*TIED, k=2, convention="trec_eval")  # 0, 1 or 2 relevant rows in the top 2
    y, s, q = [1, 0, 0, 0], [0.9, 0.9, 0.1, 0.1], [1, 1, 1, 1]
    with no_warning():  # the tied rows are in the top 2 whatever their order
        function(y, s, q, k=2, convention="trec_eval")


def test_a_tie_below_the_cutoff_changes_no_rank_measure():
    y, s, q = [1, 0, 1, 0], [0.9, 0.8, 0.1, 0.1], [1, 1, 1, 1]
    with no_warning():
        evaluate(y, s, q, metrics=["ndcg_cut_2", "map_cut_2", "P_2", "recip_rank"],
                 convention="trec_eval")
    with pytest.warns(TieOrderWarning):  # the whole ranking: the tie at ranks 3-4 counts
        evaluate(y, s, q, metrics=["map"], convention="trec_eval")


def test_reciprocal_rank_after_its_first_relevant_row_does_not_warn():
    y, s, q = [1, 0, 1, 0], [0.9, 0.5, 0.5, 0.5], [1, 1, 1, 1]
    with no_warning():
        assert srm.mean_reciprocal_rank_score(y, s, q, convention="trec_eval") == 1.0
    with pytest.warns(TieOrderWarning):
        srm.mean_average_precision_score(y, s, q, convention="trec_eval")


# --------------------------------------------------------------------------------------
# Warn exactly where the order of tied rows can change the value: brute force over every
# order of the tied rows (the rows permuted in the input, which a call without document
# ids keeps within ties), for every registry metric and the parameters that move the
# rule (a cutoff, no cutoff, the discount, the gain, the average, the RBP part).

EVERY_METRIC = [
    "p", "p@2", "recall", "recall@2", "fbeta@2", "f1", "hit_rate", "hit_rate@2",
    "hit_rate(average=micro)@2", "num_rel_ret", "num_rel_ret@2", "num_rel", "num_ret@2",
    "fallout@2", "fallout", "dcg", "dcg@2", "cg@2", "cg", "dcg(discount=max(1,log(rank)))@3",
    "dcg(discount=max(1,log(rank)),log_base=3)", "dcg(gain=binary)@2", "dcg(gain=exponential)@3",
    "ndcg", "ndcg@2", "ndcg(ideal=top_k)@2", "ndcg(discount=none)@2", "idcg@2", "err@2", "err",
    "map", "map@2", "mrr", "mrr@2", "rprec", "judged@2", "judged", "rbp(p=0.5)@3",
    "rbp(graded=True,p=0.5)", "rbp(part=residual)@3", "gauc",
    # over-warned (see SUPERSET): iprec, 11pt_avg, bpref
    "iprec(recall=0.5)", "11pt_avg", "bpref",
]
# rules that may warn where no order changes the value (never the other way round):
# interpolated precision takes a maximum over later ranks, bpref counts only judged
# non-relevant rows above relevant ones (at most R of them), NDCG over the ideal order of
# the top k rows is 1 whenever the top k happen to be in that order
SUPERSET = {"iprec(recall=0.5)", "11pt_avg", "bpref", "ndcg(ideal=top_k)@2"}


def test_every_registry_metric_is_brute_forced():
    from sklearn_rank_metrics._metrics._registry import METRICS, parse_metric

    assert {parse_metric(name).info.name for name in EVERY_METRIC} == set(METRICS)


def _tie_orders(scores, group, limit=48):
    """Every input order of the rows that orders the tied rows of each query differently."""
    blocks = {}
    for row, key in enumerate(zip(group, scores, strict=True)):
        blocks.setdefault(key, []).append(row)
    choices = [list(itertools.permutations(rows)) for rows in blocks.values()]
    if math.prod(len(c) for c in choices) > limit:
        return None
    return [np.concatenate(pick) for pick in itertools.product(*choices)]


def _random_case(rng):
    n_queries = int(rng.integers(1, 3))
    sizes = rng.integers(2, 6, n_queries)
    group = np.repeat(np.arange(n_queries) + 7, sizes)
    labels = rng.choice([0, 0, 1, 2], len(group)).astype(float)
    scores = rng.choice([0.1, 0.2, 0.3, 0.4], len(group))
    scores[rng.random(len(group)) < 0.1] = -np.inf  # judged, not returned
    judged = (labels > 0) | (rng.random(len(group)) < 0.6)
    return labels, scores, group, judged


def _values_over_tie_orders(labels, scores, group, judged, orders):
    tables = []
    for order in orders:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tie order, undefined queries, ERR's scale
            table = evaluate(
                labels[order], scores[order], group[order], metrics=EVERY_METRIC,
                convention="trec_eval", judged=judged[order], per_query=True,
            )
        tables.append(table.set_index("query").sort_index())
    return tables


def _warns(labels, scores, group, judged, name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(labels, scores, group, metrics=[name], convention="trec_eval", judged=judged)
    return any(issubclass(w.category, TieOrderWarning) for w in caught)


def test_warns_exactly_where_some_tie_order_changes_the_value():
    rng = np.random.default_rng(7)
    checked, warned = 0, dict.fromkeys(EVERY_METRIC, 0)
    while checked < 60:
        labels, scores, group, judged = _random_case(rng)
        orders = _tie_orders(scores, group)
        if orders is None:
            continue
        checked += 1
        tables = _values_over_tie_orders(labels, scores, group, judged, orders)
        for name in EVERY_METRIC:
            columns = np.array([table[name].to_numpy() for table in tables])
            changes = not np.allclose(columns, columns[0], rtol=1e-12, atol=1e-12)
            warns = _warns(labels, scores, group, judged, name)
            warned[name] += warns
            case = (name, labels.tolist(), scores.tolist(), group.tolist(), judged.tolist())
            if not warns:  # silent: no order of the tied rows changes it
                assert not changes, case
            if name not in SUPERSET:  # and a warning means some order does
                assert warns == changes, case
    # the cases exercised both directions for every metric but those no tie order can
    # change: counts, the ideal DCG, and what counts the whole list without a cutoff
    never = {name for name, count in warned.items() if not count}
    assert never == {
        "num_rel", "num_ret@2", "idcg@2", "p", "recall", "fallout", "num_rel_ret", "judged",
        "f1", "hit_rate", "cg",
    }, never
