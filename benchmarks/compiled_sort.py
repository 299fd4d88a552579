"""A numba prototype of ``sort_by_query_then_score``: benchmarks only, never the package.

numba is not a dependency of the project (``pip install numba`` to run this); the
package's sort stays pure NumPy. The functions here take and return exactly what
:func:`sklearn_rank_metrics._engine._sorting.sort_by_query_then_score` takes and
returns, so ``bench_compiled.py`` can check them against it and patch them in.

Algorithm (a stable scatter by query, then one small sort per query):

1. With scattered query ids, a stable counting scatter over the query offsets puts
   every row's input index and score at its query's place (rows of a query keep
   their input order); with contiguous ids nothing moves.
2. Each of a query's rows becomes one ``uint64`` key ``descending score field |
   position in the query``: the order-preserving bit pattern of ``-score`` (``-0.0``
   read as ``+0.0``, so the two zeros tie) with its low bits replaced by the
   position. Keys are distinct, and their order is (score descending, then input
   row). Queries of up to 16 rows are insertion-sorted; larger ones bucket-sorted:
   one bucket per row by linear interpolation of the score between the query's
   extremes, a counting scatter of the keys, one insertion sort that only moves keys
   within their bucket; when a bucket would hold over 32 rows (many equal or
   clustered scores, ``-inf`` beside finite scores) numba's quicksort sorts the keys.
3. One scan per query compares the full scores of neighbours whose score fields are
   equal: equal scores are tied rows; a different score is a *false tie* (the cut
   low bits differed), and that run of equal fields is re-sorted exactly by a stable
   merge argsort of its full scores over its rows taken in ascending order.

The parallel variant splits the scatter over row chunks (per-chunk histograms of
query codes, so the scatter stays stable) and the per-query sorts over chunks of
whole queries balanced by rows (``prange``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

_SIGN = np.uint64(1 << 63)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_INSERTION_ROWS = 16
_BUCKET_LIMIT = 32
_MIN_SCORE_BITS = 32


@njit(cache=False, inline="always")
def _key(bits: np.uint64, row: int, row_bits: np.uint64) -> np.uint64:
    """``descending score field | row`` from the IEEE-754 bits of one score."""
    if bits == _SIGN:  # -0.0 ties +0.0
        bits = np.uint64(0)
    if bits >> np.uint64(63):
        descending = bits  # negative: a larger magnitude sorts later
    else:
        descending = ~(bits | _SIGN)  # non-negative: a larger score sorts earlier
    return ((descending >> row_bits) << row_bits) | np.uint64(row)


@njit(cache=False)
def _insertion_sort(seg: np.ndarray) -> None:
    for i in range(1, len(seg)):
        value = seg[i]
        j = i - 1
        while j >= 0 and seg[j] > value:
            seg[j + 1] = seg[j]
            j -= 1
        seg[j + 1] = value


@njit(cache=False)
def _resort_false_ties(seg: np.ndarray, scores: np.ndarray, row_mask: np.uint64) -> None:
    """Re-sort every run of equal score fields holding two different scores, exactly."""
    limit = row_mask + np.uint64(1)
    m = len(seg)
    a = 0
    while a < m:
        b = a + 1
        while b < m and (seg[b] ^ seg[a]) < limit:
            b += 1
        if b - a > 1:
            rows = np.sort(seg[a:b] & row_mask)  # ascending rows: ties keep input order
            values = np.empty(b - a, dtype=np.float64)
            for j in range(b - a):
                values[j] = -scores[rows[j]]
            within = np.argsort(values, kind="mergesort")  # stable
            field = seg[a] & ~row_mask
            for j in range(b - a):
                seg[a + j] = field | rows[within[j]]
        a = b


@njit(cache=False)
def _bucket_sort(
    scores: np.ndarray, pos_bits: np.uint64, out: np.ndarray, counts: np.ndarray,
    buckets: np.ndarray,
) -> bool:
    """Sort the keys of one query's ``scores`` into ``out[:len(scores)]``; False if given up.

    One bucket per row, by linear interpolation of its score between the query's
    largest and smallest finite score, a monotone map (``+inf`` goes to the first
    bucket, ``-inf`` to the last); the keys are built during a counting scatter into
    ``out`` (rows of a bucket in position order), then one insertion sort of ``out``
    only moves keys within their bucket. Gives up (returns False, ``out`` undefined)
    when a bucket holds more than ``_BUCKET_LIMIT`` rows (clustered or many equal
    scores), where the insertion sort would turn quadratic. ``counts`` and
    ``buckets`` are scratch arrays of ``m + 1`` and ``m`` items.
    """
    m = len(scores)
    hi = -np.inf
    lo = np.inf
    for i in range(m):
        value = scores[i]
        if value != np.inf and value > hi:
            hi = value
        if value != -np.inf and value < lo:
            lo = value
    if not hi > lo:
        return False
    scale = (m - 1) / (hi - lo)
    if not scale > 0.0 or scale == np.inf:
        return False
    for b in range(m + 1):
        counts[b] = 0
    for i in range(m):
        b = _bucket(scores[i], hi, scale, m)
        buckets[i] = b
        counts[b + 1] += 1
    for b in range(m):
        if counts[b + 1] > _BUCKET_LIMIT:
            return False
        counts[b + 1] += counts[b]
    bits = scores.view(np.uint64)
    for i in range(m):
        b = buckets[i]
        out[counts[b]] = _key(bits[i], i, pos_bits)
        counts[b] += 1
    _insertion_sort(out[:m])
    return True


@njit(cache=False, inline="always")
def _bucket(value: float, hi: float, scale: float, m: int) -> int:
    if value == np.inf:
        return 0
    if value == -np.inf:
        return m - 1
    return min(max(int((hi - value) * scale), 0), m - 1)


@njit(cache=False)
def _scan_ties(seg, scores, pos_mask, start, tied, n_tied, stop_at_false_tie):
    """Append to ``tied`` the sorted rows whose score equals the previous row's.

    Only neighbours with equal score fields are compared on their full scores.
    Returns the new count, or (``stop_at_false_tie``) -1 at the first false tie
    (equal fields, different scores): the query's keys then need re-sorting.
    """
    limit = pos_mask + np.uint64(1)
    for i in range(1, len(seg)):
        if (seg[i] ^ seg[i - 1]) < limit:
            if scores[seg[i] & pos_mask] == scores[seg[i - 1] & pos_mask]:
                tied[n_tied] = start + i
                n_tied += 1
            elif stop_at_false_tie:
                return -1
    return n_tied


@njit(cache=False)
def _sort_query(
    scores: np.ndarray,
    rows: np.ndarray,
    contiguous: bool,
    start: int,
    pos_bits: np.uint64,
    order: np.ndarray,
    tied: np.ndarray,
    n_tied: int,
    keys: np.ndarray,
    work: np.ndarray,
    counts: np.ndarray,
    buckets: np.ndarray,
) -> int:
    """Sort one query; write its rows to ``order`` and append its tied sorted rows.

    ``scores`` are the query's scores in input order of its rows and ``rows`` their
    input rows (unused when ``contiguous``: rows ``start, start + 1, ...``); with
    scattered ids ``order`` is ``rows`` itself, overwritten. ``keys``, ``work``,
    ``counts`` and ``buckets`` are scratch arrays of at least ``m``, ``m``, ``m + 1`` and
    ``m`` items.
    Returns the new count of tied rows in ``tied``.
    """
    m = len(scores)
    seg = keys[:m]
    in_work = m > _INSERTION_ROWS and _bucket_sort(scores, pos_bits, work, counts, buckets)
    if in_work:
        seg = work[:m]
    else:
        bits = scores.view(np.uint64)
        for i in range(m):
            seg[i] = _key(bits[i], i, pos_bits)
        if m <= _INSERTION_ROWS:
            _insertion_sort(seg)
        else:
            seg.sort()
    if m > 1:
        pos_mask = (np.uint64(1) << pos_bits) - np.uint64(1)
        found = _scan_ties(seg, scores, pos_mask, start, tied, n_tied, True)
        if found < 0:  # a false tie: re-sort those runs exactly, then scan again
            _resort_false_ties(seg, scores, pos_mask)
            found = _scan_ties(seg, scores, pos_mask, start, tied, n_tied, False)
        n_tied = found
    pos_mask = (np.uint64(1) << pos_bits) - np.uint64(1)
    if contiguous:
        for i in range(m):
            order[start + i] = start + np.intp(seg[i] & pos_mask)
    else:
        # the other scratch array holds the rows while ``rows`` is overwritten
        held = keys if in_work else work
        for i in range(m):
            held[i] = rows[seg[i] & pos_mask]
        for i in range(m):
            order[start + i] = np.intp(held[i])
    return n_tied


@njit(cache=False)
def _sort_query_range(
    scores, rows, contiguous, offsets, first_query, last_query, pos_bits, order, tied, n_tied
):
    """:func:`_sort_query` over queries ``first_query .. last_query - 1``, with scratch."""
    largest = 0
    for q in range(first_query, last_query):
        largest = max(largest, offsets[q + 1] - offsets[q])
    keys = np.empty(largest, dtype=np.uint64)
    work = np.empty(largest, dtype=np.uint64)
    counts = np.empty(largest + 1, dtype=np.intp)
    buckets = np.empty(largest, dtype=np.intp)
    for q in range(first_query, last_query):
        a, b = offsets[q], offsets[q + 1]
        n_tied = _sort_query(
            scores[a:b], rows[a:b], contiguous, a, pos_bits, order, tied, n_tied,
            keys, work, counts, buckets,
        )
    return n_tied


@njit(cache=False)
def _sort_serial(codes, scores, offsets, contiguous, pos_bits, order, grouped_scores, tied):
    """Fill ``order`` and ``tied`` (see :func:`_arrays`); returns the count of tied rows."""
    n = scores.shape[0]
    n_queries = offsets.shape[0] - 1
    if contiguous:
        grouped_scores = scores
    else:  # stable counting scatter of rows and scores by query
        cursor = offsets[:-1].copy()
        for i in range(n):
            q = codes[i]
            p = cursor[q]
            cursor[q] = p + 1
            order[p] = i
            grouped_scores[p] = scores[i]
    return _sort_query_range(
        grouped_scores, order, contiguous, offsets, 0, n_queries, np.uint64(pos_bits),
        order, tied, 0,
    )


@njit(cache=False, parallel=True)
def _scatter_parallel(codes, scores, offsets, rows, grouped_scores, n_chunks):
    """Stable counting scatter of rows and scores by query, on ``n_chunks`` row chunks.

    Each chunk counts its rows per query; each chunk's cursor into a query starts
    after the earlier chunks' rows of that query, so rows keep their input order.
    """
    n = scores.shape[0]
    n_queries = offsets.shape[0] - 1
    row_bounds = np.empty(n_chunks + 1, dtype=np.intp)
    for c in range(n_chunks + 1):
        row_bounds[c] = (n * c) // n_chunks
    cursor = np.zeros((n_chunks, n_queries), dtype=np.intp)
    for c in prange(n_chunks):
        for i in range(row_bounds[c], row_bounds[c + 1]):
            cursor[c, codes[i]] += 1
    for q in prange(n_queries):
        running = offsets[q]
        for c in range(n_chunks):
            count = cursor[c, q]
            cursor[c, q] = running
            running += count
    for c in prange(n_chunks):
        for i in range(row_bounds[c], row_bounds[c + 1]):
            q = codes[i]
            p = cursor[c, q]
            cursor[c, q] = p + 1
            rows[p] = i
            grouped_scores[p] = scores[i]


@njit(cache=False, parallel=True)
def _sort_parallel(
    codes, scores, offsets, contiguous, pos_bits, order, grouped_scores, tied, n_chunks
):
    """:func:`_sort_serial` on ``n_chunks`` chunks of rows, then of whole queries.

    Returns the count of tied rows, moved to the front of ``tied``.
    """
    n = scores.shape[0]
    n_queries = offsets.shape[0] - 1
    if contiguous:
        grouped_scores = scores
    else:
        _scatter_parallel(codes, scores, offsets, order, grouped_scores, n_chunks)
    # chunks of whole queries, balanced by rows
    n_query_chunks = 4 * n_chunks
    query_bounds = np.empty(n_query_chunks + 1, dtype=np.intp)
    for c in range(n_query_chunks):
        query_bounds[c] = min(np.searchsorted(offsets, (n * c) // n_query_chunks), n_queries)
    query_bounds[n_query_chunks] = n_queries
    chunk_tied = np.zeros(n_query_chunks, dtype=np.intp)
    for c in prange(n_query_chunks):
        base = offsets[query_bounds[c]]
        chunk_tied[c] = _sort_query_range(
            grouped_scores, order, contiguous, offsets, query_bounds[c], query_bounds[c + 1],
            np.uint64(pos_bits), order, tied, base,
        ) - base
    done = 0
    for c in range(n_query_chunks):  # each chunk wrote its tied rows from its first row
        base = offsets[query_bounds[c]]
        for j in range(chunk_tied[c]):
            tied[done + j] = tied[base + j]
        done += chunk_tied[c]
    return done


def _arrays(codes, scores, offsets, contiguous):
    """The kernels' arguments, large arrays allocated by NumPy.

    NumPy asks for transparent huge pages on large arrays and numba's allocator does
    not; the scatter by query writes all over ``order`` and the grouped scores, and
    with 4 KiB pages it measured about twice as slow (TLB misses). So ``order``, the
    grouped scores and the tied rows are NumPy arrays handed to the kernels. With
    scattered ids ``order`` first receives the input rows grouped by query.
    """
    n_rows = len(scores)
    largest = int(np.diff(offsets).max()) if len(offsets) > 1 else 0
    pos_bits = max(largest - 1, 0).bit_length()
    if 64 - pos_bits < _MIN_SCORE_BITS:
        raise ValueError("prototype: a query too large for a 32-bit score field")
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if codes is None:
        if not contiguous:
            raise ValueError("codes are needed unless contiguous")
        codes = np.zeros(0, dtype=np.intp)
    grouped_scores = scores if contiguous else np.empty(n_rows, dtype=np.float64)
    return (codes, scores, np.asarray(offsets, dtype=np.intp), bool(contiguous), pos_bits,
            np.empty(n_rows, dtype=np.intp), grouped_scores, np.empty(n_rows, dtype=np.intp))


def _result(args, n_tied):
    order, tied = args[5], args[7]
    return order, (tied[:n_tied].copy() if n_tied else None), True


def sort_by_query_then_score_compiled(codes, scores, offsets, contiguous):
    """numba version of ``sort_by_query_then_score`` (one thread).

    Parameters
    ----------
    codes : ndarray of shape (n_rows,) or None
        Query code of every row; may be None when ``contiguous``.
    scores : ndarray of shape (n_rows,)
        Float64 scores, without NaN.
    offsets : ndarray of shape (n_queries + 1,)
        Query ``q`` owns sorted rows ``offsets[q]:offsets[q + 1]``; no query is empty.
    contiguous : bool
        Whether every query's rows are together, in query order.

    Returns
    -------
    order, tied_rows, input_order_in_ties
        As the NumPy function: the input row of every sorted row (``intp``), the
        sorted rows tied with the previous one in their query (None when none), True.
    """
    args = _arrays(codes, scores, offsets, contiguous)
    return _result(args, _sort_serial(*args))


def sort_by_query_then_score_parallel(codes, scores, offsets, contiguous):
    """As :func:`sort_by_query_then_score_compiled`, on ``numba.get_num_threads()`` threads."""
    args = _arrays(codes, scores, offsets, contiguous)
    return _result(args, _sort_parallel(*args, numba.get_num_threads()))
