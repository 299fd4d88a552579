"""Tied rows by document id: only the tied rows read the ids' order, and the result is
the order of one plain sort by (query, score descending, id as text, input row).

The reference order comes from Python's own sorting of the ids as ``str`` (by code
point, which is the byte order of UTF-8: trec_eval's ``strcmp``), never from the
package's code; every text-order path (NumPy's StringDType, the object fallback, the
numeric key of integer ids, bytes) is checked against it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from sklearn_rank_metrics._engine import _document_ids, _inputs
from sklearn_rank_metrics._engine._document_ids import (
    ASCENDING,
    DESCENDING,
    RUN_ORDER,
    DocumentIds,
)
from sklearn_rank_metrics._engine._ranked_groups import rank_rows
from sklearn_rank_metrics._engine._rows import Reading, checked_rows, read_rows

POOLS = {
    "ascii": ["d1", "d10", "d2", "d", "D9", "doc-7", "d1 ", "a", "z", "d100"],
    "non_ascii": ["é", "e", "ëa", "\U0001f600", "\uffff", "a\x00", "a", "a\x00b", "Ω", "ab"],
    "int": [0, 1, 10, 9, -1, -10, -9, 100, 2**62, -(2**63), 2**63 - 1, 11, 19, 2],
    "mixed_lengths": ["x" * n for n in (1, 2, 3, 30)] + ["y", "xy", "x" * 29 + "y"],
    "int_and_str": [1, "1", 10, "10", "9", 9, "a", -3, "-3", "-30"],
    # NumPy 2.4's StringDType compares only up to a shared NUL: Python's order here
    "nul_inside": ["d\x00~", "d\x00a~~~", "é\x00z", "é\x00a", "é\x00", "d\x00", "é"],
}


def _python_rank(ids: list) -> np.ndarray:
    """Dense rank of each id as text, by Python's sort of ``str`` (code points)."""
    text = [str(i) for i in ids]
    distinct = sorted(set(text))
    where = {t: r for r, t in enumerate(distinct)}
    return np.array([where[t] for t in text], dtype=np.int64)


def _data(pool: list, seed: int, n_rows: int = 300, n_scores: int = 4):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 7, n_rows)
    scores = rng.integers(0, n_scores, n_rows).astype(float)
    scores[rng.random(n_rows) < 0.1] = -np.inf  # rows not returned: one tied block
    picks = rng.integers(0, len(pool), n_rows)  # the same id twice in a query too
    ids = [pool[p] for p in picks]
    labels = rng.integers(0, 3, n_rows).astype(float)
    position = rng.permutation(n_rows)
    position[rng.random(n_rows) < 0.2] = -1
    return labels, scores, group, ids, position


def _ranked_input_rows(labels, scores, group, doc, direction):
    rows = checked_rows(labels, scores, group, doc_id=doc)
    read, moved = read_rows(rows, Reading(tie_order=direction))
    assert moved is not None
    ranked = rank_rows(read)
    return moved[ranked.order]


def _expected(scores, group, key):
    rows = np.arange(len(scores))
    return np.lexsort((rows, key, -scores, group))


@pytest.mark.parametrize("pool", sorted(POOLS))
@pytest.mark.parametrize("direction", [ASCENDING, DESCENDING])
@pytest.mark.parametrize("seed", range(4))
def test_tied_rows_by_id_as_one_full_sort(pool, direction, seed):
    labels, scores, group, ids, _ = _data(POOLS[pool], seed)
    rank = _python_rank(ids)
    key = rank if direction == ASCENDING else -rank
    doc = np.array(ids, dtype=object)
    got = _ranked_input_rows(labels, scores, group, doc, direction)
    np.testing.assert_array_equal(got, _expected(scores, group, key))


@pytest.mark.parametrize("seed", range(4))
def test_tied_rows_in_the_runs_order_as_one_full_sort(seed):
    labels, scores, group, ids, position = _data(POOLS["ascii"], seed)
    doc = DocumentIds(np.array(ids, dtype=object), position)
    got = _ranked_input_rows(labels, scores, group, doc, RUN_ORDER)
    key = np.where(position < 0, len(position), position)
    np.testing.assert_array_equal(got, _expected(scores, group, key))


@pytest.mark.parametrize("dtype", ["U", "S", "int64", "uint64", "object"])
@pytest.mark.parametrize("direction", [ASCENDING, DESCENDING])
def test_every_dtype_of_ids(dtype, direction):
    pool = POOLS["int"] if "int" in dtype else POOLS["ascii"]
    if dtype == "uint64":
        pool = [0, 1, 9, 10, 2**63, 10**19, 2**64 - 1, 99, 12345678901234567890]
    labels, scores, group, ids, _ = _data(pool, 7, n_scores=2)
    doc = np.array(ids, dtype=dtype)
    rank = _python_rank([i.decode() if isinstance(i, bytes) else i for i in doc.tolist()])
    got = _ranked_input_rows(labels, scores, group, doc, direction)
    np.testing.assert_array_equal(
        got, _expected(scores, group, rank if direction == ASCENDING else -rank)
    )


def test_no_tie_keeps_the_rows():
    labels = np.array([1.0, 0.0, 2.0])
    rows = checked_rows(labels, np.array([3.0, 2.0, 1.0]), np.zeros(3), doc_id=["b", "a", "c"])
    read, moved = read_rows(rows, Reading(tie_order=DESCENDING))
    np.testing.assert_array_equal(moved, [0, 1, 2])
    assert read.labels is rows.labels  # nothing moved, nothing copied


def test_tied_rows_take_the_places_of_their_block():
    # one tied block at rows 0, 2, 4 (score 1); rows 1 and 3 stay where they are
    scores = np.array([1.0, 5.0, 1.0, 0.0, 1.0])
    rows = checked_rows(np.zeros(5), scores, np.zeros(5), doc_id=["b", "z", "c", "y", "a"])
    _, moved = read_rows(rows, Reading(tie_order=ASCENDING))
    np.testing.assert_array_equal(moved, [4, 1, 0, 3, 2])  # a, b, c by id


# ------------------------------------------------------------------ the text codes


def _check_codes(codes, ids):
    """The codes order the ids as Python's sort of ``str`` does: equal ids equal
    codes, a smaller id a smaller code (not always the next one: codes packed from
    bytes are not consecutive)."""
    assert codes.dtype.kind in "iu" and codes.shape == (len(ids),)
    dense = np.unique(codes, return_inverse=True)[1].reshape(-1)
    np.testing.assert_array_equal(dense, _python_rank(ids))


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_text_codes_match_python_sorting(pool):
    rng = np.random.default_rng(1)
    ids = [POOLS[pool][p] for p in rng.integers(0, len(POOLS[pool]), 200)]
    _check_codes(_document_ids._text_codes(np.array(ids, dtype=object)), ids)


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_the_pure_path_gives_the_same_codes(pool, monkeypatch):
    """Without NumPy 2's StringDType (NumPy 1), the object path gives the same codes."""
    monkeypatch.setattr(_document_ids, "_as_string_dtype", lambda ids: None)
    rng = np.random.default_rng(2)
    ids = [POOLS[pool][p] for p in rng.integers(0, len(POOLS[pool]), 200)]
    _check_codes(_document_ids._text_codes(np.array(ids, dtype=object)), ids)


def test_a_lone_surrogate_falls_back_to_python_order():
    ids = ["a\ud800", "a", "b", "a\ud800", "\ud7ff"]
    _check_codes(_document_ids._text_codes(np.array(ids, dtype=object)), ids)


def test_integer_codes_without_text():
    rng = np.random.default_rng(3)
    values = rng.integers(-(10**12), 10**12, 2000)
    values[:5] = [0, np.iinfo(np.int64).min, np.iinfo(np.int64).max, -1, 10**18]
    _check_codes(_document_ids._integer_text_codes(values), values.tolist())
    unsigned = np.array([0, 10**19, 2**64 - 1, 5, 10**19 - 1], dtype=np.uint64)
    _check_codes(_document_ids._text_codes(unsigned), unsigned.tolist())


def test_codes_of_empty_and_single_ids():
    assert len(_document_ids._text_codes(np.array([], dtype=object))) == 0
    np.testing.assert_array_equal(_document_ids._text_codes(np.array(["x"], dtype=object)), [0])
    np.testing.assert_array_equal(_document_ids._text_codes(np.array([True, False])), [1, 0])


# -------------------------------------------------------- codes given by a reader


def test_given_text_codes_are_used_not_computed(monkeypatch):
    labels, scores, group, ids, _ = _data(POOLS["ascii"], 5)
    rank = _python_rank(ids)

    def refuse(ids):
        raise AssertionError("the text order was computed although given")

    monkeypatch.setattr(_document_ids, "_text_codes", refuse)
    doc = DocumentIds(np.array(ids, dtype=object), text_codes=rank)
    for direction, key in ((ASCENDING, rank), (DESCENDING, -rank)):
        got = _ranked_input_rows(labels, scores, group, doc, direction)
        np.testing.assert_array_equal(got, _expected(scores, group, key))


def test_given_text_codes_are_checked_for_shape_and_type():
    with pytest.raises(ValueError, match="one integer per document id"):
        DocumentIds(np.array(["a", "b"], dtype=object), text_codes=[0])
    with pytest.raises(ValueError, match="one integer per document id"):
        DocumentIds(np.array(["a", "b"], dtype=object), text_codes=[0.0, 1.0])


def test_readings_of_one_call_share_the_text_order(monkeypatch):
    """float64 and float32 readings (ir_measures' two) compute the order once: the
    first asks it for the rows tied once rounded to float32, which holds both."""
    calls = []
    real = _document_ids._text_codes

    def counted(ids):
        calls.append(len(ids))
        return real(ids)

    monkeypatch.setattr(_document_ids, "_text_codes", counted)
    rng = np.random.default_rng(0)
    n = 400
    scores = np.round(rng.random(n), 2) + rng.integers(0, 2, n) * 1e-12  # apart in f64 only
    group = rng.integers(0, 5, n)
    ids = np.array([f"d{i}" for i in rng.integers(0, 1000, n)], dtype=object)
    rows = checked_rows(np.zeros(n), scores, group, doc_id=ids)
    for single in (False, True):
        read_rows(rows, Reading(single_precision=single, tie_order=DESCENDING))
        read_rows(rows, Reading(single_precision=single, tie_order=ASCENDING))
    assert len(calls) == 1 and calls[0] < n, calls


# ------------------------------------------------------------ query ids in runs


@pytest.mark.parametrize(
    "group",
    [
        ["q1", "q1", "q2", "q2", "q10"],  # runs, not in text order
        ["a", "a", "b", "b", "c"],  # runs in text order
        ["b", "b", "a", "b", "a", "a"],  # a query in two runs
        ["x", "y", "x", "y", "x", "y"],  # scattered
        ["é", "e", "é", "\U0001f600", "e", "e"],
    ],
)
def test_string_query_ids_in_runs_as_np_unique(group):
    ids = np.array(group, dtype=object)
    codes, distinct, sizes = _inputs.factorize_groups_with_sizes(ids, len(ids))
    expected_ids, expected_codes = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(distinct, expected_ids)
    if codes is None:
        codes = np.repeat(np.arange(len(distinct)), sizes)
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))


def test_mixed_query_ids_in_runs_are_refused_as_before():
    ids = np.array(["1", "1", 1, 1, "2"], dtype=object)
    with pytest.raises(TypeError, match="mixes query ids that cannot be compared"):
        _inputs.factorize_groups_with_sizes(ids, len(ids))


@pytest.mark.parametrize(
    "ids",
    [
        ["a\x00", "a", "b", "a\x00", "ab"],  # a trailing NUL: not the byte path
        ["doc-12", "doc-2", "doc-12", "doc-", "doc-1" + "9" * 20, "doc-3"],  # > 8 bytes vary
        ["same", "same", "same"],  # no byte varies
        ["x" * 200, "x", "y"],  # one long id: mostly padding
    ],
)
def test_ascii_byte_path_and_its_refusals(ids):
    _check_codes(_document_ids._text_codes(np.array(ids, dtype=object)), ids)


def test_the_byte_path_and_string_dtype_agree(monkeypatch):
    rng = np.random.default_rng(4)
    ids = [f"clueweb09-en{d // 100000:04d}-{d % 100000:05d}" for d in rng.integers(0, 10**8, 500)]
    ids += ["clueweb09-en", "clueweb09-en0000-00000", "clueweb09-en00000"]
    fast = _document_ids._text_codes(np.array(ids, dtype=object))
    monkeypatch.setattr(_document_ids, "_ascii_text_codes", lambda ids: None)
    np.testing.assert_array_equal(_document_ids._text_codes(np.array(ids, dtype=object)), fast)
    _check_codes(fast, ids)


def test_long_integers_take_the_three_key_path():
    values = np.array([10**18, 9, 10**17, -(10**18), 123456789012345678, 1], dtype=np.int64)
    _check_codes(_document_ids._integer_text_codes(values), values.tolist())


@pytest.mark.parametrize("direction", [ASCENDING, DESCENDING, RUN_ORDER])
def test_ties_not_in_input_order_after_the_sort(direction, monkeypatch):
    """The argsort path of the sort does not keep tied rows in input order: the
    blocks are then ordered by (key, input row) explicitly."""
    from sklearn_rank_metrics._engine import _sorting

    monkeypatch.setattr(_sorting, "_STRATEGY", "argsort")
    labels, scores, group, ids, position = _data(POOLS["ascii"], 9)
    rank = _python_rank(ids)
    key = {ASCENDING: rank, DESCENDING: -rank,
           RUN_ORDER: np.where(position < 0, len(position), position)}[direction]
    doc = DocumentIds(np.array(ids, dtype=object), position)
    rows = checked_rows(labels, scores, group, doc_id=doc)
    read, moved = read_rows(rows, Reading(tie_order=direction))
    monkeypatch.setattr(_sorting, "_STRATEGY", "auto")  # the ranking keeps input order
    got = moved[rank_rows(read).order]
    np.testing.assert_array_equal(got, _expected(scores, group, key))


# ------------------------------------------------- the bytes of ASCII ids, one pass


@pytest.mark.parametrize(
    "ids",
    [
        ["clueweb09-en0003-55555", "clueweb09-en0003-55554", "clueweb09-en1003-05555"],
        ["", "a", "", "ab", "b"],  # empty ids: zero bytes, before every other
        ["", ""],
        [""],
        ["x"],
        ["ab", "a\x00", "ab"],  # as long, a NUL: not the byte path
        ["a\x00b", "a", "a\x00b"],  # a NUL inside: not the byte path
        ["a\nb", "a", "ab"],  # a line end is a byte like any
        ["b", 1, "a"],  # not all str: not the byte path
        ["é", "e", "f"],  # not ASCII: not the byte path
        ["doc" + "7" * 300, "doc1", "doc2", "doc3"],  # one long id: not the byte path
    ],
)
def test_the_bytes_of_ascii_ids(ids):
    """The rows are the ids' bytes zero-padded (a prefix first, as strcmp), or None
    for ids the byte path does not read; the codes follow Python's order either way."""
    array = np.array(ids, dtype=object)
    rows = _document_ids._ascii_bytes(array)
    readable = all(isinstance(i, str) and i.isascii() and "\x00" not in i for i in ids)
    if rows is None:
        assert not readable or max(map(len, ids)) * len(ids) > 4 * (sum(map(len, ids)) + 64)
    else:
        assert readable and rows.dtype == np.uint8 and len(rows) == len(ids)
        for row, text in zip(rows, ids, strict=True):
            assert bytes(row).rstrip(b"\x00") == text.encode()
            assert not row[len(text):].any()
    _check_codes(_document_ids._text_codes(array), ids)


def _random_ids(rng, n, alphabet, length, prefix=""):
    letters = np.array(list(alphabet))
    return [prefix + "".join(rng.choice(letters, length)) for _ in range(n)]


@pytest.mark.parametrize(
    ("alphabet", "length", "packed"),
    [
        # 6 varying bytes, zero where an id is shorter (6 bits each): packed, the codes
        ("0123456789", 6, True),
        ("0123456789abcdef", 12, False),  # 48 bits + the rows' 11: one word, sorted
        ("0123456789abcdefghijklmnopqrstuvwxyz", 14, False),  # 84 bits: two words
    ],
)
def test_codes_packed_from_bytes_or_sorted(alphabet, length, packed):
    rng = np.random.default_rng(7)
    ids = _random_ids(rng, 1500, alphabet, length, prefix="doc-")
    ids += ids[:100] + ["doc-", "doc-0"]  # repeated ids, a prefix of others, other lengths
    codes = _document_ids._text_codes(np.array(ids, dtype=object))
    _check_codes(codes, ids)
    consecutive = np.array_equal(np.unique(codes), np.arange(len(set(ids))))
    assert consecutive != packed


@pytest.mark.parametrize("direction", [ASCENDING, DESCENDING])
def test_packed_codes_order_tied_rows_as_python(direction):
    """Codes that are not consecutive (packed bytes) order the tied rows as Python's
    sort of the ids does, through the whole reading."""
    rng = np.random.default_rng(8)
    n_rows = 3000
    ids = [f"clueweb09-en{d // 100000:04d}-{d % 100000:05d}"
           for d in rng.integers(0, 10**8, n_rows)]
    scores = rng.integers(0, 3, n_rows).astype(float)
    group = rng.integers(0, 20, n_rows)
    rank = _python_rank(ids)
    got = _ranked_input_rows(np.zeros(n_rows), scores, group, np.array(ids, dtype=object),
                             direction)
    np.testing.assert_array_equal(
        got, _expected(scores, group, rank if direction == ASCENDING else -rank)
    )


# ------------------------------------------------------------- ids moved lazily


def test_moved_ids_read_as_moved():
    """Moved ids are read through the order, never gathered until asked; what they
    give equals the ids moved eagerly, twice moved too."""
    rng = np.random.default_rng(9)
    ids = np.array([f"d{i}" for i in rng.integers(0, 50, 40)], dtype=object)
    position = rng.permutation(40)
    doc = DocumentIds(ids, position)
    first, second = rng.permutation(40), rng.permutation(40)
    moved = doc.moved(first).moved(second)
    order = first[second]
    np.testing.assert_array_equal(moved.ids, ids[order])
    np.testing.assert_array_equal(np.asarray(moved), ids[order])
    np.testing.assert_array_equal(moved.run_position, position[order])
    assert len(moved) == 40 and moved.shape == (40,)
    rows = rng.permutation(40)[:15]
    wanted = np.zeros(40, dtype=bool)
    wanted[rows] = True
    for direction in (ASCENDING, DESCENDING, RUN_ORDER):
        eager = DocumentIds(ids[order], position[order])
        keys = moved.tie_keys(direction, rows, wanted)
        reference = eager.tie_keys(direction, rows, wanted)
        # the same order of the rows, whatever the codes' values
        np.testing.assert_array_equal(np.argsort(keys, kind="stable"),
                                      np.argsort(reference, kind="stable"))
    assert moved.text_codes is None  # known for some rows only
    doc.tie_keys(ASCENDING, np.arange(40))  # now known for every row
    _check_codes(doc.moved(order).text_codes, list(ids[order]))


# ------------------------------------------- checks with and without pandas


@pytest.fixture(params=["pandas", "no_pandas"])
def pandas_or_not(request, monkeypatch):
    """The fast check of str ids (pandas' infer_dtype, where pandas is imported) and
    the pure one give the same results and the same errors."""
    if request.param == "pandas":
        import pandas  # noqa: F401
    else:
        monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    return request.param


@pytest.mark.parametrize(
    ("ids", "error", "message"),
    [
        (["a", "b", None, "c"], TypeError, "must hold str or int ids; got None at row 2."),
        (["a", float("nan"), "c", "d"], TypeError, "must hold str or int ids; got nan at row 1."),
        (["a", "b", "c", b"d"], TypeError, "must hold str or int ids; got b'd' at row 3."),
        (["a", "b", 1.5, "d"], TypeError, "must hold str or int ids; got 1.5 at row 2."),
    ],
)
def test_bad_doc_ids_are_refused_on_both_paths(pandas_or_not, ids, error, message):
    with pytest.raises(error, match="^The 'doc_id' parameter of .*" + re.escape(message)):
        checked_rows(np.zeros(4), np.arange(4.0), np.zeros(4), doc_id=np.array(ids, dtype=object))


def test_good_doc_ids_on_both_paths(pandas_or_not):
    ids = np.array(["b", np.str_("a"), 3, "c"], dtype=object)  # a str subclass, an int
    rows = checked_rows(np.zeros(4), np.array([1.0, 1.0, 1.0, 0.0]), np.zeros(4), doc_id=ids)
    read, moved = read_rows(rows, Reading(tie_order=ASCENDING))
    np.testing.assert_array_equal(moved, [2, 1, 0, 3])  # "3" < "a" < "b"


@pytest.mark.parametrize(
    ("group", "message"),
    [
        (["q1", None, "q2"], "group of checked_rows must not be missing; got None at row 1."),
        (["q1", "q2", float("nan")], "must not be missing; got nan at row 2."),
    ],
)
def test_missing_str_query_ids_are_refused_on_both_paths(pandas_or_not, group, message):
    with pytest.raises(ValueError, match=re.escape(message.split("checked_rows ")[-1])):
        checked_rows(np.zeros(3), np.arange(3.0), np.array(group, dtype=object))


def test_str_query_ids_on_both_paths(pandas_or_not):
    group = np.array(["q2", "q2", "q10", "q10", np.str_("q1")], dtype=object)
    rows = checked_rows(np.zeros(5), np.arange(5.0), group)
    np.testing.assert_array_equal(rows.queries.ids, ["q1", "q10", "q2"])
    np.testing.assert_array_equal(rows.queries.row_codes(), [2, 2, 1, 1, 0])
