"""Binary-relevance metrics: AP, RR, precision, recall, F-beta and hit rate at k."""

# mypy: disable-error-code="empty-body"
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._doc_ids import FIRST_RELEVANT, HIT, RANKS, RELEVANT, TOP_K, TieReach
from .._engine._document_ids import ASCENDING
from .._engine._ranked_groups import RankedGroups
from .._engine._validation import Interval, Options
from .._kernels import _binary as kernels
from .._kernels import _relevance as relevance
from .._kernels._combinatorics import safe_divide
from ._aggregate import PerQuery
from ._aliases import Alias
from ._base import tie_order
from ._conventions import BOOSTERS, TREC_TOOLS, Ordering, Provider
from ._declaration import Variant, metric

# torchmetrics zeroes the target of rows scored <= 0 in MAP, MRR and P@k
TORCHMETRICS_TARGETS = Ordering(single_precision=True, nonpositive_scores="not_relevant")
AP_DENOMINATORS = ("n_relevant", "min(k,n_relevant)", "n_relevant_in_top_k")
PRECISION_DENOMINATORS = ("k", "min(k,n_retrieved)")


def _undefined(ranked: RankedGroups, relevance_level: float | None) -> np.ndarray:
    return relevance.n_relevant(ranked, relevance_level) == 0


def average_precision_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    denominator: str = "n_relevant",
    ties: str = "average",
) -> PerQuery:
    """Expected AP@k of every query."""
    values = kernels.average_precision(ranked, ties, k, relevance_level, denominator)
    return PerQuery(values, _undefined(ranked, relevance_level))


def reciprocal_rank_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected RR@k of every query."""
    values = kernels.reciprocal_rank(ranked, ties, k, relevance_level)
    return PerQuery(values, _undefined(ranked, relevance_level))


def _precision_denominator(ranked: RankedGroups, k: int | None, denominator: str) -> np.ndarray:
    if denominator == "k" and k is not None:
        return np.full(ranked.n_queries, float(k))
    return ranked.depth(k).astype(np.float64)


def precision_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    denominator: str = "k",
    ties: str = "average",
) -> PerQuery:
    """Expected P@k of every query."""
    hits = relevance.expected_hits(ranked, ties, k, relevance_level)
    values = safe_divide(hits, _precision_denominator(ranked, k, denominator))
    return PerQuery(values, _undefined(ranked, relevance_level))


def recall_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected R@k of every query."""
    hits = relevance.expected_hits(ranked, ties, k, relevance_level)
    values = safe_divide(hits, relevance.n_relevant(ranked, relevance_level))
    return PerQuery(values, _undefined(ranked, relevance_level))


def fbeta_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    beta: float = 1.0,
    relevance_level: float | None = None,
    denominator: str = "k",
    ties: str = "average",
) -> PerQuery:
    """Expected F-beta@k of every query: ``(1 + b^2) hits / (b^2 n_rel + k)``, linear in hits."""
    hits = relevance.expected_hits(ranked, ties, k, relevance_level)
    n_rel = relevance.n_relevant(ranked, relevance_level)
    scale = beta**2
    # in place, so that one-row queries hold two per-query arrays here, not four
    denominator_values = n_rel * scale
    denominator_values += _precision_denominator(ranked, k, denominator)
    numerator = hits * (1 + scale)
    values = safe_divide(numerator, denominator_values, out=numerator)
    return PerQuery(values, _undefined(ranked, relevance_level))


def r_precision_per_query(
    ranked: RankedGroups,
    *,
    relevance_level: float | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected R-precision of every query."""
    values, total = kernels.r_precision(ranked, ties, relevance_level)
    return PerQuery(values, total == 0)


def hit_rate_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    average: str = "macro",
    ties: str = "average",
) -> PerQuery:
    """P(a relevant row within k) per query, or (micro) recall weighted by n_relevant."""
    if average == "macro":
        values = kernels.hit(ranked, ties, k, relevance_level)
        return PerQuery(values, _undefined(ranked, relevance_level))
    recall = recall_per_query(ranked, k=k, relevance_level=relevance_level, ties=ties)
    return PerQuery(recall.values, recall.undefined, relevance.n_relevant(ranked, relevance_level))


@metric(
    "map",
    average_precision_per_query,
    # AP weighs every rank: a tie of relevant and other rows above the cutoff
    tie_order=tie_order(RANKS, (RELEVANT,)),
    constraints={"denominator": [Options(*AP_DENOMINATORS)]},
    aliases=[
        Alias("trec_eval", "map_cut", cutoff="required", example="map_cut_10"),
        Alias("ir_measures", "AP", example="AP@10"),
        # ml_metrics.mapk / Kaggle's MAP@k: sum of P@i at the hits in the top k divided by
        # min(k, number of relevant items); trec_eval's map_cut_k (our map@k) divides by
        # all relevant items
        Alias(
            "ml_metrics",
            "mapk",
            params=(("denominator", "min(k,n_relevant)"),),
            cutoff="required",
            example="mapk@10",
        ),
    ],
    providers={
        (*TREC_TOOLS, "sklearn"): Provider({"denominator": "n_relevant"}),
        # a query without a relevant row scores 1 in the boosters' NDCG and MAP only
        BOOSTERS: Provider({"denominator": "min(k,n_relevant)", "replace_undefined_by": 1.0}),
        "torchmetrics": Provider({"denominator": "n_relevant_in_top_k"}, TORCHMETRICS_TARGETS),
        # MLlib's meanAveragePrecisionAt(k) divides by min(k, |ground truth|), and its
        # meanAveragePrecision (no k) by |ground truth|: the same denominator
        "spark": Provider({"denominator": "min(k,n_relevant)"}),
    },
    ideal_is_one=True,
)
def mean_average_precision_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    denominator: str = "n_relevant",
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Mean average precision (MAP@k) over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    [[relevance_level]]
    denominator : {"n_relevant", "min(k,n_relevant)", "n_relevant_in_top_k"}, default="n_relevant"
        What the sum of precisions is divided by: all relevant rows of the query,
        retrieved or not (trec_eval ``map`` / ``map_cut_k``, ranx); ``min(k,
        n_relevant)`` (LightGBM, XGBoost, recommender MAP@k); or the relevant rows
        within the top ``k`` (torchmetrics; AP is 0 when there is none).
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    mean_reciprocal_rank_score, precision_at_k_score

    Notes
    -----
    .. math::

        \\mathrm{AP@k} = \\frac{1}{D} \\sum_{i \\le \\min(k, n),\\ \\mathrm{rel}(i)}
        \\mathrm{P@}i

    With ``ties="average"``, a relevant row at offset ``t`` of a tied block of ``m``
    rows (``r`` relevant, ``c`` relevant rows ranked before the block) contributes
    ``(r/m) (c + 1 + (t-1)(r-1)/(m-1)) / i`` in expectation (exact). For the
    ``"n_relevant_in_top_k"`` denominator the expectation conditions on how many
    relevant rows of the block that straddles ``k`` fall within it
    (hypergeometric). A query without a relevant row is undefined.

    References
    ----------
    Manning, C. D., Raghavan, P., & Schütze, H. (2008). Introduction to Information
    Retrieval, section 8.4. Cambridge University Press.

    Examples
    --------
    >>> from sklearn_rank_metrics import mean_average_precision_score
    >>> mean_average_precision_score([1, 1, 0], [0.9, 0.8, 0.1], [0, 0, 0])
    1.0
    >>> mean_average_precision_score([0, 1, 1], [0.9, 0.8, 0.1], [0, 0, 0], k=2)  # (1/2) / 2
    0.25
    >>> mean_average_precision_score([1, 0], [0.5, 0.5], [0, 0])  # tie: (1 + 1/2) / 2
    0.75
    """


@metric(
    "mrr",
    reciprocal_rank_per_query,
    # only the first relevant row counts: a tie above the cutoff with none before it
    tie_order=tie_order(FIRST_RELEVANT, (RELEVANT,)),
    aliases=[
        Alias("trec_eval", "recip_rank", cutoff="none", example="recip_rank"),
        Alias("ir_measures", "RR", example="RR@10"),
    ],
    providers={
        # RR@k comes from ir_measures' msmarco provider: double precision, ties by
        # document id ascending
        "ir_measures": Provider(
            ordering=lambda params: (
                Ordering(doc_id_order=ASCENDING) if params.get("k") is not None else None
            )
        ),
        "torchmetrics": Provider(ordering=TORCHMETRICS_TARGETS),
    },
    ideal_is_one=True,
)
def mean_reciprocal_rank_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Mean reciprocal rank (MRR@k) over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    [[relevance_level]]
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    expected_reciprocal_rank_score : The graded, cascade-model version.

    Notes
    -----
    .. math::

        \\mathrm{RR@k} = \\frac{1}{i^*} \\text{ if } i^* \\le k \\text{ else } 0

    where :math:`i^*` is the rank of the first relevant row (trec_eval
    ``recip_rank``). With ``ties="average"``, in the first tied block that holds a
    relevant row (``m`` rows, ``r`` relevant, starting after rank ``s``) the first
    relevant row is at offset ``t`` with probability ``C(m-t, r-1) / C(m, r)``, so
    ``E[RR] = sum_t C(m-t, r-1) / C(m, r) / (s + t)`` over ``s + t <= k`` (exact).

    References
    ----------
    Voorhees, E. M. (1999). The TREC-8 question answering track report. TREC.

    Examples
    --------
    >>> from sklearn_rank_metrics import mean_reciprocal_rank_score
    >>> mean_reciprocal_rank_score([1, 0, 0], [0.9, 0.8, 0.1], [0, 0, 0])
    1.0
    >>> mean_reciprocal_rank_score([0, 0, 1], [0.9, 0.8, 0.1], [0, 0, 0], k=2)
    0.0
    >>> mean_reciprocal_rank_score([1, 0], [0.5, 0.5], [0, 0])  # tie: (1 + 1/2) / 2
    0.75
    """


@metric(
    "p",
    precision_per_query,
    # which rows are in the top k: a tie across the cutoff (none without a cutoff)
    tie_order=tie_order(TOP_K, (RELEVANT,)),
    constraints={"denominator": [Options(*PRECISION_DENOMINATORS)]},
    aliases=[
        Alias("trec_eval", "P", cutoff="required", example="P_10"),
        Alias("trec_eval", "set_P", cutoff="none", example="set_P"),
        Alias("ir_measures", "SetP", cutoff="none", example="SetP"),
        Alias("ranx", "precision", example="precision@10"),
    ],
    providers={
        TREC_TOOLS: Provider({"denominator": "k"}),
        "xgboost": Provider({"denominator": "min(k,n_retrieved)"}),
        "torchmetrics": Provider({"denominator": "k"}, TORCHMETRICS_TARGETS),
        # MLlib's precisionAt(k) divides by k, also when the list is shorter
        "spark": Provider({"denominator": "k"}),
    },
)
def precision_at_k_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    denominator: str = "k",
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Precision at k (P@k), averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    [[relevance_level]]
    denominator : {"k", "min(k,n_retrieved)"}, default="k"
        Divide the hits by ``k`` even when the query returned fewer rows
        (trec_eval ``P_k``, ranx), or by ``min(k, n_retrieved)`` (XGBoost,
        torchmetrics' ``adaptive_k``). With ``k=None`` both divide by the number of
        retrieved rows.
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    recall_at_k_score, fbeta_at_k_score, hit_rate_score

    Notes
    -----
    .. math::

        \\mathrm{P@k} = \\frac{\\mathrm{hits@k}}{k}

    where hits@k counts relevant rows at ranks ``1..k``. With ``ties="average"``
    each rank of a tied block holds the block's share of relevant rows, so the
    block that straddles ``k`` contributes its hypergeometric mean (exact). A query
    without a relevant row is undefined (its natural value would be 0).

    References
    ----------
    Manning, C. D., Raghavan, P., & Schütze, H. (2008). Introduction to Information
    Retrieval, section 8.4. Cambridge University Press.

    Examples
    --------
    >>> from sklearn_rank_metrics import precision_at_k_score
    >>> precision_at_k_score([1, 1, 0], [0.9, 0.8, 0.1], [0, 0, 0], k=2)
    1.0
    >>> precision_at_k_score([1, 0, 0], [0.9, 0.8, 0.1], [0, 0, 0], k=2)
    0.5
    >>> precision_at_k_score([1, 0], [0.5, 0.5], [0, 0], k=1)  # tie across the cutoff
    0.5
    """


@metric(
    "rprec",
    r_precision_per_query,
    # which rows are in the top R: a tie across rank R
    tie_order=tie_order(TOP_K, (RELEVANT,), cutoff="relevant"),
    aliases=[
        Alias("ranx", "r-precision", cutoff="none", example="r-precision"),
        Alias("ir_measures", "Rprec", cutoff="none", example="Rprec(rel=2)"),
    ],
    takes_k=False,
    ideal_is_one=True,
)
def r_precision_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    relevance_level: float | None = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """R-precision: precision at rank R, the number of relevant rows, averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[relevance_level]]
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    precision_at_k_score, recall_at_k_score

    Notes
    -----
    .. math::

        \\mathrm{R\\text{-}prec} = \\frac{\\mathrm{hits@}\\min(R, n)}{R}

    where ``R`` counts the relevant rows of the query (unretrieved ``-inf`` ones
    too) and ``n`` its retrieved rows: trec_eval's ``Rprec``, ranx's
    ``r-precision``. It equals P@R and R@R. With ``ties="average"`` the tied block
    that straddles rank ``R`` contributes its share ``r/m`` of relevant rows at
    each of its positions within it (exact). A query without a relevant row is
    undefined.

    References
    ----------
    Buckley, C., & Voorhees, E. M. (2000). Evaluating evaluation measure stability.
    SIGIR 2000, 33-40.

    Examples
    --------
    >>> from sklearn_rank_metrics import r_precision_score
    >>> r_precision_score([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1], [0, 0, 0, 0])  # R = 2: 1 hit in 2
    0.5
    >>> r_precision_score([1, 0, 1], [0.9, 0.5, 0.5], [0, 0, 0])  # the tie straddles rank 2
    0.75
    """


@metric(
    "recall",
    recall_per_query,
    tie_order=tie_order(TOP_K, (RELEVANT,)),
    aliases=[
        Alias("trec_eval", "recall", cutoff="required", example="recall_100"),
        Alias("trec_eval", "set_recall", cutoff="none", example="set_recall"),
        Alias("ir_measures", "R", example="R@100"),
        Alias("ir_measures", "SetR", cutoff="none", example="SetR"),
    ],
    # torchmetrics keeps a relevant row scored <= 0 in recall's denominator only: a
    # relevant row not returned
    providers={
        "torchmetrics": Provider(
            ordering=Ordering(single_precision=True, nonpositive_scores="not_returned")
        )
    },
    ideal_is_one=True,
)
def recall_at_k_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Recall at k (R@k), averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    [[relevance_level]]
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    precision_at_k_score, hit_rate_score

    Notes
    -----
    .. math::

        \\mathrm{R@k} = \\frac{\\mathrm{hits@k}}{n_{rel}}

    where :math:`n_{rel}` counts all relevant rows of the query, the unretrieved
    (``-inf``) ones included (trec_eval ``recall_k``). Ties: as in
    :func:`precision_at_k_score` (exact).

    References
    ----------
    Manning, C. D., Raghavan, P., & Schütze, H. (2008). Introduction to Information
    Retrieval, section 8.4. Cambridge University Press.

    Examples
    --------
    >>> from sklearn_rank_metrics import recall_at_k_score
    >>> recall_at_k_score([1, 1, 0], [0.9, 0.8, 0.1], [0, 0, 0], k=2)
    1.0
    >>> recall_at_k_score([1, 0, 1], [0.9, 0.8, 0.1], [0, 0, 0], k=2)
    0.5
    >>> recall_at_k_score([1, 0], [0.5, 0.5], [0, 0], k=1)  # tie across the cutoff
    0.5
    """


@metric(
    "fbeta",
    fbeta_per_query,
    tie_order=tie_order(TOP_K, (RELEVANT,)),
    constraints={
        # beta**2 must be a finite float: (0, 1e150) keeps beta**2 * n_rel finite too
        "beta": [Interval(float, 0, 1e150, closed="neither")],
        "denominator": [Options(*PRECISION_DENOMINATORS)],
    },
    aliases=[
        Alias("trec_eval", "set_F", "f1", cutoff="none", example="set_F"),
        Alias("ir_measures", "SetF", "f1", cutoff="none", example="SetF"),
    ],
    variants=[Variant("f1", {"beta": 1.0})],
)
def fbeta_at_k_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    beta: float = 1.0,
    relevance_level: float | None = None,
    denominator: str = "k",
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """F-beta at k, the weighted harmonic mean of P@k and R@k, averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    beta : float in (0, 1e150), default=1.0
        Weight of recall: ``beta > 1`` favours recall. ``beta=1`` is F1@k (ranx ``f1``).
    [[relevance_level]]
    denominator : {"k", "min(k,n_retrieved)"}, default="k"
        The denominator of the precision part, as in :func:`precision_at_k_score`.
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    precision_at_k_score, recall_at_k_score

    Notes
    -----
    .. math::

        F_\\beta\\mathrm{@k} = \\frac{(1 + \\beta^2)\\, P\\, R}{\\beta^2 P + R}
        = \\frac{(1 + \\beta^2)\\, \\mathrm{hits@k}}{\\beta^2 n_{rel} + k}

    (0 when there is no hit). Being linear in hits@k, its expectation over tied
    orders uses the expected hits (exact).

    References
    ----------
    van Rijsbergen, C. J. (1979). Information Retrieval, chapter 7. Butterworths.

    Examples
    --------
    >>> from sklearn_rank_metrics import fbeta_at_k_score
    >>> fbeta_at_k_score([1, 1, 0], [0.9, 0.8, 0.1], [0, 0, 0], k=2)
    1.0
    >>> fbeta_at_k_score([1, 0, 1], [0.9, 0.8, 0.1], [0, 0, 0], k=2)  # P = R = 1/2
    0.5
    >>> fbeta_at_k_score([1, 0], [0.5, 0.5], [0, 0], k=1)  # tie: 2 * (1/2) / (1 + 1)
    0.5
    """


def _hit_rate_tie_order(params: Mapping[str, Any]) -> TieReach:
    """Macro hit rate: whether a relevant row is in the top k (a tie across the cutoff
    with no relevant row before it); micro: the relevant rows there, as recall."""
    within = HIT if params.get("average", "macro") == "macro" else TOP_K
    return TieReach(within, (RELEVANT,), params.get("k"), params.get("relevance_level"))


@metric(
    "hit_rate",
    hit_rate_per_query,
    tie_order=_hit_rate_tie_order,
    constraints={"average": [Options("macro", "micro")]},
    aliases=[
        Alias("trec_eval", "success", cutoff="required", example="success_10"),
        Alias("ir_measures", "Success", cutoff="required", example="Success@10"),
        # recommender papers' HR@k ("hit ratio", e.g. neural collaborative filtering):
        # the share of users with a relevant item in the top k
        Alias("recommender", "HR", example="HR@10"),
        Alias("recommender", "HitRatio", example="HitRatio@10"),
        Alias("recommender", "HitRate", example="HitRate@10"),
    ],
    ideal_is_one=True,
)
def hit_rate_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    average: str = "macro",
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Hit rate at k: the share of queries with a relevant row in the top k.

    Parameters
    ----------
    [[inputs]]
    [[k]]
    [[relevance_level]]
    average : {"macro", "micro"}, default="macro"
        ``"macro"``: per query 1 if a relevant row is within the top ``k``, else 0,
        averaged over queries (ranx ``hit_rate``). ``"micro"``: total hits over
        total relevant rows, ``sum_q hits_q / sum_q n_rel_q``; its per-query values
        are recall@k, weighted by the number of relevant rows.
    [[ties]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    recall_at_k_score, mean_reciprocal_rank_score

    Notes
    -----
    .. math::

        \\mathrm{hit@k} = [\\mathrm{hits@k} \\ge 1]

    With ``ties="average"`` only the first tied block holding a relevant row
    matters: if ``T`` of its ``m`` positions lie within the cutoff and ``r`` of its
    rows are relevant, ``P(hit) = 1 - C(m - r, T) / C(m, T)`` (exact).

    References
    ----------
    Deshpande, M., & Karypis, G. (2004). Item-based top-N recommendation
    algorithms. ACM TOIS 22(1), 143-177.

    Examples
    --------
    >>> from sklearn_rank_metrics import hit_rate_score
    >>> hit_rate_score([0, 1, 1, 0], [0.9, 0.8, 0.2, 0.1], group=[1, 1, 2, 2], k=2)
    1.0
    >>> hit_rate_score([0, 1], [0.9, 0.1], [0, 0], k=1)
    0.0
    >>> hit_rate_score([1, 0, 0], [0.5, 0.5, 0.5], [0, 0, 0], k=2)  # tie: 1 - C(2, 2) / C(3, 2)
    0.6667
    """
