"""The engine's lean helpers against their plain definitions, and evaluate's cache release.

``zero_segments`` marks segment bounds instead of listing every covered index;
``RelevantRows.rank`` writes the ranks chunk by chunk into the asked dtype; the
contiguity check of ``rank_groups`` stops at the first decrease. Each must equal the
plain formula it replaces on random input. ``evaluate`` computes its metrics cutoff
by cutoff and drops each cutoff's intermediates after it: every value must equal,
bit for bit, the metric computed alone from a fresh sort.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _ranked_groups
from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._engine._segments import segment_rows, zero_segments
from sklearn_rank_metrics._kernels._relevance import relevant_rows


@settings(max_examples=100, deadline=None)
@given(lengths=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=40),
       tail=st.integers(0, 3))
def test_zero_segments_zeroes_exactly_the_listed_rows(lengths, tail):
    gaps = np.array([gap for gap, _ in lengths], dtype=np.intp)
    sizes = np.array([size for _, size in lengths], dtype=np.intp)
    lo = np.cumsum(gaps) + np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
    hi = lo + sizes
    n = int(hi[-1]) + tail if len(hi) else tail
    values = np.arange(1.0, n + 1.0)
    expected = values.copy()
    expected[segment_rows(lo, sizes)] = 0.0  # the former code
    zero_segments(values, lo, hi)
    assert values.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", [np.intp, np.float64])
@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize("seed", range(5))
def test_relevant_rank_equals_position_less_query_start(dtype, k, seed):
    rng = np.random.default_rng(seed)
    n = 5000
    ranked = rank_groups(rng.integers(0, 3, n), rng.random(n), rng.integers(0, 50, n))
    relevant = relevant_rows(ranked, "average", k, None)
    rank = relevant.compact_start[relevant.query]
    expected = (relevant.position - rank).astype(dtype)  # the former code
    got = relevant.rank(dtype)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 16])
def test_contiguity_check_stops_at_a_decrease_anywhere(monkeypatch, chunk):
    monkeypatch.setattr(_ranked_groups, "_CHECK_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for n in (0, 1, 2, 7, 40):
        codes = np.sort(rng.integers(0, 5, n))
        assert _ranked_groups._non_decreasing(codes)
        for where in range(1, n):  # a decrease at every place, chunk bounds included
            broken = codes.copy()
            broken[where] = broken[where - 1] - 1
            assert not _ranked_groups._non_decreasing(broken)


METRICS = ["ndcg@10", "map", "mrr@10", "p@10", "recall@10", "err@10", "dcg@10",
           "hit_rate@10", "f1@10", "gauc", "ndcg@3", "map@3", "recall", "mrr", "err@3"]


@pytest.mark.parametrize("order", ["as listed", "reversed"])
@pytest.mark.parametrize("seed", range(6))
def test_evaluate_equals_each_metric_alone_bit_for_bit(seed, order):
    # in both orders, so that a metric writing into an array it shares with the
    # metrics computed after it shows up whichever comes first
    metrics = METRICS if order == "as listed" else METRICS[::-1]
    rng = np.random.default_rng(seed)
    n = 4000
    group = rng.integers(0, 60, n)
    if seed % 2:
        group = np.sort(group)
    y_score = rng.integers(0, 8, n) / 8.0  # many ties
    if seed % 3 == 0:
        y_score[rng.random(n) < 0.05] = -np.inf
    y_true = rng.integers(0, 5, n).astype(float)
    together = srm.evaluate(y_true, y_score, group, metrics=metrics, per_query=True)
    for name in metrics:
        alone = srm.evaluate(y_true, y_score, group, metrics=[name], per_query=True)
        assert np.asarray(together[name]).tobytes() == np.asarray(alone[name]).tobytes(), name


# one-row queries on purpose: the shape SuspiciousInputWarning asks about
@pytest.mark.filterwarnings("ignore::sklearn_rank_metrics.SuspiciousInputWarning")
@pytest.mark.parametrize("unretrieved", [False, True])
def test_one_row_queries_count_their_retrieved_rows(unretrieved):
    rng = np.random.default_rng(3)
    n = 50
    y_score = rng.random(n)
    if unretrieved:
        y_score[::7] = -np.inf
    ranked = rank_groups(rng.integers(0, 2, n), y_score, rng.permutation(n))
    assert ranked.one_row_per_query
    expected = np.isfinite(y_score)[ranked.order].astype(np.intp)  # one row per query
    assert ranked.n_retrieved.tolist() == expected.tolist()


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(0, 6), min_size=1, max_size=30), data=st.data())
def test_segment_of_sorted_equals_searchsorted(sizes, data):
    from sklearn_rank_metrics._engine._segments import segment_of_sorted

    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
    n = int(np.sum(sizes))
    if n == 0:
        return
    items = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1)))), dtype=np.intp)
    expected = np.searchsorted(starts, items, side="right") - 1  # the former code
    assert segment_of_sorted(items, starts).tolist() == expected.tolist()


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(1, 5), min_size=1, max_size=30), data=st.data())
def test_query_any_is_any_over_each_querys_rows(sizes, data):
    # one bool per query, equal to Python's any() over the query's sorted rows
    n = int(np.sum(sizes))
    group = np.repeat(np.arange(len(sizes)), sizes)
    ranked = rank_groups(np.zeros(n), np.arange(n, 0, -1.0), group)
    flags = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    bounds = zip(ranked.offsets[:-1], ranked.offsets[1:], strict=True)
    expected = [any(flags[start:stop]) for start, stop in bounds]
    assert ranked.query_any(flags).tolist() == expected


@pytest.mark.parametrize("denominator", [[2.0, 4.0, 5.0], [2.0, 0.0, -1.0]])
def test_safe_divide_into_its_numerator_gives_the_new_array_result(denominator):
    # writing into the numerator (f-beta does, to hold fewer arrays) changes nothing:
    # 0 where the denominator is not positive, the quotient elsewhere
    from sklearn_rank_metrics._kernels._combinatorics import safe_divide

    numerator = np.array([1.0, 3.0, 7.0])
    den = np.array(denominator)
    expected = [n / d if d > 0 else 0.0 for n, d in zip(numerator, den, strict=True)]
    fresh = safe_divide(numerator, den)
    assert fresh.tolist() == expected and numerator.tolist() == [1.0, 3.0, 7.0]
    in_place = safe_divide(numerator, den, out=numerator)
    assert in_place is numerator and in_place.tolist() == expected
