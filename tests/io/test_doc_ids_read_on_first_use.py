"""The TREC readers hold docnos as text bytes (TextRows) until ``doc_id`` is read.

What a user sees must not change: ``data.doc_id`` is the same read-only object array
of str, every time, in the rows' order; copies, pickles and ``dataclasses.replace``
keep the ids and the tie order they give.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from sklearn_rank_metrics import align_trec_runs, evaluate, read_trec
from sklearn_rank_metrics._engine._text_rows import TextRows, decoded_texts
from sklearn_rank_metrics._io._ranking_data import given_doc_id

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 é9 1\nq2 0 d5 2\n"
# q1: d3 and d1 tied at 0.5 (trec_eval ranks d3 first: docno descending)
RUN = "q1 Q0 d3 1 0.5 r\nq1 Q0 d1 2 0.5 r\nq1 Q0 é9 3 0.2 r\nq2 Q0 d5 1 0.1 r\n"


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS, encoding="utf-8")
    run.write_text(RUN, encoding="utf-8")
    return qrels, run


def test_text_rows_decode_to_the_ids_in_row_order():
    texts = ["a", "bb", "é9", "ccc"]
    width = max(len(text.encode()) for text in texts)
    matrix = np.zeros((len(texts), width), dtype=np.uint8)
    for row, text in enumerate(texts):
        matrix[row, : len(text.encode())] = list(text.encode())
    assert decoded_texts(matrix).tolist() == texts
    rows = TextRows(matrix, np.array([3, 0, 0, 2]))
    assert len(rows) == 4 and rows.shape == (4,) and rows.made() is None
    ids = rows.objects()
    assert ids.tolist() == ["ccc", "a", "a", "é9"]
    assert ids.dtype == object and not ids.flags.writeable
    assert rows.objects() is ids and rows.made() is ids  # made once
    assert np.asarray(rows) is ids


def test_read_trec_doc_id_is_made_on_first_read_and_kept(files):
    data = read_trec(*files)
    assert isinstance(given_doc_id(data), TextRows)
    ids = data.doc_id
    # rows by query, then docno descending (code point order: "é9" after "d3")
    assert ids.tolist() == ["é9", "d3", "d2", "d1", "d5"]
    assert ids.dtype == object and not ids.flags.writeable
    assert data.doc_id is ids


def test_evaluate_gives_trec_eval_numbers_before_and_after_the_ids_are_read(files):
    # q1: d3 (0), d1 (1) tied at 0.5: trec_eval ranks d3 first, then é9 (1) at 0.2;
    # AP = (1/2 + 2/3) / 2; q2: d5 relevant at rank 1
    expected = ((1 / 2 + 2 / 3) / 2 + 1.0) / 2
    data = read_trec(*files)
    assert evaluate(data, metrics=["map"])["map"] == pytest.approx(expected)
    assert len(data.doc_id) == 5  # read: made str
    assert evaluate(data, metrics=["map"])["map"] == pytest.approx(expected)


def test_copies_keep_the_ids_and_their_tie_order(files):
    data = read_trec(*files)
    expected = evaluate(data, metrics=["map"])["map"]
    restored = pickle.loads(pickle.dumps(data))
    assert restored.doc_id.tolist() == data.doc_id.tolist()
    assert evaluate(restored, metrics=["map"])["map"] == expected
    rescored = dataclasses.replace(data, y_score=data.y_score.copy())
    assert rescored.doc_id is data.doc_id
    assert evaluate(rescored, metrics=["map"])["map"] == expected
    # other ids: the reader's tie order is not read for them (no stale codes)
    renamed = dataclasses.replace(data, doc_id=np.array(["a", "z", "b", "c", "d"], dtype=object))
    carried = renamed.carried()["doc_id"]
    assert getattr(carried, "text_codes", None) is None


def test_the_doc_id_field_cannot_be_assigned(files):
    data = read_trec(*files)
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.doc_id = None  # type: ignore[misc]


def test_aligned_runs_of_one_run_hold_the_ids_as_text_too(files):
    qrels, run = files
    aligned = align_trec_runs(qrels, [run])
    assert isinstance(given_doc_id(aligned), TextRows)
    assert aligned.doc_id.tolist() == ["é9", "d3", "d2", "d1", "d5"]
    assert aligned.run(str(run.name)).doc_id.tolist() == aligned.doc_id.tolist()


def test_evaluate_and_the_command_line_never_make_the_str(files, capsys):
    from sklearn_rank_metrics.__main__ import main

    data = read_trec(*files)
    evaluate(data, metrics=["map", "bpref", "ndcg@10"])
    assert given_doc_id(data).made() is None  # the codes in text order sufficed
    qrels, run = files
    main(["evaluate", "--qrels", str(qrels), "--run", str(run), "--metrics", "map"])
    assert "0.7917" in capsys.readouterr().out  # ((1/2 + 2/3) / 2 + 1) / 2


def test_a_report_never_makes_the_str(files):
    from sklearn_rank_metrics import ranking_report

    data = read_trec(*files)
    ranking_report(data, metrics=["map"])
    assert given_doc_id(data).made() is None


def test_rows_pickled_before_ids_were_held_as_text_still_give_their_ids():
    # a pickle of an earlier version holds the ids under the field's own name
    from sklearn_rank_metrics import RankingData

    old = object.__new__(RankingData)
    made = RankingData([1.0, 0.0], [0.5, 0.2], ["q", "q"], doc_id=np.array(["a", "b"], object))
    state = dict(made.__dict__)
    state["doc_id"] = state.pop("_doc_id_given")
    old.__dict__.update(state)
    assert old.doc_id.tolist() == ["a", "b"]
    assert evaluate(old, metrics=["map"], convention="trec_eval")["map"] == 1.0


def test_the_field_keeps_its_default_and_its_place():
    import inspect

    from sklearn_rank_metrics import AlignedRuns, RankingData

    assert RankingData.doc_id is None  # the field's default, as before
    assert inspect.signature(RankingData).parameters["doc_id"].default is None
    # AlignedRuns' doc_id has no default: still a required argument
    parameter = inspect.signature(AlignedRuns).parameters["doc_id"]
    assert parameter.default is inspect.Parameter.empty
    assert "doc_id" in [field.name for field in dataclasses.fields(AlignedRuns)]
