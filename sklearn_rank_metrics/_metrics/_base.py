"""What every public metric shares: declared parameters, docstring text, tie rules.

A public metric's call path (door, reading, ranking, kernel, aggregation) is the
declaration's (:mod:`._declaration`), the same as :func:`evaluate`'s
(:mod:`._reading`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from .._engine._caller import caller_name
from .._engine._doc_ids import JUDGED, LABEL, RANKS, TieOrderRule, TieReach
from .._engine._docs import fill_doc as fill_markers
from .._engine._ranked_groups import TIES_MODES
from .._engine._validation import NONE, Interval, Options
from ._conventions import CONVENTION, DOC_CONVENTION

# a cutoff beyond any query is the whole ranking; the bound keeps k inside int64
# arithmetic (an error naming 'k', not an OverflowError deep in NumPy). No query
# comes near it, so the rule reads "an int >= 1" and only a larger k is told of it.
MAX_K = 2**62
K = [
    Interval(
        int, 1, MAX_K,
        beyond=f": a cutoff above 2**62 ({MAX_K}) is beyond int64 arithmetic; pass "
        "k=None for no cutoff",
    ),
    NONE,
]
TIES = [Options(*TIES_MODES)]
REPLACE_UNDEFINED_BY = [Options(0.0, 1.0, math.nan, "skip", "raise")]
RELEVANCE_LEVEL = [Interval(float, None, None), NONE]

# The settings every multi-metric entry point (evaluate, compare, ranking_report,
# scorers, displays, Dask, the command line) applies to each metric that has the
# parameter and does not set it in its own name (e.g. "ndcg(ties=input)@10");
# None leaves the metric's default.
SHARED_SETTINGS = {
    "convention": CONVENTION,
    "ties": [*TIES, NONE],
    "replace_undefined_by": [*REPLACE_UNDEFINED_BY, NONE],
    "relevance_level": RELEVANCE_LEVEL,
}

# Shared parameter documentation, inserted with ``fill_doc`` so that copies cannot drift.
DOC_FRAGMENTS = {
    "inputs": """y_true : array-like of shape (n_rows,) or (n_queries, n_docs), or RankingData
        Relevance label of every row (graded ints or floats; binary works too).
        Lists, NumPy arrays, pandas Series and pyarrow arrays are accepted; nothing
        is modified. A :class:`RankingData` (what the readers return) passed whole
        gives its scores, query ids, judged rows and document ids (a
        ``convention`` that breaks ties by document id uses them); give ``y_score``
        next to it only when it has none.
    y_score : array-like of the same shape as ``y_true``
        Model score of every row; higher ranks earlier. ``-inf`` marks a judged row
        the system did not return: it counts toward the query's relevant rows (and
        ideal DCG), never toward a rank position.
    group : array-like of shape (n_rows,), default=None
        Query id of every row (ints, strings or a pandas Categorical); the rows of a
        query need not be contiguous. Required with 1-D input (leaving it out is an
        error: to score all rows as one query, say so with
        ``group=np.zeros(len(y_true))``). ``None`` with 2-D input: every row of
        ``y_true`` is a query (scikit-learn's form).""",
    "k": """k : int >= 1 or None, default=None
        Cutoff: only ranks ``1..k`` count. ``None`` means no cutoff. Rows with a
        score of ``-inf`` never sit within the cutoff.""",
    "ties": """ties : {"average", "input", "optimistic", "pessimistic"}, default="average"
        How rows with exactly equal scores in a query are ordered. ``"average"``:
        the exact expected value over all orders of every block of tied rows
        (closed form, no sampling). ``"input"``: tied rows keep their input order.
        ``"optimistic"`` / ``"pessimistic"``: tied rows with higher / lower
        ``y_true`` first.""",
    "replace_undefined_by": """replace_undefined_by : {0.0, 1.0, nan, "skip", "raise"}, default=0.0
        Value of a query without a relevant row, where the metric is undefined:
        ``0.0`` (scikit-learn's choice), ``1.0`` (LightGBM and XGBoost), ``nan``
        (the mean becomes nan), ``"skip"`` (left out of the mean), or ``"raise"``
        (a ValueError naming the query). Applied the same way by every metric.""",
    "sample_weight": """sample_weight : array-like, default=None
        Weight of each query in the mean. Flat input: one weight per row, constant
        within each query. 2-D input: one weight per row of ``y_true`` (per query).""",
    "judged": """judged : array-like of bool, same shape as ``y_true``, True, or None, default=None
        Whether each row was judged; ``True``: every row was. A row retrieved but
        never judged (a document missing from the qrels) has ``judged=False`` and
        the label 0. The readers fill it (:attr:`RankingData.judged`; pass the
        RankingData whole). With ``None`` the measures that read judgments (bpref,
        Judged@k, RBP's residual and bound) raise: they never assume every row
        was judged.""",
    "relevance_level": """relevance_level : float or None, default=None
        A row is relevant when ``y_true > 0`` (``None``) or when
        ``y_true >= relevance_level`` (trec_eval's ``-l``).""",
    "convention": DOC_CONVENTION,
    "returns": """score : float
        Mean of the per-query values, weighted by ``sample_weight``. Per-query
        values (with the query ids) come from :func:`evaluate` with
        ``per_query=True``.""",
}


def fill_doc(function: Callable, fragments: Mapping[str, str] | None = None) -> Callable:
    """Replace ``[[name]]`` markers in a docstring by the shared fragments.

    ``fragments``: more of them, for this docstring only. A marker with no fragment
    is an error at import: a typo never reaches the docs. The mechanism is the
    engine's :func:`~.._engine._docs.fill_doc`; the fragments are the metrics'.
    """
    return fill_markers(function, {**(fragments or {}), **DOC_FRAGMENTS})


def resolve_ignore_ties(ignore_ties: bool, ties: str) -> str:
    """scikit-learn's ``ignore_ties=True`` is ``ties="input"``."""
    if not ignore_ties:
        return ties
    if ties not in ("average", "input"):
        raise ValueError(
            f"The 'ignore_ties' parameter of {caller_name()} is True, which means "
            f"ties='input', but ties={ties!r} was also given. Pass only one of them."
        )
    return "input"


def tie_order(
    within: str, reads: tuple[str, ...], *, cutoff: str = "k"
) -> TieOrderRule:
    """A metric's tie-order rule (``@metric(tie_order=)``) that reads ``k`` and
    ``relevance_level`` from its parameters.

    ``within``, ``reads`` and ``cutoff``: see :class:`~.._engine._doc_ids.TieReach`.
    A metric whose rule depends on more of its parameters writes its own
    ``rule(params) -> TieReach | None`` (None: the order of tied rows never changes
    its value).
    """

    def rule(params: Mapping[str, Any]) -> TieReach:
        k = params.get("k") if cutoff == "k" else None
        return TieReach(within, reads, k, params.get("relevance_level"), cutoff)

    return rule


# what a metric that declares no rule gets: any tie among its returned rows that
# differs in label or judgment, above the cutoff (never silent, maybe too often)
ANY_RANK = tie_order(RANKS, (LABEL, JUDGED))
