"""Interpolated precision at a recall level, and its 11-point average (trec_eval)."""

# mypy: disable-error-code="empty-body"
from __future__ import annotations

from typing import Any

import numpy as np

from .._engine._doc_ids import RANKS, RELEVANT
from .._engine._ranked_groups import RankedGroups
from .._engine._validation import Interval, Options
from .._kernels import _interpolated as kernels
from ._aggregate import PerQuery
from ._base import tie_order
from ._conventions import Provider
from ._declaration import metric

ROUNDING = [Options(*kernels.ROUNDINGS)]
# the cutoff X R rounded to the nearest count (trec_eval 10, lround) or floor(X R + 0.9)
# (trec_eval 9 and before, so pytrec_eval and ir_measures, and ranx)
_PLUS_0_9, _ROUND = kernels.ROUNDINGS
# the References section of both metrics' docstrings
_DOC_REFERENCES = """References
    ----------
    Manning, C. D., Raghavan, P., & Schuetze, H. (2008). Introduction to Information
    Retrieval, section 8.4. Cambridge University Press."""
_DOC_ROUNDING = """rounding : {"floor(X*R+0.9)", "round(X*R)"}, default="floor(X*R+0.9)"
        How ``X R`` becomes ``c``, the relevant rows that reach recall ``X``:
        ``"floor(X*R+0.9)"`` is trec_eval 9.0.x's ``(long)(X R + 0.9)``, which
        pytrec_eval (every release; pytrec-eval-terrier 0.5.x builds trec_eval
        9.0.8, pytrec_eval 0.1 to 0.5 9.0.5 or 9.0.8), ir_measures and ranx carry;
        ``"round(X*R)"`` is trec_eval 10's ``lround(X R)`` (nearest, halves away
        from zero), what ``convention="trec_eval"`` sets. They differ when the
        fraction of ``X R`` lies in [0.1, 0.5) (give or take the rounding of
        ``X R + 0.9``): ``R = 6, X = 0.2`` gives ``c = 2``
        by the first rule and ``c = 1`` by the second."""


def interpolated_precision_per_query(
    ranked: RankedGroups,
    *,
    recall: float = 0.0,
    relevance_level: float | None = None,
    ties: str = "average",
    rounding: str = "floor(X*R+0.9)",
) -> PerQuery:
    """Expected interpolated precision at recall level ``recall`` of every query."""
    values, total = kernels.interpolated_precision(
        ranked, ties, relevance_level, np.array([float(recall)]), rounding
    )
    return PerQuery(values[:, 0], total == 0)


def eleven_point_per_query(
    ranked: RankedGroups,
    *,
    relevance_level: float | None = None,
    ties: str = "average",
    rounding: str = "floor(X*R+0.9)",
) -> PerQuery:
    """Expected mean interpolated precision at recall 0, 0.1, ..., 1 of every query."""
    values, total = kernels.interpolated_precision(
        ranked, ties, relevance_level, np.array(kernels.ELEVEN_POINTS), rounding
    )
    mean = values[:, 0].copy()
    for column in range(1, values.shape[1]):  # summed in trec_eval's order
        mean += values[:, column]
    return PerQuery(mean / values.shape[1], total == 0)


# what both interpolated metrics declare alike: the rounding of c per provider, the
# shared docstring text, no cutoff, ideal ranking scores 1
_INTERPOLATION: dict[str, Any] = {
    "providers": {
        "trec_eval": Provider({"rounding": _ROUND}),
        ("pytrec_eval", "ir_measures", "ranx"): Provider({"rounding": _PLUS_0_9}),
    },
    "doc_fragments": {"rounding": _DOC_ROUNDING, "references": _DOC_REFERENCES},
    "takes_k": False,
    "ideal_is_one": True,
}

@metric(
    "iprec",
    interpolated_precision_per_query,
    tie_order=tie_order(RANKS, (RELEVANT,)),
    constraints={"rounding": ROUNDING, "recall": [Interval(float, 0.0, 1.0)]},
    **_INTERPOLATION,
    always_shown=("recall",),
)
def interpolated_precision_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    recall: float = 0.0,
    relevance_level: float | None = None,
    ties: str = "average",
    rounding: str = "floor(X*R+0.9)",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Interpolated precision at a recall level, averaged over queries.

    The best precision at any rank at or below the point where the ranking reaches
    recall ``recall``: trec_eval's ``iprec_at_recall_X`` and ir_measures' ``IPrec@X``.

    Parameters
    ----------
    [[inputs]]
    recall : float in [0, 1], default=0.0
        The recall level ``X``. ``0.0`` gives the best precision anywhere in the
        ranking (at or below the first relevant row).
    [[relevance_level]]
    [[ties]]
        Here ``"average"`` is an exact sum over lattice paths rather than a closed
        form: its cost grows as ``m^2 r^2`` for a tied block of ``m`` rows
        holding ``r`` relevant ones (about 0.35 s for 120 tied rows with 60
        relevant on 2 cores); a call whose tied blocks would visit more than 10^9
        lattice cells raises a ``ValueError`` (the other modes are always fast).
    [[rounding]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    eleven_point_precision_score, precision_at_k_score, r_precision_score

    Notes
    -----
    With ``R`` relevant rows (unretrieved ``-inf`` ones too) and the ``n``
    retrieved relevant rows at ranks ``pos_1 < ... < pos_n``,

    .. math::

        \\mathrm{IP}(X) = \\max_{\\max(c, 1) \\le j \\le n} \\frac{j}{\\mathrm{pos}_j},
        \\qquad c = \\lfloor X R + 0.9 \\rfloor \\ \\text{or} \\
        c = \\mathrm{round}(X R)

    and 0 when ``max(c, 1) > n`` (the ranking never reaches the level); ``c`` by
    ``rounding`` (trec_eval 9 or 10). A query without a relevant row is
    undefined. With ``ties="average"`` the value is the exact mean over all orders
    of the tied rows (see the module notes of the kernel for the method).

    [[references]]

    Examples
    --------
    >>> from sklearn_rank_metrics import interpolated_precision_score
    >>> y_true = [1, 0, 1, 1, 0]
    >>> y_score = [0.9, 0.8, 0.7, 0.6, 0.5]  # relevant at ranks 1, 3, 4
    >>> interpolated_precision_score(y_true, y_score, [0] * 5, recall=0.5)  # c = 2: max(2/3, 3/4)
    0.75
    """


@metric(
    "11pt_avg",
    eleven_point_per_query,
    tie_order=tie_order(RANKS, (RELEVANT,)),
    constraints={"rounding": ROUNDING},
    **_INTERPOLATION,
)
def eleven_point_precision_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    relevance_level: float | None = None,
    ties: str = "average",
    rounding: str = "floor(X*R+0.9)",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """11-point interpolated average precision, averaged over queries (trec_eval's ``11pt_avg``).

    Parameters
    ----------
    [[inputs]]
    [[relevance_level]]
    [[ties]]
        As in :func:`interpolated_precision_score`, whose cost note applies.
    [[rounding]]
    [[replace_undefined_by]]
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    interpolated_precision_score, mean_average_precision_score

    Notes
    -----
    The mean of the interpolated precision (see :func:`interpolated_precision_score`)
    at the recall levels 0, 0.1, ..., 1:

    .. math::

        \\mathrm{11pt} = \\frac{1}{11} \\sum_{X \\in \\{0, 0.1, \\ldots, 1\\}} \\mathrm{IP}(X)

    A query without a relevant row is undefined. trec_eval calls it obsolete
    beside MAP; it is here to reproduce published tables.

    [[references]]

    Examples
    --------
    >>> from sklearn_rank_metrics import eleven_point_precision_score
    >>> y_true = [1, 0, 1, 1, 0]
    >>> y_score = [0.9, 0.8, 0.7, 0.6, 0.5]  # IP: 1 up to recall 1/3, then 3/4
    >>> round(eleven_point_precision_score(y_true, y_score, [0] * 5), 4)  # (4 * 1 + 7 * 0.75) / 11
    0.8409
    """
