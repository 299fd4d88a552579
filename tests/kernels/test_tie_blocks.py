"""The lean tie-block paths give the same numbers, bit for bit, as the formulas they replace.

``TiedBlocks`` builds its per-position arrays (``rows``, ``owner``, ``offset``,
``position``, ``row_start``) on first use; they must equal the blocks written out
row by row. ``block_relevance`` counts a block's relevant rows from the running
count when every block lies wholly inside the ranked rows; the count must equal the
relevant rows of the block counted one by one. AP's expected terms at tied positions
are summed chunk by chunk of whole queries; each query's sum must equal, bit for bit,
that of one ``np.bincount`` over all positions (the former code, written out here),
for any chunk size, and MAP must be the same for every chunk size.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_rank_metrics import mean_average_precision_score
from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._kernels import _binary
from sklearn_rank_metrics._kernels._relevance import block_relevance, sorted_relevance
from sklearn_rank_metrics._kernels._tie_blocks import tied_blocks


def _tied_data(seed, n_rows=300, n_levels=6, shuffled=True, unretrieved=False):
    rng = np.random.default_rng(seed)
    n_queries = int(rng.integers(1, 30))
    group = rng.integers(0, n_queries, n_rows)
    if not shuffled:
        group = np.sort(group)
    y_score = rng.integers(0, n_levels, n_rows) / n_levels  # many ties
    if unretrieved:
        y_score[rng.random(n_rows) < 0.1] = -np.inf
    y_true = rng.integers(0, 5, n_rows).astype(float)
    return y_true, y_score, group


def _blocks_row_by_row(ranked, k, every_row):
    """Every run of two or more tied sorted rows that starts within the cutoff, by hand."""
    tied = set(ranked.tied_rows.tolist()) if ranked.tied_rows is not None else set()
    depth = ranked.depth(k)
    if every_row or ranked.cutoff_rows(k) is None:
        depth, compact_start = ranked.n_rows_per_query, ranked.offsets[:-1]
    else:
        compact_start = np.cumsum(depth) - depth
    blocks = []
    for q in range(ranked.n_queries):
        row = int(ranked.offsets[q])
        while row < ranked.offsets[q + 1]:
            end = row + 1
            while end in tied:
                end += 1
            start_rank = row - int(ranked.offsets[q])
            if end - row > 1 and start_rank < depth[q]:
                inside = min(end - row, int(depth[q]) - start_rank)
                blocks.append((q, row, end - row, start_rank, inside,
                               int(compact_start[q]) + start_rank))
            row = end
    return blocks


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.sampled_from([None, 1, 3, 10, 1000]),
    every_row=st.booleans(),
    shuffled=st.booleans(),
    unretrieved=st.booleans(),
)
def test_tied_blocks_per_position_arrays_match_the_blocks_written_out(
    seed, k, every_row, shuffled, unretrieved
):
    ranked = rank_groups(*_tied_data(seed, shuffled=shuffled, unretrieved=unretrieved))
    blocks = tied_blocks(ranked, "average", k, every_row=every_row)
    expected = _blocks_row_by_row(ranked, k, every_row)
    assert len(blocks) == len(expected)
    rows, owner, offset, position, row_start = [], [], [], [], []
    for b, (q, first, size, start_rank, inside, block_position) in enumerate(expected):
        assert (blocks.query[b], blocks.first_row[b], blocks.size[b]) == (q, first, size)
        assert (blocks.start_rank[b], blocks.inside[b]) == (start_rank, inside)
        assert blocks.block_position[b] == block_position
        row_start.append(len(rows))
        rows += range(first, first + size)
        owner += [b] * inside
        offset += range(inside)
        position += range(block_position, block_position + inside)
    assert blocks.rows.tolist() == rows
    assert blocks.row_start.tolist() == row_start
    assert blocks.owner.tolist() == owner
    assert blocks.offset.tolist() == offset
    assert blocks.position.tolist() == position


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.sampled_from([None, 2, 10, 1000]),
    level=st.sampled_from([None, 2.0, 4.0]),
    unretrieved=st.booleans(),
)
def test_block_relevance_counts_every_relevant_row_of_each_block(seed, k, level, unretrieved):
    ranked = rank_groups(*_tied_data(seed, unretrieved=unretrieved))
    if ranked.tied_rows is None:
        return
    blocks = tied_blocks(ranked, "average", k)
    in_block, _, _ = block_relevance(ranked, "average", k, level)
    relevant = sorted_relevance(ranked, "average", level)
    by_hand = [int(relevant[int(first):int(first) + int(size)].sum())
               for first, size in zip(blocks.first_row, blocks.size, strict=True)]
    assert np.asarray(in_block).tolist() == by_hand
    assert np.asarray(in_block).dtype.kind in "iu"


def _tied_precision_in_one_bincount(n_queries, blocks, r, c):
    """The former code: every tied block and position at once, one ``np.bincount``."""
    share = r / blocks.size
    slope = share * (r - 1.0) / (blocks.size - 1.0)
    intercept = share * (c + 1.0)
    owner, t = blocks.owner, blocks.offset
    expected = slope[owner]
    expected *= t
    expected += intercept[owner]
    rank_plus_one = (blocks.start_rank + 1.0)[owner]
    rank_plus_one += t
    expected /= rank_plus_one
    return np.bincount(blocks.query[owner], weights=expected, minlength=n_queries)


@pytest.mark.parametrize("chunk", [1, 2, 7, 64, 1 << 15])
@pytest.mark.parametrize("seed", range(8))
def test_tied_precision_chunks_add_what_one_bincount_adds(monkeypatch, chunk, seed):
    monkeypatch.setattr(_binary, "_TIED_CHUNK_POSITIONS", chunk)
    ranked = rank_groups(*_tied_data(seed, n_rows=2000))
    blocks = tied_blocks(ranked, "average", None, every_row=True)
    rng = np.random.default_rng(seed)
    # r relevant of m rows, c relevant rows before the block (any counts will do here)
    r = np.minimum(rng.integers(0, 6, len(blocks)), blocks.size.astype(np.intp))
    c = rng.integers(0, 20, len(blocks)).astype(np.float64)
    start = rng.random(ranked.n_queries) * 10  # the tie-free part of each query's sum
    expected = start + _tied_precision_in_one_bincount(ranked.n_queries, blocks, r, c)
    got = start.copy()
    _binary._add_tied_precision(got, blocks, r, c)
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("chunk", [1, 5, 100])
def test_whole_query_chunks_cover_every_block_and_never_split_a_query(chunk):
    rng = np.random.default_rng(chunk)
    query = np.sort(rng.integers(0, 40, 300))
    count = rng.integers(1, 9, 300)
    chunks = _binary._whole_query_chunks(query, count, chunk)
    assert chunks[0][0] == 0 and chunks[-1][1] == len(query)
    for (_, stop), (first, _) in zip(chunks[:-1], chunks[1:], strict=True):
        assert stop == first and query[stop - 1] != query[stop]
    assert _binary._whole_query_chunks(query[:0], count[:0], chunk) == []


@pytest.mark.parametrize("seed", range(6))
def test_map_is_the_same_for_every_chunk_size(monkeypatch, seed):
    data = _tied_data(seed, n_rows=3000, unretrieved=seed % 2 == 1)
    values = []
    for chunk in (1, 3, 1 << 15):
        monkeypatch.setattr(_binary, "_TIED_CHUNK_POSITIONS", chunk)
        values.append(mean_average_precision_score(*data))
    assert values[0] == values[1] == values[2]


# ---------------------------------------------------------------------------
# The blocks and the cutoff's scope by hand
# ---------------------------------------------------------------------------

# three queries of rows already in rank order: a has no tie; b a block of 3 at rank 1
# and a -inf row; c blocks of 2 at ranks 0 and 2
HAND = {
    "a": ([0, 1, 0, 1], [0.9, 0.8, 0.7, 0.6]),
    "b": ([0, 1, 0, 1, 0, 1], [0.9, 0.5, 0.5, 0.5, 0.1, -np.inf]),
    "c": ([1, 0, 1, 0], [0.3, 0.3, 0.2, 0.2]),
}


def _hand_ranked():
    group = np.concatenate([[q] * len(labels) for q, (labels, _) in HAND.items()])
    y_true = np.concatenate([labels for labels, _ in HAND.values()]).astype(float)
    y_score = np.concatenate([scores for _, scores in HAND.values()])
    return rank_groups(y_true, y_score, group)


@pytest.mark.parametrize(
    ("k", "every_row", "expected"),
    [
        # (size, start rank, positions inside, query, first sorted row) of each block;
        # sorted rows: a 0-3, b 4-9, c 10-13
        (None, False, [(3, 1, 3, 1, 5), (2, 0, 2, 2, 10), (2, 2, 2, 2, 12)]),
        (2, False, [(3, 1, 1, 1, 5), (2, 0, 2, 2, 10)]),  # c's second block starts at 2
        (3, False, [(3, 1, 2, 1, 5), (2, 0, 2, 2, 10), (2, 2, 1, 2, 12)]),
        (None, True, [(3, 1, 3, 1, 5), (2, 0, 2, 2, 10), (2, 2, 2, 2, 12)]),
    ],
)
def test_tied_blocks_by_hand(k, every_row, expected):
    blocks = tied_blocks(_hand_ranked(), "average", k, every_row=every_row)
    got = list(zip(blocks.size, blocks.start_rank, blocks.inside, blocks.query,
                   blocks.first_row, strict=True))  # fmt: skip
    assert [tuple(int(v) for v in block) for block in got] == expected
    # compact position of each block's first row: the rows each query ranks (a 4, b 5
    # retrieved or 6 with every row, c 4) within the cutoff, counted query after query
    depth = np.minimum([4, 6 if every_row else 5, 4], 6 if k is None else k)
    start = np.cumsum(depth) - depth
    position = [start[q] + s for _, s, _, q, _ in expected]
    np.testing.assert_array_equal(blocks.block_position, position)


def test_cutoff_scope_names_every_row_when_the_cutoff_keeps_them_all():
    from sklearn_rank_metrics._kernels._tie_blocks import EVERY_ROW, cutoff_scope

    with_unretrieved = _hand_ranked()  # b's -inf row is past every cutoff
    assert cutoff_scope(with_unretrieved, None, False) is None
    assert cutoff_scope(with_unretrieved, 2, False) == 2
    assert cutoff_scope(with_unretrieved, None, True) == EVERY_ROW
    retrieved = rank_groups([1.0, 0.0, 1.0], [0.3, 0.2, 0.1], [0, 0, 1])
    assert cutoff_scope(retrieved, None, False) == EVERY_ROW
    assert cutoff_scope(retrieved, 2, False) == EVERY_ROW  # k at the largest query
    assert cutoff_scope(retrieved, 1, False) == 1
