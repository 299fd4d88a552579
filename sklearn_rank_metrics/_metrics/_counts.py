"""trec_eval's counts: relevant, retrieved, and relevant retrieved rows, summed over queries.

``summary="mean"`` averages them instead (ranx's ``hits@k``, the mean number of
relevant rows in the top k).
"""

# mypy: disable-error-code="empty-body"
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._doc_ids import RELEVANT, TOP_K, TieReach
from .._engine._ranked_groups import RankedGroups
from .._engine._validation import BOOLEAN, Options
from .._kernels import _relevance as relevance
from ._aggregate import PerQuery
from ._aliases import Alias
from ._conventions import Provider
from ._declaration import Variant, metric, non_negative

COUNTS = ("relevant", "retrieved", "relevant_retrieved")
SUMMARIES = ("sum", "mean")


def counts_per_query(
    ranked: RankedGroups,
    *,
    count: str = "relevant_retrieved",
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
    summary: str = "sum",
    count_unanswered: bool = True,
) -> PerQuery:
    """The count of every query (defined for every query), summed or averaged."""
    if count == "relevant":
        if k is not None:
            raise ValueError(
                f"{caller_name()} counts every relevant row of a query with "
                f"count='relevant' (trec_eval num_rel), so it takes no cutoff; got k={k}."
            )
        values = relevance.n_relevant(ranked, relevance_level).astype(np.float64)
        if not count_unanswered:  # ir_measures: 0 for a query the run did not answer
            values[ranked.n_retrieved == 0] = 0.0
    elif count == "retrieved":
        values = ranked.depth(k).astype(np.float64)
    else:
        values = np.array(relevance.expected_hits(ranked, ties, k, relevance_level))
    return PerQuery(
        values,
        np.zeros(ranked.n_queries, dtype=bool),
        total=summary == "sum",
    )


def _counts_tie_order(params: Mapping[str, Any]) -> TieReach | None:
    """Relevant rows in the top k: a tie across the cutoff; num_rel and num_ret count
    whatever the order."""
    if params.get("count", "relevant_retrieved") != "relevant_retrieved":
        return None
    return TieReach(TOP_K, (RELEVANT,), params.get("k"), params.get("relevance_level"))


@metric(
    "num_rel_ret",
    counts_per_query,
    tie_order=_counts_tie_order,
    constraints={
        "count": [Options(*COUNTS)],
        "summary": [Options(*SUMMARIES)],
        "count_unanswered": [BOOLEAN],
    },
    value_range=non_negative,
    aliases=[
        Alias("ir_measures", "NumRel", "num_rel", cutoff="none", example="NumRel"),
        Alias(
            "ir_measures",
            "NumRet",
            "num_ret",
            example="NumRet(rel=2)",
            retarget=(("rel", "num_rel_ret"),),
        ),
        Alias("ir_measures", "NumRelRet", "num_rel_ret", example="NumRelRet"),
        # ranx's hits@k: the MEAN over queries of the relevant rows in the top k
        # (trec_eval's num_rel_ret is their sum)
        Alias("ranx", "hits", "num_rel_ret", (("summary", "mean"),), example="hits@5"),
    ],
    # ir_measures reads NumRel from pytrec_eval, which measures the queries of the run
    # only, and reports 0 for the others; trec_eval -c counts their relevant rows
    providers={"ir_measures": Provider({"count_unanswered": False})},
    fixed_params={"count": "relevant_retrieved"},
    variants=[
        Variant("num_rel", {"count": "relevant"}, {"takes_k": False}),
        Variant("num_ret", {"count": "retrieved"}),
    ],
    always_defined=True,
    total=True,
)
def retrieval_count_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    count: str = "relevant_retrieved",
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
    summary: str = "sum",
    count_unanswered: bool = True,
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Relevant, retrieved or relevant retrieved rows, summed over queries (trec_eval's counts).

    Parameters
    ----------
    [[inputs]]
    count : {"relevant", "retrieved", "relevant_retrieved"}, default="relevant_retrieved"
        What is counted in each query: its relevant rows, retrieved or not
        (trec_eval ``num_rel``; takes no cutoff), the rows it retrieved within the
        cutoff (``num_ret``), or the relevant ones among those (``num_rel_ret``).
    [[k]]
    [[relevance_level]]
    [[ties]]
    summary : {"sum", "mean"}, default="sum"
        ``"sum"``: the total over queries, as trec_eval and ir_measures report their
        counts. ``"mean"``: the (weighted) mean over queries, as ranx reports
        ``hits@k`` (``count="relevant_retrieved"``: the mean number of relevant rows
        in the top ``k``); its text name is ``num_rel_ret(summary=mean)@k``, and
        ``"hits@k"`` resolves to it.
    count_unanswered : bool, default=True
        With ``count="relevant"``: whether a query the run did not answer (every row
        ``-inf``) counts its relevant rows, as ``trec_eval -c`` (and the readers'
        default, which keep such queries) counts them, or 0, as ir_measures'
        ``NumRel`` reports it (``convention="ir_measures"`` sets False). The other
        counts are 0 for such a query either way.
    replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=0.0
        Accepted as in every metric; a count is defined for every query, so it never
        applies.
    sample_weight : array-like, default=None
        Query weights: the result is ``sum_q w_q c_q`` (``summary="mean"``:
        ``sum_q w_q c_q / sum_q w_q``). Flat input: one weight per row, constant
        within each query.
    [[convention]]

    Returns
    -------
    total : float
        The sum (or mean) of the per-query counts (a count under ``ties="average"``
        can be fractional: the expected number of relevant rows within the cutoff).
        Per-query counts come from :func:`evaluate` with ``per_query=True``.

    See Also
    --------
    precision_at_k_score, recall_at_k_score

    Notes
    -----
    .. math::

        \\mathrm{num\\_rel} = \\sum_q R_q, \\quad
        \\mathrm{num\\_ret} = \\sum_q \\min(k, n_q), \\quad
        \\mathrm{num\\_rel\\_ret} = \\sum_q \\mathrm{hits}_q@k

    As trec_eval and ir_measures (``NumRel``, ``NumRet``, ``NumRelRet``) report
    them: the summary is the sum over queries, not the mean (``summary="mean"``
    divides by the number of queries, or the sum of weights, as ranx's ``hits``
    does). ``-inf`` rows are relevant but not retrieved.

    References
    ----------
    Voorhees, E. M., & Harman, D. K. (Eds.). (2005). TREC: Experiment and Evaluation
    in Information Retrieval. MIT Press (trec_eval's measures).

    Examples
    --------
    >>> from sklearn_rank_metrics import retrieval_count_score
    >>> y, s, qid = [1, 0, 1, 0, 1], [0.9, 0.8, float("-inf"), 0.7, 0.6], [1, 1, 1, 2, 2]
    >>> retrieval_count_score(y, s, qid, count="relevant")  # 2 + 1
    3.0
    >>> retrieval_count_score(y, s, qid, count="retrieved")  # 2 + 2
    4.0
    >>> retrieval_count_score(y, s, qid)  # 1 + 1
    2.0
    >>> retrieval_count_score(y, s, qid, summary="mean")  # (1 + 1) / 2, ranx hits
    1.0
    """
