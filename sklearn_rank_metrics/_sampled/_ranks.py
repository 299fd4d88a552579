"""One sampled rank per user from flat rows: :func:`sampled_ranks`.

Each group (user) holds one positive and its sampled negatives; the rank of the
positive among them is what the sampled metrics of :mod:`._estimators` start from.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from .._engine._caller import caller_name, entry_point
from .._engine._inputs import (
    as_float,
    check_shapes,
    check_values,
    factorize_groups,
    missing_group_error,
    scores_as_float,
)
from .._engine._plain import plain
from .._engine._ranking_rows import accepts_ranking_rows
from .._engine._validation import (
    NONE,
    InstanceOf,
    Interval,
    Options,
    validate_params,
)

SAMPLED_TIES = ("pessimistic", "optimistic", "input", "random")


class SampledRanks(NamedTuple):
    """Result of :func:`sampled_ranks`: one entry per group (user).

    Attributes
    ----------
    query_ids : ndarray of shape (n_groups,)
        The distinct group ids, in sorted order (``np.unique``).
    rank : ndarray of shape (n_groups,), dtype int64
        Rank of the group's positive among itself and its negatives, 1 = first,
        so ``1 <= rank <= n_negatives + 1``.
    n_negatives : ndarray of shape (n_groups,), dtype int64
        Number of negatives (rows other than the positive) in the group.

    Examples
    --------
    User ``a``'s positive (0.5) has one of its two negatives above it; user ``b``'s
    (0.8) ties one of its two negatives, which ``ties="pessimistic"`` counts above:

    >>> from sklearn_rank_metrics import sampled_ranks
    >>> y_true = [1, 0, 0, 1, 0, 0]
    >>> y_score = [0.5, 0.9, 0.1, 0.8, 0.2, 0.8]
    >>> user = ["a", "a", "a", "b", "b", "b"]
    >>> query_ids, rank, n_negatives = sampled_ranks(y_true, y_score, user)
    >>> query_ids.tolist(), rank.tolist(), n_negatives.tolist()
    (['a', 'b'], [2, 2], [2, 2])
    >>> sampled_ranks(y_true, y_score, user, ties="optimistic").rank.tolist()
    [2, 1]
    """

    query_ids: np.ndarray
    rank: np.ndarray
    n_negatives: np.ndarray


# --------------------------------------------------------------------------- sampled ranks


@entry_point
@accepts_ranking_rows
@validate_params(
    {
        "ties": [Options(*SAMPLED_TIES)],
        "relevance_level": [Interval(float, None, None), NONE],
        "random_state": [
            Interval(int, 0, None),
            InstanceOf(np.random.RandomState, "a numpy RandomState"),
            NONE,
        ],
    }
)
def sampled_ranks(
    y_true: Any,
    y_score: Any,
    group: Any = None,
    *,
    ties: str = "pessimistic",
    relevance_level: float | None = None,
    random_state: int | np.random.RandomState | None = None,
) -> SampledRanks:
    """Rank of each group's positive among its sampled negatives.

    Every group (user) must hold exactly one relevant row, the held-out item, and
    any number of other rows, its sampled negatives. The sampled rank is one plus
    the number of negatives scored above the positive (plus tied negatives, as
    ``ties`` says). One pass of ``bincount`` over all rows; no sort by score and
    no loop over groups.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_groups, n_candidates)
        Relevance of every row; exactly one row per group is relevant.
    y_score : array-like of the same shape as ``y_true``
        Model score of every row; higher ranks earlier. NaN is an error; ``-inf``
        and ``inf`` compare as ordinary numbers.
    group : array-like of shape (n_rows,), default=None
        Group (user) id of every row: ints or strings, rows of a group need not be
        contiguous. ``None`` with 1-D input: one group. ``None`` with 2-D input:
        every row of ``y_true`` is a group.
    ties : {"pessimistic", "optimistic", "input", "random"}, default="pessimistic"
        Where the positive goes among negatives with exactly its score:
        ``"pessimistic"`` after all of them (a constant scorer gets the worst rank,
        never the best), ``"optimistic"`` before all of them, ``"input"`` after those
        that come before it in input row order, ``"random"`` at a uniformly random
        place among them (drawn with ``random_state``). The ranks are integers, as
        the estimators require; the package's ``"average"`` (an expected value over
        tie orders) is what ``"random"`` gives in expectation, because every
        estimator is a per-rank lookup averaged over users.
    relevance_level : float or None, default=None
        A row is relevant when ``y_true > 0`` (``None``) or when
        ``y_true >= relevance_level``.
    random_state : int, RandomState instance or None, default=None
        Seed of the tie-breaking draws of ``ties="random"``; unused otherwise.

    Returns
    -------
    result : SampledRanks
        Named tuple ``(query_ids, rank, n_negatives)`` with one entry per group, in
        sorted group-id order. Groups may have different numbers of negatives;
        :func:`sampled_metric_estimate` accepts the per-group ``n_negatives`` array.

    Raises
    ------
    ValueError
        When a group has no relevant row or more than one; the message names the
        first such group id (in sorted order) and how many groups are affected.

    See Also
    --------
    sampled_metric_estimate : Naive and corrected metrics from these ranks.

    Examples
    --------
    >>> from sklearn_rank_metrics import sampled_ranks
    >>> result = sampled_ranks(
    ...     y_true=[0, 1, 0, 0, 1, 0],
    ...     y_score=[0.9, 0.5, 0.1, 0.3, 0.3, 0.8],
    ...     group=["u1", "u1", "u1", "u2", "u2", "u2"],
    ... )
    >>> result.query_ids.tolist(), result.rank.tolist(), result.n_negatives.tolist()
    (['u1', 'u2'], [2, 3], [2, 2])
    >>> sampled_ranks([0, 1, 0, 0, 1, 0], [0.9, 0.5, 0.1, 0.3, 0.3, 0.8],
    ...               ["u1", "u1", "u1", "u2", "u2", "u2"], ties="optimistic").rank.tolist()
    [2, 2]
    """
    labels = as_float(y_true, "y_true")
    scores = scores_as_float(y_score)
    check_shapes(labels, scores)
    check_values(labels, scores)
    if labels.ndim == 2:
        if group is not None:
            raise ValueError(
                f"group of {caller_name()} must be None for 2-D input (each row of y_true is "
                "a group); pass flat 1-D arrays to use group ids."
            )
        n_groups, width = labels.shape
        codes = np.repeat(np.arange(n_groups, dtype=np.intp), width)
        query_ids = np.arange(n_groups)
    elif group is None:
        raise missing_group_error()
    else:
        codes, query_ids = factorize_groups(group, labels.size)
    labels = labels.reshape(-1)
    scores = scores.reshape(-1)
    n_groups = len(query_ids)

    relevant = labels > 0 if relevance_level is None else labels >= relevance_level
    n_relevant = np.bincount(codes[relevant], minlength=n_groups)
    bad = np.flatnonzero(n_relevant != 1)
    if len(bad):
        first = bad[0]
        rule = "y_true > 0" if relevance_level is None else f"y_true >= {relevance_level}"
        others = f" ({len(bad) - 1} more groups are affected)" if len(bad) > 1 else ""
        first_id = plain(query_ids[first])
        raise ValueError(
            f"y_true of {caller_name()} must have exactly one relevant row ({rule}) per "
            f"group, the held-out item; group {first_id!r} has {n_relevant[first]}{others}."
        )

    positive_rows = np.flatnonzero(relevant)
    positive_row_of_group = np.empty(n_groups, dtype=np.intp)
    positive_row_of_group[codes[positive_rows]] = positive_rows
    positive_score = scores[positive_row_of_group][codes]
    above = scores > positive_score
    tied = (scores == positive_score) & ~relevant
    n_above = np.bincount(codes[above], minlength=n_groups)
    if ties == "optimistic":
        n_before = n_above
    elif ties == "pessimistic":
        n_before = n_above + np.bincount(codes[tied], minlength=n_groups)
    elif ties == "input":
        earlier = tied & (np.arange(len(scores)) < positive_row_of_group[codes])
        n_before = n_above + np.bincount(codes[earlier], minlength=n_groups)
    else:  # random: uniform place among the tied negatives
        n_tied = np.bincount(codes[tied], minlength=n_groups)
        rng = check_random_state(random_state)
        n_before = n_above + rng.randint(0, n_tied + 1)
    rows_per_group = np.bincount(codes, minlength=n_groups)
    return SampledRanks(
        query_ids=query_ids,
        rank=(n_before + 1).astype(np.int64),
        n_negatives=(rows_per_group - 1).astype(np.int64),
    )
