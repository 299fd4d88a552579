"""Tests of the readers (``sklearn_rank_metrics/_io/``).

Every expected value comes from another tool or from arithmetic written here:

* TREC: ``pytrec_eval`` (trec_eval) evaluates the same qrels and run files, and our
  metrics on the reader's rows must give the same per-query values and means;
* LETOR: scikit-learn's ``load_svmlight_file(query_id=True)`` and the real sample
  read by ``tests/support/lambdarank.py``;
* tables: hand-written arrays;
* recommender lists: ``apk``/``mapk`` in the style of ``ml_metrics``, the NDCG@5 of
  the Airbnb new-user-bookings competition and recall@k, all written out below.

Malformed input must raise with the file name and the right line number. Hostile
input too: a byte-order mark, old Mac line endings, a file replaced while it is read,
paths that are no regular file, and memory in proportion to the input whatever the
length of one id or the compression ratio of a file.
"""

from __future__ import annotations

import builtins
import gzip
import math
import os
import re
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LinearRegression, Ridge

from sklearn_rank_metrics import (
    evaluate,
    mean_average_precision_score,
    mean_reciprocal_rank_score,
    ndcg_score,
    recall_at_k_score,
)
from sklearn_rank_metrics._io import (
    RankingData,
    _recommendations,
    _trec,
    read_letor,
    read_recommendations,
    read_table,
    read_trec,
    read_trec_qrels,
    read_trec_run,
)
from tests.support import lambdarank


def write(path, text):
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def where(path, line):
    """The start of an error message that names ``path`` and ``line``."""
    return re.escape(f"{path}, line {line}:")


# ---------------------------------------------------------------------------
# TREC
# ---------------------------------------------------------------------------

# q1: a three-way score tie mixing labels (trec_eval breaks it by docno descending,
#     and "d10" < "d2" < "d3" as bytes), a run document missing from the qrels (d9),
#     an unretrieved graded document (d11);
# q2: 1.0 and 1.00000001 are equal in single precision, as trec_eval compares them;
# q3: only in the qrels; q4: no relevant document; q8, q9: only in the run.
# Queries are interleaved, separators mix spaces and tabs, blank lines are skipped.
QRELS = """
q1 0 d1 2
q1 0 d2 1
q2 0 d5 1
q1 0 d3 0
q1\t0\td10 1
q1 0 d11 3
q2 0 d6 0

q2 0 d7 2
q3 0 a 1
q3 0 b 0
q4 0 x 0
q4 0 y 0
q5 0 d1 1
"""
RUN = """
q1 Q0 d2 1 0.5 sys
q5 Q0 d2 1 7 sys
q1 Q0 d3 2 0.5 sys
q1 Q0 d10 3 0.5 sys
q1 Q0 d9 4 0.25 sys
q1 Q0 d1 5 0.125 sys
q2 Q0 d6 1 1.0 sys
q2 Q0 d5 2 1.00000001 sys
q2   Q0   d7 3 -2.5e-1 sys
q9 Q0 d1 1 3 sys

q4 Q0 y 1 3 sys
q4 Q0 z 2 2 sys
q5 Q0 d1 2 7 sys
q8 Q0 d1 1 3 sys
"""
TREC_MEASURES = {"map", "ndcg", "ndcg_cut", "P", "recall", "recip_rank"}


@pytest.fixture
def trec_files(tmp_path):
    return write(tmp_path / "test.qrels", QRELS), write(tmp_path / "test.run", RUN)


# the TREC file readers: the NumPy one, pandas' C parser, the plain Python scanner
TREC_READERS = ["numpy", "pandas", "plain"]


def use_trec_reader(monkeypatch, reader):
    """Make ``reader`` read the TREC files (the readers before it decline every file)."""
    if reader != "numpy":
        monkeypatch.setattr(_trec, "_fast_trec_file", lambda *arguments: None)
    if reader == "plain":
        monkeypatch.setitem(sys.modules, "pandas", None)


def our_name(measure):
    """trec_eval's measure name -> ours in ``evaluate``."""
    fixed = {"map": "map", "ndcg": "ndcg", "recip_rank": "mrr"}
    if measure in fixed:
        return fixed[measure]
    base, k = measure.rsplit("_", 1)
    return {"ndcg_cut": "ndcg", "P": "p", "recall": "recall"}[base] + f"@{k}"


def lines(path):
    """The non-blank lines of a file (pytrec_eval's parsers do not skip blank lines)."""
    return [line for line in path.read_text().splitlines() if line.strip()]


def trec_eval_values(qrels_path, run_path):
    qrels = pytrec_eval.parse_qrel(lines(qrels_path))
    run = pytrec_eval.parse_run(lines(run_path))
    tool = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)
    return qrels, run, tool


def our_values(data, measures):
    # the rows whole: they carry trec_eval's convention, as the command line applies it
    table = evaluate(data, metrics=[our_name(m) for m in measures], per_query=True)
    return {
        m: dict(zip(table["query"], table[our_name(m)], strict=True)) for m in measures
    }, evaluate(data, metrics=[our_name(m) for m in measures])


def test_trec_answered_only_equals_pytrec_eval(trec_files):
    qrels, run, tool = trec_eval_values(*trec_files)
    measures = sorted(next(iter(tool.values())))
    assert {"map", "ndcg", "recip_rank", "P_5", "recall_10", "ndcg_cut_20"} <= set(measures)
    # pytrec_eval builds trec_eval 9, which reads the scores as float
    data = read_trec(*trec_files, answered_only=True, single_precision=True)
    assert sorted(tool) == ["q1", "q2", "q4", "q5"]  # pytrec_eval: queries in both files
    assert sorted(np.unique(data.group)) == sorted(tool)
    assert data.n_answered_queries == 4 and "n_answered_queries" not in repr(data)
    assert data.n_dropped_queries == len(set(run) - set(qrels)) == 2
    per_query, means = our_values(data, measures)
    for measure in measures:
        expected = {q: values[measure] for q, values in tool.items()}
        np.testing.assert_allclose(
            [per_query[measure][q] for q in sorted(expected)],
            [expected[q] for q in sorted(expected)],
            rtol=1e-12,
            atol=1e-12,
            err_msg=measure,
        )
        mean = pytrec_eval.compute_aggregated_measure(measure, list(expected.values()))
        assert means[our_name(measure)] == pytest.approx(mean, rel=1e-12, abs=1e-12)


def test_trec_default_is_trec_eval_c(trec_files):
    # the default keeps every query of the qrels, one the run did not answer at 0
    qrels, _, tool = trec_eval_values(*trec_files)
    measures = sorted(next(iter(tool.values())))
    data = read_trec(*trec_files, single_precision=True)  # pytrec_eval: trec_eval 9
    assert sorted(np.unique(data.group)) == sorted(qrels) == ["q1", "q2", "q3", "q4", "q5"]
    assert data.n_dropped_queries == 2
    assert data.n_answered_queries == 4  # q3 is only in the qrels
    assert repr(data).startswith(  # rows: q1 6, q2 3, q3 2, q4 3, q5 2
        "RankingData(n_rows=16, n_queries=5, n_answered_queries=4, n_dropped_queries=2,"
    )
    q3 = data.group == "q3"
    assert np.all(data.y_score[q3] == -np.inf) and sorted(data.doc_id[q3]) == ["a", "b"]
    per_query, means = our_values(data, measures)
    for measure in measures:
        assert per_query[measure]["q3"] == 0.0
        for q, values in tool.items():
            assert per_query[measure][q] == pytest.approx(values[measure], rel=1e-12, abs=1e-12)
        # trec_eval -c: the mean over every query of the qrels, absent ones counting 0
        c_mean = sum(values[measure] for values in tool.values()) / len(qrels)
        assert means[our_name(measure)] == pytest.approx(c_mean, rel=1e-12, abs=1e-12)


UNANSWERED_MEASURES = [
    "map", "P_5", "ndcg", "ndcg_cut_10", "recip_rank", "Rprec", "bpref", "num_rel",
    "num_ret", "num_rel_ret", "recall_10", "map_cut_10", "success_5",
    "iprec_at_recall_0.50", "11pt_avg",
]  # fmt: skip


def test_an_unanswered_query_scores_as_trec_eval_c_scores_it(trec_files):
    # trec_eval -c (trec_eval.c) evaluates a qrels query missing from the run on a
    # ranking of one unjudged document, then sets num_ret to 0; pytrec_eval given
    # that ranking gives its values. Our rows for the query: its judged documents, -inf.
    qrels, run, _ = trec_eval_values(*trec_files)
    run["q3"] = {"not-a-document": 1.0}
    tool = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "bpref", "num_rel",
                "num_ret", "num_rel_ret", "recall", "map_cut", "success", "iprec_at_recall",
                "11pt_avg"}
    ).evaluate(run)  # fmt: skip
    tool["q3"]["num_ret"] = 0.0
    data = read_trec(*trec_files)
    table = evaluate(data.y_true, data.y_score, data.group, metrics=UNANSWERED_MEASURES,
                     convention="trec_eval", doc_id=data.doc_id, judged=data.judged,
                     per_query=True)  # fmt: skip
    q3 = table.set_index("query").loc["q3"]
    assert q3["num_rel"] == 1.0  # not a row of zeros only
    for measure in UNANSWERED_MEASURES:
        assert q3[measure] == pytest.approx(tool["q3"][measure], abs=1e-15), measure


def test_trec_rows_by_hand(trec_files):
    data = read_trec(*trec_files)
    q1, q2 = data.group == "q1", data.group == "q2"
    # docno descending; labels from the qrels, 0 for d9; d11 judged but not returned
    assert data.doc_id[q1].tolist() == ["d9", "d3", "d2", "d11", "d10", "d1"]
    assert data.y_true[q1].tolist() == [0, 0, 1, 3, 1, 2]
    assert data.y_score[q1].tolist() == [0.25, 0.5, 0.5, -np.inf, 0.5, 0.125]
    assert data.doc_id[q2].tolist() == ["d7", "d6", "d5"]
    assert data.y_score[q2].tolist() == [-0.25, 1.0, 1.00000001]  # as written
    single = read_trec(*trec_files, single_precision=True)
    assert single.y_score[q2].tolist() == [-0.25, 1.0, 1.0]  # 1.00000001 as a float
    assert data.y_true.dtype == data.y_score.dtype == np.float64
    assert data.source == f"{trec_files[0]} + {trec_files[1]}"
    # unpacking would drop the convention the rows carry (trec_eval's numbers)
    with pytest.raises(TypeError, match=r"read under convention='trec_eval'.*evaluate\(data"):
        list(data)


def test_trec_tie_order_and_precision_matter(trec_files):
    # the checks above would fail without the docno order or the single precision
    _, _, tool = trec_eval_values(*trec_files)
    data = read_trec(*trec_files, single_precision=True)  # pytrec_eval: trec_eval 9
    q1, q2 = data.group == "q1", data.group == "q2"
    trec_map = tool["q1"]["map"]
    y1, s1, g1 = data.y_true[q1], data.y_score[q1], data.group[q1]
    assert mean_average_precision_score(y1, s1, g1, ties="input") == (
        pytest.approx(trec_map, rel=1e-12)
    )
    assert mean_average_precision_score(y1, s1, g1) != pytest.approx(trec_map, rel=1e-6)
    flipped = np.flatnonzero(q1)[::-1]
    assert mean_average_precision_score(
        data.y_true[flipped], data.y_score[flipped], data.group[flipped], ties="input"
    ) != pytest.approx(trec_map, rel=1e-6)
    double = read_trec(*trec_files)  # the default: scores as written
    assert tool["q2"]["recip_rank"] == 0.5
    y2, s2, g2 = data.y_true[q2], data.y_score[q2], data.group[q2]
    assert mean_reciprocal_rank_score(y2, s2, g2, ties="input") == 0.5
    assert (
        mean_reciprocal_rank_score(double.y_true[q2], double.y_score[q2], g2, ties="input") == 1.0
    )


def test_trec_dicts_give_the_same_rows_as_files(trec_files):
    qrels, run, _ = trec_eval_values(*trec_files)
    from_files = read_trec(*trec_files)
    from_dicts = read_trec(dict(qrels), dict(run))
    for name in ("y_true", "y_score", "group", "doc_id"):
        np.testing.assert_array_equal(getattr(from_dicts, name), getattr(from_files, name))
    assert from_dicts.n_dropped_queries == 2
    assert from_dicts.source == "the qrels dict + the run dict"


def test_read_trec_qrels_and_run_equal_pytrec_eval_parsers(trec_files):
    qrels, run, _ = trec_eval_values(*trec_files)
    assert read_trec_qrels(trec_files[0]) == qrels
    assert read_trec_run(trec_files[1]) == run
    assert read_trec_qrels(qrels) == qrels and read_trec_qrels(qrels) is not qrels
    assert read_trec_run(run) == run


@pytest.mark.parametrize("reader", ["pandas", "plain"])
def test_trec_other_readers_read_the_same(trec_files, monkeypatch, reader):
    fast = read_trec(*trec_files)
    use_trec_reader(monkeypatch, reader)
    without = read_trec(*trec_files)
    for name in ("y_true", "y_score", "group", "doc_id"):
        np.testing.assert_array_equal(getattr(without, name), getattr(fast, name))
    assert read_trec_run(trec_files[1]) == pytrec_eval.parse_run(lines(trec_files[1]))


def test_trec_empty_run(trec_files, tmp_path):
    # an empty results file is refused, as trec_eval refuses it, with or without -c
    empty = write(tmp_path / "empty.run", "")
    for answered_only in (False, True):
        with pytest.raises(ValueError, match="empty.run has no lines.*nothing to evaluate"):
            read_trec(trec_files[0], empty, answered_only=answered_only)


def test_trec_inputs_are_not_modified():
    qrels, run = {"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "c": 0.25}}
    read_trec(qrels, run)
    assert qrels == {"q": {"a": 1, "b": 0}} and run == {"q": {"a": 0.5, "c": 0.25}}


GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\n"
GOOD_RUN = "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 0.25 s\n"
# (which file, its text, bad line, part of the message)
MALFORMED_TREC = [
    ("qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3\n", 3, "expected 4 fields"),
    ("qrels", "q1 0 d1 1\n\nq1 0 d2 0\nq1 0 d3 1 extra\n", 4, "expected 4 fields"),
    ("qrels", "q1 0 d1 1 x\nq1 0 d2 0 x\n", 1, "expected 4 fields"),
    ("qrels", "q1 0 d1 1\nq1 0 d2 1.0\n", 2, "must be an integer"),
    ("qrels", "q1 0 d1 high\n", 1, "must be an integer"),
    ("qrels", "q1 0 d1 1\nq2 0 d1 0\nq1 0 d1 0\n", 3, "appears twice \\(first on line 1\\)"),
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 0.25\n", 2, "expected at least 6 fields"),
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 abc s\n", 2, "must be a finite score"),
    ("run", "q1 Q0 d1 1 nan s\n", 1, "must be a finite score"),
    ("run", "q1 Q0 d1 1 0.5 s\n\n\nq1 Q0 d2 2 1e39 s\n", 4, "single precision"),
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 0.5 s\nq1 Q0 d1 3 0.1 s\n", 3, "appears twice"),
    ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 0.5 s\nq1 Q0 d3 3 0.1\n", 3, "expected at least 6"),
    ("qrels", "# one\nq1 0 d1 1\n  # two\nq1 0 d2\n", 4, "expected 4 fields"),  # lines count
]


# trec_eval's own test inputs, in small: comment lines in qrels
# (test/qrels.test.with-comments: a '#' inside a docno is not a comment), fields after
# the run tag (test/results.trunc), and TREC Web's negative grade -2
TREC_EVAL_QRELS = (
    "# comment here\n301 0 CR93E-10279 0\n# and comment here\n301 0 CR93E-1282 1\n"
    "301 0 CR#93E-1860 2\n301 0 SPAM-1 -2\n302 0 D-1 1\n302 0 D-2 0\n"
)
TREC_EVAL_RUN = (
    "301 Q0 CR93E-1282 1 0.9 tag trailing fields here\n301 Q0 SPAM-1 2 0.8 tag\n"
    "301 Q0 CR#93E-1860 3 0.7 tag\n301 Q0 OTHER 4 0.6 tag x\n"
    "# a comment in the run\n302 Q0 D-2 1 0.5 tag\n302 Q0 D-1 2 0.4 tag\n"
)


@pytest.mark.parametrize("reader", TREC_READERS)
def test_trec_files_that_trec_eval_accepts(tmp_path, monkeypatch, reader):
    use_trec_reader(monkeypatch, reader)
    qrels = write(tmp_path / "qrels.test.with-comments", TREC_EVAL_QRELS)
    run = write(tmp_path / "results.trunc", TREC_EVAL_RUN)
    assert read_trec_qrels(qrels) == {
        "301": {"CR93E-10279": 0, "CR93E-1282": 1, "CR#93E-1860": 2, "SPAM-1": -2},
        "302": {"D-1": 1, "D-2": 0},
    }
    assert read_trec_run(run)["301"] == {
        "CR93E-1282": 0.9, "SPAM-1": 0.8, "CR#93E-1860": 0.7, "OTHER": 0.6
    }
    data = read_trec(qrels, run)
    by_doc = dict(zip(data.doc_id.tolist(), data.y_true.tolist(), strict=True))
    assert by_doc["SPAM-1"] == -2.0 and by_doc["CR#93E-1860"] == 2.0  # kept as graded
    # every measure equals trec_eval's on the same files (negative grade included)
    measures = {"map": "map", "ndcg": "ndcg", "ndcg_cut_3": "ndcg@3", "P_2": "p@2",
                "recip_rank": "mrr", "recall_3": "recall@3"}
    # (pytrec_eval's Python parsers, unlike trec_eval's C ones, take neither comment
    # lines nor trailing fields: the test hands them the lines trec_eval keeps)
    kept = [line.split()[:6] for line in TREC_EVAL_RUN.splitlines() if line[0] != "#"]
    expected = pytrec_eval.RelevanceEvaluator(
        pytrec_eval.parse_qrel([ln for ln in lines(qrels) if ln[0] != "#"]), set(measures)
    ).evaluate(pytrec_eval.parse_run([" ".join(fields) for fields in kept]))
    # the -2 is gain 0 and not relevant under the preset of pytrec_eval (trec_eval 9)
    ours = evaluate(data, metrics=list(measures.values()), convention="pytrec_eval",
                    per_query=True)  # fmt: skip
    for trec_name, name in measures.items():
        np.testing.assert_allclose(
            ours[name], [expected[q][trec_name] for q in ours["query"]], rtol=1e-12,
            err_msg=trec_name,
        )


def test_trec_run_from_a_binary_stream(trec_files):
    with open(trec_files[1], "rb") as handle:
        from_stream = read_trec(trec_files[0], handle)
    from_path = read_trec(*trec_files)
    for name in ("y_true", "y_score", "group", "doc_id"):
        np.testing.assert_array_equal(getattr(from_stream, name), getattr(from_path, name))
    assert from_stream.source == f"{trec_files[0]} + {trec_files[1]}"


@pytest.mark.parametrize(
    "qrels_text, run_text",
    [
        (b"# judged by hand\nq1 0 d1 1\nq1 0 d2 0\n", b"q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.25 tag\n"),
        (b"q1 0 d1 1\nq1 0 d2 0\n", b"q1 Q0 d1 1 0.5 tag extra\nq1 Q0 d2 2 0.25 tag\n"),
    ],
    ids=["comment", "extra-field"],
)
def test_a_bom_is_no_part_of_the_first_query_id(tmp_path, qrels_text, run_text):
    # before: the plain reader (comments, fields after the tag) kept "\ufeffq1"
    bom = b"\xef\xbb\xbf"
    qrels, run = tmp_path / "bom.qrels", tmp_path / "bom.run"
    qrels.write_bytes(bom + qrels_text)
    run.write_bytes(bom + run_text)
    data = read_trec(qrels, run)
    assert data.group.tolist() == ["q1", "q1"]
    # the same rows as without the marks: d1 (relevant) first
    assert data.doc_id.tolist() == ["d2", "d1"] and data.y_true.tolist() == [0.0, 1.0]
    # d1 of the run's first line is retrieved, not a dropped query "\ufeffq1"
    assert data.y_score.tolist() == [0.25, 0.5] and data.n_dropped_queries == 0


@pytest.mark.parametrize("reader", TREC_READERS)
@pytest.mark.parametrize(("kind", "text", "line", "message"), MALFORMED_TREC)
def test_malformed_trec_files(tmp_path, monkeypatch, reader, kind, text, line, message):
    use_trec_reader(monkeypatch, reader)
    qrels = write(tmp_path / "a.qrels", text if kind == "qrels" else GOOD_QRELS)
    run = write(tmp_path / "a.run", text if kind == "run" else GOOD_RUN)
    bad = qrels if kind == "qrels" else run
    with pytest.raises(ValueError, match=where(bad, line) + ".*" + message):
        read_trec(qrels, run)
    reader = read_trec_qrels if kind == "qrels" else read_trec_run
    with pytest.raises(ValueError, match=where(bad, line)):
        reader(bad)


@pytest.mark.parametrize(
    ("qrels", "run", "error", "message"),
    [
        ({1: {"d": 1}}, {"q": {"d": 1.0}}, TypeError, "query ids must be str"),
        ({"q": {2: 1}}, {"q": {"d": 1.0}}, TypeError, "docnos must be str"),
        ({"q": {"d": 1.5}}, {"q": {"d": 1.0}}, TypeError, r"qrels\['q'\]\['d'\] must be an int"),
        ({"q": {"d": True}}, {"q": {"d": 1.0}}, TypeError, "must be an int"),
        ({"q": ["d"]}, {"q": {"d": 1.0}}, TypeError, r"qrels\['q'\] must be a dict"),
        ({"q": {"d": 1}}, {"q": {"d": "high"}}, TypeError, r"run\['q'\]\['d'\] must be a number"),
        ({"q": {"d": 1}}, {"q": {"d": float("nan")}}, ValueError, "must be a finite score"),
        ({"q": {"d": 1}}, [("q", "d", 1.0)], TypeError, "run must be a file path or a dict"),
        ({"q": {"d": 1}}, {"p": {"d": 1.0}}, ValueError, "nothing to evaluate"),
    ],
)
def test_malformed_trec_dicts(qrels, run, error, message):
    with pytest.raises(error, match=message):
        read_trec(qrels, run)


def test_read_trec_parameters(trec_files):
    with pytest.raises(TypeError, match="'answered_only' parameter of read_trec"):
        read_trec(*trec_files, answered_only="yes")
    with pytest.raises(FileNotFoundError, match="missing.run"):
        read_trec(trec_files[0], trec_files[0].parent / "missing.run")


# ---------------------------------------------------------------------------
# LETOR / SVMlight
# ---------------------------------------------------------------------------

LETOR = """
# a LETOR 4.0 style file; qids are not sorted
2 qid:10 1:0.5 3:1.5 #docid = GX-1 inc = 0.5
0 qid:10 2:0.25 #docid = GX-2

1 qid:3 1:1 2:2 3:3 # docid = GX-3 prob = 0.1
0 qid:3 3:0.5 #docid=GX-4
"""


@pytest.fixture
def letor_file(tmp_path):
    return write(tmp_path / "test.letor", LETOR)


def test_letor_equals_sklearn_loader(letor_file, tmp_path):
    X, y, qid = load_svmlight_file(str(letor_file), query_id=True)
    predictions = write(tmp_path / "test.pred", "0.1\n0.9\n-0.5\n2e-1\n")
    data = read_letor(letor_file, scores=predictions)
    np.testing.assert_array_equal(data.y_true, y)
    np.testing.assert_array_equal(data.group, qid)
    np.testing.assert_array_equal(data.X.toarray(), X.toarray())
    # by hand
    assert data.y_true.tolist() == [2, 0, 1, 0] and data.group.tolist() == [10, 10, 3, 3]
    assert data.group.dtype == np.int64
    assert data.doc_id.tolist() == ["GX-1", "GX-2", "GX-3", "GX-4"]
    assert data.y_score.tolist() == [0.1, 0.9, -0.5, 0.2]
    assert data.X.toarray().tolist() == [[0.5, 0, 1.5], [0, 0.25, 0], [1, 2, 3], [0, 0, 0.5]]
    assert str(letor_file) in data.source and str(predictions) in data.source
    # NDCG by hand: both queries put their one relevant row second
    assert ndcg_score(*data) == pytest.approx(1 / math.log2(3))


def test_letor_without_scores_and_with_an_array(letor_file):
    data = read_letor(letor_file)
    assert data.y_score is None and data.y_true.tolist() == [2, 0, 1, 0]
    scores = [3.0, 1.0, 2.0, 4.0]
    data = read_letor(letor_file, scores=scores)
    assert data.y_score.tolist() == scores
    data.y_score[0] = -1.0
    assert scores[0] == 3.0


def test_letor_with_a_fitted_model(letor_file):
    rng = np.random.default_rng(0)
    model = LinearRegression().fit(rng.random((20, 5)), rng.random(20))
    data = read_letor(letor_file, model=model)
    X, _, _ = load_svmlight_file(str(letor_file), query_id=True, n_features=5)
    assert data.X.shape == (4, 5)  # n_features from the model
    np.testing.assert_allclose(data.y_score, model.predict(X.toarray()), rtol=1e-12)


def test_letor_compressed(letor_file, tmp_path):
    packed = tmp_path / "test.letor.gz"
    packed.write_bytes(gzip.compress(letor_file.read_bytes()))
    data = read_letor(packed)
    assert data.doc_id.tolist() == ["GX-1", "GX-2", "GX-3", "GX-4"]
    assert data.group.tolist() == [10, 10, 3, 3]
    bad = tmp_path / "bad.letor.gz"
    bad.write_bytes(gzip.compress(b"1 qid:1 1:1\n0 qid:1 1:x\n"))
    with pytest.raises(ValueError, match=where(bad, 2)):
        read_letor(bad)


def test_letor_doc_id_none_unless_every_line_has_one(tmp_path):
    path = write(tmp_path / "a.txt", "1 qid:1 1:1 #docid = a\n0 qid:1 1:2 # no id\n")
    assert read_letor(path).doc_id is None


def test_real_sample_equals_lambdarank_loader():
    X, y, qid, _ = lambdarank.load("test")
    folder = lambdarank.DATA_DIR
    data = read_letor(
        folder / "rank.test.gz", group_sizes=folder / "rank.test.query.gz", n_features=300
    )
    np.testing.assert_array_equal(data.y_true, y)
    np.testing.assert_array_equal(data.group, qid)
    np.testing.assert_array_equal(data.X.toarray(), X)
    assert data.doc_id is None
    # a model fitted on the training split scores the CSR rows as the dense ones
    X_train, y_train, _, _ = lambdarank.load("train")
    ridge = Ridge(alpha=1.0).fit(X_train, y_train)
    scored = read_letor(
        folder / "rank.test.gz",
        group_sizes=np.loadtxt(folder / "rank.test.query.gz", dtype=int),
        model=ridge,
    )
    np.testing.assert_allclose(scored.y_score, ridge.predict(X), rtol=1e-10, atol=1e-12)


MALFORMED_LETOR = [
    ("2 qid:1 1:0.5\n0 1:0.2\n", 2, "no 'qid:' field"),
    ("# header\n\n2 qid:1 1:0.5\n0 qid:1 1:abc\n", 4, "feature 1 is not a number"),
    ("2 qid:1 1:0.5\nhigh qid:1 1:1\n", 2, "label must be a finite number"),
    ("2 qid:1 1:0.5\nnan qid:1 1:1\n", 2, "label must be a finite number"),
    ("2 qid:1 1:0.5\n1 qid:1 1:1\n0 qid:1 3:1 2:1\n", 3, "indices must increase"),
    ("2 qid:1 1:0.5\n0 qid:a 1:1\n", 2, "query id must be an integer"),
    ("2 qid:1 1:0.5 x\n", 1, "expected 'index:value'"),
]


@pytest.mark.parametrize(("text", "line", "message"), MALFORMED_LETOR)
def test_malformed_letor(tmp_path, text, line, message):
    path = write(tmp_path / "bad.letor", text)
    with pytest.raises(ValueError, match=where(path, line) + ".*" + message):
        read_letor(path)


MALFORMED_PREDICTIONS = [
    ("0.1\n0.2\n0.3\n", 3, "ends with predictions for 3 rows, but .* has 4"),
    ("0.1\n0.2\n0.3\n0.4\n0.5\n", 5, "more predictions than the 4 rows"),
    ("0.1\nabc\n0.3\n0.4\n", 2, "must be a finite number; got 'abc'"),
    ("0.1\n0.2\nnan\n0.4\n", 3, "must be a finite number; got 'nan'"),
    ("0.1 0.2\n0.3 0.4\n", 1, "one prediction per line; got 2 fields"),
]


@pytest.mark.parametrize(("text", "line", "message"), MALFORMED_PREDICTIONS)
def test_malformed_predictions(letor_file, tmp_path, text, line, message):
    predictions = write(tmp_path / "bad.pred", text)
    with pytest.raises(ValueError, match=where(predictions, line) + ".*" + message):
        read_letor(letor_file, scores=predictions)


def test_letor_argument_errors(letor_file, tmp_path):
    with pytest.raises(ValueError, match="scores or model, not both"):
        read_letor(letor_file, scores=[1, 2, 3, 4], model=LinearRegression())
    with pytest.raises(ValueError, match=r"one value per row .*\(4\)"):
        read_letor(letor_file, scores=[1, 2, 3])
    with pytest.raises(ValueError, match="NaN at row 2"):
        read_letor(letor_file, scores=[1, 2, np.nan, 4])
    with pytest.raises(ValueError, match="'qid:' fields and group_sizes"):
        read_letor(letor_file, group_sizes=[2, 2])
    no_qid = write(tmp_path / "plain.txt", "1 1:1\n0 1:2\n1 1:3\n")
    assert read_letor(no_qid, group_sizes=[2, 1]).group.tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="add up to 2 rows, but .* has 3"):
        read_letor(no_qid, group_sizes=[1, 1])
    sizes = write(tmp_path / "plain.query", "2\n0\n")
    with pytest.raises(ValueError, match=where(sizes, 2) + ".*integer >= 1"):
        read_letor(no_qid, group_sizes=sizes)
    sizes = write(tmp_path / "plain.query", "2\n\n")
    with pytest.raises(ValueError, match=where(sizes, 2) + ".*sizes for 2 rows, but .* 3"):
        read_letor(no_qid, group_sizes=sizes)
    with pytest.raises(ValueError, match="'n_features' parameter of read_letor"):
        read_letor(letor_file, n_features=0)
    with pytest.raises(FileNotFoundError, match="nothing.txt"):
        read_letor(tmp_path / "nothing.txt")


def test_read_letor_never_asks_the_loader_for_query_ids(tmp_path, monkeypatch):
    # scikit-learn's load_svmlight_file(query_id=True) appends per line and grows
    # quadratically (100k lines 4.4 s, 400k 65 s); read_letor takes the query ids from
    # its own linear pass and asks the loader for labels and features only
    import sklearn.datasets

    from sklearn_rank_metrics import read_letor

    calls = []
    real = sklearn.datasets.load_svmlight_file

    def recording(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(sklearn.datasets, "load_svmlight_file", recording)
    path = tmp_path / "small.txt"
    path.write_text("2 qid:7 1:0.5 2:1\n0 qid:7 1:0.1\n1 qid:9 2:3\n")
    data = read_letor(path)
    assert calls and all(not call.get("query_id", False) for call in calls)
    assert data.group.tolist() == [7, 7, 9]
    assert data.y_true.tolist() == [2.0, 0.0, 1.0]


def _count_opens(monkeypatch, path):
    opened = []
    real_open = builtins.open

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.fspath(file) == os.fspath(path):
            opened.append(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    return opened


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_letor_opens_the_file_once(tmp_path, monkeypatch, suffix):
    # before: the loader, the qid scan and the row locator each opened the file, so a
    # file replaced during the read mixed the labels of one with the ids of the other
    text = b"2 qid:1 1:0.5 #docid = a\n0 qid:1 1:0.1 #docid = b\n1 qid:2 1:0.3 #docid = c\n"
    path = tmp_path / f"once.txt{suffix}"
    path.write_bytes(gzip.compress(text) if suffix else text)
    opened = _count_opens(monkeypatch, path)
    data = read_letor(path, scores=[1.0, np.inf, 0.5])
    assert len(opened) == 1
    assert data.group.tolist() == [1, 1, 2] and data.doc_id.tolist() == ["a", "b", "c"]


def test_read_letor_names_lines_from_what_it_read(tmp_path, monkeypatch):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"# header\n\n2 qid:1 1:0.5\n# between\n0 qid:1 1:0.1\n\n1 qid:2 1:0.3\n")
    data = read_letor(path)
    path.write_bytes(b"")  # replaced after the read: the locations do not change
    assert [data._row_location(i) for i in range(3)] == [
        f"{path}, line 3", f"{path}, line 5", f"{path}, line 7"
    ]


def test_read_letor_error_names_the_line_of_what_it_read(tmp_path, monkeypatch):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"1 qid:1 1:0.5\n1 qid:x 1:0.5\n")
    opened = _count_opens(monkeypatch, path)
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 2: the query id must be")):
        read_letor(path)
    assert len(opened) == 1


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

TABLE = pd.DataFrame(
    {
        "query": ["007", "007", "7", "7", "7"],
        "doc": ["a", "b", "a", "c", "d"],
        "label": [2, 0, 1, 0, 3],
        "pred": [0.5, 0.25, -np.inf, 1.5, 0.75],
        "other": ["x", "y", "z", "w", "v"],
    }
)
COLUMNS = {"y_true": "label", "y_score": "pred", "group": "query", "doc_id": "doc"}
# read_table parses CSV/TSV with pandas when it is installed, with the csv module
# otherwise; every CSV test runs both ways and must give the same rows and errors
CSV_READERS = ["pandas", "csv module"]


@pytest.fixture(params=CSV_READERS)
def table_reader(request, monkeypatch):
    """read_table as it runs with pandas installed, or as it runs without pandas."""

    def read(*args, **kwargs):
        with monkeypatch.context() as patched:
            if request.param == "csv module":
                patched.setitem(sys.modules, "pandas", None)
            return read_table(*args, **kwargs)

    return read


def check_table_rows(data):
    assert data.y_true.tolist() == [2, 0, 1, 0, 3]
    assert data.y_score.tolist() == [0.5, 0.25, -np.inf, 1.5, 0.75]
    assert data.group.tolist() == ["007", "007", "7", "7", "7"]  # ids are not numbers
    assert data.doc_id.tolist() == ["a", "b", "a", "c", "d"]
    assert data.y_true.dtype == data.y_score.dtype == np.float64


def test_table_parquet(tmp_path):
    path = tmp_path / "table.parquet"
    TABLE.to_parquet(path)
    data = read_table(path, **COLUMNS)
    check_table_rows(data)
    assert data.source == str(path)


@pytest.mark.parametrize(
    "suffix", [".csv", ".tsv", ".csv.gz", ".tsv.bz2", ".csv.xz", ".csv.zip", ".TSV.GZ"]
)
def test_table_files(tmp_path, suffix, table_reader):
    path = tmp_path / f"table{suffix}"
    TABLE.to_csv(path, sep="\t" if ".tsv" in suffix.lower() else ",", index=False)
    data = table_reader(path, **COLUMNS)
    check_table_rows(data)
    assert data.source == str(path)
    assert data.group.dtype == object and data.doc_id.dtype == object


def test_table_text_rules_of_both_readers(tmp_path, table_reader):
    # a byte-order mark, quoted fields with the delimiter inside, spaces around numbers,
    # exponents and infinities: the same rows from both readers
    path = tmp_path / "t.csv"
    path.write_bytes(
        "\ufeffgroup,y_true,y_score,note\n"
        '"q,1",1, 0.5,"x, y"\n'
        '"q,1",0,-inf,z\n'
        "q2,2.0,1e-3,\n".encode()
    )
    data = table_reader(path)
    assert data.group.tolist() == ["q,1", "q,1", "q2"]
    assert data.y_true.tolist() == [1.0, 0.0, 2.0]
    assert data.y_score.tolist() == [0.5, -np.inf, 0.001]


def test_table_frame_and_defaults(tmp_path, table_reader):
    frame = TABLE.copy()
    check_table_rows(read_table(frame, **COLUMNS))
    pd.testing.assert_frame_equal(frame, TABLE)
    numbered = pd.DataFrame({"y_true": [1, 0], "y_score": [0.5, 0.25], "group": [7, 7]})
    assert read_table(numbered).group.dtype == np.int64  # frame ids keep their dtype
    renamed = TABLE.rename(columns={"label": "y_true", "query": "group"})
    data = read_table(renamed, y_score=None)
    assert data.y_score is None and data.doc_id is None
    assert data.y_true.tolist() == [2, 0, 1, 0, 3]
    # blank lines at the end of a CSV are ignored
    path = tmp_path / "t.csv"
    path.write_text("y_true,y_score,group\n1,0.5,q\n0,0.25,q\n\n\n")
    assert table_reader(path).y_true.tolist() == [1, 0]


def test_table_missing_column(tmp_path, table_reader):
    path = tmp_path / "t.csv"
    TABLE.to_csv(path, index=False)
    message = re.escape(f"{path} has no column 'score'") + ".*'y_score'.*'query', 'doc', 'label'"
    with pytest.raises(ValueError, match=message):
        table_reader(path, y_true="label", y_score="score", group="query")
    with pytest.raises(ValueError, match="the DataFrame has no column 'y_true'"):
        read_table(TABLE)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("y_true,y_score,group\n1,0.5,q\n,0.2,q\n", 3, "column 'y_true' .*finite number"),
        ("y_true,y_score,group\n1,0.5,q\n0,0.2,q\n1,abc,q\n", 4, "got 'abc'"),
        ("y_true,y_score,group\n1,0.5,q\n\n1,0.2,q\n", 3, "finite number"),
        ("y_true,y_score,group\n1,0.5,q\n0,NaN,q\n", 3, "y_score.*not NaN"),
        ("y_true,y_score,group\n1,0.5,q\n0,0.3,\n", 3, "column 'group'.*missing"),
        ("y_true,y_score,group\n1,0.5,q\ninf,0.3,q\n", 3, "y_true.*finite"),
        ("y_true,y_score,group\n1,0.5,q\n0,1_000,q\n", 3, "got '1_000'"),
        ("y_true,y_score,group\n1,0.5,q\n0,0.2,NA\n", 3, "column 'group'.*missing"),
    ],
)
def test_malformed_csv(tmp_path, text, line, message, table_reader):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=where(path, line) + ".*" + message):
        table_reader(path)


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (["3", "10", "-2", "0"], [3, 10, -2, 0]),  # canonical integers: int64
        (["3", "010"], ["3", "010"]),  # a leading zero keeps the column as text
        (["3", "+4"], ["3", "+4"]),
        (["3", "4.0"], ["3", "4.0"]),
        (["3", "-0"], ["3", "-0"]),
        (["3", "q"], ["3", "q"]),
        (["1234567890123456789", "1"], ["1234567890123456789", "1"]),  # 19 digits: text
    ],
)
def test_csv_ids_keep_their_type(tmp_path, ids, expected, table_reader):
    path = tmp_path / "ids.csv"
    path.write_text("group,y_true,y_score,doc\n" + "".join(
        f"{query},1,0.5,{query}\n" for query in ids
    ))
    data = table_reader(path, doc_id="doc")
    assert data.group.tolist() == expected and data.doc_id.tolist() == expected
    assert data.group.dtype == (np.int64 if isinstance(expected[0], int) else object)


@pytest.mark.parametrize("quoted", [False, True])
def test_rows_of_the_wrong_length_are_refused(tmp_path, table_reader, quoted):
    # a row with one field too many used to shift the columns silently (score 7.0)
    q = '"q"' if quoted else "q"  # quotes: the csv module parses, with pandas too
    path = tmp_path / "bad.csv"
    path.write_text(f"group,y_true,y_score\n{q},1,0.5\na,1,7,0.1\n")
    with pytest.raises(ValueError, match=where(path, 3) + " has 4 fields but the header has 3"):
        table_reader(path)
    path.write_text(f"group,y_true,y_score\n{q},1,0.5\nq,1\n")
    with pytest.raises(ValueError, match=where(path, 3) + " has 2 fields but the header has 3"):
        table_reader(path)
    gz = tmp_path / "bad.tsv.gz"
    gz.write_bytes(gzip.compress(f"group\ty_true\ty_score\n{q}\t1\t0.5\t9\n".encode()))
    with pytest.raises(ValueError, match=where(gz, 2) + " has 4 fields but the header has 3"):
        table_reader(gz)


def test_cr_only_line_endings_do_not_hide_an_extra_field(tmp_path):
    # before: only \n ended a line, so the whole file was one line of the byte check,
    # and pandas (which ends lines at \r too) read "7" as the score of line 3
    path = tmp_path / "old_mac.csv"
    path.write_bytes(b"group,y_true,y_score\rq1,1,0.5\rq1,0,7,0.1\rq2,1,0.3\r")
    with pytest.raises(ValueError, match=re.escape(f"{path}, line 3: has 4 fields but the "
                                                   "header has 3.")):
        read_table(path, group="group")


def test_cr_only_line_endings_read_as_lines(tmp_path):
    path = tmp_path / "old_mac.csv"
    path.write_bytes(b"group,y_true,y_score\rq1,1,0.5\rq1,0,0.1\rq2,1,0.3")
    data = read_table(path, group="group")
    assert data.y_score.tolist() == [0.5, 0.1, 0.3]
    assert data.group.tolist() == ["q1", "q1", "q2"]


def test_unreadable_tables_name_the_file(tmp_path, table_reader):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"group,y_true,y_score\nq,1,0.5\n\xff\xfe,1,0.5\n")
    expected = f"read_table: {path}, line 3: not UTF-8 text (byte 0xff at column 1)"
    with pytest.raises(ValueError, match=re.escape(expected)):
        table_reader(path)
    path.write_text("")
    with pytest.raises(ValueError, match=re.escape(f"read_table: {path} is empty")):
        table_reader(path)
    path.write_text("group,y_true,y_score\n\n")
    with pytest.raises(ValueError, match=re.escape(f"read_table: {path} has no rows")):
        table_reader(path)
    fake = tmp_path / "fake.csv.gz"
    fake.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match=re.escape(f"read_table: {fake} is not a valid .gz")):
        table_reader(fake)


def test_malformed_parquet_and_frame(tmp_path):
    frame = pd.DataFrame(
        {"y_true": [1.0, 0.0, 2.0], "y_score": [0.1, 0.2, np.nan], "group": [1, 1, 2]},
        index=["a", "b", "c"],
    )
    path = tmp_path / "bad.parquet"
    frame.to_parquet(path)
    with pytest.raises(ValueError, match=re.escape(f"{path}, row 2:") + ".*not NaN"):
        read_table(path)
    with pytest.raises(ValueError, match=re.escape("the DataFrame, row 2 (index 'c'):")):
        read_table(frame)
    other = tmp_path / "bad.parquet.bak"
    other.write_bytes(path.read_bytes())
    with pytest.raises(ValueError, match="suffix"):
        read_table(other)


def test_paths_that_are_directories_or_not_parquet(tmp_path):
    from sklearn_rank_metrics import read_letor, read_table

    with pytest.raises(IsADirectoryError, match=re.escape(f"'{tmp_path}' is a directory")):
        read_table(tmp_path)
    with pytest.raises(IsADirectoryError, match="is a directory, not a file"):
        read_letor(tmp_path)
    fake = tmp_path / "fake.parquet"
    fake.write_bytes(b"not parquet")
    with pytest.raises(ValueError, match=re.escape(f"read_table: {fake} is not a readable")):
        read_table(fake)


@pytest.fixture
def odd_paths(tmp_path):
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return {"directory": tmp_path, "loop": loop, "fifo": fifo, "device": "/dev/null"}


READERS = {
    "read_table": lambda path: read_table(path, group="group"),
    "read_letor": read_letor,
    "read_trec": lambda path: read_trec(path, {"q": {"d": 1.0}}),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_odd_paths_get_their_own_oserror(odd_paths, reader):
    # before: a symlink loop, a FIFO and /dev/null were all "does not exist"
    # (read_trec: FileNotFoundError for a directory too)
    call = READERS[reader]
    with pytest.raises(IsADirectoryError, match="is a directory, not a file"):
        call(odd_paths["directory"])
    with pytest.raises(OSError, match="is a symlink loop") as caught:
        call(odd_paths["loop"])
    assert not isinstance(caught.value, FileNotFoundError)
    with pytest.raises(OSError, match=r"is not a regular file: it is a FIFO") as caught:
        call(odd_paths["fifo"])
    assert not isinstance(caught.value, FileNotFoundError)
    with pytest.raises(OSError, match=r"'/dev/null' is not a regular file: it is a device"):
        call(odd_paths["device"])
    with pytest.raises(FileNotFoundError, match="does not exist"):
        call(odd_paths["directory"] / "missing.csv")


def test_table_optional_dependencies(tmp_path, monkeypatch):
    path = tmp_path / "t.parquet"
    TABLE.to_parquet(path)
    zstd = tmp_path / "t.csv.zst"
    zstd.write_bytes(b"not read")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=re.escape("sklearn-rank-metrics[parquet]")):
        read_table(path, **COLUMNS)
    with pytest.raises(ImportError, match=re.escape("(or pip install pandas pyarrow)")):
        read_table(path, **COLUMNS)
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(ImportError, match=re.escape("needs zstandard for .zst files")):
        read_table(zstd, **COLUMNS)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(
        ImportError,
        match=re.escape("pip install \"sklearn-rank-metrics[pandas]\" (or pip install pandas)"),
    ):
        read_table(path, **COLUMNS)


def test_modules_import_and_read_trec_without_pandas(trec_files):
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules["pandas"] = None
        sys.modules["pyarrow"] = None
        from sklearn_rank_metrics._io import read_trec
        print(read_trec({str(trec_files[0])!r}, {str(trec_files[1])!r}).y_true.tolist())
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str(read_trec(*trec_files).y_true.tolist())


# ---------------------------------------------------------------------------
# Recommender lists
# ---------------------------------------------------------------------------


def apk(actual, predicted, k):
    """Average precision at k as ``ml_metrics.apk`` computes it."""
    predicted = predicted[:k]
    score, hits = 0.0, 0
    for i, item in enumerate(predicted):
        if item in actual and item not in predicted[:i]:
            hits += 1
            score += hits / (i + 1.0)
    if not actual:
        return 0.0
    return score / min(len(actual), k)


def mapk(actual, predicted, k):
    return float(np.mean([apk(a, p, k) for a, p in zip(actual, predicted, strict=True)]))


# user -> (recommended, relevant): hits early and late, a user with no relevant item,
# one with no recommendation, one whose relevant items are mostly not recommended
RECOMMENDED = {
    "u1": ["a", "b", "c", "d", "e", "f"],
    "u2": ["x", "a", "y"],
    "u3": ["m", "n"],
    "u4": [],
    "u5": ["p", "q", "r", "s"],
}
RELEVANT = {
    "u1": ["b", "e", "z"],
    "u2": ["x", "y"],
    "u3": [],
    "u4": ["a", "b"],
    "u5": ["s", "t", "w", "v", "o", "p"],
}


@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
def test_recommendations_mapk_equals_ml_metrics_style(k):
    users = list(RELEVANT)
    actual = [RELEVANT[u] for u in users]
    predicted = [RECOMMENDED[u] for u in users]
    expected = mapk(actual, predicted, k)
    for data in (
        read_recommendations(RECOMMENDED, RELEVANT),
        read_recommendations(predicted, [set(a) for a in actual]),
    ):
        got = mean_average_precision_score(*data, k=k, denominator="min(k,n_relevant)")
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert expected > 0


@pytest.mark.parametrize("k", [1, 2, 4, 6])
def test_recommendations_recall_by_hand(k):
    expected = []
    for user, relevant in RELEVANT.items():
        hits = len(set(RECOMMENDED[user][:k]) & set(relevant))
        expected.append(hits / len(relevant) if relevant else 0.0)
    data = read_recommendations(RECOMMENDED, RELEVANT)
    assert recall_at_k_score(*data, k=k) == pytest.approx(np.mean(expected), rel=1e-12)


def test_recommendations_airbnb_ndcg_at_5():
    # one destination per user, five guesses in order; a miss scores 0
    countries = ["US", "FR", "NDF", "IT", "GB", "ES", "other"]
    rng = np.random.default_rng(1)
    guesses = [list(rng.choice(countries, 5, replace=False)) for _ in range(40)]
    truth = [str(rng.choice(countries)) for _ in range(40)]
    expected = [
        1.0 / math.log2(1 + guess.index(t) + 1) if t in guess else 0.0
        for guess, t in zip(guesses, truth, strict=True)
    ]
    assert 0 < expected.count(0.0) < 40 and len(set(expected)) > 3
    data = read_recommendations(guesses, [{t} for t in truth])
    assert np.unique(data.group).tolist() == list(range(40))  # users are positions
    assert ndcg_score(*data, k=5) == pytest.approx(np.mean(expected), rel=1e-12)


def test_recommendations_rows_by_hand_with_grades():
    data = read_recommendations(
        {"u1": ["a", "b", "c"], "u2": ["z"]}, {"u1": {"c": 3, "d": 1, "a": 0}, "u2": set()}
    )
    assert data.group.tolist() == ["u1"] * 4 + ["u2"]
    assert data.doc_id.tolist() == ["a", "b", "c", "d", "z"]
    assert data.y_true.tolist() == [0, 0, 3, 1, 0]
    assert data.y_score.tolist() == [3, 2, 1, -np.inf, 1]
    # NDCG@3 of u1 by hand (linear gain): DCG = 3 / log2(4); ideal = 3 + 1 / log2(3)
    u1 = data.group == "u1"
    expected = (3 / math.log2(4)) / (3 + 1 / math.log2(3))
    got = ndcg_score(data.y_true[u1], data.y_score[u1], data.group[u1], k=3)
    assert got == pytest.approx(expected)


def test_recommendations_other_containers():
    top = np.array([[3, 1, 2], [5, 4, 6]])  # a 2-D array of item ids, one row per user
    data = read_recommendations(top, [{1}, {6: 2, 7: 1}])
    assert data.group.tolist() == [0, 0, 0, 1, 1, 1, 1]
    assert data.doc_id.tolist() == [3, 1, 2, 5, 4, 6, 7] and data.doc_id.dtype == np.int64
    assert data.y_true.tolist() == [0, 1, 0, 0, 0, 2, 1]
    # lists and arrays mixed across users, on both sides: NumPy scalars are the ids
    mixed = read_recommendations({"a": np.array([1, 2]), "b": [3, 4]},
                                 {"a": {2}, "b": np.array([3, 9])})
    assert mixed.group.tolist() == ["a", "a", "b", "b", "b"]
    assert mixed.doc_id.tolist() == [1, 2, 3, 4, 9] and mixed.doc_id.dtype == np.int64
    assert mixed.y_true.tolist() == [0, 1, 1, 0, 1]
    assert mixed.y_score.tolist() == [2, 1, 2, 1, -np.inf]
    series = pd.Series({"u1": ["a", "b"], "u2": ["c"]})
    data = read_recommendations(series, {"u2": ["c"], "u1": {"b"}})
    assert data.group.tolist() == ["u2", "u1", "u1"]  # the order of `relevant`
    assert data.y_true.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("recommended", "relevant", "error", "message"),
    [
        (
            {"u1": ["a"], "u2": ["a", "b", "c", "b"]},
            {"u1": {"a"}, "u2": {"b"}},
            ValueError,
            "user 'u2' has item 'b' twice .* positions 1 and 3",
        ),
        ({"u1": ["a"]}, {"u1": ["a", "a"]}, ValueError, "user 'u1' lists a relevant item more"),
        ([["a"], ["b"]], [{"a"}], ValueError, "recommended has 2 users and relevant has 1"),
        (
            {"u1": ["a"], "u2": ["b"]},
            {"u1": {"a"}, "u3": {"b"}},
            ValueError,
            r"1 only in recommended \(e.g. \['u2'\]\), 1 only in relevant \(e.g. \['u3'\]\)",
        ),
        ({"u1": ["a"]}, [{"a"}], TypeError, "both be mappings"),
        ({"u1": "abc"}, {"u1": {"a"}}, TypeError, "user 'u1' must be an ordered sequence"),
        ({"u1": {"a", "b"}}, {"u1": {"a"}}, TypeError, "ordered sequence"),
        ([["US", "FR"]], ["US"], TypeError, "wrap a single item"),
        ({"u1": ["a"]}, {"u1": {"a": float("nan")}}, ValueError, "grade of item 'a'"),
        ({"u1": ["a"]}, {"u1": {"a": "high"}}, TypeError, "grade of item 'a'"),
        ({"u1": ["a"], "u2": []}, {"u1": {"a"}, "u2": set()}, ValueError, "user 'u2' has no"),
        ([], [], ValueError, "no user"),
        ([[["a"]]], [{"a"}], TypeError, "hashable"),
    ],
)
def test_malformed_recommendations(recommended, relevant, error, message):
    with pytest.raises(error, match=message):
        read_recommendations(recommended, relevant)


def _long_tables(rng):
    """RECOMMENDED / RELEVANT as long tables: one row per (user, item), rows shuffled."""
    rec_rows = [(u, item, rank) for u, items in RECOMMENDED.items()
                for rank, item in enumerate(items, start=1)]
    rel_rows = [(u, item, grade) for u, items in RELEVANT.items()
                for grade, item in zip(range(1, 9), items, strict=False)]
    recommended = pd.DataFrame(rec_rows, columns=["user", "item", "rank"])
    relevant = pd.DataFrame(rel_rows, columns=["user", "item", "grade"])
    return (recommended.sample(frac=1.0, random_state=rng),
            relevant.sample(frac=1.0, random_state=rng))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recommendations_from_long_tables(seed):
    recommended, relevant = _long_tables(seed)
    graded = {u: dict(zip(items, range(1, 9), strict=False)) for u, items in RELEVANT.items()}
    from_dicts = read_recommendations(RECOMMENDED, graded)
    from_tables = read_recommendations(recommended, relevant, grade="grade")
    metrics = ["ndcg@3", "map", "recall@4", "mrr"]
    by_dicts = evaluate(*from_dicts, metrics=metrics, per_query=True)
    by_tables = evaluate(*from_tables, metrics=metrics, per_query=True)
    # u3 (no relevant item) is only in one table and u4 (no recommendation) only in
    # the other: every user of either table is evaluated, as with the dicts
    assert by_tables["query"].tolist() == by_dicts["query"].tolist() == [
        "u1", "u2", "u3", "u4", "u5"
    ]
    for metric in metrics:
        np.testing.assert_allclose(by_tables[metric], by_dicts[metric], rtol=1e-12)
    # scores instead of ranks: the same order, so the same values
    scored = recommended.assign(score=-recommended["rank"] * 0.5).drop(columns="rank")
    by_scores = evaluate(*read_recommendations(scored, relevant, grade="grade"),
                         metrics=metrics, per_query=True)
    pd.testing.assert_frame_equal(by_scores, by_tables)
    with pytest.raises(ValueError, match="rank 2 twice"):
        read_recommendations(recommended.assign(rank=2), relevant)
    with pytest.raises(ValueError, match="no column 'grade'"):
        read_recommendations(recommended, relevant.drop(columns="grade"), grade="grade")
    with pytest.raises(ValueError, match="rank= or score=, not both"):
        read_recommendations(recommended, relevant, rank="rank", score="rank")
    with pytest.raises(TypeError, match="long table too"):
        read_recommendations(recommended, RELEVANT)


def test_recommendations_survive_a_hash_collision(monkeypatch):
    # every text id hashed to the same code: matches must still be exact (the ids are
    # compared wherever codes agree, and an exact coding takes over)
    import sklearn_rank_metrics._io._recommendations as module

    expected = read_recommendations(RECOMMENDED, RELEVANT)
    monkeypatch.setattr(module, "hash", lambda item: 7, raising=False)
    collided = read_recommendations(RECOMMENDED, RELEVANT)
    for name in ("y_true", "y_score", "group", "doc_id"):
        np.testing.assert_array_equal(getattr(collided, name), getattr(expected, name))


def test_recommendation_inputs_are_not_modified():
    recommended, relevant = {"u": ["a", "b"]}, {"u": {"b": 2}}
    read_recommendations(recommended, relevant)
    assert recommended == {"u": ["a", "b"]} and relevant == {"u": {"b": 2}}


def _same_data(a, b):
    for field in ("y_true", "y_score", "group", "doc_id"):
        left, right = getattr(a, field), getattr(b, field)
        assert left.dtype == right.dtype, field
        assert left.tolist() == right.tolist(), field


def test_equal_length_int_arrays_take_the_matrix_path(monkeypatch):
    # before: every item became a NumPy scalar in a Python list (100k users x 50 items:
    # 4 s); now the arrays are stacked into one 2-D array
    stacked = []
    original = _recommendations._integer_matrix

    def spy(lists, kinds):
        result = original(lists, kinds)
        stacked.append(result is not None)
        return result

    monkeypatch.setattr(_recommendations, "_integer_matrix", spy)
    read_recommendations([np.array([3, 1, 2]), np.array([5, 4, 6])], [{1}, {6: 2, 7: 1}])
    assert stacked == [True]


def _general_path(monkeypatch):
    monkeypatch.setattr(_recommendations, "_integer_matrix", lambda lists, kinds: None)


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("int32", "int64"), ("uint8", "int16")])
def test_fast_path_gives_the_rows_of_the_general_path(monkeypatch, dtypes):
    recommended = [np.array([3, 1, 2], dtype=dtypes[0]), np.array([5, 4, 6], dtype=dtypes[1]),
                   np.array([7, 8, 9], dtype=dtypes[0])]
    relevant = [{1, 9}, {6: 2, 7: 1}, set()]
    fast = read_recommendations(recommended, relevant)
    # by hand: user 0 rows 3 1 2 then missed 9; user 1 rows 5 4 6 then missed 7
    assert fast.group.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2]
    assert fast.doc_id.tolist() == [3, 1, 2, 9, 5, 4, 6, 7, 7, 8, 9]
    assert fast.y_true.tolist() == [0, 1, 0, 1, 0, 0, 2, 1, 0, 0, 0]
    assert fast.y_score.tolist() == [3, 2, 1, -np.inf, 3, 2, 1, -np.inf, 3, 2, 1]
    _general_path(monkeypatch)
    _same_data(fast, read_recommendations(recommended, relevant))


def test_fast_path_as_a_mapping_gives_the_rows_of_the_general_path(monkeypatch):
    recommended = {"b": np.array([10, 20]), "a": np.array([30, 10])}
    relevant = {"a": {10: 3}, "b": [20, 40]}
    fast = read_recommendations(recommended, relevant)
    assert fast.group.tolist() == ["a", "a", "b", "b", "b"]
    assert fast.doc_id.tolist() == [30, 10, 10, 20, 40]
    assert fast.y_true.tolist() == [0, 3, 0, 1, 1]
    _general_path(monkeypatch)
    _same_data(fast, read_recommendations(recommended, relevant))


def test_fast_path_refuses_a_duplicate_naming_user_and_positions():
    with pytest.raises(ValueError, match=r"user 1 has item 4 twice .* positions 0 and 2"):
        read_recommendations([np.array([1, 2, 3]), np.array([4, 5, 4])], [{1}, {4}])


@pytest.mark.parametrize(
    "recommended",
    [
        [np.array([1, 2, 3]), np.array([4, 5])],  # mixed lengths
        [np.array([1, 2]), [4, 5]],  # an array and a list
        [np.array([1, 2]), np.array([4.0, 5.0])],  # an int and a float array
        [np.array([1, 2], dtype=np.uint64), np.array([4, 5])],  # would promote to float
    ],
)
def test_other_containers_keep_the_general_path(recommended):
    assert _recommendations._integer_matrix(recommended, set(map(type, recommended))) is None
    data = read_recommendations(recommended, [{2}, {5}])
    n0 = len(recommended[0])
    assert data.group.tolist() == [0] * n0 + [1] * len(recommended[1])
    assert [int(v) for v in data.doc_id] == [int(v) for v in list(recommended[0]) +
                                             list(recommended[1])]
    assert data.y_true.tolist() == [float(v == 2) for v in recommended[0]] + [
        float(v == 5) for v in recommended[1]
    ]


def test_mixed_lengths_rows_and_errors():
    recommended = [np.array([1, 2, 3]), np.array([9]), np.array([], dtype=np.int64)]
    data = read_recommendations(recommended, [{3}, {9: 2}, {4}])
    assert data.group.tolist() == [0, 0, 0, 1, 2]
    assert data.doc_id.tolist() == [1, 2, 3, 9, 4]
    assert data.y_true.tolist() == [0, 0, 1, 2, 1]
    assert data.y_score.tolist() == [3, 2, 1, 1, -np.inf]
    with pytest.raises(ValueError, match=r"user 1 has item 9 twice .* positions 0 and 1"):
        read_recommendations([np.array([1, 2, 3]), np.array([9, 9])], [{3}, {9}])
    with pytest.raises(TypeError, match="user 1 must be an ordered sequence"):
        read_recommendations([np.array([1, 2]), np.array([[1, 2]])], [{1}, {1}])
    with pytest.raises(TypeError, match="user 0 must be an ordered sequence"):
        read_recommendations([{1, 2}, np.array([1, 2])], [{1}, {1}])
    with pytest.raises(ValueError, match="user 1 has no recommendations and no relevant"):
        read_recommendations([np.array([1]), np.array([], dtype=np.int64)], [{1}, set()])


def test_integer_ids_joined_without_python_ints_give_the_same_ids():
    # a top-N matrix with relevant ids beyond the matrix's own dtype
    top = np.array([[1, 2], [3, 4]], dtype=np.int32)
    data = read_recommendations(top, [{2, 2**40}, {3: 1}])
    assert data.doc_id.dtype == np.int64
    assert data.doc_id.tolist() == [1, 2, 2**40, 3, 4]
    assert data.y_true.tolist() == [0, 1, 1, 1, 0]
    huge = read_recommendations(top, [{2, 2**70}, {3}])  # beyond int64: object ids
    assert huge.doc_id.tolist() == [1, 2, 2**70, 3, 4]
    booleans = read_recommendations(top, [{True}, {3}])  # True == 1, as in Python
    assert booleans.y_true.tolist() == [1, 0, 1, 0]


# ---------------------------------------------------------------------------
# RankingData
# ---------------------------------------------------------------------------


def test_ranking_data_unpacks_and_checks_lengths():
    data = RankingData(np.array([1.0, 0.0, 2.0]), None, np.array(["a", "a", "b"]), source="f")
    y_true, y_score, group = data
    assert y_score is None and group.tolist() == ["a", "a", "b"]
    assert repr(data) == "RankingData(n_rows=3, n_queries=2, y_score=None, source='f')"
    with pytest.raises(ValueError, match="group has 2 rows but y_true has 3"):
        RankingData(np.zeros(3), np.zeros(3), np.zeros(2))


# ---------------------------------------------------------------------------
# Memory in proportion to the input: one long id, a file that expands a lot
# ---------------------------------------------------------------------------


LONG = 5000  # characters of the one hostile id
N_ROWS = 10_000


def _peak_bytes(call):
    """Peak traced allocation (bytes) while ``call()`` runs."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _trec_files(tmp_path):
    """A run of N_ROWS rows (100 queries) whose first docno has LONG characters."""
    run, qrels = tmp_path / "long.run", tmp_path / "long.qrels"
    lines = [
        f"q{i // 100} Q0 {'D' * LONG if i == 0 else f'doc{i}'} {i % 100 + 1} "
        f"{1.0 / (i % 100 + 1)} tag\n"
        for i in range(N_ROWS)
    ]
    run.write_text("".join(lines))
    qrels.write_text("".join(f"q{i // 100} 0 doc{i} {i % 3}\n" for i in range(0, N_ROWS, 7)))
    return qrels, run


def test_a_long_docno_costs_memory_in_proportion_to_the_run(tmp_path):
    # before: every docno was copied as <U5000 (N_ROWS x 5000 x 4 bytes = 200 MB) when
    # joining, and again when a convention sorted the docnos
    qrels, run = _trec_files(tmp_path)
    size = run.stat().st_size + qrels.stat().st_size

    def read_and_evaluate():
        data = read_trec(qrels, run)
        assert data.doc_id[-1] == "D" * LONG or "D" * LONG in data.doc_id.tolist()
        evaluate(data, metrics=["ndcg@10"], convention="trec_eval")

    assert _peak_bytes(read_and_evaluate) < 30 * size


def test_a_long_docno_in_a_file_with_comments_costs_memory_in_proportion(tmp_path):
    # the plain reader (a comment line sends the file there) built <U5000 arrays too
    qrels, run = _trec_files(tmp_path)
    run.write_text("# a comment\n" + run.read_text())
    size = run.stat().st_size + qrels.stat().st_size
    assert _peak_bytes(lambda: read_trec(qrels, run)) < 30 * size


def test_a_long_id_in_a_csv_costs_memory_in_proportion(tmp_path):
    # before: _typed_ids copied the ids as <U5000 to check whether they are integers
    path = tmp_path / "long.csv"
    rows = [f"{'G' * LONG if i == 0 else i // 10},{i % 2},{i / N_ROWS}" for i in range(N_ROWS)]
    path.write_text("group,y_true,y_score\n" + "\n".join(rows) + "\n")
    size = path.stat().st_size
    data = read_table(path, group="group")
    assert data.group[0] == "G" * LONG and data.group[1] == "0"  # text: not all integers
    assert _peak_bytes(lambda: read_table(path, group="group")) < 30 * size


def test_a_long_docid_in_letor_costs_memory_in_proportion(tmp_path):
    path = tmp_path / "long.txt"
    lines = [
        f"{i % 3} qid:{i // 10} 1:{i / N_ROWS} #docid = {'X' * LONG if i == 0 else f'd{i}'}\n"
        for i in range(N_ROWS)
    ]
    path.write_text("".join(lines))
    size = path.stat().st_size
    data = read_letor(path)
    assert data.doc_id[0] == "X" * LONG and data.doc_id[1] == "d1"
    assert _peak_bytes(lambda: read_letor(path)) < 30 * size


def test_a_long_user_id_costs_memory_in_proportion():
    users = {("U" * LONG if u == 0 else f"u{u}"): [f"i{u}", "x"] for u in range(N_ROWS // 2)}
    relevant = {user: {"x"} for user in users}
    data = read_recommendations(users, relevant)
    assert data.group[0] == "U" * LONG
    # before: 300 MB (the user ids as <U5000, repeated for every row); now about 360
    # bytes a user, whatever the longest id
    assert _peak_bytes(lambda: read_recommendations(users, relevant)) < 1000 * len(users)


def test_a_small_gz_that_expands_to_a_lot_is_refused(tmp_path):
    # before: decompressed whole (a 249 KB file reached 6.3 GB of memory)
    path = tmp_path / "bomb.csv.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        handle.write(b"group,y_true,y_score\n")
        for _ in range(4):
            handle.write(b"q1,1,0.5\n" * 1_000_000)  # 36 MB, compressed to ~70 KB
    size = path.stat().st_size
    message = (
        f"read_table: {path} expands to more than {16 * 2**20:,} bytes when decompressed "
        f"(100 times its {size:,} bytes, or 16 MiB for a small file)"
    )
    peak = []

    def read():
        with pytest.raises(ValueError, match=re.escape(message)):
            read_table(path, group="group")

    peak.append(_peak_bytes(read))
    assert peak[0] < 2 * (16 * 2**20 + 2**24)  # the limit and one block, at most twice


def test_a_gz_within_the_limit_reads(tmp_path):
    path = tmp_path / "ok.csv.gz"
    with gzip.open(path, "wb") as handle:
        handle.write(b"group,y_true,y_score\nq1,1,0.5\nq1,0,0.25\n")
    data = read_table(path, group="group")
    assert data.y_score.tolist() == [0.5, 0.25]


def test_a_letor_gz_that_expands_to_a_lot_is_refused(tmp_path):
    path = tmp_path / "bomb.txt.gz"
    with gzip.open(path, "wb", compresslevel=9) as handle:
        for _ in range(3):
            handle.write(b"1 qid:1 1:0.5\n" * 1_000_000)
    with pytest.raises(ValueError, match=r"read_letor: .*bomb\.txt\.gz expands to more than"):
        read_letor(path)
