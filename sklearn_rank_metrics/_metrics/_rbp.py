"""Rank-biased precision: :func:`rbp_score`."""
# mypy: disable-error-code="empty-body"

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._doc_ids import JUDGED, LABEL, RANKS, RELEVANT, TieReach
from .._engine._document_ids import RUN_ORDER
from .._engine._ranked_groups import RankedGroups
from .._engine._validation import BOOLEAN, Interval, Options
from .._kernels import _rbp as kernels
from ._aggregate import PerQuery
from ._aliases import Alias
from ._conventions import Ordering, Provider
from ._declaration import metric

RBP_PARTS = ("value", "residual", "upper")


def rbp_per_query(
    ranked: RankedGroups,
    *,
    k: int | None = None,
    p: float = 0.8,
    graded: bool = False,
    relevance_level: float | None = None,
    part: str = "value",
    ties: str = "average",
) -> PerQuery:
    """Expected RBP (or its residual, or upper bound) of every query."""
    if part == "upper" and graded:
        raise ValueError(
            f"The upper bound of {caller_name()} (part='upper') needs graded=False: with "
            "graded gains an unjudged row could gain more than 1."
        )
    if part != "value":  # the residual counts the unjudged rows
        ranked.require_judgments(f"RBP's {part} (part={part!r})")
    values, n_relevant = kernels.rbp(ranked, ties, k, p, graded, relevance_level, part)
    # the residual and the upper bound need no relevant row, so they are defined for
    # every query (cwl_eval measures every ranked topic: a query whose judged rows are
    # all irrelevant has RBP 0 and its residual as upper bound); RBP itself, like
    # every metric, is undefined without a relevant row and follows the policy
    if part != "value":
        return PerQuery(values, np.zeros(ranked.n_queries, bool))
    undefined = n_relevant == 0
    values[undefined] = 0.0  # an undefined query holds 0 until the policy applies
    return PerQuery(values, undefined)


def _rbp_tie_order(params: Mapping[str, Any]) -> TieReach:
    """Every rank weighs ``p**(i-1)``: a tie above the cutoff of rows whose gains differ
    (labels graded, else relevance) for the value, whose judgments differ for the
    residual, either for the upper bound (their sum)."""
    part = params.get("part", "value")
    reads: tuple[str, ...] = (LABEL,) if params.get("graded", False) else (RELEVANT,)
    if part == "residual":
        reads = (JUDGED,)
    elif part == "upper":
        reads = (*reads, JUDGED)
    return TieReach(RANKS, reads, params.get("k"), params.get("relevance_level"))


@metric(
    "rbp",
    rbp_per_query,
    tie_order=_rbp_tie_order,
    constraints={
        "p": [Interval(float, 0, 1, closed="neither")],
        "graded": [BOOLEAN],
        "part": [Options(*RBP_PARTS)],
    },
    # graded gains may exceed 1; the residual and the bound are weights, within [0, 1]
    value_range=lambda params: (
        (0.0, math.inf) if params["graded"] and params["part"] == "value" else (0.0, 1.0)
    ),
    aliases=[
        Alias(
            "ir_measures",
            "RBP",
            tool_params=(("rel", "relevance_level"), ("p", "p")),
            example="RBP(p=0.8,rel=1)",
        )
    ],
    # cwl_eval (through ir_measures): double precision; tied scores in the order the run
    # lists them (ir_measures sorts each query's documents by score, stably)
    providers={
        "ir_measures": Provider(ordering=Ordering(single_precision=False, doc_id_order=RUN_ORDER))
    },
    reads_judgments=(("part", ("residual", "upper")),),
)
def rbp_score(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    p: float = 0.8,
    k: int | None = None,
    graded: bool = False,
    relevance_level: float | None = None,
    part: str = "value",
    judged: Any = None,
    ties: str = "average",
    replace_undefined_by: float | str = 0.0,
    sample_weight: Any = None,
    convention: str | None = None,
) -> float:
    """Rank-biased precision (RBP), its residual or its upper bound, averaged over queries.

    Parameters
    ----------
    [[inputs]]
    p : float in (0, 1), default=0.8
        Persistence: the probability that the user goes on to the next rank.
    [[k]]
    graded : bool, default=False
        ``False``: a relevant row gains 1 (ir_measures' ``RBP(rel=...)``), so RBP lies
        in [0, 1]; ``True``: it gains its label (ranx's ``rbp``; values may exceed 1).
    [[relevance_level]]
    part : {"value", "residual", "upper"}, default="value"
        ``"value"``: RBP itself; ``"residual"``: the weight RBP leaves unknown, of
        the unjudged rows within the ranking and of every rank after it;
        ``"upper"``: their sum, RBP if every unjudged row were relevant (``graded``
        must be False).
    [[judged]]
        Only the residual and the upper bound read it.
    [[ties]]
    [[replace_undefined_by]]
        It applies to RBP itself (``part="value"``) only: the residual and the upper
        bound are defined for every query (see Notes).
    [[sample_weight]]
    [[convention]]

    Returns
    -------
    [[returns]]

    See Also
    --------
    expected_reciprocal_rank_score, ndcg_score

    Notes
    -----
    .. math::

        \\mathrm{RBP} = (1 - p) \\sum_{i=1}^{d} p^{i-1} g_i, \\qquad
        \\mathrm{residual} = (1 - p) \\sum_{i \\le d,\\ \\mathrm{unjudged}} p^{i-1}
        + p^{d}

    with ``d = min(k, n)`` the ranks considered (``n``: the rows the query
    retrieved) and ``g_i`` the gain at rank ``i``. RBP and RBP + residual bound the
    value a full judgement would give. With ``ties="average"`` each position of a
    tied block takes the block's mean gain (RBP is linear in the gains: exact).

    A query without a relevant row: RBP is undefined there, like every metric, and
    takes ``replace_undefined_by`` (0 by default). Its residual and upper bound
    need no relevant row and are always defined: the upper bound is then the
    residual itself (RBP 0 plus the unknown weight), as cwl_eval reports it
    (``EU + ResEU``). So under the default policy the means satisfy
    ``mean(upper) = mean(value) + mean(residual)``, query for query as in
    cwl_eval. Another policy changes only the value of those queries: ``"skip"`` and
    ``nan`` drop them from (or void) the mean of RBP alone, and with ``1.0`` their
    RBP of 1 exceeds their bound (the residual).

    References
    ----------
    Moffat, A., & Zobel, J. (2008). Rank-biased precision for measurement of
    retrieval effectiveness. ACM Transactions on Information Systems, 27(1), 2.

    Examples
    --------
    >>> from sklearn_rank_metrics import rbp_score
    >>> y, s, qid = [1, 0, 1], [0.9, 0.8, 0.7], [0, 0, 0]
    >>> rbp_score(y, s, qid, p=0.5)  # 0.5 * (1 + 0.25)
    0.625
    >>> rbp_score(y, s, qid, p=0.5, part="residual", judged=True)  # p^3
    0.125
    >>> # no relevant row: RBP is undefined (0 by the policy), the bound is the residual
    >>> rbp_score([0, 0], [0.9, 0.8], [0, 0], p=0.5, part="upper", judged=[True, False])
    0.5
    """
