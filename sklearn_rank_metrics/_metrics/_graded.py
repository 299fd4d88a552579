"""Graded metrics: DCG, NDCG, cumulative gain (DCG without discount) and ERR."""

# mypy: disable-error-code="empty-body"
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._doc_ids import LABEL, RANKS, RELEVANT, TOP_K, TieReach
from .._engine._document_ids import DESCENDING
from .._engine._errors import RowValueError
from .._engine._inputs import first_bad
from .._engine._ranked_groups import RankedGroups
from .._engine._validation import NONE, Interval, Options
from .._engine._warnings import undefined_metric_warning, warn_at_caller
from .._kernels._combinatorics import safe_divide
from .._kernels._graded import (
    DEFAULT_MAX_GRADE,
    GainModel,
    check_labels_non_negative,
    expected_dcg,
    expected_reciprocal_rank,
    gain_values,
    ideal_dcg,
    labels_scaled_where_dcg_could_overflow,
)
from .._kernels._ndcg_top_k import ndcg_of_top_k
from .._kernels._relevance import n_relevant
from ._aggregate import PerQuery
from ._aliases import Alias
from ._base import tie_order
from ._conventions import BOOSTERS, Ordering, Provider
from ._declaration import Variant, metric, non_negative
from ._sklearn_compat import like_scikit_learn

# gdeval (ir_measures' ERR@k and nDCG exp-log2): double precision, ties by document id
# descending
GDEVAL = Ordering(doc_id_order=DESCENDING)


def _gain_tie_order(params: Mapping[str, Any]) -> TieReach:
    """Where the order of tied rows changes a DCG (NDCG, CG): the declared rule.

    Rows differ when their gains do: their labels, or with the binary gain their
    relevance (``y > 0``). Every rank weighs differently with the discount
    ``1 / log_b(i + 1)``; ranks ``i <= b`` weigh 1 with ``1 / max(1, log_b(i))``;
    without a discount (CG) only which rows are in the top k counts.
    """
    gain, discount = params.get("gain", "linear"), params.get("discount", "log(rank+1)")
    reads = (RELEVANT,) if isinstance(gain, str) and gain == "binary" else (LABEL,)
    if discount == "none":
        return TieReach(TOP_K, reads, params.get("k"))
    same = math.floor(params.get("log_base", 2)) if discount == "max(1,log(rank))" else 1
    return TieReach(RANKS, reads, params.get("k"), same_weight_ranks=max(same, 1))


def _no_positive_gain(ranked: RankedGroups, gain: Any) -> np.ndarray:
    """Whether each query has no row with a positive gain (one bool per query)."""
    positive = gain_values(ranked.labels, gain, ranked.input_labels) > 0
    return ~ranked.query_any(positive)


def _check_finite(sums: np.ndarray, ranked: RankedGroups) -> None:
    """A (ideal) DCG that overflowed float64 is an error, never an inf or NaN result."""
    bad = np.flatnonzero(~np.isfinite(sums))
    if len(bad):
        raise ValueError(
            f"{caller_name()}: the DCG of query {ranked.query_ids[bad[:1]].tolist()[0]!r} "
            "overflows "
            f"float64 (the largest label is {ranked.input_labels.max():g}); the gains "
            "are too large to sum. NDCG is scale-invariant with linear gain: divide "
            "y_true by a constant (e.g. its maximum) first."
        )


def dcg_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    gain: Any = "linear",
    discount: str = "log(rank+1)",
    log_base: float = 2,
    ties: str = "average",
) -> PerQuery:
    """Expected DCG@k of every query (undefined: no row with a positive gain).

    In scikit-learn's 2-D form with linear gain, negative labels are summed as
    negative gains, as scikit-learn's ``dcg_score`` sums them (:func:`_signed_dcg`).
    """
    model = GainModel(gain, discount, log_base)
    if _signed_gains(ranked, gain):
        return _signed_dcg(ranked, lambda: expected_dcg(ranked, ties, k, model))
    return _gain_sums(ranked, gain, lambda: expected_dcg(ranked, ties, k, model))


def _signed_gains(ranked: RankedGroups, gain: Any) -> bool:
    """Whether negative labels are gains of their own sign: scikit-learn's 2-D DCG.

    scikit-learn's ``dcg_score`` takes ``(n_queries, n_docs)`` arrays and sums
    ``y * discount`` whatever the sign of ``y``; in that form, with its linear gain,
    this package's ``dcg_score`` is a drop-in replacement and does the same. Flat
    rows keep the package's rule (labels >= 0, else an error naming the row).
    """
    return (
        ranked.two_dimensional
        and isinstance(gain, str)
        and gain == "linear"
        and ranked.cached("first_negative_label", lambda: first_bad(ranked.input_labels < 0))
        is not None
    )


def _signed_dcg(ranked: RankedGroups, compute: Callable[[], np.ndarray]) -> PerQuery:
    """Per-query DCG over signed gains: defined wherever a row has a nonzero gain.

    A query of negative labels only has a negative DCG (scikit-learn's number, not
    an undefined query); its range is the whole real line.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked below
        values = compute()
    _check_finite(values, ranked)
    undefined = ~ranked.query_any(ranked.labels != 0)
    return PerQuery(values, undefined, None, "no row with gain != 0", (-np.inf, np.inf))


def _gain_sums(ranked: RankedGroups, gain: Any, compute: Callable[[], np.ndarray]) -> PerQuery:
    """Per-query sums of gains (DCG, IDCG): labels >= 0, no overflow."""
    check_labels_non_negative(ranked)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked below
        values = compute()
    _check_finite(values, ranked)
    return PerQuery(values, _no_positive_gain(ranked, gain), None, "no row with gain > 0")


def ndcg_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    gain: Any = "linear",
    discount: str = "log(rank+1)",
    ideal: str = "all",
    ties: str = "average",
) -> PerQuery:
    """Expected DCG@k / ideal DCG@k of every query (undefined: ideal DCG is 0).

    With linear gain NDCG is scale-invariant, so a query whose labels could make
    its DCG overflow float64 is computed with its labels divided by a power of two
    (exact) that brings its largest label into ``[0.5, 1)``.
    """
    check_labels_non_negative(ranked)
    if isinstance(gain, str) and gain == "linear":
        ranked = labels_scaled_where_dcg_could_overflow(ranked)
    if ideal == "top_k":
        values, undefined = ndcg_of_top_k(ranked, ties, k, gain, discount)
        return PerQuery(
            np.minimum(values, 1.0), undefined, None, "no row with gain > 0 within the top k"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked below
        model = GainModel(gain, discount, 2)
        dcg = expected_dcg(ranked, ties, k, model)
        best = ideal_dcg(ranked, k, model)
    _check_finite(best, ranked)
    undefined = best <= 0
    # DCG <= ideal DCG; the two sums add the same terms in different orders, so a
    # ratio of one rounding step above 1 is cut back to 1.
    values = safe_divide(dcg, best)
    np.minimum(values, 1.0, out=values)
    return PerQuery(values, undefined, None, "ideal DCG is 0: no row with gain > 0")


@metric(
    "dcg",
    dcg_per_query,
    tie_order=_gain_tie_order,
    value_range=non_negative,
    aliases=[
        # ranx's dcg_burges: DCG with gain 2^rel - 1, discount 1/log2(i+1)
        Alias("ranx", "dcg_burges", params=(("gain", "exponential"),), example="dcg_burges@5"),
    ],
    variants=[Variant("cg", {"discount": "none"})],
    check=like_scikit_learn("dcg_score"),
    graded=True,
)
def dcg_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    gain: Any = "linear",
    discount: str = "log(rank+1)",
    log_base: float = 2,
    ignore_ties: bool = False,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Discounted cumulative gain, averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    gain : {"linear", "exponential", "binary"}, array-like or callable, default="linear"
        Gain of a row with label ``y``: ``y`` (scikit-learn, trec_eval),
        ``2**y - 1`` (LightGBM, XGBoost), ``1 if y > 0 else 0`` (``"binary"``:
        Spark MLlib, whose ground truth is a set of relevant items; for another
        threshold pass the labels ``y_true >= level``), ``gain[y]`` for an array
        indexed by integer label (LightGBM's ``label_gain``), or ``gain(y)`` for a
        vectorised callable returning gains >= 0.
    discount : {"log(rank+1)", "max(1,log(rank))", "none"}, default="log(rank+1)"
        Discount of rank ``i``: ``1 / log_b(i + 1)``; ``1 / max(1, log_b(i))``
        (Järvelin & Kekäläinen 2002: ranks below ``b`` undiscounted); or ``1``
        (cumulative gain, ``"cg@k"``).
    log_base : float > 1, default=2
        Base ``b`` of the logarithm, as in scikit-learn's ``dcg_score``.
    ignore_ties : bool, default=False
        scikit-learn's flag: ``True`` is ``ties="input"``.
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    ndcg_score : DCG divided by the ideal DCG.
    evaluate : Several metrics from one sort.

    Notes
    -----
    .. math::

        \\mathrm{DCG@k} = \\sum_{i=1}^{\\min(k, n)} g(y_{(i)})\\, d(i)

    where :math:`y_{(i)}` is the label at rank :math:`i`. With ``ties="average"``
    every rank of a block of tied rows holds the block's mean gain, which is the
    exact expectation over the block's orders (scikit-learn's tie-averaged DCG).
    A query without a row of positive gain is "undefined": its DCG is 0, and
    ``replace_undefined_by`` decides its value like in every other metric.

    Labels must be >= 0, except in scikit-learn's 2-D form ``(n_queries, n_docs)``
    with linear gain, where a negative label is a negative gain, as scikit-learn's
    ``dcg_score`` sums it (a query is then undefined only when every label is 0).

    References
    ----------
    Järvelin, K., & Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR
    techniques. ACM TOIS 20(4), 422-446.

    McSherry, F., & Najork, M. (2008). Computing information retrieval performance
    measures efficiently in the presence of tied scores. ECIR.

    Examples
    --------
    >>> from sklearn_rank_metrics import dcg_score
    >>> dcg_score([3, 2, 0], [0.9, 0.5, 0.1], [0, 0, 0])  # 3/log2(2) + 2/log2(3) + 0
    4.2619
    >>> dcg_score([3, 2, 0], [0.9, 0.5, 0.1], [0, 0, 0], k=1)
    3.0
    >>> dcg_score([1, 0], [0.5, 0.5], [0, 0])  # tie: 0.5/log2(2) + 0.5/log2(3)
    0.8155
    """


def idcg_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    gain: Any = "linear",
    discount: str = "log(rank+1)",
    log_base: float = 2,
    ties: str = "average",
) -> PerQuery:
    """Ideal DCG@k of every query (undefined: no row with a positive gain; ``ties``
    changes nothing)."""
    return _gain_sums(
        ranked, gain, lambda: ideal_dcg(ranked, k, GainModel(gain, discount, log_base))
    )


# the ideal order is the same whatever the order of tied rows
@metric(
    "idcg", idcg_per_query, tie_order=lambda params: None, value_range=non_negative, graded=True
)
def idcg_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    gain: Any = "linear",
    discount: str = "log(rank+1)",
    log_base: float = 2,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Ideal discounted cumulative gain: the DCG@k of the best order, averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    gain : {"linear", "exponential", "binary"}, array-like or callable, default="linear"
        As in :func:`dcg_score`.
    discount : {"log(rank+1)", "max(1,log(rank))", "none"}, default="log(rank+1)"
        As in :func:`dcg_score`.
    log_base : float > 1, default=2
        As in :func:`dcg_score`.
    ties : {"average", "input", "optimistic", "pessimistic"}, default="average"
        Taken like every metric's, and every mode gives the same value: the ideal
        order does not depend on the scores.
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    dcg_score : The DCG of the model's order.
    ndcg_score : DCG divided by this ideal DCG.

    Notes
    -----
    .. math::

        \\mathrm{IDCG@k} = \\sum_{i=1}^{\\min(k, n)} g(y^*_{(i)})\\, d(i)

    where :math:`y^*_{(1)} \\ge y^*_{(2)} \\ge \\dots` are all judged labels of the
    query sorted by gain, the unretrieved (``-inf``) rows included: the denominator
    of :func:`ndcg_score` with ``ideal="all"``, and the DCG scikit-learn's
    ``dcg_score(y_true, y_true)`` gives. The scores only say which rows belong to
    which query; ties do not matter. A query without a row of positive gain is
    undefined (its ideal DCG is 0).

    References
    ----------
    Järvelin, K., & Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR
    techniques. ACM TOIS 20(4), 422-446.

    Examples
    --------
    >>> from sklearn_rank_metrics import idcg_score
    >>> idcg_score([0, 2, 3], [0.9, 0.5, 0.1], [0, 0, 0])  # 3/log2(2) + 2/log2(3) + 0
    4.2619
    >>> idcg_score([0, 2, 3], [0.9, 0.5, 0.1], [0, 0, 0], k=1)
    3.0
    """


@metric(
    "ndcg",
    ndcg_per_query,
    tie_order=_gain_tie_order,
    constraints={"ideal": [Options("all", "top_k")]},
    aliases=[
        Alias("trec_eval", "ndcg_cut", cutoff="required", example="ndcg_cut_10"),
        Alias(
            "ir_measures", "nDCG", tool_params=(("dcg", "gain"),), example="nDCG(dcg='exp-log2')@10"
        ),
        Alias("ranx", "ndcg_burges", params=(("gain", "exponential"),), example="ndcg_burges@10"),
    ],
    providers={
        # a query without a relevant row scores 1 in the boosters' NDCG and MAP only
        BOOSTERS: Provider({"replace_undefined_by": 1.0}),
        "torchmetrics": Provider({"ties": "average"}),
        # nDCG(dcg='exp-log2') comes from ir_measures' gdeval provider
        "ir_measures": Provider(
            ordering=lambda params: GDEVAL if params.get("gain") == "exponential" else None
        ),
        # MLlib's ndcgAt: 1 / ln(i + 1) for a ground-truth row (the log base cancels)
        "spark": Provider({"gain": "binary"}),
    },
    check=like_scikit_learn("ndcg_score"),
    graded=True,
    ideal_is_one=True,
)
def ndcg_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    gain: Any = "linear",
    discount: str = "log(rank+1)",
    ideal: str = "all",
    ignore_ties: bool = False,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Normalised discounted cumulative gain, averaged over queries.

    A drop-in replacement for scikit-learn's ``ndcg_score`` on 2-D input, which
    also understands flat rows with query ids.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    gain : {"linear", "exponential", "binary"}, array-like or callable, default="linear"
        Gain of a row with label ``y``: ``y`` (scikit-learn, trec_eval),
        ``2**y - 1`` (LightGBM, XGBoost, ranx's ``ndcg_burges``), ``1 if y > 0
        else 0`` (``"binary"``: Spark MLlib's ``ndcgAt``, whose ground truth is a
        set; for another threshold pass the labels ``y_true >= level``),
        ``gain[y]`` for an array indexed by integer label, or ``gain(y)`` for a
        vectorised callable.
    discount : {"log(rank+1)", "max(1,log(rank))", "none"}, default="log(rank+1)"
        Discount of rank ``i``: ``1 / log2(i + 1)``; ``1 / max(1, log2(i))``
        (Järvelin & Kekäläinen 2002: rank 1 undiscounted, then ``1 / log2(i)``);
        or ``1``.
    ideal : {"all", "top_k"}, default="all"
        Ideal DCG from all judged rows of the query, including the unretrieved
        (``-inf``) ones (scikit-learn, trec_eval, LightGBM, XGBoost), or only from the
        rows the model placed within the cutoff, re-sorted by gain. With
        ``"top_k"`` a query is undefined in the orders whose top k holds no row of
        positive gain; under ``ties="average"`` a numeric ``replace_undefined_by``
        stands in for those orders only, while ``nan``, ``"skip"`` and ``"raise"``
        treat the query as undefined if any order is.
    ignore_ties : bool, default=False
        scikit-learn's flag: ``True`` is ``ties="input"``.
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    dcg_score : The unnormalised DCG.
    evaluate : Several metrics from one sort.

    Notes
    -----
    .. math::

        \\mathrm{NDCG@k} = \\frac{\\mathrm{DCG@k}}{\\mathrm{IDCG@k}}, \\qquad
        \\mathrm{DCG@k} = \\sum_{i=1}^{\\min(k, n)} g(y_{(i)})\\, d(i)

    IDCG@k is the DCG@k of the same rows sorted by gain. A query whose ideal DCG is
    0 (no row of positive gain) is undefined and gets ``replace_undefined_by``.
    With ``ties="average"`` each rank of a tied block holds the block's mean gain
    (exact expectation; scikit-learn's default).

    References
    ----------
    Järvelin, K., & Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR
    techniques. ACM TOIS 20(4), 422-446.

    Burges, C. et al. (2005). Learning to rank using gradient descent. ICML.

    Examples
    --------
    >>> from sklearn_rank_metrics import ndcg_score
    >>> ndcg_score([3, 2, 0, 1], [0.9, 0.8, 0.1, 0.5], [0, 0, 0, 0])  # the ideal order
    1.0
    >>> ndcg_score([0, 1], [0.9, 0.1], [0, 0], k=1)  # the relevant row is below the cutoff
    0.0
    >>> ndcg_score([1, 0], [0.5, 0.5], [0, 0])  # tie: (1/log2(2) + 1/log2(3)) / 2
    0.8155
    >>> ndcg_score([1, 0, 0, 1], [0.9, 0.1, 0.2, 0.8], group=["a", "a", "b", "b"])
    1.0
    """


def err_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    max_grade: float | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected ERR@k of every query (undefined: no label > 0).

    ``max_grade=None`` is the 0-4 scale, and warns when every label lies in [0, 1]
    (binary labels: a relevant row would stop the user with probability 1/16, not 1/2).
    """
    check_labels_non_negative(ranked)
    if max_grade is None:
        max_grade = DEFAULT_MAX_GRADE
        _warn_if_labels_look_binary(ranked)
    bad = np.flatnonzero(ranked.input_labels > max_grade)
    if len(bad):
        raise RowValueError(
            f"y_true of {caller_name()} must be <= max_grade={max_grade:g}; got "
            f"{ranked.input_labels[bad[0]]:g} at row {int(bad[0])}. Pass the top grade "
            "of your label scale as max_grade.",
            int(bad[0]),
        )
    values = expected_reciprocal_rank(ranked, ties, k, max_grade)
    undefined = n_relevant(ranked, None) == 0
    return PerQuery(values, undefined, None, "no row with a label > 0")


def _warn_if_labels_look_binary(ranked: RankedGroups) -> None:
    """Warn when ERR's default 0-4 scale meets labels that are all within [0, 1].

    Looks at the labels only to decide whether to warn, never to set the scale, so
    no query's value depends on the other rows of the call.
    """
    labels = ranked.input_labels
    if not len(labels):
        return
    top = float(labels.max())
    if 0 < top <= 1:
        warn_at_caller(
            f"{caller_name()}: every label is within [0, 1] (binary relevance?) but "
            f"max_grade was not given, so the 0-{DEFAULT_MAX_GRADE} grade scale applies: a "
            f"label 1 stops the user with probability R(1) = 1/{2**DEFAULT_MAX_GRADE} (a "
            f"query whose one relevant row is ranked first scores "
            f"{1 / 2**DEFAULT_MAX_GRADE:g}). Pass max_grade=1 for binary labels (R(1) = 1/2, "
            f"that query scores 0.5), or max_grade={DEFAULT_MAX_GRADE} to confirm the "
            f"0-{DEFAULT_MAX_GRADE} scale and silence this warning.",
            undefined_metric_warning(),
        )


@metric(
    "err",
    err_per_query,
    tie_order=tie_order(RANKS, (LABEL,)),
    constraints={"max_grade": [Interval(float, 0, 1023, closed="right"), NONE]},
    # ERR@k comes from ir_measures' gdeval provider
    providers={"ir_measures": Provider(ordering=GDEVAL)},
    graded=True,
)
def expected_reciprocal_rank_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    max_grade: float | None = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Expected reciprocal rank (cascade model), averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    max_grade : float in (0, 1023] or None, default=None
        The top grade ``g_max`` of the label scale in :math:`R(g)`. ``None`` means 4:
        the five-grade scale (0-4) of the ERR paper, the TREC Web track's gdeval
        (ir_measures' ``ERR@k``), LETOR, MSLR-WEB and Yahoo! LTR. For binary labels
        pass ``max_grade=1``: on the 0-4 scale a label 1 stops the user with
        probability 1/16, so a perfect binary ranking scores 0.0625. ``None`` with
        every label within [0, 1] therefore warns (``UndefinedMetricWarning``, also
        through :func:`evaluate`, ``"err@k"``); an explicit ``max_grade=4`` never
        warns (a 0-4 collection whose sample holds only grades 0 and 1 is
        legitimate). It is a declared setting, never read from the data (the labels
        only decide whether to warn), so a query's ERR does not depend on the other
        queries of the call, the fold or the Dask partition. Labels must lie in
        ``[0, max_grade]`` (else ``ValueError``).
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    mean_reciprocal_rank_score : The binary, first-relevant-row version.

    Notes
    -----
    The user scans down the ranking and stops at rank :math:`i` with probability
    :math:`R_i = (2^{y_{(i)}} - 1) / 2^{g_{max}}`:

    .. math::

        \\mathrm{ERR@k} = \\sum_{i=1}^{\\min(k, n)} \\frac{1}{i}\\, R_i
        \\prod_{j < i} (1 - R_j)

    ``ties="average"`` is exact: for a block of ``m`` tied rows the probability of
    passing its first ``t`` positions is the mean over all ``t``-subsets of the
    product of :math:`1 - R`. Its cost is O(m min(m, k)) per tied block that starts
    within the cutoff (so large tied blocks with ``k=None`` are costly).
    A query without a label > 0 is undefined.

    References
    ----------
    Chapelle, O., Metzler, D., Zhang, Y., & Grinspan, P. (2009). Expected reciprocal
    rank for graded relevance. CIKM.

    Examples
    --------
    >>> from sklearn_rank_metrics import expected_reciprocal_rank_score
    >>> expected_reciprocal_rank_score([4, 0], [0.9, 0.1], [0, 0])  # R = 15/16 at rank 1
    0.9375
    >>> expected_reciprocal_rank_score([1, 0], [0.9, 0.1], [0, 0], max_grade=1)  # R = 1/2
    0.5
    >>> expected_reciprocal_rank_score([0, 1], [0.9, 0.1], [0, 0], k=1, max_grade=1)
    0.0
    >>> expected_reciprocal_rank_score([1, 0], [0.5, 0.5], [0, 0], max_grade=1)  # ties
    0.375
    """
