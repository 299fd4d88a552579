"""Agreement between two rankings of the same rows: :func:`rank_biased_overlap`,
:func:`kendall_tau_score`, :func:`overlap_at_k_score`.

Two score columns over one set of rows (``y_score_a``, ``y_score_b``), grouped by
query; a row one ranking did not return scores ``-inf`` there. Each function checks
its inputs once (:func:`~.._engine._paired_rows.checked_pair`), computes one value
per query with a vectorised kernel (:mod:`.._kernels._agreement`) and returns the
weighted mean under the undefined-query policy, or, with ``per_query=True``, the
per-query table (a ``"query"`` column and one of values) as :func:`evaluate` gives it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from .._engine._caller import caller_name, entry_point
from .._engine._frames import frame_of, output_library, returns_frames_like_inputs
from .._engine._paired_rows import PairedRows, RankedList, checked_pair, ranked_list
from .._engine._plain import plain
from .._engine._validation import BOOLEAN, NONE, Interval, Options, validate_params
from .._engine._warnings import undefined_metric_warning, warn_at_caller
from .._kernels import _agreement as kernels
from ._aggregate import PerQuery, apply_policy, weighted_mean
from ._base import MAX_K, REPLACE_UNDEFINED_BY

_INPUTS = ("y_score_a", "y_score_b", "group")
_POSITIVE = Interval(
    int, 1, MAX_K,
    beyond=f": a depth above 2**62 ({MAX_K}) is beyond int64 arithmetic; pass None for "
    "no cut",
)


# why a query is undefined, in the agreement's terms
_FEW_ROWS = "fewer than two rows"
_ALL_TIED = "every row tied in y_score_a or y_score_b"
_EMPTY_LIST = "an empty list (every score -inf in y_score_a or y_score_b)"

# ties="average" is the package's name of RBO's "a" treatment
_RBO_TIES = ("a", "average", "b", "w", "input")


def _result(
    rows: PairedRows, values: np.ndarray, reasons: Sequence[tuple[str, np.ndarray]],
    value_range: tuple[float, float], replace_undefined_by: float | str, per_query: bool,
    column: str,
) -> Any:
    """The weighted mean under the policy, or the per-query table (column ``column``).

    ``reasons``: why queries are undefined, each a description and the queries it
    holds for (a query counts under the first that holds). Where some are undefined
    and the policy gives them a number, a warning says how many, why and how to
    leave them out (:func:`_warn_undefined`).
    """
    undefined = np.zeros(len(values), dtype=bool)
    counts: list[tuple[str, int]] = []
    description = ""
    for reason, mask in reasons:
        new = mask & ~undefined
        if new.any():
            counts.append((reason, int(new.sum())))
            if not undefined.any():
                description = reason  # the reason of the first undefined query
            undefined |= new
    kernel = PerQuery(values, undefined, description=description, value_range=value_range)
    # the policy reads the query ids and weights, which the paired rows hold
    checked, weights, skipped = apply_policy(kernel, cast(Any, rows), replace_undefined_by)
    if counts and not isinstance(replace_undefined_by, str) and not math.isnan(
        replace_undefined_by
    ):
        _warn_undefined(rows, undefined, counts, float(replace_undefined_by))
    if per_query:
        return frame_of({"query": rows.query_ids, column: np.asarray(checked)}, output_library())
    nothing_left = (
        f"every one of the {len(values)} queries is undefined ({_counted(counts)}) and "
        "replace_undefined_by='skip' left them out"
        if skipped.all()
        else "the queries not skipped have sample_weight 0"
    )
    return weighted_mean(checked, weights, skipped, nothing_left=nothing_left)


def _counted(counts: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{n} with {reason}" for reason, n in counts)


def _warn_undefined(
    rows: PairedRows, undefined: np.ndarray, counts: Sequence[tuple[str, int]], value: float
) -> None:
    """Warn that ``undefined`` queries (why: ``counts``) take the number ``value``."""
    n_undefined, n_queries = int(undefined.sum()), len(undefined)
    which = (
        f"every one of the {n_queries} queries" if n_undefined == n_queries
        else f"{n_undefined} of {n_queries} queries"
    )
    first = plain(rows.query_ids[int(np.argmax(undefined))])
    warn_at_caller(
        f"{caller_name()} is undefined for {which}: {_counted(counts)}. They count as "
        f"{value!r} (replace_undefined_by={value!r}; the first is query {first!r}), a "
        "placeholder, not a measured agreement. Pass replace_undefined_by='skip' to "
        "average the defined queries only, replace_undefined_by=nan to make them NaN, "
        "or 'raise' to stop at the first.",
        undefined_metric_warning(),
    )


def _lists(rows: PairedRows, break_ties: bool) -> tuple[np.ndarray, RankedList, RankedList]:
    queries = rows.queries
    codes = queries.row_codes()
    return (
        codes,
        ranked_list(codes, queries.offsets, rows.scores_a, break_ties=break_ties),
        ranked_list(codes, queries.offsets, rows.scores_b, break_ties=break_ties),
    )


def _cut(ranked: RankedList, depth: int, codes: np.ndarray, rows: PairedRows,
         name: str) -> RankedList:
    """``ranked`` cut to its first ``depth`` positions; a tied block across the cut is
    refused (which of its rows the cut keeps is not defined), naming the block's
    first row in the input."""
    across = np.flatnonzero(ranked.present & (ranked.top <= depth) & (ranked.bottom > depth))
    if len(across):
        row = int(across[0])
        raise ValueError(
            f"The 'depth' parameter of {caller_name()} cuts a block of tied scores of "
            f"{name} in query {plain(rows.query_ids[codes[row]])!r} (positions "
            f"{int(ranked.top[row])} to {int(ranked.bottom[row])}, the first of its rows "
            f"at {rows.row_name(row)}) at depth {depth}: which of its rows are in "
            "the top is not defined. Choose a depth that cuts no tie, or break the ties "
            "by input order (ties='input')."
        )
    present = ranked.present & (ranked.position <= depth)
    return RankedList(ranked.position, ranked.top, ranked.bottom, present,
                      np.minimum(ranked.length, depth))


def rbo_per_query(
    rows: PairedRows, *, p: float | np.ndarray, depth: int | None, ties: str, bound: str
) -> tuple[np.ndarray, np.ndarray]:
    """RBO of every query of ``rows`` and which queries are defined (both lists
    non-empty); ``p`` one for all queries or one per query (in the order of
    ``rows.query_ids``); ``ties="average"`` is ``"a"``."""
    ties = "a" if ties == "average" else ties
    codes, list_a, list_b = _lists(rows, break_ties=ties == "input")
    if depth is not None:
        list_a = _cut(list_a, depth, codes, rows, "y_score_a")
        list_b = _cut(list_b, depth, codes, rows, "y_score_b")
    return kernels.rbo(codes, list_a, list_b, p=p, ties=ties, bound=bound)


@returns_frames_like_inputs(_INPUTS)
@entry_point
@validate_params(
    {
        "p": [Interval(float, 0, 1, closed="neither")],
        "depth": [_POSITIVE, NONE],
        "ties": [Options(*_RBO_TIES)],
        "bound": [Options(*kernels.RBO_BOUNDS)],
        "replace_undefined_by": REPLACE_UNDEFINED_BY,
        "per_query": [BOOLEAN],
    }
)
def rank_biased_overlap(
    y_score_a: Any,
    y_score_b: Any,
    group: Any = None,
    *,
    p: float = 0.9,
    depth: int | None = None,
    ties: str = "a",
    bound: str = "ext",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    per_query: bool = False,
) -> Any:
    """Rank-biased overlap (RBO) of two rankings of the same rows, averaged over queries.

    The tie-aware RBO of Corsi & Urbano (2024): the extrapolated point estimate, its
    lower and upper bounds and the residual, in the three treatments of ties
    (``w``, ``a``, ``b``), equal to their reference implementation on its own test
    file.

    Parameters
    ----------
    y_score_a, y_score_b : array-like of shape (n_rows,) or (n_queries, n_docs)
        Two scores of every row; higher ranks earlier. ``-inf`` marks a row that
        ranking did not return: the row is not in that list, so the two lists of a
        query may differ in length and content (RBO's uneven, non-conjoint lists).
        Rows with equal scores are tied. NaN is refused.
    group : array-like of shape (n_rows,), default=None
        Query id of every row (required with 1-D input); ``None`` with 2-D input:
        every row is a query.
    p : float in (0, 1), default=0.9
        Persistence: the weight of depth ``d`` is proportional to ``p**(d - 1)``.
    depth : int >= 1 or None, default=None
        Cut both lists to their first ``depth`` positions (rows below the cut are
        not in the list). A block of tied scores across the cut is refused.
    ties : {"a", "average", "b", "w", "input"}, default="a"
        The treatment of tied rows (Corsi & Urbano 2024, section 1.1). ``"a"``
        (also spelt ``"average"``, the package's name): each tied row counts in a
        prefix with its probability of being there when each list's tied rows are
        ordered at random, so the overlap at every depth the lists show is its
        expected value over those orders. With ``bound="min"`` the result is
        exactly the expected RBO over the orders; ``"ext"`` and ``"max"`` then
        extrapolate from the expected overlaps, which is the paper's definition but
        not the mean of the orders' own extrapolations (``a = [x]`` against ``b =
        [x, (y z)]``: 0.9775 with ``"a"``, 1.0 in either order of y and z).
        ``"b"``: the same overlaps divided by the information left by the ties, so
        that a ranking with itself scores 1; ``"w"``: tied rows share their rank
        (ties are equality, as in sports rankings). ``"input"``: tied rows in
        input order, then RBO without ties (the paper advises against breaking ties
        by a fixed rule: it inflates RBO).
    bound : {"ext", "min", "max", "res"}, default="ext"
        ``"ext"``: the point estimate that extrapolates the agreement seen to the
        unseen depths (RBO_EXT); ``"min"``: the lower bound, no overlap beyond the
        lists; ``"max"``: the upper bound, the most overlap possible beyond them;
        ``"res"``: the residual ``max - min``.
    replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=0.0
        Value of a query where one list is empty (every row of one ranking
        ``-inf``): RBO is undefined there. By default such a query counts as 0.0
        in the mean (and the table), with an ``UndefinedMetricWarning`` that says
        how many there are; ``"skip"`` leaves them out of the mean, ``nan`` makes
        them (and the mean) NaN, ``"raise"`` refuses them.
    sample_weight : array-like, default=None
        Weight of each query in the mean (flat input: one per row, constant within
        a query; 2-D input: one per query).
    per_query : bool, default=False
        Return a table of the per-query values (columns ``"query"`` and ``"rbo"``,
        queries sorted, of the inputs' frame library) instead of their mean.

    Returns
    -------
    score : float or DataFrame
        Mean of the per-query values, weighted by ``sample_weight``; the table with
        ``per_query=True``.

    See Also
    --------
    kendall_tau_score, overlap_at_k_score

    Notes
    -----
    Let ``S`` be the shorter list (``y_score_b``'s when both are as long) and ``L``
    the longer, of lengths ``s <= l``. An item contributes to the depth-``d`` prefix
    of a list :math:`c(d) = [d \\ge t]` (``w``) or
    :math:`c(d) = \\min(1, \\max(0, (d - t + 1) / n))` (``a``, ``b``: its chance to
    be among the first ``d`` when its block of ``n`` tied rows from position ``t``
    is ordered at random). The overlap is :math:`X_d = \\sum_i c^S_i(d) c^L_i(d)`
    and the agreement

    .. math::

        A_d = \\frac{2 X_d}{\\sum_i c^S_i(d) + \\sum_i c^L_i(d)}\\ (w), \\qquad
        \\frac{X_d}{d}\\ (a), \\qquad
        \\frac{X_d}{\\sqrt{\\sum_i c^S_i(d)^2 \\sum_i c^L_i(d)^2}}\\ (b),

    where beyond ``s`` the sums over ``S`` read ``d``. Then

    .. math::

        \\mathrm{RBO} = \\frac{1 - p}{p} \\Big( \\sum_{d=1}^{l} A_d\\, p^d
        + \\sum_{d > l} A_d\\, p^d \\Big),

    where the lower bound adds no overlap beyond what both lists show (the tail is
    :math:`X_l \\sum_{d>l} p^d / d`), the upper bound lets ``S`` continue with the
    items of ``L`` it misses and both lists with shared items afterwards, and the
    point estimate adds, at depths ``s < d <= l``, ``(d - s) A_s`` times the mean
    contribution of the items of ``L`` missing from ``S``, and continues the
    agreement of depth ``l`` beyond it. Values are clipped to [0, 1] (rounding), as
    the reference's R code does. ``"a"`` and ``"b"`` equal ``"w"`` when no score
    ties. The kernel counts the items of each kind of prefix membership in one
    pass (no quadratic sum over tied blocks); the reference's values are matched to
    ``1e-12``.

    References
    ----------
    Webber, W., Moffat, A., & Zobel, J. (2010). A similarity measure for indefinite
    rankings. ACM Transactions on Information Systems, 28(4), 20.

    Corsi, M., & Urbano, J. (2024). The treatment of ties in rank-biased overlap.
    SIGIR 2024. Reference implementation: https://github.com/julian-urbano/sigir2024-rbo

    Examples
    --------
    >>> from sklearn_rank_metrics import rank_biased_overlap
    >>> a = [4, 3, 2, 1]
    >>> round(rank_biased_overlap(a, a, [0, 0, 0, 0], p=0.9), 6)  # identical: 1
    1.0
    >>> round(rank_biased_overlap(a, [1, 2, 3, 4], [0, 0, 0, 0], p=0.9, bound="min"), 4)
    0.3894
    >>> tied = [1, 1, 0, 0]  # two blocks of tied rows
    >>> round(rank_biased_overlap(tied, tied, [0, 0, 0, 0], ties="b"), 6)
    1.0
    >>> round(rank_biased_overlap(tied, tied, [0, 0, 0, 0], ties="a"), 4)  # expected
    0.9365
    """
    rows = checked_pair(y_score_a, y_score_b, group, sample_weight=sample_weight)
    values, defined = rbo_per_query(rows, p=p, depth=depth, ties=ties, bound=bound)
    return _result(rows, values, [(_EMPTY_LIST, ~defined)], (0.0, 1.0),
                   replace_undefined_by, per_query, "rbo")


@returns_frames_like_inputs(_INPUTS)
@entry_point
@validate_params(
    {
        "variant": [Options("b", "ap")],
        "replace_undefined_by": REPLACE_UNDEFINED_BY,
        "per_query": [BOOLEAN],
    }
)
def kendall_tau_score(
    y_score_a: Any,
    y_score_b: Any,
    group: Any = None,
    *,
    variant: str = "b",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    per_query: bool = False,
) -> Any:
    """Kendall's tau-b or the AP correlation tau_AP of two rankings, averaged over queries.

    Parameters
    ----------
    y_score_a, y_score_b : array-like of shape (n_rows,) or (n_queries, n_docs)
        Two scores of every row; higher ranks earlier. ``-inf`` (a row that ranking
        did not return) is a score like any other here: such rows rank last, tied
        among themselves. NaN is refused.
    group : array-like of shape (n_rows,), default=None
        Query id of every row (required with 1-D input); ``None`` with 2-D input:
        every row is a query.
    variant : {"b", "ap"}, default="b"
        ``"b"``: Kendall's tau-b, which corrects for ties in either ranking; equal to
        ``scipy.stats.kendalltau(y_score_a, y_score_b)`` (its default
        ``variant="b"``) query by query. ``"ap"``: tau_AP of Yilmaz et al. (2008),
        which weighs disagreements near the top more; ``y_score_a`` is the
        reference ranking and ``y_score_b`` is traversed from its top, as ircor's
        ``tauAP(x=a, y=b)``. Like ircor's ``tauAP``, it is defined for rankings
        without ties: a query whose scores tie in either ranking (two ``-inf`` rows
        included) is refused, naming it.
    replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=0.0
        Value of a query where the coefficient is undefined: a query of one row, or
        (tau-b) one whose rows all tie in a ranking (SciPy returns NaN there). By
        default such a query counts as 0.0 (no correlation) in the mean and the
        table, as an undefined query does in every metric of the package, with an
        ``UndefinedMetricWarning`` that says how many there are and why; ``nan``
        gives SciPy's NaN, ``"skip"`` averages the defined queries only,
        ``"raise"`` refuses them.
    sample_weight : array-like, default=None
        Weight of each query in the mean (flat input: one per row, constant within
        a query; 2-D input: one per query).
    per_query : bool, default=False
        Return a table of the per-query values (columns ``"query"`` and ``"tau_b"``
        or ``"tau_ap"``) instead of their mean.

    Returns
    -------
    score : float or DataFrame
        Mean of the per-query values, in [-1, 1]; the table with ``per_query=True``.

    See Also
    --------
    rank_biased_overlap, overlap_at_k_score

    Notes
    -----
    With :math:`n_0 = n(n-1)/2` pairs of a query's ``n`` rows, :math:`n_1`,
    :math:`n_2` the pairs tied in ``a``, in ``b``, :math:`n_3` those tied in both,
    and :math:`D` the discordant pairs,

    .. math::

        \\tau_b = \\frac{n_0 - n_1 - n_2 + n_3 - 2D}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}},
        \\qquad
        \\tau_{AP} = \\frac{2}{n - 1} \\sum_{i=2}^{n} \\frac{C(i)}{i - 1} - 1,

    where :math:`C(i)` counts the rows above position ``i`` of ranking ``b`` that
    ranking ``a`` also places above it. The discordant pairs and :math:`C(i)` are
    counted for all queries at once by merging sorted runs (:math:`O(n \\log^2 n)`
    over all rows, no loop per query).

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika,
    33(3), 239-251.

    Yilmaz, E., Aslam, J. A., & Robertson, S. (2008). A new rank correlation
    coefficient for information retrieval. SIGIR 2008, 587-594.

    Urbano, J., & Marrero, M. (2017). The treatment of ties in AP correlation.
    ICTIR 2017 (ircor: https://github.com/julian-urbano/ircor).

    Examples
    --------
    >>> from sklearn_rank_metrics import kendall_tau_score
    >>> qid = [0, 0, 0, 0]
    >>> kendall_tau_score([4, 3, 2, 1], [4, 3, 2, 1], qid)
    1.0
    >>> round(kendall_tau_score([4, 3, 2, 1], [4, 3, 1, 2], qid), 4)  # 1 pair of 6 swapped
    0.6667
    >>> round(kendall_tau_score([4, 3, 2, 1], [3, 4, 2, 1], qid, variant="ap"), 4)
    0.3333
    >>> round(kendall_tau_score([4, 3, 2, 1], [4, 3, 1, 2], qid, variant="ap"), 4)
    0.7778
    """
    rows = checked_pair(y_score_a, y_score_b, group, sample_weight=sample_weight)
    codes = rows.queries.row_codes()
    n_queries = rows.queries.n_queries
    few = np.bincount(codes, minlength=n_queries) < 2
    if variant == "b":
        values, defined = kernels.kendall_tau_b(codes, n_queries, rows.scores_a, rows.scores_b)
        return _result(rows, values, [(_FEW_ROWS, few), (_ALL_TIED, ~defined)],
                       (-1.0, 1.0), replace_undefined_by, per_query, "tau_b")
    # 2-D input: a query is a row of the array, its rows are the columns
    other = "row" if len(rows.shape) == 1 else "column"
    for name, scores in (("y_score_a", rows.scores_a), ("y_score_b", rows.scores_b)):
        row = kernels.first_tie(codes, scores)
        if row is not None:
            raise ValueError(
                f"{caller_name()} with variant='ap' needs rankings without ties (as "
                f"ircor's tauAP), but {name} ties {rows.row_name(row)} "
                f"({plain(scores[row])!r}) with another {other} of query "
                f"{plain(rows.query_ids[codes[row]])!r}. Break the ties first, or use "
                "variant='b'."
            )
    values, defined = kernels.tau_ap(codes, n_queries, rows.scores_a, rows.scores_b)
    return _result(rows, values, [(_FEW_ROWS, ~defined)], (-1.0, 1.0),
                   replace_undefined_by, per_query, "tau_ap")


@returns_frames_like_inputs(_INPUTS)
@entry_point
@validate_params(
    {
        "k": [_POSITIVE],
        "ties": [Options("average", "input")],
        "per_query": [BOOLEAN],
    }
)
def overlap_at_k_score(
    y_score_a: Any,
    y_score_b: Any,
    group: Any = None,
    *,
    k: int,
    ties: str = "average",
    sample_weight: Any = None,
    per_query: bool = False,
) -> Any:
    """Share of the top ``k`` rows two rankings have in common, averaged over queries.

    Parameters
    ----------
    y_score_a, y_score_b : array-like of shape (n_rows,) or (n_queries, n_docs)
        Two scores of every row; higher ranks earlier. ``-inf`` marks a row that
        ranking did not return: it is never in its top ``k``. NaN is refused.
    group : array-like of shape (n_rows,), default=None
        Query id of every row (required with 1-D input); ``None`` with 2-D input:
        every row is a query.
    k : int >= 1
        The cutoff. The count is always divided by ``k``, also when a list holds
        fewer rows.
    ties : {"average", "input"}, default="average"
        Tied rows across the cutoff: ``"average"``: the expected overlap when each
        ranking's tied rows are ordered at random, independently (each row is in a
        top ``k`` with its tie block's share of the places left above the cut);
        ``"input"``: tied rows in input order.
    sample_weight : array-like, default=None
        Weight of each query in the mean (flat input: one per row, constant within
        a query; 2-D input: one per query).
    per_query : bool, default=False
        Return a table of the per-query values (columns ``"query"`` and
        ``"overlap@k"``) instead of their mean.

    Returns
    -------
    score : float or DataFrame
        Mean of the per-query values, in [0, 1]; the table with ``per_query=True``.

    See Also
    --------
    rank_biased_overlap, kendall_tau_score

    Notes
    -----
    .. math::

        \\mathrm{overlap@}k = \\frac{1}{k} \\sum_i P(i \\in \\mathrm{top}_k(a))\\,
        P(i \\in \\mathrm{top}_k(b)),

    with :math:`P(i \\in \\mathrm{top}_k) = \\min(1, \\max(0, (k - t_i + 1) / n_i))`
    for a row in a block of :math:`n_i` tied rows from position :math:`t_i`
    (``"average"``), or 0 or 1 by position (``"input"``): the agreement ``A_k`` of
    :func:`rank_biased_overlap` with ``ties="a"``. Every query is defined.

    Examples
    --------
    >>> from sklearn_rank_metrics import overlap_at_k_score
    >>> qid = [0, 0, 0, 0]
    >>> overlap_at_k_score([4, 3, 2, 1], [1, 4, 3, 2], qid, k=2)  # one row of 2
    0.5
    >>> overlap_at_k_score([4, 3, 3, 1], [4, 3, 2, 1], qid, k=2)  # row 1 or 2 at 2nd
    0.75
    >>> overlap_at_k_score([4, 3, 3, 1], [4, 3, 2, 1], qid, k=2, ties="input")
    1.0
    """
    rows = checked_pair(y_score_a, y_score_b, group, sample_weight=sample_weight)
    codes, list_a, list_b = _lists(rows, break_ties=ties == "input")
    values = kernels.overlap_at_k(codes, rows.queries.n_queries, list_a, list_b, k, ties)
    return _result(rows, values, [], (0.0, 1.0), 0.0, per_query, f"overlap@{k}")
