"""The relevance helpers of the kernels (``_kernels/_relevance.py``), called directly.

Which rows are relevant (``y_true > 0``, or ``>= relevance_level``) and how many: per
query, within a cutoff, per block of tied rows and before it, and the expected hits
within a cutoff under ``ties="average"``. The expected values are counted here from
the rows of each query in rank order (tied rows in input order: the fixed sorted
order), and the expected hits as the mean over every order of the tied rows
(``tests/support/tie_orders.py``).
"""

import numpy as np
import pytest

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _relevance
from tests.support.tie_orders import flat_rows, input_order, per_query

INF = float("inf")
QUERIES = {
    "a": ([0, 1, 0, 1, 1], [0.9, 0.8, 0.7, 0.6, 0.5]),
    "b": ([0, 1, 0, 2, 0, 1], [0.9, 0.5, 0.5, 0.5, 0.1, -INF]),  # a block of 3 at rank 1
    "c": ([1, 0, 2, 0], [0.3, 0.3, 0.2, 0.2]),  # blocks of 2 at ranks 0 and 2
}


def _ranked():
    group, y_true, y_score = flat_rows(QUERIES)
    return rank_groups(y_true.astype(float), y_score.astype(float), group)


def _depth(scores, k):
    retrieved = sum(score > -INF for score in scores)
    return retrieved if k is None else min(k, retrieved)


def _in_rank_order(level=None):
    """Per query (sorted ids): its labels and scores in rank order, and its relevance."""
    for query in sorted(QUERIES):
        labels, scores = QUERIES[query]
        order = input_order(scores)
        ranked_labels = [labels[row] for row in order]
        relevant = [y >= level if level is not None else y > 0 for y in ranked_labels]
        yield [scores[row] for row in order], relevant


def _blocks(scores):
    """(start rank, size) of every run of two or more equal scores, in rank order."""
    runs, start = [], 0
    for rank in range(1, len(scores) + 1):
        if rank == len(scores) or scores[rank] != scores[start]:
            if rank - start > 1:
                runs.append((start, rank - start))
            start = rank
    return runs


def test_is_relevant_and_running_count():
    labels = np.array([0.0, 1.0, 2.0, 3.0, -2.0])
    np.testing.assert_array_equal(_relevance.is_relevant(labels, None), [0, 1, 1, 1, 0])
    np.testing.assert_array_equal(_relevance.is_relevant(labels, 2.0), [0, 0, 1, 1, 0])
    np.testing.assert_array_equal(_relevance.running_count(np.array([1, 0, 1, 1], bool)),
                                  [0, 1, 1, 2, 3])  # fmt: skip
    assert _relevance.running_count(np.zeros(0, bool)).tolist() == [0]


@pytest.mark.parametrize("level", [None, 2.0])
def test_relevance_in_rank_order_and_per_query(level):
    ranked = _ranked()
    expected = [flag for _, relevant in _in_rank_order(level) for flag in relevant]
    np.testing.assert_array_equal(_relevance.sorted_relevance(ranked, "input", level), expected)
    totals = [sum(relevant) for _, relevant in _in_rank_order(level)]
    np.testing.assert_array_equal(_relevance.n_relevant(ranked, level), totals)


@pytest.mark.parametrize("k", [None, 1, 2, 4])
@pytest.mark.parametrize("every_row", [False, True])
def test_relevant_rows_within_the_cutoff(k, every_row):
    rows = _relevance.relevant_rows(_ranked(), "input", k, None, every_row=every_row)
    count, query, rank = [], [], []
    for q, (scores, relevant) in enumerate(_in_rank_order()):
        depth = len(scores) if every_row else _depth(scores, k)
        ranks = [r for r in range(depth) if relevant[r]]
        count.append(len(ranks))
        query += [q] * len(ranks)
        rank += ranks
    np.testing.assert_array_equal(rows.count, count)
    np.testing.assert_array_equal(rows.query, query)
    np.testing.assert_array_equal(rows.rank(), rank)
    np.testing.assert_array_equal(rows.first, np.cumsum(count) - count)


@pytest.mark.parametrize("k", [None, 2, 3])
def test_blocks_relevant_rows_before_and_inside_the_cutoff(k):
    ranked = _ranked()
    r, c, fixed = _relevance.block_relevance(ranked, "average", k, None)
    lo, hi = _relevance.relevant_in_tied_blocks(ranked, "average", k, None)
    expected_r, expected_c, expected_fixed = [], [], []
    for scores, relevant in _in_rank_order():
        depth = _depth(scores, k)
        for start, size in _blocks(scores):
            if start >= depth:
                continue  # a block past the cutoff is none of the cutoff's blocks
            expected_r.append(sum(relevant[start : start + size]))
            expected_c.append(sum(relevant[:start]))
            expected_fixed.append(sum(relevant[start : min(start + size, depth)]))
    np.testing.assert_array_equal(r, expected_r)
    np.testing.assert_array_equal(c, expected_c)
    np.testing.assert_array_equal(fixed, expected_fixed)
    np.testing.assert_array_equal(hi - lo, expected_fixed)


def test_block_counts_per_row():
    counts = _relevance.block_counts(_ranked(), "average", None)
    expected = {name: [] for name in ("relevant", "r", "m", "c", "t", "s")}
    for scores, relevant in _in_rank_order():
        spans = {rank: (rank, 1) for rank in range(len(scores))}
        for start, size in _blocks(scores):
            spans.update({rank: (start, size) for rank in range(start, start + size)})
        for rank in range(len(scores)):
            start, size = spans[rank]
            expected["relevant"].append(relevant[rank])
            expected["r"].append(sum(relevant[start : start + size]))
            expected["m"].append(size)
            expected["c"].append(sum(relevant[:start]))
            expected["t"].append(rank - start + 1)
            expected["s"].append(start)
    np.testing.assert_array_equal(counts.relevant, expected["relevant"])
    np.testing.assert_array_equal(counts.relevant_in_block, expected["r"])
    np.testing.assert_array_equal(counts.block_size, expected["m"])
    np.testing.assert_array_equal(counts.relevant_before_block, expected["c"])
    np.testing.assert_array_equal(counts.offset_in_block, expected["t"])
    np.testing.assert_array_equal(counts.block_start_rank, expected["s"])


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 1, 2, 3])
def test_expected_hits_within_the_cutoff(ties, k):
    def hits(labels, scores, order):
        return sum(labels[row] > 0 for row in order[: _depth(scores, k)])

    got = _relevance.expected_hits(_ranked(), ties, k, None)
    np.testing.assert_allclose(got, per_query(QUERIES, hits, ties), rtol=1e-12, atol=1e-15)
