"""Sort rows by (query, score descending): packed 64-bit keys, at once or query by query.

NumPy sorts plain values several times faster than it argsorts them, so the row
order is not found with ``argsort`` but carried inside the values being sorted.
Once the rows are grouped by query, each row becomes one ``uint64`` key with two
fields, most significant first::

    | score, truncated to the bits left | position within the query |

where the score field is the order-preserving bit pattern of ``-score`` (so larger
scores come first) cut to its high bits. Sorting a query's keys sorts its rows by
score descending, then by input position: tied rows stay in input order. The row
order is read back from the position field.

When the query ids are scattered, one sort of ``query | score | row`` keys for all
rows can replace grouping them and the per-query sorts (:func:`_sort_packed_keys_at_once`,
chosen by :func:`_choose_strategy` from the input's shape and, for large inputs, from
how fast this machine's NumPy sorts one long array: :func:`_one_sort_is_faster`).
Otherwise each query's keys are sorted on their own, as the rows of padded 2-D blocks
(:func:`_sort_segments`): short sorts run in cache and need no query field in the
key (``benchmarks/bench_sort_paths.py`` times both paths). Queries of a few rows
(at most 32) are sorted many to a row instead (:func:`_sort_small_queries`): a row
sort costs about a call, and a call per query of a few rows costs more than the
sorting. On that path, rows of a
query that are not contiguous (scattered ids whose key would be too narrow for one
sort) are first grouped, stably, by a radix sort of the query codes
(:func:`_group_rows_stably`).

Truncating the score can make two different scores of one query compare equal (a
*false tie*). The sorted scores are then not descending inside a run of equal
truncated scores; such runs are found with one comparison pass and re-sorted exactly
by ``lexsort``, at a cost of the rows of those runs, not of their queries.
Ties and false ties can only sit where a sorted key equals the previous one in its
score field, within one query, so only those rows are compared on their full
scores. For float32 scores (23 mantissa bits) and every query of up to 2**28 rows,
false ties cannot occur; for float64 scores they are rare. A query too large to
leave 32 bits for the score (over 2**32 rows) makes the sort use argsort instead.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from ._present import present
from ._segments import query_blocks, segment_rows

_SIGN_BIT = np.uint64(1 << 63)
_MIN_SCORE_BITS = 32
_CHUNK_ROWS = 1 << 15
_SEGMENT_CELLS = 1 << 18


def _bit_width(count: int) -> int:
    """Bits needed to store the values ``0 .. count - 1``."""
    return max(int(count) - 1, 0).bit_length()


def _packed_keys(
    scores: np.ndarray, positions: np.ndarray | None, position_bits: int, top_bits: int = 0
) -> np.ndarray:
    """The sort keys ``truncated descending score | position``, as ``uint64``.

    The IEEE-754 bit pattern ``b`` of ``y = -score`` orders like ``y`` as an unsigned
    integer once negative values have all their bits flipped and non-negative ones
    their sign bit set: ``b ^ ((b >> 63) | sign bit)`` with an arithmetic shift.
    ``y`` is computed as ``0.0 - score``, which is ``+0.0`` for both zeros, so
    ``-0.0`` and ``+0.0`` tie, as they compare. That key's lowest ``position_bits``
    bits are cleared and take the ``positions`` (``uint64``; None: the whole
    ordered bit pattern, nothing cleared). ``top_bits``: the pattern is first shifted
    right by as many bits, leaving the key's highest ``top_bits`` bits 0 (for
    :func:`_sort_small_queries`). The work runs in cache-sized chunks (a fixed
    number of them, not one per query), so each row is read from memory once.
    """
    n_rows = len(scores)
    keys = np.empty(n_rows, dtype=np.uint64)
    flip = np.empty(min(n_rows, _CHUNK_ROWS), dtype=np.int64)
    score_field = ~np.uint64((1 << position_bits) - 1)
    shift = np.uint64(top_bits)
    for start in range(0, n_rows, _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, n_rows)
        chunk = keys[start:stop]
        _ordered_bits(scores[start:stop], chunk, flip[: stop - start])
        if top_bits:
            chunk >>= shift
        if positions is not None:
            chunk &= score_field
            chunk |= positions[start:stop]
    return keys


def _ordered_bits(scores: np.ndarray, out: np.ndarray, flip: np.ndarray) -> None:
    """Write into ``out`` (``uint64``) the order-preserving bit pattern of ``0.0 - scores``
    (see :func:`_packed_keys`); ``flip`` is an ``int64`` work array of the same length."""
    np.subtract(0.0, scores, out=out.view(np.float64))
    np.right_shift(out.view(np.int64), 63, out=flip)  # all ones if negative
    flip_bits = flip.view(np.uint64)
    flip_bits |= _SIGN_BIT
    out ^= flip_bits


def positions_in_queries(rows_per_query: np.ndarray) -> np.ndarray:
    """0-based position of every sorted row within its query (``intp``), one running sum.

    Consecutive rows of a query differ by 1, and the first row of a query follows the
    last row of the query before it by ``1 - rows_per_query[q - 1]``. Empty queries
    (allowed here) hold no rows, so they are left out of the sum. When every query
    holds the same number ``m`` of rows, the positions are ``0 .. m - 1`` repeated
    (one tiling, no running sum).
    """
    n_rows = int(rows_per_query.sum())
    if n_rows == len(rows_per_query) and (n_rows == 0 or rows_per_query.max() == 1):
        return np.zeros(n_rows, dtype=np.intp)  # one row per query (none empty)
    width = int(rows_per_query.max())
    if n_rows == width * len(rows_per_query):  # every query holds `width` rows
        return np.tile(np.arange(width, dtype=np.intp), len(rows_per_query))
    positions = np.ones(n_rows, dtype=np.intp)
    if len(positions):
        filled = rows_per_query[rows_per_query > 0]
        positions[0] = 0
        positions[np.cumsum(filled[:-1])] = 1 - filled[:-1]
        np.cumsum(positions, out=positions)
    return positions


def sort_by_query_then_score(
    codes: np.ndarray | None,
    scores: np.ndarray,
    offsets: np.ndarray,
    contiguous: bool,
) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """Row order by (query, score descending), and the rows tied with the previous one.

    Parameters
    ----------
    codes : ndarray of shape (n_rows,) or None
        Query code ``0 .. n_queries - 1`` of every row; may be None when
        ``contiguous`` (the offsets then say everything).
    scores : ndarray of shape (n_rows,)
        Float64 scores, without NaN.
    offsets : ndarray of shape (n_queries + 1,)
        Query ``q`` owns sorted rows ``offsets[q]:offsets[q + 1]``; no query is empty.
    contiguous : bool
        Whether ``codes`` is non-decreasing (every query's rows are together).

    Returns
    -------
    order : ndarray of shape (n_rows,)
        Input row of every sorted row.
    tied_rows : ndarray of shape (n_tied,) or None
        The sorted rows whose score equals the previous row's within the query (every
        row of a run of equal scores but its first), ascending; None when no two rows
        of a query tie.
    input_order_in_ties : bool
        Whether rows of equal score within a query are in input order (always, except
        on the argsort fallback).
    """
    n_rows = len(scores)
    rows_per_query = np.diff(offsets)
    position_bits = _bit_width(int(rows_per_query.max()))
    strategy = _choose_strategy(n_rows, len(offsets) - 1, position_bits, contiguous)
    if strategy == "one_sort":
        if codes is None:
            codes = np.repeat(np.arange(len(offsets) - 1), rows_per_query)
        return _sort_packed_keys_at_once(codes, scores, offsets)
    if strategy == "argsort":
        order = _argsort_then_radix(codes, scores, offsets)
        return order, _scan_sorted_scores(scores, order, offsets), False
    return _sort_per_query(codes, scores, offsets, rows_per_query, position_bits, contiguous)


def _sort_per_query(
    codes: np.ndarray | None,
    scores: np.ndarray,
    offsets: np.ndarray,
    rows_per_query: np.ndarray,
    position_bits: int,
    contiguous: bool,
) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """The per-query path of :func:`sort_by_query_then_score`: rows grouped by query
    (scattered ids only), then each query's ``score | position`` keys sorted."""
    n_rows = len(scores)
    if position_bits == 0:  # one row per query: nothing to sort, nothing tied
        if contiguous:
            return np.arange(n_rows, dtype=np.intp), None, True
        # the codes are a permutation of 0 .. n_rows - 1: its inverse, one scatter
        order = np.empty(n_rows, dtype=np.intp)
        order[present(codes, "codes")] = offsets[:-1]  # each query starts at its row
        return order, None, True
    grouped = None if contiguous else _group_rows_stably(present(codes, "codes"), n_rows)
    grouped_scores = scores if grouped is None else scores[grouped]
    rank = positions_in_queries(rows_per_query)
    row_length = _small_query_row_length(rows_per_query, n_rows)
    if row_length is None:
        keys = _packed_keys(grouped_scores, rank.view(np.uint64), position_bits)
        _sort_segments(keys, rows_per_query, offsets)
    else:
        top_bits = _bit_width(row_length)
        keys = _packed_keys(grouped_scores, rank.view(np.uint64), position_bits, top_bits)
        _sort_small_queries(keys, rows_per_query, offsets, row_length, top_bits)
    candidates = _equal_prefix_rows(keys, position_bits, offsets)
    keys &= np.uint64((1 << position_bits) - 1)
    order = keys.view(np.intp)
    _add_query_starts(order, rank)
    del keys, rank
    tied_rows = _tied_rows(candidates, grouped_scores, order)
    if grouped is not None:
        order = grouped[order]
    return order, tied_rows, True


# "auto", or a path forced by the tests: "one_sort", "per_query", "argsort"
_STRATEGY = "auto"
# the one-sort path needs this many bits left for the score beside query and row
_MIN_SCORE_BITS_ONE_SORT = 16
# scattered inputs of this many rows or more take the path measured faster here
_MEASURE_FROM_ROWS = 1 << 17
_MEASURE_ROWS = 1 << 15
# the measurement, once per process (None: not taken yet), taken under the lock
_ONE_SORT_FASTER: bool | None = None
_MEASUREMENT_LOCK = threading.Lock()


def _choose_strategy(n_rows: int, n_queries: int, position_bits: int, contiguous: bool) -> str:
    """Which sort serves this input; every path gives the same order and tied rows.

    * ``"one_sort"``: rows of a query are scattered (ids not sorted) and the row
      index and query code leave at least 16 bits for the score in a 64-bit key.
      One ``np.sort`` of ``query | score | row`` keys replaces grouping the rows by
      query (a radix pass and a gather) plus the per-query sorts.
    * ``"per_query"``: ids already contiguous (nothing to group; each query's keys
      are sorted on their own, in cache), or too many rows and queries for one key.
    * ``"argsort"``: a query too large to leave 32 bits for the score.

    The rule reads the input's shape, and for scattered ids of at least
    :data:`_MEASURE_FROM_ROWS` rows, which sort is faster on this machine
    (:func:`_one_sort_is_faster`): NumPy's long sorts differ several-fold between
    CPUs and SIMD levels, its short per-query sorts much less. Either path gives the
    same order and tied rows, so the choice changes the time and the memory (the
    per-query path holds the grouping permutation and the grouped scores, 16 bytes
    per row more), never a result.
    """
    if _STRATEGY != "auto":
        return _STRATEGY
    if 64 - position_bits < _MIN_SCORE_BITS:
        return "argsort"
    if position_bits == 0:  # one row per query: nothing to sort
        return "per_query"
    spare = 64 - _bit_width(n_rows) - _bit_width(n_queries)
    if not contiguous and spare >= _MIN_SCORE_BITS_ONE_SORT:
        if n_rows >= _MEASURE_FROM_ROWS and not _one_sort_is_faster():
            return "per_query"
        return "one_sort"
    return "per_query"


def _one_sort_is_faster() -> bool:
    """Whether one sort of all keys beats grouping plus per-query sorts on this machine.

    Measured once per process, on first need (one thread measures, others wait):
    both paths sort the same synthetic input (:data:`_MEASURE_ROWS` rows with
    scattered ids, queries of about 100 rows, from a generator of its own), three
    times each, interleaved, and the best times are compared (5 to 8 ms in all on an
    idle 2-core machine). ``benchmarks/bench_sort_paths.py`` shows the measured gap:
    on an AMD Zen 4 whose NumPy dispatches to AVX-512, one sort takes 1.2 to 1.9
    times as long as the per-query path from 2**15 to 2**20 rows (x86-simd-sort's
    AVX-512 partitions are slow there); with AVX2 sorts, 0.5 to 0.7 times. One
    query size decides for all: with queries of a few rows, where per-query sorts
    gain least, the path chosen can be up to about 10 % slower than the other.
    """
    global _ONE_SORT_FASTER
    with _MEASUREMENT_LOCK:
        if _ONE_SORT_FASTER is None:
            best = _best_path_times()
            _ONE_SORT_FASTER = bool(best["one_sort"] <= best["per_query"])
        return _ONE_SORT_FASTER


def _best_path_times() -> dict[str, float]:
    """Best of three seconds of each path on the synthetic input of
    :func:`_one_sort_is_faster` (scattered ids: the per-query path groups them)."""
    rng = np.random.default_rng(0)
    n_queries = _MEASURE_ROWS // 100
    codes = rng.integers(0, n_queries, _MEASURE_ROWS)
    scores = rng.random(_MEASURE_ROWS)
    offsets = np.zeros(n_queries + 1, dtype=np.intp)
    np.cumsum(np.bincount(codes, minlength=n_queries), out=offsets[1:])
    rows_per_query = np.diff(offsets)
    position_bits = _bit_width(int(rows_per_query.max()))
    best = {"one_sort": np.inf, "per_query": np.inf}
    for _ in range(3):
        start = time.perf_counter()
        _sort_packed_keys_at_once(codes, scores, offsets)
        middle = time.perf_counter()
        _sort_per_query(codes, scores, offsets, rows_per_query, position_bits, False)
        stop = time.perf_counter()
        best["one_sort"] = min(best["one_sort"], middle - start)
        best["per_query"] = min(best["per_query"], stop - middle)
    return best


def _sort_packed_keys_at_once(
    codes: np.ndarray, scores: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """One sort of ``query code | score field | input row`` keys (``uint64``).

    The score field is the order-preserving bit pattern of ``-score`` (as in
    :func:`_packed_keys`), made range-adaptive: the finite scores' patterns minus
    their minimum, shifted right just enough to fit the bits left, starting at 1; an
    infinite score takes the field's lowest (``+inf``) or highest (``-inf``) value,
    so no finite score shares its field. Equal fields in a query are rows tied or
    falsely tied; they are found and repaired exactly as on the per-query path
    (:func:`_equal_prefix_rows`, :func:`_tied_rows`). Tied rows stay in input order.
    """
    n_rows = len(scores)
    n_queries = len(offsets) - 1
    row_bits = _bit_width(n_rows)
    query_bits = _bit_width(n_queries)
    score_bits = 64 - row_bits - query_bits
    keys, finite, low, high = _finite_key_range(scores)
    all_finite = finite is None
    # finite fields take 1 .. 2**score_bits - 2: 0 and the top are the infinities'
    shift = max((high - low).bit_length() - (score_bits - 1), 0)
    if (high - low) >> shift > (1 << score_bits) - 3:
        shift += 1
    low_key, shift_key = np.uint64(low), np.uint64(shift)
    top_field = np.uint64((1 << score_bits) - 1)
    query_shift = np.uint64(64 - query_bits)
    row_shift = np.uint64(row_bits)
    flip = np.empty(min(n_rows, _CHUNK_ROWS), dtype=np.int64)
    for start in range(0, n_rows, _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, n_rows)
        chunk = keys[start:stop]
        if finite is None:  # every score finite
            _ordered_bits(scores[start:stop], chunk, flip[: stop - start])
        else:
            chunk_finite = finite[start:stop]
            positive_infinity = ~chunk_finite & (scores[start:stop] > 0)
            chunk[~chunk_finite] = low_key  # placeholders, set below
        chunk -= low_key
        chunk >>= shift_key
        chunk += np.uint64(1)
        if not all_finite:
            chunk[positive_infinity] = 0
            chunk[~chunk_finite & ~positive_infinity] = top_field
        chunk <<= row_shift
        chunk |= np.arange(start, stop, dtype=np.uint64)
        if query_bits:
            chunk |= codes[start:stop].astype(np.uint64) << query_shift
    keys.sort()
    candidates = _equal_prefix_rows(keys, row_bits, offsets)
    keys &= np.uint64((1 << row_bits) - 1)
    order = keys.view(np.intp)
    return order, _tied_rows(candidates, scores, order), True


def _finite_key_range(
    scores: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None, int, int]:
    """The smallest and largest ordered bit pattern of ``-score`` over the finite scores.

    Returns ``(keys, finite, low, high)``. When every score is finite (then so are the
    extremes: no NaN here) the extremes' patterns are those of the largest and smallest
    scores, ``keys`` is an empty ``uint64`` array for the caller to fill in one pass, and
    ``finite`` is None. Otherwise ``keys`` holds every row's pattern and ``finite``
    says which rows are finite (``low = high = 0`` when none is).
    """
    n_rows = len(scores)
    extremes = np.array([scores.max(), scores.min()]) if n_rows else np.zeros(0)
    if np.isfinite(extremes).all():
        low_high = _packed_keys(extremes, None, 0) if n_rows else np.zeros(2, dtype=np.uint64)
        return np.empty(n_rows, dtype=np.uint64), None, int(low_high[0]), int(low_high[1])
    keys = _packed_keys(scores, None, 0)  # the ordered bit pattern of -score
    finite = np.isfinite(scores)
    finite_keys = keys[finite]
    if not len(finite_keys):
        return keys, finite, 0, 0
    return keys, finite, int(finite_keys.min()), int(finite_keys.max())


def _equal_prefix_rows(keys: np.ndarray, field_bits: int, offsets: np.ndarray) -> np.ndarray:
    """Sorted rows whose key equals the previous row's in all but the low ``field_bits``.

    Those rows share the truncated score with the row before them in their query: the
    only places where two scores can be tied, or out of order (a false tie). Found
    with one chunked pass over the keys, before any scores are gathered; the first
    row of a query has no row before it in its query and is left out.
    """
    limit = np.uint64(1 << field_bits)
    query_starts = offsets[1:-1]
    found = []
    for start in range(1, len(keys), _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, len(keys))
        differing_bits = keys[start:stop] ^ keys[start - 1 : stop - 1]
        first, last = np.searchsorted(query_starts, (start, stop))
        differing_bits[query_starts[first:last] - start] = limit  # never a candidate
        same = np.flatnonzero(differing_bits < limit)
        if len(same):
            found.append(same + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _tied_rows(candidates: np.ndarray, scores: np.ndarray, order: np.ndarray) -> np.ndarray | None:
    """Sorted rows whose score equals the previous row's, after fixing any false ties.

    Only the ``candidates`` (rows whose truncated score equals the previous row's in
    their query) can tie with the row before them or sit above it. A candidate whose
    full score is higher than the previous row's marks a false tie: its run of equal
    truncated scores is re-sorted exactly (:func:`_resort_runs`).
    """
    current = scores[order[candidates]]
    previous = scores[order[candidates - 1]]
    tied = current == previous
    rising = current > previous
    del current, previous
    if rising.any():
        _resort_runs(order, scores, candidates, rising, tied)
    tied_rows = candidates[tied]
    return tied_rows if len(tied_rows) else None


def _resort_runs(
    order: np.ndarray,
    scores: np.ndarray,
    candidates: np.ndarray,
    rising: np.ndarray,
    tied: np.ndarray,
) -> None:
    """Re-sort exactly, in place, the runs of equal truncated scores that hold a rising row.

    A run is a row followed by the consecutive candidates after it; its rows are in
    position order, and rows outside it are correctly placed around it (truncation
    keeps the order of unequal truncated scores). So a run whose full scores rise
    somewhere is sorted again by (score descending, position), and ``tied`` (one flag
    per candidate) is recomputed for its candidates. The work is O(rows of those
    runs), however large their queries.
    """
    run_start = np.ones(len(candidates), dtype=bool)
    np.not_equal(candidates[1:], candidates[:-1] + 1, out=run_start[1:])
    run_of_candidate = np.cumsum(run_start)
    run_of_candidate -= 1
    broken = np.zeros(int(run_of_candidate[-1]) + 1, dtype=bool)
    broken[run_of_candidate[rising]] = True
    run_candidates = np.diff(np.append(np.flatnonzero(run_start), len(candidates)))
    in_broken = broken[run_of_candidate]
    heads = candidates[run_start & in_broken] - 1
    lengths = run_candidates[broken] + 1
    rows = segment_rows(heads, lengths)
    run_of_row = np.repeat(np.arange(len(heads)), lengths)
    resorted = np.lexsort((order[rows], -scores[order[rows]], run_of_row))
    order[rows] = order[rows[resorted]]
    sorted_scores = scores[order[rows]]
    tied_in_rows = np.zeros(len(rows), dtype=bool)
    np.equal(sorted_scores[1:], sorted_scores[:-1], out=tied_in_rows[1:])
    is_head = np.zeros(len(rows), dtype=bool)
    is_head[np.cumsum(lengths) - lengths] = True
    tied[in_broken] = tied_in_rows[~is_head]  # a run's candidates are its rows but the head


def _scan_sorted_scores(
    scores: np.ndarray, order: np.ndarray, offsets: np.ndarray
) -> np.ndarray | None:
    """Sorted rows whose score equals the previous row's within the query (None: no ties).

    One chunked pass over ``scores[order]``, for the argsort fallback, whose keys
    carry no scores; ``scores[order]`` is never held whole.
    """
    n_rows = len(order)
    new_run = np.empty(n_rows, dtype=bool)
    new_run[0] = True
    for start in range(1, n_rows, _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, n_rows)
        chunk = scores[order[start - 1 : stop]]
        np.not_equal(chunk[1:], chunk[:-1], out=new_run[start:stop])
    new_run[offsets[:-1]] = True
    if new_run.all():
        return None
    return np.flatnonzero(~new_run)


def _add_query_starts(position: np.ndarray, rank: np.ndarray) -> None:
    """Turn positions within queries into row indices, in place: add ``i - rank[i]``.

    Row ``i`` (rank ``rank[i]`` in its query) belongs to the query starting at row
    ``i - rank[i]``. Runs in cache-sized chunks, like :func:`_packed_keys`.
    """
    for start in range(0, len(position), _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, len(position))
        chunk = position[start:stop]
        chunk -= rank[start:stop]
        chunk += np.arange(start, stop, dtype=np.intp)


def _group_rows_stably(codes: np.ndarray, n_rows: int) -> np.ndarray:
    """Input rows ordered by query code, keeping input order within each query.

    A least-significant-digit radix sort: one stable argsort per 16-bit digit of the
    codes, which NumPy runs as a linear-time radix sort (one pass up to 65,536
    queries, two up to 2**32).
    """
    n_bits = _bit_width(int(codes.max()) + 1) if n_rows else 0
    grouped = np.argsort(codes.astype(np.uint16), kind="stable")
    for shift in range(16, n_bits, 16):
        digit = (codes[grouped] >> shift).astype(np.uint16)  # keeps the low 16 bits
        grouped = grouped[np.argsort(digit, kind="stable")]
    return grouped


# queries of at most this many rows are sorted many to a row (0: never; the tests
# set it to compare both ways)
_SMALL_QUERY_MAX_ROWS = 32
# NumPy's sort of a 2-D array costs about a call per row, so rows of a few keys
# cost several times more per key than rows of 32 to 256 (benchmarks/
# bench_booster_metrics.py times the whole metric). Queries of one size take rows
# of whole queries, about _SMALL_QUERY_ROW_LENGTH keys; others rows of twice as
# many, so that fewer queries are cut by a row's end and sorted again.
_SMALL_QUERY_ROW_LENGTH = 64


def _small_query_row_length(rows_per_query: np.ndarray, n_rows: int) -> int | None:
    """The row length of :func:`_sort_small_queries` for these queries, or None.

    Queries of at most :data:`_SMALL_QUERY_MAX_ROWS` rows, at least two rows of
    keys in all; queries of one size ``m`` take rows of whole queries (``m * (L //
    m)`` keys for ``L`` = :data:`_SMALL_QUERY_ROW_LENGTH`: no query is cut), others
    rows of ``2 * L`` keys.
    """
    width = int(rows_per_query.max())
    if not 1 < width <= _SMALL_QUERY_MAX_ROWS:
        return None
    if n_rows == width * len(rows_per_query):
        length = width * max(1, _SMALL_QUERY_ROW_LENGTH // width)
    else:
        length = 2 * _SMALL_QUERY_ROW_LENGTH
    return length if n_rows >= 2 * length else None


def _sort_small_queries(
    keys: np.ndarray,
    rows_per_query: np.ndarray,
    offsets: np.ndarray,
    row_length: int,
    top_bits: int,
) -> None:
    """Sort each query's keys in place, many small queries in each row of one 2-D sort.

    NumPy's sort of a 2-D array costs about a call per row, which dominates for
    queries of a few rows. Here the keys are cut into rows of ``row_length``
    whatever the queries, and each key's ``top_bits`` highest bits (0 on entry, see
    :func:`_packed_keys`) take its query's index counted from the query of its row's
    first key: sorting a row then sorts the keys of each of its queries, and keeps
    the queries apart, in their order. A query cut by a row's end (its two parts
    sorted each on its own), and the queries of the last keys (fewer than a row),
    are then sorted whole (:func:`_sort_segments` of those queries alone). The top
    bits are cleared at the end: the keys are those :func:`_sort_segments` leaves.
    """
    n_rows = len(keys)
    n_queries = len(rows_per_query)
    n_cut = n_rows // row_length
    covered = n_cut * row_length
    grid = keys[:covered].reshape(n_cut, row_length)
    query_shift = np.uint64(64 - top_bits)
    width = int(rows_per_query.max())
    if n_rows == width * n_queries:  # whole queries per row: one pattern for all rows
        grid |= (np.arange(row_length, dtype=np.uint64) // np.uint64(width)) << query_shift
    else:
        # a query's index counted from its row's first: the query starts up to each
        # key, less those up to the row's first key
        starts = np.zeros(covered, dtype=np.uint64)
        starts[offsets[1:][offsets[1:] < covered]] = 1
        np.cumsum(starts, out=starts)
        local = starts.reshape(n_cut, row_length)
        local -= local[:, :1].copy()  # < row_length: fits in top_bits
        local <<= query_shift
        grid |= local
        del starts, local
    grid.sort(axis=1)
    grid &= np.uint64((1 << (64 - top_bits)) - 1)
    # the queries cut by a row's end, and those of the keys after the last row
    ends = np.arange(row_length, covered + 1, row_length)
    query_at_end = np.searchsorted(offsets, ends, side="right") - 1  # of the key ends[i]
    cut = (query_at_end < n_queries) & (offsets[np.minimum(query_at_end, n_queries - 1)] < ends)
    again = np.zeros(n_queries, dtype=bool)
    again[query_at_end[cut]] = True
    again[query_at_end[-1] :] = True  # the queries of the keys after the last row
    again &= rows_per_query > 1
    redo = np.flatnonzero(again)
    if len(redo):
        sizes = rows_per_query[redo]
        _sort_rows_padded(keys, offsets, redo, sizes, int(sizes.max()))


def _sort_segments(keys: np.ndarray, rows_per_query: np.ndarray, offsets: np.ndarray) -> None:
    """Sort, in place, each query's run ``keys[offsets[q]:offsets[q + 1]]``.

    Many short sorts cost far less than one long one: each row of a 2-D array is
    sorted on its own, in cache, and short rows by NumPy's small-array sorting
    networks (O(n log m) for queries of m rows instead of O(n log n)). The queries
    are cut into blocks of consecutive queries of about :data:`_SEGMENT_CELLS` / 2
    rows; a block becomes one padded 2-D array (:func:`_sort_rows_padded`) when that
    at most doubles its cells, else its queries are split into size classes
    ``(2**(c-1), 2**c]``, each padded to its own longest query (at most doubled too).
    The loops run over blocks and classes, a number fixed by the row count, never over
    queries one by one.
    """
    for first, stop in query_blocks(offsets, _SEGMENT_CELLS // 2):
        sizes = rows_per_query[first:stop]
        width = int(sizes.max())
        if width == 1:
            continue
        if (stop - first) * width <= 2 * (offsets[stop] - offsets[first]):
            _sort_rows_padded(keys, offsets, np.arange(first, stop), sizes, width)
            continue
        size_class = np.frexp(sizes - 1)[1]  # bit length of size - 1
        classes_present = np.unique(size_class[size_class > 0])  # one-row queries stay
        for size_class_bits in classes_present:  # at most 33 classes, never one per query
            members = np.flatnonzero(size_class == size_class_bits)
            _sort_rows_padded(
                keys, offsets, first + members, sizes[members], int(sizes[members].max())
            )


def _sort_rows_padded(
    keys: np.ndarray, offsets: np.ndarray, queries: np.ndarray, sizes: np.ndarray, width: int
) -> None:
    """Sort the runs of the given ``queries`` (ascending) as rows of one padded 2-D array.

    The padding is the largest key, so it sorts last. Consecutive queries are read
    and written as one slice; a single query is sorted where it lies, and so are
    consecutive queries of ``width`` rows each (their slice is the 2-D array, no
    padding: many small queries of one size, a booster's usual validation set).
    """
    if len(queries) == 1:
        keys[offsets[queries[0]] : offsets[queries[0] + 1]].sort()
        return
    rows: slice | np.ndarray
    if queries[-1] - queries[0] == len(queries) - 1:  # consecutive
        rows = slice(offsets[queries[0]], offsets[queries[-1] + 1])
        if rows.stop - rows.start == len(queries) * width:  # all of `width` rows
            keys[rows].reshape(len(queries), width).sort(axis=1)  # a view: in place
            return
    else:
        rows = segment_rows(offsets[queries], sizes)
    padded = np.full((len(queries), width), np.iinfo(np.uint64).max, dtype=np.uint64)
    filled = np.arange(width) < sizes[:, None]
    padded[filled] = keys[rows]
    padded.sort(axis=1)
    keys[rows] = padded[filled]


def _argsort_then_radix(
    codes: np.ndarray | None, scores: np.ndarray, offsets: np.ndarray
) -> np.ndarray:
    """Fallback: one argsort of all scores, then a stable radix sort of the codes.

    The radix sort keeps the score order inside each query. The order inside tie
    blocks is arbitrary.
    """
    n_queries = len(offsets) - 1
    order = np.argsort(-scores)
    if n_queries > 1:
        if codes is None:
            codes = np.repeat(np.arange(n_queries), np.diff(offsets))
        order = order[_group_rows_stably(codes[order], len(order))]
    return order
