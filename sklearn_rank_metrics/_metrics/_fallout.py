"""Fall-out at k: :func:`fallout_at_k_loss`."""
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from typing import Any

from .._engine._doc_ids import RELEVANT, TOP_K
from .._engine._ranked_groups import RankedGroups
from .._kernels import _fallout as kernels
from ._aggregate import PerQuery
from ._base import tie_order
from ._conventions import Provider
from ._declaration import metric


def fallout_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    relevance_level: float | None = None,
    ties: str = "average",
) -> PerQuery:
    """Expected fall-out@k of every query (undefined: no non-relevant row)."""
    values, n_non_relevant = kernels.fallout(ranked, ties, k, relevance_level)
    return PerQuery(values, n_non_relevant == 0, None, "no non-relevant row")


@metric(
    "fallout",
    fallout_per_query,
    tie_order=tie_order(TOP_K, (RELEVANT,)),
    # torchmetrics' RetrievalFallOut gives a query without a non-relevant row 1
    # (empty_target_action="pos"); its scores are float32, as for every metric there
    providers={"torchmetrics": Provider({"replace_undefined_by": 1.0})},
    greater_is_better=False,
    undefined_without="non_relevant",
)
def fallout_at_k_loss(
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
    """Fall-out at k: the share of non-relevant rows ranked in the top k, averaged over queries.

    Lower is better: unlike the other metrics of this package, a perfect ranking
    scores 0 (no non-relevant row before the relevant ones fill the cutoff).

    Parameters
    ----------
    [[inputs]]
    [[k]]
    [[relevance_level]]
    [[ties]]
    replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=0.0
        Value of a query without a non-relevant row, where fall-out is undefined
        (torchmetrics' ``empty_target_action``): ``0.0``, ``1.0``, ``nan``,
        ``"skip"`` or ``"raise"``, as for every metric.
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    recall_at_k_score : The share of the relevant rows in the top k.
    precision_at_k_score

    Notes
    -----
    .. math::

        \\mathrm{FallOut@k} = \\frac{\\min(k, n) - \\mathrm{hits@k}}{n_{non}}

    where ``n`` is the number of rows the query retrieved, ``hits@k`` the relevant
    rows within the cutoff and :math:`n_{non}` every non-relevant row of the query,
    the unretrieved (``-inf``) ones included. With ``ties="average"`` it is the
    exact expected value over the orders of the tied rows (fall-out is linear in
    the relevance at each rank). torchmetrics' ``RetrievalFallOut(top_k=k)``
    computes the same value for scores without ties.

    References
    ----------
    Manning, C. D., Raghavan, P., & Schütze, H. (2008). Introduction to Information
    Retrieval, section 8.3. Cambridge University Press.

    Examples
    --------
    >>> from sklearn_rank_metrics import fallout_at_k_loss
    >>> fallout_at_k_loss([1, 0, 0], [0.9, 0.8, 0.1], [0, 0, 0], k=1)  # the ideal order
    0.0
    >>> fallout_at_k_loss([1, 0, 0], [0.9, 0.8, 0.1], [0, 0, 0], k=2)  # 1 of 2 non-relevant
    0.5
    >>> fallout_at_k_loss([1, 0], [0.5, 0.5], [0, 0], k=1)  # tie across the cutoff
    0.5
    """
