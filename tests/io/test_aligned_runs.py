"""Runs that return different documents, compared on the same rows.

Expected values come from the tools: pytrec_eval for TREC runs (every run over the
qrels' queries, a query the run does not answer at 0, as ``trec_eval -c``) and ranx
for recommenders' top-N lists (``make_comparable=True``).
"""

from __future__ import annotations

import re
import warnings
from functools import cache

import numpy as np
import pytest

from sklearn_rank_metrics import (
    AlignedRuns,
    align_recommendations,
    align_trec_runs,
    compare,
    evaluate,
    ranking_report,
    read_trec,
)
from tests.support.qrels_data import dataset

TREC_NAMES = ["map", "ndcg_cut_10", "P_5", "recall_10", "recip_rank", "Rprec"]
MEASURES = {"map", "ndcg_cut", "P", "recall", "recip_rank", "Rprec"}


@cache
def two_runs(dataset_name):
    """One qrels (every row judged), two runs that return different subsets.

    Run "a" has the tied scores, run "b" the tie-free ones; each leaves out a
    different third of the rows, and each leaves whole queries unanswered (a query
    only "b" answers, one only "a" answers). A query only in run "a" is not judged.
    """
    flat = dataset(dataset_name)
    rng = np.random.default_rng(11)
    queries = np.unique(flat.group)
    qrels = {}
    for q, d, label in zip(flat.group, flat.doc, flat.y, strict=True):
        qrels.setdefault(str(q), {})[str(d)] = int(label)
    runs = {"a": {}, "b": {}}
    returned = {"a": rng.random(len(flat.y)) < 0.7, "b": rng.random(len(flat.y)) < 0.7}
    returned["a"] &= ~np.isin(flat.group, queries[1::9])  # queries "a" does not answer
    returned["b"] &= ~np.isin(flat.group, queries[2::9])
    for name, scores in (("a", flat.tied_score), ("b", flat.score)):
        for q, d, s, keep in zip(flat.group, flat.doc, scores, returned[name], strict=True):
            if keep and np.isfinite(s):
                runs[name].setdefault(str(q), {})[str(d)] = float(s)
    for q in list(runs["a"])[::4]:  # documents nobody judged (label 0 for everyone)
        runs["a"][q]["unjudged"] = 0.3
    runs["a"]["unjudged-query"] = {"x": 1.0}
    return qrels, runs


def trec_eval_c(qrels, run):
    """pytrec_eval per query over every qrels query (unanswered: 0), as trec_eval -c."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    tool = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    return {
        name: {q: tool[q][name] if q in tool else 0.0 for q in qrels} for name in TREC_NAMES
    }


@pytest.mark.parametrize("dataset_name", ["synthetic", "lambdarank"])
def test_each_aligned_run_matches_trec_eval_c(dataset_name):
    qrels, runs = two_runs(dataset_name)
    aligned = align_trec_runs(qrels, runs)
    assert aligned.n_queries == len(qrels)
    assert aligned.n_dropped_queries == {"a": 1, "b": 0}
    for name, run in runs.items():
        expected = trec_eval_c(qrels, run)
        answered = sum(q in qrels and any(np.isfinite(list(run[q].values()))) for q in run)
        assert aligned.n_answered[name] == answered < len(qrels)
        # pytrec_eval builds trec_eval 9: its preset reads the scores as float
        table = evaluate(
            aligned.run(name), metrics=TREC_NAMES, convention="pytrec_eval", per_query=True
        )
        for metric in TREC_NAMES:
            ours = dict(zip(table["query"], table[metric], strict=True))
            assert sorted(ours) == sorted(expected[metric])
            np.testing.assert_allclose(
                [ours[q] for q in qrels], [expected[metric][q] for q in qrels],
                rtol=1e-9, atol=1e-12, err_msg=f"{name} {metric}",
            )  # fmt: skip


def test_compare_and_report_take_aligned_runs():
    qrels, runs = two_runs("synthetic")
    aligned = align_trec_runs(qrels, runs)
    names = ["map", "P_5"]
    expected = {name: trec_eval_c(qrels, run) for name, run in runs.items()}
    result = compare(
        aligned, metrics=names, baseline="b", convention="pytrec_eval", n_resamples=20,
        random_state=0,
    )  # fmt: skip
    row = result.table.iloc[0]
    assert (row["model_a"], row["model_b"]) == ("a", "b")
    assert row["n_queries"] == len(qrels)
    for metric, measure in (("map", "map"), ("P_5", "P_5")):
        means = result.means.set_index("model")[metric]
        for name in runs:
            want = np.mean(list(expected[name][measure].values()))
            assert means[name] == pytest.approx(want, rel=1e-9, abs=1e-12)
    report = ranking_report(aligned, metrics=names, convention="pytrec_eval", output_dict=True)
    assert report["a"]["map"]["mean"] == pytest.approx(
        np.mean(list(expected["a"]["map"].values())), rel=1e-9
    )
    assert report["a"]["map"]["n_queries"] == len(qrels)


def test_a_run_scores_the_same_on_its_own_rows_and_on_the_aligned_rows():
    # rows another run added are label-0 or judged rows this run did not return
    qrels, runs = two_runs("lambdarank")
    aligned = align_trec_runs(qrels, runs)
    own = read_trec(qrels, runs["b"])  # "a" adds unjudged rows
    # (not gauc: its candidates are every row, so the union's other rows count as
    # negatives ranked last; AlignedRuns says so)
    names = ["ndcg@10", "map", "mrr", "p@5", "recall@20", "rprec", "err@10", "f1@10"]
    assert len(own.y_true) < len(aligned.y_true)
    np.testing.assert_allclose(
        list(evaluate(own, metrics=names).values()),
        list(evaluate(aligned.run("b"), metrics=names).values()),
        rtol=1e-12,
    )


def test_recommenders_aligned_match_ranx():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(2)
    items = [f"i{n}" for n in range(40)]
    users = [f"u{n}" for n in range(60)]
    relevant = {u: set(rng.choice(items, rng.integers(1, 5), replace=False)) for u in users}
    models = {
        name: {u: list(rng.choice(items, 10, replace=False)) for u in users[skip:]}
        for name, skip in (("pop", 0), ("knn", 5))  # knn has no list for five users
    }
    aligned = align_recommendations(models, relevant)
    assert aligned.n_answered == {"pop": 60, "knn": 55} and aligned.n_queries == 60
    qrels = ranx.Qrels({u: {i: 1 for i in relevant[u]} for u in users})
    metrics = ["ndcg@5", "map@10", "mrr@10", "hit_rate@3", "recall@10", "precision@5"]
    for name, lists in models.items():
        run = ranx.Run({u: {i: 10.0 - p for p, i in enumerate(lists[u])} for u in lists})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranx.evaluate(qrels, run, metrics, make_comparable=True, threads=1)
        table = evaluate(*aligned.run(name), metrics=metrics, convention="ranx", per_query=True)
        for metric in metrics:
            ours = dict(zip(table["query"], table[metric], strict=True))
            tool = {u: float(run.scores[metric].get(u, 0.0)) for u in users}
            np.testing.assert_allclose(
                [ours[u] for u in users], [tool[u] for u in users], rtol=1e-9, atol=1e-12,
                err_msg=f"{name} {metric}",
            )  # fmt: skip


def test_aligned_runs_errors_and_form():
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(TypeError, match="'runs' parameter of align_trec_runs must be a mapping"):
        align_trec_runs(qrels, 3)
    with pytest.raises(TypeError, match="run names .* must be str"):
        align_trec_runs(qrels, {1: {"q1": {"d1": 1.0}}})
    with pytest.raises(ValueError, match="at least one run"):
        align_trec_runs(qrels, {})
    aligned = align_trec_runs(qrels, {"r": {"q1": {"d1": 1.0, "d2": 0.5}}})
    assert isinstance(aligned, AlignedRuns)
    y, scores, group = aligned.y_true, aligned.scores, aligned.group
    assert y.tolist() == [0.0, 1.0] and scores["r"].tolist() == [0.5, 1.0]
    assert aligned.doc_id.tolist() == ["d2", "d1"] and group.tolist() == ["q1", "q1"]
    with pytest.raises(TypeError, match="read under convention='trec_eval'"):
        y, scores, group = aligned
    with pytest.raises(KeyError, match="no run named 'x'"):
        aligned.run("x")


def test_aligned_runs_keep_each_run_files_tag(tmp_path):
    # trec_eval's runid: the sixth field of the run file's last line (get_trec_results.c)
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    # "a" goes through the line scanner (a field after the tag), "c" through pandas
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 first\nq2 Q0 d2 1 1.0 last extra\n")
    (tmp_path / "c.run").write_text("q2 Q0 d2 1 2.0 one\nq1 Q0 d1 1 1.0 two\n")
    aligned = align_trec_runs(tmp_path / "qrels", {"a": tmp_path / "a.run",
                                                   "b": {"q1": {"d1": 1.0}},
                                                   "c": tmp_path / "c.run"})
    assert aligned.run_ids == {"a": "last", "b": None, "c": "two"}
    assert aligned.n_queries == 2 and aligned.n_answered == {"a": 2, "b": 1, "c": 2}


def test_align_trec_runs_checks_its_flag_as_read_trec_does():
    # "no" is truthy: read as True it rounded the scores to float32, where 0.1 + 1e-9
    # and 0.1 tie, and ir_measures' RR@10 (ties by docno ascending) went from 0.5 to 1.0
    qrels = {"q1": {"a": 1, "b": 0}}
    runs = {"x": {"q1": {"a": 0.1, "b": 0.1 + 1e-9}}}
    for flag in ("no", "False", 0, 1, None):
        with pytest.raises(TypeError, match="'single_precision' parameter of align_trec_runs"):
            align_trec_runs(qrels, runs, single_precision=flag)
    for single_precision, expected in ((False, 0.5), (True, 1.0)):
        run = align_trec_runs(qrels, runs, single_precision=single_precision).run("x")
        rr = evaluate(run, metrics=["RR@10"], convention="ir_measures")
        assert rr == {"RR@10": expected}


@pytest.mark.parametrize(
    ("run", "pattern"),
    [
        ({}, r"^align_trec_runs: the run 'x' \(the run dict\) has no lines"),
        ({"q9": {"a": 1.0}},
         r"^align_trec_runs: no query of the run 'x' \(the run dict\) \(1 query\) is in "
         r"the qrels dict \(1 query\)"),
    ],
    ids=["empty", "no_shared_query"],
)
def test_align_trec_runs_names_itself_and_the_run(run, pattern):
    qrels = {"q1": {"a": 1}}
    with pytest.raises(ValueError, match=pattern):
        align_trec_runs(qrels, {"a": {"q1": {"a": 1.0}}, "x": run})


def test_read_trec_still_names_itself(tmp_path):
    with pytest.raises(ValueError, match=r"^read_trec: no query of the run the run dict \(2 "
                       r"queries\) is in the qrels dict \(1 query\)"):
        read_trec({"q1": {"a": 1}}, {"q8": {"a": 1.0}, "q9": {"a": 1.0}})


@pytest.mark.parametrize(
    "recommended, relevant, message",
    [
        ({"a": {"u1": [1, "x"]}, "b": {"u1": ["x"]}}, {"u1": {"x"}},
         "the item ids must be of one type"),
        ({"a": {"u1": ["x"]}}, {"u1": {1, "x"}}, "the item ids must be of one type"),
        ({"a": {"u1": ["x"], 2: ["x"]}}, {"u1": {"x"}, 2: {"x"}},
         "the user ids must be of one type"),
    ],
)
def test_align_recommendations_refuses_mixed_id_types_clearly(recommended, relevant, message):
    # before: numpy's "'<' not supported between instances of 'str' and 'int'"
    with pytest.raises(TypeError, match=re.escape(f"align_recommendations: {message}")):
        align_recommendations(recommended, relevant)


@pytest.mark.parametrize("seed", range(20))
def test_one_run_is_aligned_as_the_union_of_one_would_align_it(seed):
    # align_trec_runs takes one run's joined rows as they are (the command line's
    # usual case); the general union over runs must give the same rows and counts
    from sklearn_rank_metrics._io import _aligned

    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 8))):
        docs = [f"d{int(d)}" for d in rng.choice(40, int(rng.integers(1, 12)), replace=False)]
        if rng.random() < 0.8:
            qrels[f"q{q}"] = {d: int(rng.integers(-1, 3)) for d in docs[: len(docs) // 2 + 1]}
        if rng.random() < 0.8:
            run[f"q{q}"] = {
                d: float(rng.choice([0.0, 0.5, 1.0, rng.random()])) for d in docs
            }
    qrels.setdefault("qx", {"dx": 1})
    run.setdefault(next(iter(qrels)), {"dy": 1.0})
    aligned = align_trec_runs(qrels, {"r": run})
    join = _aligned.join_trec_sources(
        qrels, run, answered_only=False, single_precision=False, reader="align_trec_runs",
        run_name="r",
    )
    union = _aligned._union({"r": join.data}, join.source)
    for name in ("y_true", "group", "doc_id", "judged"):
        np.testing.assert_array_equal(getattr(aligned, name), getattr(union, name))
    np.testing.assert_array_equal(aligned.scores["r"], union.scores["r"])
    np.testing.assert_array_equal(aligned.run_positions["r"], union.run_positions["r"])
    assert (aligned.n_queries, aligned.n_answered, aligned.n_dropped_queries) == (
        union.n_queries, union.n_answered, union.n_dropped_queries
    )


def test_rows_given_other_document_ids_do_not_keep_the_readers_text_order():
    # read_trec hands its docnos' codes in text order to every call; rows given
    # other ids since (dataclasses.replace) must be ordered by those ids, not by
    # the stale codes
    import dataclasses

    from sklearn_rank_metrics import evaluate, read_trec

    qrels = {"q1": {"a": 1, "b": 0, "c": 0}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}}  # all tied
    data = read_trec(qrels, run)
    # trec_eval: ties by docno descending, so c, b, a: the relevant row last
    assert evaluate(data, metrics="recip_rank")["recip_rank"] == pytest.approx(1 / 3)
    renamed = dataclasses.replace(data, doc_id=np.array(["z", "y", "x"], dtype=object)[
        np.argsort(np.asarray(data.doc_id))])  # a -> z: now the relevant row comes first
    assert evaluate(renamed, metrics="recip_rank")["recip_rank"] == pytest.approx(1.0)
