"""Sort rows by (query, score descending) with one value sort of packed 64-bit keys.

NumPy sorts plain values several times faster than it argsorts them, so the row
order is not found with ``argsort`` but carried inside the values being sorted.
Each row becomes one ``uint64`` key with three fields, most significant first::

    | query code | score, truncated to the bits left | position within the query |

where the score field is the order-preserving bit pattern of ``-score`` (so larger
scores come first) cut to its high bits. Sorting the keys sorts by query, then by
score descending, then by input position: tied rows stay in input order. The row
order is read back from the position field.

Truncating the score can make two different scores of one query compare equal (a
*false tie*). The sorted scores are then not descending inside that query; such
queries are found with one comparison pass and re-sorted exactly by ``lexsort``.
For float32 scores (23 mantissa bits) and every layout with at least 36 bits left
for the score, false ties cannot occur; for float64 scores they are rare.

When the rows of a query are not contiguous, the input row index takes the place
of the position field, if that leaves at least 28 bits for the score; otherwise the
rows are first grouped, stably, by a sort of ``(query code, row index)`` keys.
Layouts that leave fewer than 32 bits for the score even with the position field
(very many queries *and* a very large one) use argsort instead.

Ties and false ties can only sit where a sorted key equals the previous one in its
query and score fields, so only those rows are compared on their full scores.
"""

from __future__ import annotations

import numpy as np

from ._segments import segment_rows

_SIGN_BIT = np.uint64(1 << 63)
_MIN_SCORE_BITS = 32
_MIN_ROW_FIELD_SCORE_BITS = 28
_CHUNK_ROWS = 1 << 15


def _bit_width(count: int) -> int:
    """Bits needed to store the values ``0 .. count - 1``."""
    return max(int(count) - 1, 0).bit_length()


def _packed_keys(
    scores: np.ndarray, query_and_position: np.ndarray, query_bits: int, position_bits: int
) -> np.ndarray:
    """The sort keys ``query | truncated descending score | position``, as ``uint64``.

    The IEEE-754 bit pattern ``b`` of ``y = -score`` orders like ``y`` as an unsigned
    integer once negative values have all their bits flipped and non-negative ones
    their sign bit set: ``b ^ ((b >> 63) | sign bit)`` with an arithmetic shift.
    ``y`` is computed as ``0.0 - score``, which is ``+0.0`` for both zeros, so
    ``-0.0`` and ``+0.0`` tie, as they compare. That key loses its lowest
    ``query_bits + position_bits`` bits, moves up by ``position_bits`` and takes the
    query and position fields. The work runs in cache-sized chunks (a fixed number
    of them, not one per query), so each row is read from memory once.
    """
    n_rows = len(scores)
    keys = np.empty(n_rows, dtype=np.uint64)
    negated = keys.view(np.float64)
    flip = np.empty(min(n_rows, _CHUNK_ROWS), dtype=np.int64)
    flip_bits = flip.view(np.uint64)
    drop = np.uint64(query_bits + position_bits)
    lift = np.uint64(position_bits)
    for start in range(0, n_rows, _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, n_rows)
        chunk = keys[start:stop]
        chunk_flip = flip[: stop - start]
        np.subtract(0.0, scores[start:stop], out=negated[start:stop])
        np.right_shift(chunk.view(np.int64), 63, out=chunk_flip)  # all ones if negative
        chunk_flip_bits = flip_bits[: stop - start]
        chunk_flip_bits |= _SIGN_BIT
        chunk ^= chunk_flip_bits
        chunk >>= drop
        chunk <<= lift
        chunk |= query_and_position[start:stop]
    return keys


def _query_and_position(rows_per_query: np.ndarray, query_shift: int, out: np.ndarray) -> None:
    """Fill ``out`` (uint64) with ``(query << query_shift) + position within the query``.

    One running sum: consecutive rows of a query differ by 1, and the first row of
    query ``q`` follows the last row of query ``q - 1`` by
    ``2**query_shift - (rows_per_query[q - 1] - 1)``, modulo ``2**64``: with
    ``query_shift = 64`` the query field vanishes and only the positions remain.
    """
    out.fill(1)
    out[0] = 0
    if len(rows_per_query) > 1:
        query_starts = np.cumsum(rows_per_query[:-1])
        steps = np.uint64((1 << query_shift) % (1 << 64) + 1)
        out[query_starts] = steps - rows_per_query[:-1].astype(np.uint64)
    np.cumsum(out, out=out)


def positions_in_queries(rows_per_query: np.ndarray) -> np.ndarray:
    """0-based position of every sorted row within its query (``intp``), one running sum.

    Empty queries (allowed here) hold no rows, so they are left out of the sum.
    """
    positions = np.empty(int(rows_per_query.sum()), dtype=np.intp)
    if len(positions):
        filled = rows_per_query[rows_per_query > 0]
        _query_and_position(filled, 64, positions.view(np.uint64))
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
    n_queries = len(offsets) - 1
    rows_per_query = np.diff(offsets)
    position_bits = _bit_width(int(rows_per_query.max()))
    query_bits = _bit_width(n_queries)
    score_bits = 64 - query_bits - position_bits
    if score_bits < _MIN_SCORE_BITS or n_rows >= 1 << 32:
        order = _argsort_then_radix(codes, scores, offsets)
        return order, _scan_sorted_scores(scores, order, offsets), False
    row_bits = _bit_width(n_rows)
    if not contiguous and 64 - query_bits - row_bits >= _MIN_ROW_FIELD_SCORE_BITS:
        return _sort_with_row_field(codes, scores, offsets, query_bits, row_bits)
    grouped = None if contiguous else _group_rows_stably(codes, n_rows)
    if position_bits == 0:  # one row per query: nothing to sort, nothing tied
        order = np.arange(n_rows, dtype=np.intp) if grouped is None else grouped
        return order, None, True
    grouped_scores = scores if grouped is None else scores[grouped]
    rank = np.empty(n_rows, dtype=np.int64)
    query_and_position = rank.view(np.uint64)
    _query_and_position(rows_per_query, 64 - query_bits, query_and_position)
    keys = _packed_keys(grouped_scores, query_and_position, query_bits, position_bits)
    position_mask = np.uint64((1 << position_bits) - 1)
    query_and_position &= position_mask
    keys.sort()
    candidates = _equal_prefix_rows(keys, position_bits)
    keys &= position_mask
    order = keys.view(np.intp)
    _add_query_starts(order, rank)
    del keys
    tied_rows = _tied_rows(candidates, grouped_scores, order, offsets)
    if grouped is not None:
        order = grouped[order]
    return order, tied_rows, True


def _sort_with_row_field(
    codes: np.ndarray, scores: np.ndarray, offsets: np.ndarray, query_bits: int, row_bits: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """One sort of ``query | truncated score | input row`` keys, for scattered queries.

    The input row index takes the place of the position field, so the rows need no
    grouping sort first: the sorted keys hold the input rows directly.
    """
    n_rows = len(scores)
    query_and_row = np.empty(n_rows, dtype=np.uint64)
    query_shift = np.uint64(64 - query_bits)
    for start in range(0, n_rows, _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, n_rows)
        chunk = query_and_row[start:stop]
        chunk[...] = codes[start:stop]
        chunk <<= query_shift
        chunk |= np.arange(start, stop, dtype=np.uint64)
    keys = _packed_keys(scores, query_and_row, query_bits, row_bits)
    del query_and_row
    keys.sort()
    candidates = _equal_prefix_rows(keys, row_bits)
    keys &= np.uint64((1 << row_bits) - 1)
    order = keys.view(np.intp)
    return order, _tied_rows(candidates, scores, order, offsets), True


def _equal_prefix_rows(keys: np.ndarray, field_bits: int) -> np.ndarray:
    """Sorted rows whose key equals the previous row's in all but the low ``field_bits``.

    Those rows share the query and the truncated score with the row before them:
    the only places where two scores can be tied, or out of order (a false tie).
    Found with one chunked pass over the keys, before any scores are gathered.
    """
    limit = np.uint64(1 << field_bits)
    found = []
    for start in range(1, len(keys), _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, len(keys))
        differing_bits = keys[start:stop] ^ keys[start - 1 : stop - 1]
        same = np.flatnonzero(differing_bits < limit)
        if len(same):
            found.append(same + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.intp)


def _tied_rows(
    candidates: np.ndarray, scores: np.ndarray, order: np.ndarray, offsets: np.ndarray
) -> np.ndarray | None:
    """Sorted rows whose score equals the previous row's, after fixing any false ties.

    Only the ``candidates`` (rows whose truncated score equals the previous row's)
    can tie with the row before them or sit above it. A candidate whose full score
    is higher than the previous row's marks a false tie; its query is re-sorted
    exactly and its runs found again from the full scores.
    """
    current = scores[order[candidates]]
    previous = scores[order[candidates - 1]]
    tied = candidates[current == previous]
    rising = candidates[current > previous]
    if len(rising):
        rows, query_starts = _resort_queries(order, scores, rising, offsets)
        sorted_scores = scores[order[rows]]
        tied_in_rows = np.zeros(len(rows), dtype=bool)
        np.equal(sorted_scores[1:], sorted_scores[:-1], out=tied_in_rows[1:])
        tied_in_rows[np.searchsorted(rows, query_starts)] = False
        # the re-sorted queries' rows replace their earlier tied rows
        redone = np.zeros(len(order), dtype=bool)
        redone[rows] = True
        tied = np.sort(np.concatenate((tied[~redone[tied]], rows[tied_in_rows])))
    return tied if len(tied) else None


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
    """Input rows ordered by query code, keeping input order within each query."""
    row_bits = _bit_width(n_rows)
    keys = codes.astype(np.uint64)
    keys <<= np.uint64(row_bits)
    keys |= np.arange(n_rows, dtype=np.uint64)
    keys.sort()
    keys &= np.uint64((1 << row_bits) - 1)
    return keys.view(np.intp)


def _resort_queries(
    order: np.ndarray, scores: np.ndarray, rising: np.ndarray, offsets: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Re-sort, in place and exactly, the queries holding the given ``rising`` rows.

    Inside a run of equal truncated scores the rows are in position (or input row)
    order; the run is correctly sorted exactly when its full scores do not increase
    along it, so a query needs re-sorting exactly when its sorted scores rise
    somewhere inside it. Returns the sorted rows of the re-sorted queries and the
    first row of each of those queries.
    """
    queries = np.unique(np.searchsorted(offsets, rising, side="right") - 1)
    sizes = offsets[queries + 1] - offsets[queries]
    rows = segment_rows(offsets[queries], sizes)
    query_of_row = np.repeat(np.arange(len(queries)), sizes)
    resorted = np.lexsort((order[rows], -scores[order[rows]], query_of_row))
    order[rows] = order[rows[resorted]]
    return rows, offsets[queries]


def _argsort_then_radix(
    codes: np.ndarray | None, scores: np.ndarray, offsets: np.ndarray
) -> np.ndarray:
    """Fallback: one (SIMD) argsort of all scores, then a stable radix sort of the codes.

    The LSD radix sort works in 16-bit digits and keeps the score order inside each
    query. The order inside tie blocks is arbitrary.
    """
    n_queries = len(offsets) - 1
    order = np.argsort(-scores)
    if n_queries > 1:
        if codes is None:
            codes = np.repeat(np.arange(n_queries), np.diff(offsets))
        codes_in_order = codes[order]
        n_bits = max(int(n_queries - 1).bit_length(), 1)
        for shift in range(0, n_bits, 16):
            digit = (codes_in_order >> shift).astype(np.uint16)  # keeps the low 16 bits
            step = np.argsort(digit, kind="stable")
            order = order[step]
            if shift + 16 < n_bits:
                codes_in_order = codes_in_order[step]
    return order
