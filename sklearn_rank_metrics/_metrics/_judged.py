"""Measures that read which rows were judged: bpref and Judged@k."""
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from typing import Any

import numpy as np

from .._engine._doc_ids import JUDGED, RANKS, RELEVANT, TOP_K
from .._engine._document_ids import ASCENDING
from .._engine._ranked_groups import RankedGroups
from .._kernels import _judged as kernels
from ._aggregate import PerQuery
from ._aliases import Alias
from ._base import tie_order
from ._conventions import Ordering, Provider
from ._declaration import metric


def bpref_per_query(
    ranked: RankedGroups,
    *,
    relevance_level: float | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected bpref of every query."""
    ranked.require_judgments("bpref")
    values, n_relevant, _ = kernels.bpref(ranked, ties, relevance_level)
    return PerQuery(values, n_relevant == 0)


def judged_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected Judged@k of every query (defined for every query)."""
    ranked.require_judgments("Judged@k")
    values = kernels.judged_at_k(ranked, ties, k)
    return PerQuery(values, np.zeros(ranked.n_queries, dtype=bool))


@metric(
    "bpref",
    bpref_per_query,
    tie_order=tie_order(RANKS, (RELEVANT, JUDGED)),
    aliases=[Alias("ir_measures", "Bpref", cutoff="none", example="Bpref")],
    takes_k=False,
    ideal_is_one=True,
    reads_judgments=True,
)
def bpref_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    judged: Any = None,
    relevance_level: float | None = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """bpref: how rarely judged non-relevant rows rank above relevant ones, over queries.

    Parameters
    ----------
    [[inputs]]
    [[judged]]
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
    judged_at_k_score, mean_average_precision_score

    Notes
    -----
    .. math::

        \\mathrm{bpref} = \\frac{1}{R} \\sum_{r\\ \\mathrm{relevant,\\ retrieved}}
        \\left(1 - \\frac{\\min(n_r, R)}{\\min(N, R)}\\right)

    ``R`` counts the judged relevant rows and ``N`` the judged non-relevant rows of
    the query (retrieved or not, ``-inf`` rows included); ``n_r`` the judged
    non-relevant rows ranked above ``r``. Unjudged rows (``judged=False``) are
    skipped; the term is 1 when ``N = 0`` (trec_eval's ``bpref``, ir_measures'
    ``Bpref``; ranx's ``bpref`` divides 0 by 0 there and gives NaN). With
    ``ties="average"``, a relevant row of a tied block holding ``m``
    judged non-relevant rows, ``c`` such rows above the block, has
    :math:`E[\\min(c + X, R)] = \\sum_{x=0}^{m} \\min(c + x, R) / (m + 1)` (exact: its
    place among those ``m`` rows is uniform). A query without a relevant row is
    undefined.

    A negative label (TREC Web's -2 for spam) is a row in the pool but not judged,
    as trec_eval reads a negative qrels grade (``form_res_rels.c``, ``m_bpref.c``):
    it is skipped and left out of ``N``, whatever ``judged`` says, with every
    convention that keeps such labels and under ``convention="trec_eval"`` and
    ``"ir_measures"`` (pytrec_eval). ``convention="ranx"`` counts it as judged
    non-relevant, as ranx's ``bpref`` does.

    References
    ----------
    Buckley, C., & Voorhees, E. M. (2004). Retrieval evaluation with incomplete
    information. SIGIR 2004, 25-32.

    Examples
    --------
    >>> from sklearn_rank_metrics import bpref_score
    >>> # relevant, unjudged, non-relevant, relevant; R = 2, N = 1
    >>> bpref_score([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6], [0] * 4, judged=[1, 0, 1, 1])
    0.5
    """


@metric(
    "judged",
    judged_per_query,
    # which rows are in the top k: a tie of judged and unjudged rows across the cutoff
    tie_order=tie_order(TOP_K, (JUDGED,)),
    aliases=[Alias("ir_measures", "Judged", example="Judged@10")],
    # ir_measures' own Judged@k: double precision, ties by document id ascending
    providers={"ir_measures": Provider(ordering=Ordering(doc_id_order=ASCENDING))},
    always_defined=True,
    reads_judgments=True,
)
def judged_at_k_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    judged: Any = None,
    k: int | None = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Judged@k: the share of judged rows among the top k, averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[judged]]
    [[k]]
    [[ties]]
    replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=0.0
        Accepted as in every metric; Judged@k is defined for every query (one that
        retrieved nothing scores 0), so it never applies.
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    bpref_score

    Notes
    -----
    .. math::

        \\mathrm{Judged@k} = \\frac{\\#\\{\\text{judged rows at ranks } 1..d\\}}{d},
        \\qquad d = \\min(k, n)

    with ``n`` the rows the query retrieved (ir_measures' ``Judged@k``); 0 when
    ``n = 0``. It measures how far a run's top ranks are covered by the
    judgements, i.e. how much the other metrics can be trusted. With
    ``ties="average"``, a tied block with ``J`` judged rows of its ``m`` that has
    ``T`` positions within the cutoff counts ``T J / m`` (exact).

    A row with a negative label counts as judged when ``judged`` says so, as in
    ir_measures (a negative grade is in its qrels). ``convention="trec_eval"``
    counts it as unjudged, as trec_eval's ``unj@k`` does (it is in the pool but
    not judged), so there Judged@k is ``1 - unj@k`` on runs of at least ``k``
    rows (``unj@k`` divides by ``k`` even when the run is shorter).

    References
    ----------
    MacAvaney, S., Macdonald, C., & Ounis, I. (2022). Streamlining evaluation with
    ir-measures. ECIR 2022, 305-310.

    Examples
    --------
    >>> from sklearn_rank_metrics import judged_at_k_score
    >>> judged_at_k_score([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6], [0] * 4, judged=[1, 0, 1, 1], k=2)
    0.5
    """
