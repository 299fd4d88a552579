"""Per-query ROC AUC (GAUC), averaged over queries."""
# mypy: disable-error-code="empty-body"

from __future__ import annotations

from typing import Any

from .._engine._doc_ids import RANKS, RELEVANT
from .._engine._ranked_groups import RankedGroups
from .._engine._validation import Options
from .._kernels._binary import roc_auc
from ._aggregate import PerQuery
from ._base import tie_order
from ._conventions import Provider, ToolNaN
from ._declaration import metric


def roc_auc_per_query(
    ranked: RankedGroups,
    *,
    relevance_level: float | None = None,
    query_weight: str = "uniform",
    ties: str = "average",
) -> PerQuery:
    """ROC AUC of every query, weighted per ``query_weight`` (undefined: one class)."""
    values, n_positive, n_negative = roc_auc(ranked, ties, relevance_level)
    weight = {
        "uniform": None,
        "rows": ranked.n_rows_per_query.astype(float),
        "positives": n_positive,
    }[query_weight]
    undefined = (n_positive == 0) | (n_negative == 0)
    return PerQuery(values, undefined, weight, "only one class (all or no rows relevant)")


@metric(
    "gauc",
    roc_auc_per_query,
    # ties="input" orders a tied pair of a relevant and another row, -inf rows too
    tie_order=tie_order(RANKS, (RELEVANT,), cutoff="all"),
    constraints={"query_weight": [Options("uniform", "rows", "positives")]},
    providers={
        # NaN and a warning for one class, as roc_auc_score
        "sklearn": Provider({"replace_undefined_by": ToolNaN("scikit-learn's roc_auc_score")}),
        "torchmetrics": Provider({"replace_undefined_by": 0.0}),
    },
    takes_k=False,
    ideal_is_one=True,
)
def group_roc_auc_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    relevance_level: float | None = None,
    query_weight: str = "uniform",
    ties: str = "average",
    replace_undefined_by: float | str = "skip",
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Per-query ROC AUC (group AUC, GAUC), averaged over queries.

    Parameters
    ----------
    [[inputs]]
    [[relevance_level]]
    query_weight : {"uniform", "rows", "positives"}, default="uniform"
        Weight of a query in the mean: 1, its number of rows (impressions), or its
        number of relevant rows (clicks); multiplied by ``sample_weight``.
    [[ties]]
        For AUC, ``"average"`` counts a tied (relevant, non-relevant) pair as 1/2
        (scikit-learn's ``roc_auc_score``), ``"optimistic"`` as 1 and
        ``"pessimistic"`` as 0.
    replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default="skip"
        Value of a query whose rows are all relevant or all non-relevant, where AUC
        is undefined. The default skips them (the usual GAUC convention; the count
        of such queries shows as NaN rows in ``evaluate(..., per_query=True)``).
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    sklearn.metrics.roc_auc_score : AUC of one set of rows.

    Notes
    -----
    .. math::

        \\mathrm{AUC}_q = \\frac{1}{n_+ n_-} \\sum_{a \\in +} \\sum_{b \\in -}
        \\left([s_a > s_b] + \\tfrac{1}{2}[s_a = s_b]\\right)

    computed from the tied blocks of the sorted scores in one pass (Mann-Whitney).
    All rows count, rows scored ``-inf`` rank last, tied with each other.

    References
    ----------
    Zhou, G. et al. (2018). Deep interest network for click-through rate
    prediction. KDD (group AUC).

    Examples
    --------
    >>> from sklearn_rank_metrics import group_roc_auc_score
    >>> group_roc_auc_score([1, 0, 0, 1], [0.9, 0.1, 0.2, 0.8], group=["a", "a", "b", "b"])
    1.0
    >>> group_roc_auc_score([1, 0, 0, 1], [0.2, 0.9, 0.1, 0.8], group=["a", "a", "b", "b"])
    0.5
    >>> group_roc_auc_score([1, 0], [0.5, 0.5], group=[0, 0])  # a tied pair counts 1/2
    0.5
    """
