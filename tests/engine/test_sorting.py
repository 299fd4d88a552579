"""The packed-key sort: exact (query, score descending, input row) order in every case.

The reference is ``np.lexsort`` on the full float64 scores, which never truncates.
Every test runs on every path: the rule's choice ("auto"), and each path forced
("one_sort": one sort of query | score | row keys; "per_query": grouping by query,
then each query's keys sorted on their own, small queries many to a row;
"per_query_padded": the same with every query in a padded row of its own), whatever
the layout.
"""

import numpy as np
import pytest

from sklearn_rank_metrics._engine import _sorting
from sklearn_rank_metrics._engine._sorting import sort_by_query_then_score


@pytest.fixture(autouse=True, params=["auto", "one_sort", "per_query", "per_query_padded"])
def strategy(request, monkeypatch):
    if request.param == "per_query_padded":
        monkeypatch.setattr(_sorting, "_SMALL_QUERY_MAX_ROWS", 0)
        monkeypatch.setattr(_sorting, "_STRATEGY", "per_query")
    else:
        monkeypatch.setattr(_sorting, "_STRATEGY", request.param)
    return request.param


def _reference_order(codes, scores):
    rows = np.arange(len(scores))
    return np.lexsort((rows, -scores, codes))


def _sort(codes, scores):
    n_queries = int(codes.max()) + 1
    sizes = np.bincount(codes, minlength=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    contiguous = bool(np.all(codes[1:] >= codes[:-1]))
    return sort_by_query_then_score(codes, scores, offsets, contiguous), offsets


LAYOUTS = ("contiguous", "scattered")


def _arrange(layout, codes, scores, rng):
    """Rows of contiguous queries as given, or shuffled (grouped by the radix sort first)."""
    if layout == "contiguous":
        return codes, scores
    permutation = rng.permutation(len(scores))
    return codes[permutation], scores[permutation]


def _check(codes, scores, *, input_order_in_ties=True):
    (order, tied_rows, in_input_order), offsets = _sort(codes, scores)
    expected = _reference_order(codes, scores)
    if input_order_in_ties:
        assert in_input_order
        np.testing.assert_array_equal(order, expected)
    else:
        # the fallback leaves tied rows in arbitrary order: same query and score sequence
        np.testing.assert_array_equal(codes[order], codes[expected])
        np.testing.assert_array_equal(scores[order], scores[expected])
        assert sorted(order) == list(range(len(scores)))
    # rows tied with the previous row of their query, from the reference order
    sorted_scores, sorted_codes = scores[expected], codes[expected]
    tied = np.zeros(len(scores), dtype=bool)
    tied[1:] = (sorted_scores[1:] == sorted_scores[:-1]) & (sorted_codes[1:] == sorted_codes[:-1])
    if not tied.any():
        assert tied_rows is None
    else:
        np.testing.assert_array_equal(tied_rows, np.flatnonzero(tied))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("seed", range(5))
def test_random_scores_with_ties_match_lexsort(seed, layout):
    rng = np.random.default_rng(seed)
    n_rows = 3000
    codes = np.sort(rng.integers(0, 40, n_rows))
    codes = np.unique(codes, return_inverse=True)[1]
    scores = rng.normal(size=n_rows)
    tied = rng.random(n_rows) < 0.4
    scores[tied] = np.round(scores[tied] * 2) / 2
    _check(*_arrange(layout, codes, scores, rng))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_false_ties_from_truncated_scores_are_resorted(layout):
    # 300 rows per query need 9 position bits, so the lowest 9 bits of each score
    # key are cut: scores one to a few ulps apart become equal keys and must be put
    # back in exact order, with their exact ties found again.
    rng = np.random.default_rng(0)
    n_queries, per_query = 4, 300
    codes = np.repeat(np.arange(n_queries), per_query)
    ulps = rng.integers(0, 50, n_queries * per_query)
    scores = np.nextafter(1.0, 2.0) + ulps * np.spacing(1.0)
    scores[::7] = -scores[::7]  # negative scores too
    no_fields = np.zeros(len(scores), dtype=np.uint64)
    truncated = _sorting._packed_keys(scores, no_fields, 9)
    assert len(np.unique(truncated)) < len(np.unique(scores)) / 10  # really false ties
    _check(*_arrange(layout, codes, scores, rng))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_false_ties_in_some_queries_only(layout):
    # one query has scores an ulp apart, the others are well separated
    rng = np.random.default_rng(1)
    codes = np.repeat(np.arange(6), 200)
    scores = rng.normal(size=1200)
    scores[400:600] = 3.0 + rng.integers(0, 20, 200) * np.spacing(3.0)
    _check(*_arrange(layout, codes, scores, rng))


def test_signed_zeros_tie_and_keep_input_order():
    codes = np.zeros(6, dtype=np.intp)
    scores = np.array([-0.0, 0.0, 1.0, -0.0, -1.0, 0.0])
    (order, *_), _ = _sort(codes, scores)
    np.testing.assert_array_equal(order, [2, 0, 1, 3, 5, 4])


def test_infinite_scores_sort_at_the_ends():
    codes = np.repeat([0, 1], 4)
    scores = np.array([-np.inf, 1.0, np.inf, -np.inf, 0.5, -np.inf, -5.0, np.inf])
    (order, *_), _ = _sort(codes, scores)
    np.testing.assert_array_equal(order, [2, 1, 0, 3, 7, 4, 6, 5])


def test_extreme_finite_and_subnormal_scores():
    tiny = np.nextafter(0.0, 1.0)
    scores = np.array([np.finfo(float).max, -np.finfo(float).max, tiny, -tiny, 0.0, 1e-310])
    _check(np.zeros(len(scores), dtype=np.intp), scores)


def test_one_row_queries_and_one_query():
    rng = np.random.default_rng(2)
    scores = rng.normal(size=500)
    _check(np.arange(500), scores)
    _check(np.zeros(500, dtype=np.intp), scores)
    _check(rng.permutation(500), scores)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_many_queries_and_one_large_query(layout):
    # 2**17 queries (two 16-bit radix digits when scattered) and one query of
    # 2**15 + 1 rows: padding every query to the largest would take 2**32 cells, so
    # the queries are sorted in size classes, the large one on its own
    rng = np.random.default_rng(3)
    big = 2**15 + 1
    codes = np.concatenate((np.zeros(big, dtype=np.intp), np.arange(1, 2**17)))
    codes = np.concatenate((codes, rng.integers(1, 2**17, 2**16)))  # some of 2-3 rows
    codes.sort()
    scores = np.round(rng.normal(size=len(codes)), 1)
    _check(*_arrange(layout, codes, scores, rng))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_size_classes_in_several_blocks(layout, monkeypatch):
    # queries of 1 to 300 rows in blocks of at most 64 cells: every size class is
    # cut into many padded blocks, some of queries that are not consecutive
    monkeypatch.setattr(_sorting, "_SEGMENT_CELLS", 64)
    rng = np.random.default_rng(6)
    sizes = np.concatenate((rng.integers(1, 40, 200), [300, 150]))
    rng.shuffle(sizes)
    codes = np.repeat(np.arange(len(sizes)), sizes)
    scores = np.round(rng.normal(size=len(codes)), 1)
    _check(*_arrange(layout, codes, scores, rng))


def test_equal_scores_across_a_query_boundary_are_not_ties():
    # the last row of query 0 and the first row of query 1 have the same score (and
    # equal keys but for the position): no tie, since they are in different queries
    codes = np.array([0, 0, 1, 1, 2])
    scores = np.array([2.0, 1.0, 1.0, 0.5, 0.5])
    (order, tied_rows, _), _ = _sort(codes, scores)
    np.testing.assert_array_equal(order, [0, 1, 2, 3, 4])
    assert tied_rows is None
    _check(codes, scores)


@pytest.mark.parametrize("shuffled", [False, True])
def test_forced_fallback_matches_the_packed_sort(monkeypatch, shuffled):
    rng = np.random.default_rng(4)
    codes = np.sort(rng.integers(0, 30, 2000))
    codes = np.unique(codes, return_inverse=True)[1]
    scores = np.round(rng.normal(size=2000), 1)
    if shuffled:
        permutation = rng.permutation(2000)
        codes, scores = codes[permutation], scores[permutation]
    monkeypatch.setattr(_sorting, "_STRATEGY", "auto")
    monkeypatch.setattr(_sorting, "_MIN_SCORE_BITS", 65)
    _check(codes, scores, input_order_in_ties=False)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 10, 400)
    scores = rng.normal(size=400)
    codes_copy, scores_copy = codes.copy(), scores.copy()
    _sort(codes, scores)
    np.testing.assert_array_equal(codes, codes_copy)
    np.testing.assert_array_equal(scores, scores_copy)


def test_positions_in_queries_count_from_zero_in_each_query():
    rng = np.random.default_rng(0)
    for _ in range(50):
        sizes = rng.integers(0, 5, rng.integers(1, 12))  # empty queries too
        expected = [position for size in sizes for position in range(size)]
        assert _sorting.positions_in_queries(sizes).tolist() == expected


@pytest.mark.parametrize("layout", LAYOUTS)
def test_chunk_boundaries_anywhere(layout, monkeypatch):
    # keys, tie candidates and row indices are built in chunks of 7 rows: chunk and query
    # boundaries fall everywhere relative to each other
    monkeypatch.setattr(_sorting, "_CHUNK_ROWS", 7)
    rng = np.random.default_rng(7)
    codes = np.repeat(np.arange(30), rng.integers(1, 20, 30))
    scores = np.round(rng.normal(size=len(codes)), 1)
    _check(*_arrange(layout, codes, scores, rng))


def test_the_rule_picks_a_path_from_the_shape_of_the_input(monkeypatch):
    monkeypatch.setattr(_sorting, "_STRATEGY", "auto")
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", True)  # as measured with AVX2 sorts
    choose = _sorting._choose_strategy
    # 1M rows in 10k queries of about 100: scattered ids take one sort, contiguous
    # ones the per-query sorts; one-row queries need no sort
    assert choose(10**6, 10**4, 7, contiguous=False) == "one_sort"
    assert choose(10**6, 10**4, 7, contiguous=True) == "per_query"
    assert choose(10**6, 10**6, 0, contiguous=False) == "per_query"
    # 2**30 rows in 2**30 queries leave 4 bits for the score: per-query sorts
    assert choose(2**30, 2**30, 3, contiguous=False) == "per_query"
    # a query of 2**33 rows leaves fewer than 32 bits beside its positions: argsort
    assert choose(2**33, 1, 33, contiguous=True) == "argsort"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_narrow_and_wide_score_ranges_with_infinities(layout):
    # scores a few ulps apart next to huge ones and infinities: the one-sort path's
    # range-adaptive field must truncate (false ties) and keep the infinities apart
    rng = np.random.default_rng(11)
    n_rows = 4000
    codes = np.sort(rng.integers(0, 25, n_rows))
    codes = np.unique(codes, return_inverse=True)[1]
    base = 1.0 + rng.integers(0, 50, n_rows) * np.finfo(float).eps
    scores = np.where(rng.random(n_rows) < 0.05, rng.normal(size=n_rows) * 1e300, base)
    scores[rng.random(n_rows) < 0.05] = -np.inf
    scores[rng.random(n_rows) < 0.02] = np.inf
    _check(*_arrange(layout, codes, scores, rng))


def test_large_scattered_inputs_take_the_path_measured_faster(monkeypatch):
    monkeypatch.setattr(_sorting, "_STRATEGY", "auto")
    choose = _sorting._choose_strategy
    # where one long sort was measured slower (AVX-512 sorts on a Zen 4), large
    # scattered inputs group first; smaller ones, and contiguous ids, are unaffected
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", False)
    assert choose(10**6, 10**4, 7, contiguous=False) == "per_query"
    assert choose(_sorting._MEASURE_FROM_ROWS - 1, 10**3, 7, contiguous=False) == "one_sort"
    assert choose(10**6, 10**4, 7, contiguous=True) == "per_query"
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", True)
    assert choose(10**6, 10**4, 7, contiguous=False) == "one_sort"


def test_the_measurement_is_taken_once_and_leaves_numpy_s_random_state(monkeypatch):
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", None)
    state = np.random.get_state()  # noqa: NPY002 (the global state must not move)
    measured = _sorting._one_sort_is_faster()
    assert isinstance(measured, bool) and _sorting._ONE_SORT_FASTER is measured
    after = np.random.get_state()  # noqa: NPY002
    assert state[0] == after[0] and np.array_equal(state[1], after[1]) and state[2:] == after[2:]
    # taken once: a later call reads the stored answer, even one set by hand
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", not measured)
    assert _sorting._one_sort_is_faster() is (not measured)


@pytest.mark.parametrize("one_sort_faster", [False, True])
def test_a_large_scattered_input_sorts_the_same_whichever_path_is_measured_faster(
    monkeypatch, one_sort_faster
):
    # the measured choice changes the time, never the order or the tied rows
    monkeypatch.setattr(_sorting, "_STRATEGY", "auto")
    monkeypatch.setattr(_sorting, "_MEASURE_FROM_ROWS", 1000)
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", one_sort_faster)
    rng = np.random.default_rng(12)
    codes = rng.integers(0, 40, 5000)
    codes = np.unique(codes, return_inverse=True)[1]
    scores = np.round(rng.normal(size=5000), 1)
    _check(codes, scores)


def test_the_measurement_times_both_paths_on_the_same_scattered_input(monkeypatch):
    # the per-query path must be timed with its grouping pass (contiguous=False, on
    # ids that are not sorted), and both paths must sort the same input the same way
    calls = {}
    one_sort, per_query = _sorting._sort_packed_keys_at_once, _sorting._sort_per_query

    def spy_one_sort(codes, scores, offsets):
        calls.setdefault("one_sort", []).append((codes, one_sort(codes, scores, offsets)))
        return calls["one_sort"][-1][1]

    def spy_per_query(codes, scores, offsets, rows_per_query, position_bits, contiguous):
        assert contiguous is False and not np.all(codes[1:] >= codes[:-1])
        result = per_query(codes, scores, offsets, rows_per_query, position_bits, contiguous)
        calls.setdefault("per_query", []).append((codes, result))
        return result

    monkeypatch.setattr(_sorting, "_sort_packed_keys_at_once", spy_one_sort)
    monkeypatch.setattr(_sorting, "_sort_per_query", spy_per_query)
    best = _sorting._best_path_times()
    assert set(best) == {"one_sort", "per_query"} and min(best.values()) > 0
    assert len(calls["one_sort"]) == len(calls["per_query"]) == 3
    (codes_a, (order_a, tied_a, _)), (codes_b, (order_b, tied_b, _)) = (
        calls["one_sort"][0], calls["per_query"][0]
    )
    assert codes_a is codes_b and len(codes_a) == _sorting._MEASURE_ROWS
    np.testing.assert_array_equal(order_a, order_b)
    assert (tied_a is None) == (tied_b is None)


def test_the_measurement_starts_exactly_at_its_row_count(monkeypatch):
    monkeypatch.setattr(_sorting, "_STRATEGY", "auto")
    monkeypatch.setattr(_sorting, "_ONE_SORT_FASTER", False)
    threshold = _sorting._MEASURE_FROM_ROWS
    assert _sorting._choose_strategy(threshold, 1000, 9, contiguous=False) == "per_query"
    assert _sorting._choose_strategy(threshold - 1, 1000, 9, contiguous=False) == "one_sort"


SMALL_QUERY_SIZES = {
    # one size: rows of whole queries (10 x 6 keys), the last queries left over
    "one size": lambda rng: np.full(1003, 10),
    "one size of 32": lambda rng: np.full(301, 32),
    "pairs": lambda rng: np.full(2001, 2),
    # uneven: queries cut by a row's end, one-row queries, a tail shorter than a row
    "2 to 20 rows": lambda rng: rng.integers(2, 21, 997),
    "1 to 32 rows": lambda rng: rng.integers(1, 33, 501),
    "mostly one row": lambda rng: np.where(rng.random(1500) < 0.9, 1, 7),
}


@pytest.mark.parametrize("sizes", SMALL_QUERY_SIZES)
@pytest.mark.parametrize("scores", ["distinct", "ties", "false ties", "infinite"])
def test_small_queries_many_to_a_row(sizes, scores, strategy):
    # queries of up to 32 rows are sorted many to a row of one 2-D sort, the rows
    # cut anywhere; every path gives lexsort's order and tied rows
    rng = np.random.default_rng(len(sizes) + len(scores))
    rows_per_query = SMALL_QUERY_SIZES[sizes](rng)
    codes = np.repeat(np.arange(len(rows_per_query)), rows_per_query)
    values = rng.random(len(codes))
    if scores == "ties":
        values = np.round(values, 1)
    elif scores == "false ties":  # equal in the high bits the keys keep
        values = 0.5 + rng.integers(0, 40, len(codes)) * 2.0**-50
    elif scores == "infinite":
        values[rng.random(len(codes)) < 0.2] = rng.choice([-np.inf, np.inf])
    length = _sorting._small_query_row_length(rows_per_query, len(codes))
    assert (length is None) == (strategy == "per_query_padded")
    _check(codes, values)


def test_small_queries_cut_by_a_row_end_are_sorted_whole(strategy):
    # a query cut by a row's end is sorted in two parts, then whole: with scores
    # rising through every query, a query left in two parts would show
    rows_per_query = np.array([20, 30] * 10)
    codes = np.repeat(np.arange(len(rows_per_query)), rows_per_query)
    values = np.arange(len(codes), dtype=float)
    length = _sorting._small_query_row_length(rows_per_query, len(codes))
    offsets = np.cumsum(rows_per_query)
    assert 128 not in offsets and 256 not in offsets  # queries cut at rows of 128
    assert length == (None if strategy == "per_query_padded" else 128)
    _check(codes, values)
