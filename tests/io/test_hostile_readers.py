"""Issue 32 (hostile input, round 3): the readers' memory, line endings, BOM, single
read, path errors and mixed id types.

Every test here failed before its fix (checked against the previous commit).
"""

from __future__ import annotations

import builtins
import gzip
import os
import re
import tracemalloc

import numpy as np
import pytest

from sklearn_rank_metrics import (
    align_recommendations,
    evaluate,
    read_letor,
    read_recommendations,
    read_table,
    read_trec,
)

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


# --------------------------------------------------------------------------- memory


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


# --------------------------------------------------------------------------- line ends, BOM


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


# --------------------------------------------------------------------------- read once


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


# --------------------------------------------------------------------------- path errors


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


# --------------------------------------------------------------------------- mixed ids


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
