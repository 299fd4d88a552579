"""Interpolated precision (``iprec``) and its 11-point average (``11pt_avg``).

trec_eval's own values are checked in ``test_crosscheck_trec_eval.py`` (real sample,
ties in trec_eval's order), ``test_conventions.py`` (presets, ir_measures' IPrec) and
``test_aliases.py`` (the names); the fixed orders and small tie blocks against the
reference in ``test_against_reference.py``. Here: trec_eval's rounding of the level
by hand, and ``ties="average"`` on blocks too large for those tests, against
closed forms written for the case and against enumeration of every tie order.
"""

import itertools
import math

import numpy as np
import pytest

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._kernels import _interpolated
from tests.support import reference

LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def test_recall_level_rounds_as_trec_eval_does():
    # R = 3, relevant at ranks 1, 2, 5: precisions 1, 1, 3/5.
    # trec_eval's c = (long)(X R + 0.9): X = 0.7 gives 2.1 + 0.9, which is just below 3
    # in double precision, so c = 2 and IP = 1 (a rounding up of 2.1 would give c = 3)
    y_true, y_score, one = [1, 1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6, 0.5], [0] * 5
    assert 0.7 * 3 + 0.9 < 3
    assert srm.interpolated_precision_score(y_true, y_score, one, recall=0.7) == 1.0
    assert srm.interpolated_precision_score(y_true, y_score, one, recall=0.8) == 0.6  # c = 3
    # 11pt_avg: levels 0 .. 0.7 give 1 (c <= 2), 0.8 .. 1 give 3/5
    expected = (8 * 1.0 + 3 * 0.6) / 11
    got = srm.eleven_point_precision_score(y_true, y_score, one)
    assert got == pytest.approx(expected, rel=1e-15)


def test_level_beyond_the_retrieved_relevant_rows_is_zero():
    # R = 2, one relevant row retrieved: IP(1.0) needs c = 2 relevant rows -> 0
    y_true, y_score, one = [1, 0, 1], [0.9, 0.8, -np.inf], [0] * 3
    assert srm.interpolated_precision_score(y_true, y_score, one, recall=1.0) == 0.0
    assert srm.interpolated_precision_score(y_true, y_score, one, recall=0.5) == 1.0  # c = 1


def test_query_without_relevant_row_follows_the_policy():
    y_true, y_score, group = [0, 0, 1], [0.9, 0.8, 0.7], [0, 0, 1]
    assert srm.interpolated_precision_score(y_true, y_score, group) == 0.5
    assert srm.interpolated_precision_score(
        y_true, y_score, group, replace_undefined_by="skip"
    ) == 1.0
    assert math.isnan(
        srm.eleven_point_precision_score(y_true, y_score, group, replace_undefined_by=np.nan)
    )


@pytest.mark.parametrize(("m", "rtol"), [(60, 1e-12), (2000, 1e-10)])
def test_one_relevant_row_in_a_large_tied_block_is_harmonic_mean(m, rtol):
    # one relevant row uniformly at rank s = 1..m: E[1/s] = H_m / m, at every level;
    # the accuracy the kernel's docstring states for blocks of thousands of rows
    y_true = np.zeros(m)
    y_true[17] = 1
    harmonic = math.fsum(1 / s for s in range(1, m + 1)) / m
    for recall in (0.0, 0.5, 1.0):
        got = srm.interpolated_precision_score(y_true, np.zeros(m), np.zeros(m), recall=recall)
        assert got == pytest.approx(harmonic, rel=rtol)


def test_one_non_relevant_row_in_a_large_tied_block():
    # m - 1 relevant rows and one non-relevant row at rank p, uniformly:
    # IP(0) is 1 unless p = 1 (then (m - 1) / m);
    # IP(1) = (m - 1) / m unless p = m (then 1).
    m = 40
    y_true = np.ones(m)
    y_true[5] = 0
    at_zero = (m - 1) / m * 1.0 + 1 / m * (m - 1) / m
    at_one = (m - 1) / m * (m - 1) / m + 1 / m * 1.0
    got_zero = srm.interpolated_precision_score(y_true, np.ones(m), np.zeros(m), recall=0.0)
    got_one = srm.interpolated_precision_score(y_true, np.ones(m), np.zeros(m), recall=1.0)
    assert got_zero == pytest.approx(at_zero, rel=1e-12)
    assert got_one == pytest.approx(at_one, rel=1e-12)


def _distinct_orders(block):
    """Every distinct label sequence of a block: each is equally likely (r! (m - r)! orders)."""
    m, r = len(block), sum(block)
    for where in itertools.combinations(range(m), r):
        yield [1 if i in where else 0 for i in range(m)]


def _every_order_mean(labels_by_block, level):
    """Mean of IP(level) over every order of every block (blocks in rank order)."""
    values = []
    for orders in itertools.product(*(list(_distinct_orders(b)) for b in labels_by_block)):
        ranked = [label for block in orders for label in block]
        values.append(reference.iprec(ranked, [], recall=level)[0])
    return math.fsum(values) / len(values)


@pytest.mark.parametrize("seed", range(6))
def test_several_tied_blocks_against_every_order(seed):
    # a first block of up to 12 rows, then a row and a block of up to 5 (the orders
    # are enumerated); each level's c falls before,
    # inside or after a block; two queries interleaved in the input
    rng = np.random.default_rng(seed)
    queries = []
    for _ in range(2):
        blocks = []
        for _ in range(rng.integers(2, 4)):
            size = int(rng.integers(1, 13 if not blocks else 6)) if len(blocks) % 2 == 0 else 1
            blocks.append(tuple(int(v) for v in rng.random(size) < 0.5))
        queries.append(blocks)
    y_true, y_score, group = [], [], []
    for query, blocks in enumerate(queries):
        for rank, block in enumerate(blocks):
            y_true += list(block)
            y_score += [float(len(blocks) - rank)] * len(block)
            group += [query] * len(block)
    order = rng.permutation(len(y_true))
    y_true, y_score, group = (np.asarray(a)[order] for a in (y_true, y_score, group))
    for level in (0.0, 0.3, 0.5, 0.7, 1.0):
        table = srm.evaluate(
            y_true, y_score, group, metrics=[f"iprec(recall={level})"], per_query=True
        )
        got = np.asarray(table[f"iprec(recall={level})"])
        for query, blocks in enumerate(queries):
            if not any(any(block) for block in blocks):
                continue  # undefined: 0 by the default policy, tested elsewhere
            expected = _every_order_mean(blocks, level)
            assert got[query] == pytest.approx(expected, rel=1e-12, abs=1e-15), (blocks, level)


def test_ties_average_lies_between_the_bounds_on_a_large_block():
    rng = np.random.default_rng(4)
    y_true = (rng.random(90) < 0.3).astype(float)
    y_score = rng.integers(0, 3, 90).astype(float)  # three blocks of about 30 rows
    one = np.zeros(90)  # one query
    for recall in (0.0, 0.4, 1.0):
        low = srm.interpolated_precision_score(
            y_true, y_score, one, recall=recall, ties="pessimistic"
        )
        mean = srm.interpolated_precision_score(y_true, y_score, one, recall=recall)
        high = srm.interpolated_precision_score(
            y_true, y_score, one, recall=recall, ties="optimistic"
        )
        assert low < mean < high


def test_too_costly_tie_expectation_is_refused_with_the_query(monkeypatch):
    monkeypatch.setattr(_interpolated, "MAX_TIE_WORK", 10_000)
    y_true = np.r_[np.ones(10), np.zeros(10), [1, 0]]
    y_score = np.r_[np.zeros(20), [1.0, 0.5]]
    group = np.r_[np.full(20, "big"), ["small", "small"]]
    with pytest.raises(
        ValueError, match=r"24,200 lattice cells .* block of 20 tied rows holding 10 .* 'big'"
    ):
        srm.interpolated_precision_score(y_true, y_score, group)
    # a fixed order is always computed
    assert srm.interpolated_precision_score(y_true, y_score, group, ties="input") == 1.0


def test_parts_and_chunks_do_not_change_the_values(monkeypatch):
    # many queries with tied blocks: one pass over everything, then the smallest
    # parts (a query or so at a time) and chunks (one backward pass at a time)
    rng = np.random.default_rng(8)
    group = np.repeat(np.arange(60), 12)
    y_true = (rng.random(len(group)) < 0.4).astype(float)
    y_score = rng.integers(0, 4, len(group)).astype(float)
    names = ["11pt_avg", "iprec(recall=0.3)", "iprec(recall=1.0)"]
    whole = srm.evaluate(y_true, y_score, group, metrics=names, per_query=True)
    monkeypatch.setattr(_interpolated, "_EVENTS_PER_PART", 1)
    monkeypatch.setattr(_interpolated, "_CHUNK_CELLS", 1)
    pieces = srm.evaluate(y_true, y_score, group, metrics=names, per_query=True)
    for name in names:
        np.testing.assert_array_equal(np.asarray(pieces[name]), np.asarray(whole[name]))
