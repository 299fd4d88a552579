"""A convention that orders ties by document id, called without ids, warns.

trec_eval (and pytrec_eval, ir_measures, MLlib for ``convention="spark"``) break
tied scores by document id; bare arrays carry none, so the preset keeps the tied
rows in input order. When that order can change a number (tied rows that differ,
among the returned rows, under ``ties="input"``), the call says so once, with both
fixes: ``doc_id=`` or the reader's RankingData passed whole. The reference values
come from pytrec_eval itself, or by hand.
"""

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
    assert "evaluate(data, ..., convention='trec_eval'), not evaluate(*data, ...)" in message
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
