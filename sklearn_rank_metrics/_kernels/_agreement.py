"""Agreement between two rankings of the same rows: RBO, Kendall's tau, overlap at k.

Every kernel reads two :class:`~.._engine._paired_rows.RankedList` of the same rows
(one per score column) and returns one value per query, vectorised over all queries.

Rank-biased overlap (Webber et al. 2010) with the tie treatments of Corsi & Urbano
(SIGIR 2024). An item ``i`` of a list contributes ``c_i(d)`` to the depth-``d``
prefix of that list: in the ``w`` treatment 1 from the first position of its tie
block ``t_i`` on; in the ``a``/``b`` treatments its probability of being in the
prefix when the ties are broken at random, ``clip((d - t_i + 1) / n_i, 0, 1)``
(``n_i`` the size of its block, 1 from its last position ``b_i`` on). The overlap at
depth ``d`` is ``X_d = sum_i cS_i(d) cL_i(d)``. At any depth at most one block of each
list is partly in the prefix, so ``X_d`` splits into counts of items that are whole
in both prefixes, whole in one and in the partial block of the other, or in both
partial blocks (:func:`_seen_overlap`): integer interval counts (one ``bincount``
and ``cumsum`` each) times the partial blocks' shares, exact, never a quadratic sum.
"""

from __future__ import annotations

import math

import numpy as np

from .._engine._paired_rows import RankedList

RBO_TIES = ("a", "b", "w", "input")
RBO_BOUNDS = ("ext", "min", "max", "res")


class _Depths:
    """Depth slots ``d = 1 .. l_q + 1`` of every query, all queries in one array.

    Slot ``l_q + 1`` closes the intervals of the query (its values are not read).
    """

    def __init__(self, longer: np.ndarray) -> None:
        slots = longer + 1
        self.n_queries = len(longer)
        self.base = np.zeros(self.n_queries, dtype=np.intp)
        np.cumsum(slots[:-1], out=self.base[1:])
        self.size = int(slots.sum())
        self.query = np.repeat(np.arange(self.n_queries), slots)
        self.depth = np.arange(self.size) - self.base[self.query] + 1
        self.inside = self.depth <= longer[self.query]
        self.ramp_l = np.zeros(0)  # the share of L's partial block at every depth, once known

    def counts(self, query: np.ndarray, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
        """How many of the intervals ``[start, stop)`` (depths, ``stop <= l_q + 1``)
        hold every depth slot (int64)."""
        keep = start < stop
        query, start, stop = query[keep], start[keep], stop[keep]
        delta = np.bincount(self.base[query] + start - 1, minlength=self.size + 1)
        delta -= np.bincount(self.base[query] + stop - 1, minlength=self.size + 1)
        return np.cumsum(delta[: self.size])

    def at_positions(self, query: np.ndarray, position: np.ndarray, values: np.ndarray,
                     fill: np.ndarray) -> np.ndarray:
        """``values`` of the rows at their positions' depth slots, ``fill`` elsewhere."""
        out = fill.copy()
        out[self.base[query] + position - 1] = values
        return out

    def query_sum(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.query, weights=values, minlength=self.n_queries)


def _ramp(depth: np.ndarray, top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """The share of a block ``[top, bottom]`` in the depth-``d`` prefix (block at ``d``)."""
    return (depth - top + 1) / (bottom - top + 1)


class _Sides:
    """Every row's place in the shorter list ``S`` and the longer ``L`` of its query
    (``S`` is ``b``'s list when both are as long, as in the reference)."""

    def __init__(self, codes: np.ndarray, list_a: RankedList, list_b: RankedList) -> None:
        a_shorter = list_a.length < list_b.length
        self.short = np.minimum(list_a.length, list_b.length)
        self.longer = np.maximum(list_a.length, list_b.length)
        row_short = a_shorter[codes]
        shorter, other = (list_a, list_b), (list_b, list_a)
        self.top_s, self.top_l = (np.where(row_short, x.top, y.top) for x, y in (shorter, other))
        self.bottom_s, self.bottom_l = (
            np.where(row_short, x.bottom, y.bottom) for x, y in (shorter, other)
        )
        self.in_s, self.in_l = (
            np.where(row_short, x.present, y.present) for x, y in (shorter, other)
        )
        self.pos_s, self.pos_l = (
            np.where(row_short, x.position, y.position) for x, y in (shorter, other)
        )


def rbo(
    codes: np.ndarray,
    list_a: RankedList,
    list_b: RankedList,
    *,
    p: float | np.ndarray,
    ties: str,
    bound: str,
) -> tuple[np.ndarray, np.ndarray]:
    """RBO per query (extrapolated, lower, upper bound or residual) and which queries
    are defined (both lists non-empty).

    ``p``: the persistence, one for every query or an array of one per query (the
    public function takes one; the tests check the reference's test file, whose
    rows each have their own ``p``, in one call).

    Follows the reference implementation of Corsi & Urbano (``rbo.R``): ``S`` is the
    shorter list (``b`` when both are as long), ``s`` and ``l`` the lengths; depths
    ``1..s`` compare the seen prefixes; depths ``s+1..l`` add, for the upper bound,
    the first ``d - s`` items of ``L`` missing from ``S`` and, for the extrapolation,
    ``(d - s) A_s`` times their mean contribution; depths beyond ``l`` follow the
    closed forms. ``ties="input"`` is the ``w`` treatment of the lists with ties
    broken by input order (no tie left).
    """
    n_queries = len(list_a.length)
    sides = _Sides(codes, list_a, list_b)
    short, longer = sides.short, sides.longer
    defined = short > 0
    top_s, bottom_s, in_s = sides.top_s, sides.bottom_s, sides.in_s
    top_l, bottom_l, in_l, pos_l = sides.top_l, sides.bottom_l, sides.in_l, sides.pos_l

    slots = _Depths(longer)
    d = slots.depth
    s_at = short[slots.query]
    # the tie block at every depth of each list (a depth beyond the list: no block)
    t_s = slots.at_positions(codes[in_s], sides.pos_s[in_s], top_s[in_s], d)
    b_s = slots.at_positions(codes[in_s], sides.pos_s[in_s], bottom_s[in_s], d)
    t_l = slots.at_positions(codes[in_l], pos_l[in_l], top_l[in_l], d)
    b_l = slots.at_positions(codes[in_l], pos_l[in_l], bottom_l[in_l], d)
    ramp_s = _ramp(d, t_s, b_s)
    ramp_l = _ramp(d, t_l, b_l)
    slots.ramp_l = ramp_l

    whole = ties in ("w", "input")  # an item counts whole from its block's first position
    common = in_s & in_l
    q_c = codes[common]
    close_c = longer[q_c] + 1
    seen = _seen_overlap(
        slots, q_c, close_c, top_s[common], bottom_s[common], top_l[common],
        bottom_l[common], ramp_s, ramp_l, whole,
    )
    denominator = _denominator(ties, d, s_at, t_s, b_s, t_l, b_l, ramp_s, ramp_l)

    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = seen / denominator
    beyond = d > s_at

    p_slot = p if np.ndim(p) == 0 else np.asarray(p)[slots.query]
    p_d = np.power(p_slot, d.astype(np.float64))
    weight = np.where(slots.inside, p_d, 0.0)
    n_common = np.bincount(q_c, minlength=n_queries).astype(np.float64)
    scale = (1.0 - p) / p

    def total(extra: np.ndarray | None, tail: np.ndarray) -> np.ndarray:
        values = agreement if extra is None else (seen + extra) / denominator
        values = np.where(slots.inside, values, 0.0)
        return scale * (slots.query_sum(values * weight) + tail)

    values: dict[str, np.ndarray] = {}
    if bound in ("min", "res"):
        values["min"] = total(None, n_common * _tail_log(p, longer, slots))
    if bound in ("max", "res"):
        only_l = in_l & ~in_s
        unseen = _first_unseen(slots, codes, only_l, pos_l, top_l, bottom_l, short, longer,
                               ramp_l, whole)
        values["max"] = total(np.where(beyond, unseen, 0.0),
                              _tail_max(p, short, longer, n_common))
    if bound == "ext":
        extra, tail = _extrapolation(slots, codes, sides, agreement, n_common, p, whole)
        values["ext"] = total(extra, tail)
    if bound == "res":
        result = values["max"] - values["min"]
    else:
        result = values[bound]
    result = np.where(defined, np.clip(result, 0.0, 1.0), 0.0)
    return result, defined


def _extrapolation(
    slots: _Depths, codes: np.ndarray, sides: _Sides, agreement: np.ndarray,
    n_common: np.ndarray, p: float | np.ndarray, whole: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The point estimate's extra overlap at depths ``s < d <= l``,
    ``(d - s) A_s`` times the mean contribution of L's items missing from S, and its
    tail beyond ``l``, ``(X_l + (l - s) A_s) / l * p^(l+1) / (1 - p)``."""
    short, longer = sides.short, sides.longer
    defined = short > 0
    a_short = np.where(defined, agreement[slots.base + np.maximum(short, 1) - 1], 0.0)
    mean_share = _mean_unseen_share(slots, codes, sides.in_l & ~sides.in_s, sides.top_l,
                                    sides.bottom_l, longer, slots.ramp_l, whole)
    s_at = short[slots.query]
    extra = np.where(
        slots.depth > s_at, (slots.depth - s_at) * a_short[slots.query] * mean_share, 0.0
    )
    tail = np.where(
        defined,
        (n_common + (longer - short) * a_short) / np.maximum(longer, 1)
        * np.power(p, longer + 1.0) / (1.0 - p),
        0.0,
    )
    return extra, tail


def _seen_overlap(
    slots: _Depths, query: np.ndarray, close: np.ndarray, top_s: np.ndarray,
    bottom_s: np.ndarray, top_l: np.ndarray, bottom_l: np.ndarray, ramp_s: np.ndarray,
    ramp_l: np.ndarray, whole: bool,
) -> np.ndarray:
    """``X_d = sum_i cS_i(d) cL_i(d)`` over the items of both lists, at every depth."""
    if whole:
        return slots.counts(query, np.maximum(top_s, top_l), close).astype(np.float64)
    both_whole = slots.counts(query, np.maximum(bottom_s, bottom_l), close)
    # whole in S, in the partial block of L (and the other way round), in both partial
    s_whole = slots.counts(query, np.maximum(bottom_s, top_l), bottom_l)
    l_whole = slots.counts(query, np.maximum(bottom_l, top_s), bottom_s)
    both_partial = slots.counts(query, np.maximum(top_s, top_l), np.minimum(bottom_s, bottom_l))
    return both_whole + ramp_l * s_whole + ramp_s * l_whole + ramp_s * ramp_l * both_partial


def _denominator(
    ties: str, d: np.ndarray, s_at: np.ndarray, t_s: np.ndarray, b_s: np.ndarray,
    t_l: np.ndarray, b_l: np.ndarray, ramp_s: np.ndarray, ramp_l: np.ndarray,
) -> np.ndarray:
    """What ``X_d`` is divided by: ``(sum cS + sum cL) / 2`` (``w``), ``d`` (``a``),
    ``sqrt(sum cS^2 sum cL^2)`` (``b``); beyond the shorter list its sums read ``d``."""
    depth = d.astype(np.float64)
    if ties == "a":
        return depth
    beyond = d > s_at
    if ties in ("w", "input"):
        return (np.where(beyond, depth, b_s) + b_l) / 2.0
    # the rows before the partial block count 1 each, the block's rows its share each
    squares_s = np.where(d == b_s, depth, t_s - 1.0 + (b_s - t_s + 1.0) * ramp_s**2)
    squares_l = np.where(d == b_l, depth, t_l - 1.0 + (b_l - t_l + 1.0) * ramp_l**2)
    return np.sqrt(np.where(beyond, depth, squares_s)) * np.sqrt(squares_l)


def _first_unseen(
    slots: _Depths, codes: np.ndarray, only_l: np.ndarray, pos_l: np.ndarray,
    top_l: np.ndarray, bottom_l: np.ndarray, short: np.ndarray, longer: np.ndarray,
    ramp_l: np.ndarray, whole: bool,
) -> np.ndarray:
    """``sum_{j <= d - s} cL_{u_j}(d)``: the first ``d - s`` items of L missing from S
    (in L's order) as if S held them at depth ``d``: the upper bound's extra overlap."""
    rows = np.flatnonzero(only_l)
    query = codes[rows]
    order = np.lexsort((pos_l[rows], query))
    rows, query = rows[order], query[order]
    first = np.searchsorted(query, query, side="left")
    rank = np.arange(len(rows)) - first + 1
    enters = short[query] + rank
    close = longer[query] + 1
    enters = np.minimum(enters, close)
    top, bottom = top_l[rows], bottom_l[rows]
    if whole:
        return slots.counts(query, np.maximum(enters, top), close).astype(np.float64)
    full = slots.counts(query, np.maximum(enters, bottom), close)
    partial = slots.counts(query, np.maximum(enters, top), bottom)
    return full + ramp_l * partial


def _mean_unseen_share(
    slots: _Depths, codes: np.ndarray, only_l: np.ndarray, top_l: np.ndarray,
    bottom_l: np.ndarray, longer: np.ndarray, ramp_l: np.ndarray, whole: bool,
) -> np.ndarray:
    """The mean contribution at depth ``d`` of the items of L missing from S, over
    those with a contribution (1 in the ``w`` treatment)."""
    if whole:
        return np.ones(slots.size)
    query = codes[only_l]
    top, bottom = top_l[only_l], bottom_l[only_l]
    full = slots.counts(query, bottom, longer[query] + 1)
    partial = slots.counts(query, top, bottom)
    seen = full + partial
    return np.divide(full + ramp_l * partial, seen, out=np.zeros(slots.size), where=seen > 0)


def _tail_log(p: float | np.ndarray, longer: np.ndarray, slots: _Depths) -> np.ndarray:
    """``sum_{d > l} p^d / d = -log(1 - p) - sum_{d <= l} p^d / d`` for every ``l``
    (one ``p``: a table of the partial sums; one per query: summed over its depths)."""
    if np.ndim(p) != 0:
        p = np.asarray(p, dtype=np.float64)
        depth = slots.depth.astype(np.float64)
        terms = np.where(slots.inside, np.power(p[slots.query], depth) / depth, 0.0)
        return -np.log1p(-p) - slots.query_sum(terms)
    top = int(longer.max()) if len(longer) else 0
    k = np.arange(1, top + 1, dtype=np.float64)
    partial = np.zeros(top + 1)
    np.cumsum(np.power(p, k) / k, out=partial[1:])
    return -math.log1p(-p) - partial[longer]


def _tail_max(p: float | np.ndarray, short: np.ndarray, longer: np.ndarray,
              n_common: np.ndarray) -> np.ndarray:
    """``sum_{d=l+1}^{f} (2 - f/d) p^d + p^(f+1) / (1 - p)`` with ``f = l + s - X_l``."""
    extra = (short - n_common).astype(np.intp)  # f - l >= 0
    f = longer + extra
    query = np.repeat(np.arange(len(longer)), extra)
    first = np.zeros(len(longer), dtype=np.intp)
    np.cumsum(extra[:-1], out=first[1:])
    d = (np.arange(len(query)) - first[query] + longer[query] + 1).astype(np.float64)
    terms = (2.0 - f[query] / d) * np.power(p if np.ndim(p) == 0 else np.asarray(p)[query], d)
    finite = np.bincount(query, weights=terms, minlength=len(longer))
    return finite + np.power(p, f + 1.0) / (1.0 - p)


# --------------------------------------------------------------------------- Kendall


def greater_before(keys: np.ndarray) -> np.ndarray:
    """For every element, how many earlier elements have a strictly greater key.

    Bottom-up merges over the whole array (``log2 n`` stable sorts of runs): at each
    level a right block's element counts the elements of its left block greater than
    it, from its place in the merged pair. Elements of different queries never count
    each other when the keys put every earlier query below every later one.
    """
    n = len(keys)
    counts = np.zeros(n, dtype=np.int64)
    if n < 2:
        return counts
    _, values = np.unique(keys, return_inverse=True)
    values = values.reshape(-1).astype(np.int64)
    element = np.arange(n)
    position = np.arange(n)
    width = 1
    while width < n:
        block = position // width
        pair = block // 2
        right = (block % 2) == 1
        merged = np.argsort(pair * n + values, kind="stable")
        place = np.empty(n, dtype=np.int64)
        place[merged] = position
        pair_start = pair * 2 * width
        # left elements <= x: x's place in the pair minus the right elements before it
        left_not_greater = place - pair_start - (position - pair_start - width)
        counts[element[right]] += width - left_not_greater[right]
        values = values[merged]
        element = element[merged]
        width *= 2
    return counts


def _runs(keys: tuple[np.ndarray, ...]) -> np.ndarray:
    """Start flags of the runs of equal keys (arrays already in sorted order)."""
    n = len(keys[0])
    start = np.ones(n, dtype=bool)
    if n > 1:
        same = np.ones(n - 1, dtype=bool)
        for key in keys:
            same &= key[1:] == key[:-1]
        start[1:] = ~same
    return start


def _tied_pairs(codes: np.ndarray, start: np.ndarray, n_queries: int) -> np.ndarray:
    """``sum t (t - 1) / 2`` over the runs (each starting where ``start``) per query."""
    starts = np.flatnonzero(start)
    sizes = np.diff(starts, append=len(start)).astype(np.int64)
    return np.bincount(codes[starts], weights=sizes * (sizes - 1) // 2, minlength=n_queries)


def kendall_tau_b(
    codes: np.ndarray, n_queries: int, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b per query (``-inf`` a score like any) and which are defined.

    ``(n0 - n1 - n2 + n3 - 2 D) / sqrt((n0 - n1) (n0 - n2))`` (Knight 1966): ``D`` the
    discordant pairs, counted as the pairs out of order in ``b`` once the rows are
    sorted by ``(a, b)``; ``n1``, ``n2``, ``n3`` the pairs tied in ``a``, in ``b``, in
    both. Undefined where every pair ties in ``a`` or in ``b`` (one row included).
    """
    order = np.lexsort((b, a, codes))
    q, sa, sb = codes[order], a[order], b[order]
    _, rank_b = np.unique(sb, return_inverse=True)
    keys = q.astype(np.int64) * (len(sb) + 1) + rank_b.reshape(-1)
    discordant = np.bincount(q, weights=greater_before(keys), minlength=n_queries)
    n = np.bincount(codes, minlength=n_queries).astype(np.float64)
    n0 = n * (n - 1) / 2
    n1 = _tied_pairs(q, _runs((q, sa)), n_queries)
    n3 = _tied_pairs(q, _runs((q, sa, sb)), n_queries)
    order_b = np.lexsort((b, codes))
    n2 = _tied_pairs(codes[order_b], _runs((codes[order_b], b[order_b])), n_queries)
    defined = (n0 > n1) & (n0 > n2)
    numerator = n0 - n1 - n2 + n3 - 2 * discordant
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = numerator / np.sqrt(n0 - n1) / np.sqrt(n0 - n2)
    tau = np.where(defined, np.clip(tau, -1.0, 1.0), 0.0)
    return tau, defined


def first_tie(codes: np.ndarray, scores: np.ndarray) -> int | None:
    """The first row (input order) whose score equals another's of its query, or None."""
    order = np.lexsort((-scores, codes))
    same = (codes[order][1:] == codes[order][:-1]) & (scores[order][1:] == scores[order][:-1])
    if not same.any():
        return None
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    return int(order[tied].min())


def tau_ap(
    codes: np.ndarray, n_queries: int, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """tau_AP per query, ``a`` the reference ranking, ``b`` the ranking traversed.

    ``2 / (n - 1) sum_{i=2}^{n} C(i) / (i - 1) - 1`` with ``C(i)`` the items above
    position ``i`` of ``b`` that ``a`` also ranks above it (Yilmaz et al. 2008; ircor's
    ``tauAP(x=a, y=b)``). The rankings hold no ties (checked by the caller).
    Undefined for a query of one row.
    """
    order = np.lexsort((-b, codes))
    q = codes[order]
    _, rank_a = np.unique(a[order], return_inverse=True)
    n_rows = len(q)
    # "a ranks it above" is a greater a: count earlier elements with a greater a
    keys = q.astype(np.int64) * (n_rows + 1) + rank_a.reshape(-1)
    concordant = greater_before(keys).astype(np.float64)
    n = np.bincount(codes, minlength=n_queries)
    first = np.zeros(n_queries, dtype=np.intp)
    np.cumsum(n[:-1], out=first[1:])
    position = np.arange(n_rows) - first[q] + 1
    share = np.divide(concordant, position - 1.0, out=np.zeros(n_rows), where=position > 1)
    total = np.bincount(q, weights=share, minlength=n_queries)
    defined = n > 1
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 2.0 * total / (n - 1.0) - 1.0
    return np.where(defined, np.clip(value, -1.0, 1.0), 0.0), defined


# --------------------------------------------------------------------------- overlap


def in_top_k(ranked: RankedList, k: int, ties: str) -> np.ndarray:
    """The probability that each row is in its list's top ``k``: 0 or 1 with
    ``ties="input"`` (positions), its tie block's share of the first ``k`` positions
    with ``ties="average"`` (tied rows in a uniformly random order)."""
    if ties == "input":
        return (ranked.present & (ranked.position <= k)).astype(np.float64)
    share = np.clip((k - ranked.top + 1) / (ranked.bottom - ranked.top + 1), 0.0, 1.0)
    return np.where(ranked.present, share, 0.0)


def overlap_at_k(
    codes: np.ndarray, n_queries: int, list_a: RankedList, list_b: RankedList, k: int,
    ties: str,
) -> np.ndarray:
    """``|top_k(a) & top_k(b)| / k`` per query; with ``ties="average"`` its expected
    value when each list's tied rows are ordered at random, independently."""
    both = in_top_k(list_a, k, ties) * in_top_k(list_b, k, ties)
    return np.bincount(codes, weights=both, minlength=n_queries) / k
