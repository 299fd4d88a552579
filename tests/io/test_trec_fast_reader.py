"""The NumPy reader of TREC files (``_trec._fast_trec_file``) against the plain one.

The plain Python scanner (``_trec._scan_trec_file``) states the rules: fields split by
``str.split()``, lines by ``bytes.splitlines()``, comment lines, labels matching
``INT_PATTERN`` and scores read by ``float()``. The NumPy reader must give the same
rows on every file it takes, take the common variants itself (tabs, runs of spaces,
CR line ends, blank and comment lines, fields after the tag, non-ASCII docnos), and
hand every other file (and every bad one) to the readers that name the line.
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest

from sklearn_rank_metrics._engine._text_rows import decoded_texts
from sklearn_rank_metrics._io import _trec, read_trec, read_trec_qrels, read_trec_run

QRELS = (
    "q1 0 d1 2\nq1 0 d2 1\nq2 0 d5 1\nq1 0 d3 0\nq1 0 d10 1\nq1 0 d11 3\nq2 0 d6 -2\n"
    "q2 0 d7 +2\nq3 0 a 1\nq3 0 b 0\nq4 0 x 0\nq10 0 d1 1\n"
)
RUN = (
    "q1 Q0 d2 1 0.5 sys\nq10 Q0 d2 1 7 sys\nq1 Q0 d3 2 0.5 sys\nq1 Q0 d10 3 0.5 sys\n"
    "q1 Q0 d9 4 0.25 sys\nq1 Q0 d1 5 1.25e-1 sys\nq2 Q0 d6 1 1.0 sys\n"
    "q2 Q0 d5 2 1.00000001 sys\nq2 Q0 d7 3 -2.5e-1 sys\nq9 Q0 d1 1 3 sys\n"
    "q4 Q0 y 1 +.5 sys\nq4 Q0 z 2 5. sys\nq10 Q0 d1 2 7 other\n"
)


def as_text(text: str, variant: str) -> bytes:
    """The same lines written another way that the TREC format allows."""
    lines = text.splitlines()
    if variant == "tabs":
        lines = [line.replace(" ", "\t") for line in lines]
    elif variant == "spaces":
        lines = ["  " + line.replace(" ", " \t  ") + "   " for line in lines]
    elif variant == "crlf":
        return ("\r\n".join(lines) + "\r\n").encode()
    elif variant == "cr":
        return ("\r".join(lines)).encode()  # no line end after the last line either
    elif variant == "blank-and-comments":
        lines = ["# a comment", "", *lines[:3], "   ", "  #another  one", *lines[3:], "", ""]
    elif variant == "bom":
        return b"\xef\xbb\xbf" + ("\n".join(lines) + "\n").encode()
    return ("\n".join(lines) + "\n").encode()


VARIANTS = ["plain", "tabs", "spaces", "crlf", "cr", "blank-and-comments", "bom"]


def read_with(monkeypatch, reader, qrels, run):
    with monkeypatch.context() as patch:
        if reader != "numpy":
            patch.setattr(_trec, "_fast_trec_file", lambda *arguments: None)
            patch.setitem(sys.modules, "pandas", None)
        return read_trec(qrels, run), read_trec_qrels(qrels), read_trec_run(run)


def assert_same(fast, plain):
    for name in ("y_true", "y_score", "group", "doc_id", "judged", "run_position"):
        left, right = getattr(fast[0], name), getattr(plain[0], name)
        assert left.dtype == right.dtype, name
        np.testing.assert_array_equal(left, right, err_msg=name)
    assert fast[0].n_dropped_queries == plain[0].n_dropped_queries
    assert fast[0].n_answered_queries == plain[0].n_answered_queries
    assert fast[1] == plain[1] and fast[2] == plain[2]
    # the same dict order too (queries sorted, documents in file order)
    assert [list(d) for d in fast[1].values()] == [list(d) for d in plain[1].values()]


def no_other_reader(monkeypatch):
    """Fail if a file reaches the pandas or the plain reader."""

    def refuse(*args):
        raise AssertionError("the file left the NumPy reader")

    monkeypatch.setattr(_trec, "_scan_trec_file", refuse)
    monkeypatch.setattr(_trec, "_read_trec_file_pandas", refuse)


@pytest.mark.parametrize("variant", VARIANTS)
def test_variants_read_as_the_plain_reader_reads_them(tmp_path, monkeypatch, variant):
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_bytes(as_text(QRELS, variant))
    run.write_bytes(as_text(RUN, variant))
    plain = read_with(monkeypatch, "plain", qrels, run)
    no_other_reader(monkeypatch)  # every variant is the NumPy reader's own
    fast = read_with(monkeypatch, "numpy", qrels, run)
    assert_same(fast, plain)
    # by hand: q1's rows by docno descending, d11 judged and not returned
    q1 = fast[0].group == "q1"
    assert fast[0].doc_id[q1].tolist() == ["d9", "d3", "d2", "d11", "d10", "d1"]
    assert fast[0].y_true[q1].tolist() == [0, 0, 1, 3, 1, 2]
    assert fast[0].y_score[q1].tolist() == [0.25, 0.5, 0.5, -np.inf, 0.5, 0.125]
    assert fast[2]["q4"] == {"y": 0.5, "z": 5.0} and fast[1]["q2"]["d6"] == -2


def test_fields_after_the_tag_and_the_tag(tmp_path, monkeypatch):
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_text(QRELS)
    run.write_text("q1 Q0 d1 1 0.5 sys trailing fields\nq1 Q0 d2 2 0.25 last x\n")
    no_other_reader(monkeypatch)
    table = _trec.read_trec_file(run, "run")
    assert table.tag == "last"  # trec_eval's runid: the tag of the last line
    assert read_trec_run(run) == {"q1": {"d1": 0.5, "d2": 0.25}}


def test_non_ascii_docnos_sort_by_code_point(tmp_path, monkeypatch):
    # UTF-8 byte order is code point order (trec_eval's strcmp): "z" < "é" < "中"
    docs = ["中", "é", "z", "éa", "e\u0301"]
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_text("".join(f"q 0 {d} 1\n" for d in docs), encoding="utf-8")
    run.write_text("".join(f"q Q0 {d} 1 0.5 s\n" for d in docs), encoding="utf-8")
    plain = read_with(monkeypatch, "plain", qrels, run)
    no_other_reader(monkeypatch)
    fast = read_with(monkeypatch, "numpy", qrels, run)
    assert_same(fast, plain)
    assert fast[0].doc_id.tolist() == sorted(docs, reverse=True)


@pytest.mark.parametrize(
    "hostile",
    [b"q1 0 d\x0b1 1\n", b"q1 0 d\xc2\xa01 1\n", b"q1 0 d\x001 1\n", b"q1 0 d\xff 1\n",
     b"q1 0 d\x1c1 1\n"],
    ids=["vertical-tab", "no-break-space", "nul", "not-utf8", "file-separator"],
)
def test_files_the_numpy_reader_declines_read_as_before(tmp_path, monkeypatch, hostile):
    # whitespace that str.split() splits at (or a NUL, or bad UTF-8): the readers
    # after it read the file as they did before it (pandas' parser splits at spaces
    # and tabs only, so "d\xa01" is one docno there and a bad line for the plain one)
    path = tmp_path / "a.qrels"
    path.write_bytes(b"q0 0 d 1\n" + hostile)
    assert _trec._fast_trec_file(path.read_bytes(), str(path), "qrels") is None
    outcomes = []
    for numpy_reader in (True, False):
        try:
            with monkeypatch.context() as patch:
                if not numpy_reader:
                    patch.setattr(_trec, "_fast_trec_file", lambda *arguments: None)
                outcomes.append(read_trec_qrels(path))
        except ValueError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


def test_long_and_odd_ids(tmp_path, monkeypatch):
    # ids longer than 8 bytes and sharing long prefixes: sorted over several words
    rng = np.random.default_rng(0)
    docs = sorted({"doc-" + "x" * int(rng.integers(0, 30)) + str(int(rng.integers(0, 50)))
                   for _ in range(300)})
    queries = ["1", "10", "2", "q" * 17]
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_text("".join(f"{q} 0 {d} {i % 3}\n" for q in queries
                             for i, d in enumerate(docs[::3])))
    run.write_text("".join(f"{q} Q0 {d} {i} {i % 7 / 8} t\n" for q in queries[1:]
                           for i, d in enumerate(docs[::-2])))
    plain = read_with(monkeypatch, "plain", qrels, run)
    no_other_reader(monkeypatch)
    fast = read_with(monkeypatch, "numpy", qrels, run)
    assert_same(fast, plain)
    assert fast[0].group[0] == "1" and fast[0].group[-1] == "q" * 17  # "10" < "2"


def test_one_object_per_distinct_id(tmp_path):
    # no Python object per line: the rows share one str per distinct docno and query
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_text("".join(f"q{q} 0 d{d} 1\n" for q in range(50) for d in range(0, 40, 3)))
    run.write_text("".join(f"q{q} Q0 d{d} {d} {d / 40} t\n" for q in range(50)
                           for d in range(40)))
    data = read_trec(qrels, run)
    assert len(data.doc_id) == 50 * 40
    assert len({id(doc) for doc in data.doc_id}) == 40
    assert len({id(query) for query in data.group}) == 50


def score_texts(seed):
    rand = random.Random(seed)
    texts = []
    for _ in range(3000):
        kind = rand.random()
        if kind < 0.3:
            text = f"{rand.random() * 10 ** rand.randint(-8, 8):.{rand.randint(0, 17)}f}"
        elif kind < 0.5:
            text = repr(rand.uniform(-1e6, 1e6))
        elif kind < 0.8:
            digits = "".join(rand.choice("0123456789") for _ in range(rand.randint(1, 22)))
            point = rand.randint(0, len(digits))
            text = digits[:point] + rand.choice([".", ""]) + digits[point:]
            text += rand.choice(["", "", "e5", "E-7", "e+0"])
        else:
            text = f"{rand.random():.3f}"
        if text[0] not in "+-" and rand.random() < 0.3:
            text = rand.choice("+-") + text
        texts.append(text)
    return texts + ["0", "-0", "+0.0", ".5", "5.", "-.0", "999999999999999", "0.000000000000001",
                    "123456789012345.6", "9007199254740993", "1e-320", "3.4028234e38"]


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_are_float_of_the_text(seed):
    texts = score_texts(seed)
    width = max(map(len, texts))
    matrix = np.zeros((len(texts), width), dtype=np.uint8)
    for row, text in enumerate(texts):
        matrix[row, : len(text)] = list(text.encode())
    scores = _trec._scores(matrix)
    expected = np.array([float(text) for text in texts])
    # bit for bit, the sign of zero included
    assert scores.view(np.int64).tolist() == expected.view(np.int64).tolist()


def test_a_file_of_scores_reads_as_float_reads_them(tmp_path, monkeypatch):
    texts = score_texts(2)
    run = tmp_path / "a.run"
    run.write_text("".join(f"q Q0 d{i} {i} {t} s\n" for i, t in enumerate(texts)))
    no_other_reader(monkeypatch)
    scores = read_trec_run(run)["q"]
    assert [scores[f"d{i}"] for i in range(len(texts))] == [float(t) for t in texts]


@pytest.mark.parametrize(
    ("kind", "text", "line", "message"),
    [
        ("qrels", "q1 0 d1 1\nq1 0 d2 --1\n", 2, "must be an integer"),
        ("qrels", "q1 0 d1 1\nq1 0 d2 1-\n", 2, "must be an integer"),
        ("qrels", "q1 0 d1 9223372036854775807\nq1 0 d2 -9223372036854775808\n", 2,
         "must be an integer"),
        ("qrels", "q1 0 d1 1\nq1 0 d2 +\n", 2, "must be an integer"),
        ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 1e5e s\n", 2, "must be a finite score"),
        ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 . s\n", 2, "must be a finite score"),
        ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 1.2.3 s\n", 2, "must be a finite score"),
        ("run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 inf s\n", 2, "must be a finite score"),
        ("run", "q1 Q0 d1 1 1e400 s\n", 1, "single precision"),
        ("run", "q1 Q0 d1 1 0.5 s\r\nq1\tQ0 d2 2 0.5 s\r\n  q1 Q0  d1 3 0.1 s\r\n", 3,
         "appears twice"),
        ("qrels", "\n\n  # c\nq1 0 d1 1\nq2 0 d1 1\n\tq1  0 d1   0  \n", 6, "appears twice"),
    ],
)
def test_bad_lines_are_named_whatever_the_spacing(tmp_path, kind, text, line, message):
    path = tmp_path / f"a.{kind}"
    path.write_text(text)
    reader = read_trec_qrels if kind == "qrels" else read_trec_run
    with pytest.raises(ValueError, match=f"{path}, line {line}: .*{message}"):
        reader(path)


def random_trec_text(rand: random.Random, kind: str) -> str:
    """A random qrels or run file: random spacing, line ends, comments, blank lines,
    ids sharing prefixes, repeated pairs now and then."""
    queries = [rand.choice(["1", "10", "2", "q", "q1", "Q1", "301", "é"]) for _ in range(3)]
    docs = [rand.choice(["d", "d1", "d10", "d2", "D-1", "CR#93", "doc-é", "z" * 9, "z" * 8])
            for _ in range(8)]
    lines = []
    for _ in range(rand.randint(0, 25)):
        query, doc = rand.choice(queries), rand.choice(docs)
        if kind == "qrels":
            fields = [query, "0", doc, rand.choice(["0", "1", "2", "-2", "+1", "007"])]
        else:
            score = rand.choice(["0.5", "1", "-2.5e-1", "+.5", "5.", "0.125", "3", "1e2"])
            fields = [query, "Q0", doc, "1", score, "tag"]
            fields += ["extra"] * (rand.random() < 0.1)
        gap = lambda: rand.choice([" ", " ", "\t", "  ", " \t "])  # noqa: E731
        line = gap().join(fields)
        if rand.random() < 0.2:
            line = gap() + line + gap()
        lines.append(line)
        if rand.random() < 0.1:
            lines.append(rand.choice(["", "   ", "# comment", "  #c o m"]))
    end = rand.choice(["\n", "\r\n", "\r"])
    return end.join(lines) + rand.choice([end, ""])


@pytest.mark.parametrize("seed", range(60))
def test_random_files_read_as_the_plain_reader_reads_them(tmp_path, monkeypatch, seed):
    rand = random.Random(seed)
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_bytes(random_trec_text(rand, "qrels").encode())
    run.write_bytes(random_trec_text(rand, "run").encode())
    outcomes = []
    for reader in ("numpy", "plain"):
        try:
            outcomes.append(read_with(monkeypatch, reader, qrels, run))
        except ValueError as error:
            outcomes.append(str(error))
    if isinstance(outcomes[1], str):
        assert outcomes[0] == outcomes[1]
    else:
        assert_same(*outcomes)


@pytest.mark.parametrize("run_text", ["", "q1 Q0 d1 1 x s\n", "q1 Q0 d1 1 1 s\n"])
def test_a_pair_twice_in_the_qrels_is_named_before_the_run(tmp_path, run_text):
    # as when every file was checked as it was read: the qrels' error comes first,
    # before an empty or bad run, and before the join
    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n")
    run.write_text(run_text)
    with pytest.raises(ValueError, match=f"{qrels}, line 3: .*appears twice"):
        read_trec(qrels, run)


@pytest.mark.parametrize("space", ["\x0b", "\x0c", "\x1f", "\u00a0", "\u2028"])
def test_other_whitespace_reads_alike_with_and_without_pandas(tmp_path, monkeypatch, space):
    # the NumPy reader leaves such files to the others; pandas splits at spaces and
    # tabs only, the plain reader (str.split) at these too: the file goes to the plain
    # reader whatever is installed, so the rows never depend on the install
    pytest.importorskip("pandas")
    qrels = tmp_path / "q"
    qrels.write_text("q2 0 d9 1\n", encoding="utf-8")
    run = tmp_path / "r"
    run.write_text(f"q2 Q0 d9{space}z 2 1 t\n", encoding="utf-8")
    installed = read_trec_run(run)  # pandas importable
    plain = read_with(monkeypatch, "plain", qrels, run)[2]
    assert installed == plain == {"q2": {"d9": 2.0}}  # d9 (split at the space), score 2


def test_a_long_id_in_one_file_does_not_pad_the_other_files_ids():
    # each file's id matrix is bounded by its size; stacked for the join, every id
    # would be padded to the longest of both: past the same bound the join codes the
    # ids as str objects instead (same codes, no permutation at hand)
    short = np.frombuffer(b"d1d2d3d4", dtype=np.uint8).reshape(4, 2)
    long = np.zeros((1, 20_000), dtype=np.uint8)
    long[0, :3] = list(b"d10")
    codes, ids, order = _trec._joint_codes(long, short)
    assert order is None  # the object path
    assert list(ids) == ["d1", "d10", "d2", "d3", "d4"]
    np.testing.assert_array_equal(codes, [1, 0, 2, 3, 4])
    codes, texts, order = _trec._joint_codes(short, short)  # the matrix path
    assert order is not None and texts.ndim == 2  # the distinct ids as bytes
    assert list(decoded_texts(texts)) == ["d1", "d2", "d3", "d4"]


def test_read_trec_document_ids_are_read_only(tmp_path):
    # the rows carry their docnos' codes in text order (trec_eval's tie order): an id
    # changed in place would be ranked by its old code, so it cannot be changed
    import dataclasses

    from sklearn_rank_metrics import mean_reciprocal_rank_score

    data = read_trec({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": 0.5}})
    assert mean_reciprocal_rank_score(data) == 0.5  # b before a (docno descending)
    with pytest.raises(ValueError, match="read-only"):
        data.doc_id[data.doc_id == "b"] = "0"
    renamed = data.doc_id.copy()
    renamed[renamed == "b"] = "0"
    assert mean_reciprocal_rank_score(dataclasses.replace(data, doc_id=renamed)) == 1.0


def test_a_pair_given_twice_is_named_by_line_whatever_the_other_source(tmp_path):
    # the join finds the pair (the files are read without the per-file check), then
    # the file with it is read again, so that its reader names the line
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d1 2 0.5 t\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"run, line 2: document 'd1' of query 'q1' appears twice"):
        read_trec({"q1": {"d1": 1}}, run)  # qrels as a dict: nothing to read again
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d7 0\nq2 0 d7 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"qrels, line 3: document 'd7' of query 'q2'"):
        read_trec(qrels, {"q1": {"d1": 0.5}})  # a pair given twice in a query the run lacks


def test_an_error_of_the_run_comes_after_the_qrels_own(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d1 0\n", encoding="utf-8")
    twice = r"qrels, line 2: document 'd1' of query 'q1' appears twice"
    for run in (tmp_path / "missing", tmp_path, 123, {"q1": {"d1": "x"}}):
        with pytest.raises(ValueError, match=twice):
            read_trec(qrels, run)
    empty = tmp_path / "empty"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=twice):
        read_trec(qrels, empty)
