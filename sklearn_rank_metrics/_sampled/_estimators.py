"""Sampled metrics for item recommendation, and their corrections.

Recommender evaluation often ranks each user's held-out item against ``m`` sampled
negatives instead of the whole catalogue of ``n`` items. Krichene and Rendle show
that the metric of such a *sampled rank* is not an estimate of the full-catalogue
metric (it can order models wrongly, even in expectation), and give corrections that
estimate the full-catalogue metric from the sampled ranks.

- :func:`sampled_ranks` turns flat ``(y_true, y_score, group)`` arrays, where each
  group holds one positive and its sampled negatives, into one sampled rank per group.
- :func:`sampled_metric_estimate` maps sampled ranks to the naive sampled metric or
  to an estimate of the full-catalogue metric (HR@k, NDCG@k, MRR@k, AP@k, AUC).
- :func:`sampled_metric_table` is the estimator itself: one value per sampled rank.
- :func:`sampled_rank_distribution` is the sampling model ``P(r~ | r)``.

Every estimator is a lookup table over the sampled ranks ``1 .. m+1``: fixed for the
paper's corrections, fitted to the observed sampled ranks for ``"rank_distribution"``
(``_distribution.py``); estimating is one ``take`` per user, with no Python
loop over users.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._engine._caller import caller_name, entry_point
from .._engine._validation import (
    ARRAY_LIKE,
    BOOLEAN,
    NONE,
    Interval,
    Options,
    validate_params,
)
from .._engine._warnings import warn_at_caller
from ._distribution import binned_model, rank_distribution_estimate
from ._model import (
    CHUNK_VALUES,
    REGISTRY_NAMES,
    SAMPLED_METRICS,
    SAMPLING_MODELS,
    SINGLE_THREAD_PRODUCT,
    check_cost,
    check_model,
    fill_references,
    integer_array,
    metric_at_rank,
    n_items_error,
    rank_pmf,
    sampled_rank_distribution,
)
from ._ranks import SampledRanks, sampled_ranks

__all__ = [
    "SampledRanks",
    "sampled_metric_estimate",
    "sampled_metric_table",
    "sampled_rank_distribution",
    "sampled_ranks",
]

ESTIMATORS = ("naive", "rank_estimate", "minimal_bias", "bias_variance")


# estimators fitted to the data (no fixed table)
FITTED_ESTIMATORS = ("rank_distribution",)

# rounding allowed around the metric's range [0, 1] before an estimate is refused
_RANGE_SLACK = 1e-9


def _least_squares_table(
    m: int,
    n: int,
    metric: str,
    k: int | None,
    trade_off: float,
    sampling: str,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """The paper's bias/variance estimator for one ``(m, n)``, uniform prior over ``r``.

    Minimises ``sum_r p(r) [bias(r)^2 + trade_off * var(r)]`` over the table ``x``
    with ``p(r) = 1/n``. ``P(r~ | r)`` is built for chunks of ``chunk_rows`` full ranks
    at a time and folded into small accumulators, so memory does not grow with ``n``:

    - ``0 < trade_off < 1``: the Gram matrix of ``[A | b]`` (``A^T A`` and ``A^T b``)
      and ``c``, then the paper's closed form. Its matrix
      ``(1 - g) A^T A + g diag(c)`` has a condition number of at most about
      ``1 / g`` (``A^T A`` has spectral norm ``<= max(c)``), so the normal equations
      are accurate.
    - ``trade_off == 0`` (minimal bias): ``A^T A`` alone can have a condition number
      of 1e24 and more, so the ``R`` factor of a QR decomposition of ``[A | b]`` is
      accumulated instead (a tall-skinny QR, a few times slower) and the small
      triangular least-squares problem is solved by SVD.
    - ``trade_off == 1``: the posterior mean ``A^T b / c``, no matrix at all.
    """
    if chunk_rows is None:
        chunk_rows = max(1, CHUNK_VALUES // (m + 2))
    weight = 1.0 / n  # the paper's uniform prior over full ranks
    c = np.zeros(m + 1)
    a_t_b = np.zeros(m + 1)
    gram = np.zeros((m + 2, m + 2))
    r_factor = np.zeros((0, m + 2))
    for start in range(1, n + 1, chunk_rows):
        ranks = np.arange(start, min(start + chunk_rows, n + 1))
        probability = rank_pmf(ranks, m, n, sampling)
        exact = metric_at_rank(ranks, metric, k, n)
        c += weight * probability.sum(axis=0)
        if trade_off == 1.0:
            a_t_b += weight * (exact @ probability)
            continue
        block = np.empty((len(ranks), m + 2))
        block[:, : m + 1] = probability
        block[:, m + 1] = exact
        block *= math.sqrt(weight)
        if trade_off == 0.0:
            # numpy's stubs type every mode's result as QRResult; mode="r" returns R
            r_factor = np.linalg.qr(np.vstack([r_factor, block]), mode="r")  # type: ignore[assignment]
        else:
            _add_gram(gram, block)
    if trade_off == 1.0:
        # the posterior mean E[M(r) | r~] under the uniform prior; c > 0 for every r~
        return a_t_b / c
    if trade_off == 0.0:
        # ||A x - b||^2 = ||R_A x - z||^2, with [R_A | z] the R factor of [A | b]. R_A
        # has the singular values of the n-row A, so the minimum-norm solution with
        # singular values below eps * max(n, m + 1) * s_max dropped is the one of
        # lstsq(A, b, rcond=None) on the paper's n-row problem; the default cutoff of
        # the small square problem, eps * (m + 1), would keep more noise directions.
        cutoff = np.finfo(np.float64).eps * max(n, m + 1)
        solution, *_ = np.linalg.lstsq(r_factor[:, : m + 1], r_factor[:, m + 1], rcond=cutoff)
        return solution
    matrix = (1.0 - trade_off) * gram[: m + 1, : m + 1]
    matrix[np.diag_indices(m + 1)] += trade_off * c
    return np.linalg.solve(matrix, gram[: m + 1, m + 1])


def _add_gram(gram: np.ndarray, block: np.ndarray) -> None:
    """``gram += block.T @ block``, in blocks of rows small enough for the calling thread.

    One product of a whole chunk (thousands of rows) is large enough for OpenBLAS
    to use its threads, which on a busy machine wait for each other (6 times slower
    here for ``m = 100``). With ``m + 2`` above ``sqrt(SINGLE_THREAD_PRODUCT / 8)``
    (about 180) the blocks would be too thin, and the chunk is one product.
    """
    rows = SINGLE_THREAD_PRODUCT // block.shape[1] ** 2
    if rows < 8:
        gram += block.T @ block
        return
    for start in range(0, len(block), rows):
        part = block[start : start + rows]
        gram += part.T @ part


@functools.lru_cache(maxsize=16)
def _binned_model(
    m: int, n: int, metric: str, k: int | None, sampling: str
) -> tuple[np.ndarray, np.ndarray]:
    """The ``"rank_distribution"`` estimator's binned sampling model (cached)."""
    return binned_model(
        m,
        n,
        k,
        functools.partial(rank_pmf, m=m, n=n, sampling=sampling),
        functools.partial(metric_at_rank, metric=metric, k=k, n_list=n),
        max(1, CHUNK_VALUES // (m + 2)),
    )


@functools.lru_cache(maxsize=64)
def _cached_table(
    m: int, n: int, metric: str, k: int | None, estimator: str, trade_off: float, sampling: str
) -> np.ndarray:
    sampled = np.arange(1, m + 2)
    if estimator == "naive":
        table = metric_at_rank(sampled, metric, k, m + 1)
    elif estimator == "rank_estimate":
        estimated_rank = 1 + ((n - 1) * (sampled - 1)) // m  # exact integer floor
        table = metric_at_rank(estimated_rank, metric, k, n)
    else:
        gamma = 0.0 if estimator == "minimal_bias" else trade_off
        table = _least_squares_table(m, n, metric, k, gamma, sampling)
    table.setflags(write=False)
    return table


def _table(
    m: int, n: int, metric: str, k: int | None, estimator: str, trade_off: float, sampling: str
) -> np.ndarray:
    """Cached table, with the settings an estimator ignores normalised away."""
    if estimator != "bias_variance":
        trade_off = 0.0
    if estimator in ("naive", "rank_estimate"):
        sampling = "hypergeometric"
    return _cached_table(m, n, metric, k, estimator, float(trade_off), sampling)


_TABLE_CONSTRAINTS: dict[str, list[Any]] = {
    "n_items": [Interval(int, 2, None)],
    "metric": [Options(*SAMPLED_METRICS, *REGISTRY_NAMES)],
    "k": [Interval(int, 1, None), NONE],
    "estimator": [Options(*ESTIMATORS)],
    "trade_off": [Interval(float, 0, 1)],
    "sampling": [Options(*SAMPLING_MODELS)],
}


def _check_k(metric: str, k: int | None) -> None:
    if metric == "auc" and k is not None:
        raise ValueError(
            f"The 'k' parameter of {caller_name()} must be None for metric='auc' (AUC has "
            f"no cutoff). Got {k} instead."
        )


def _check_range(
    estimate: float,
    std_err: float,
    largest: float,
    estimator: str,
    metric: str,
) -> None:
    """Refuse an estimate outside the metric's range ``[0, 1]`` that noise cannot explain.

    A table with negative entries (``"bias_variance"`` with a small ``trade_off``)
    can put the mean of an unbiased estimator of a metric near 0 slightly below 0,
    by the sampling noise of the users: within 3 standard errors of the range, and
    with 3 standard errors narrower than the range itself, it is returned with a
    warning. Anything else outside the range (beyond rounding), such as the mean of
    the minimal-bias table's entries of 1e8, is no estimate and raises.
    """
    excursion = max(-estimate, estimate - 1.0, 0.0)
    if excursion <= _RANGE_SLACK:
        return
    if 3.0 * std_err >= excursion and 3.0 * std_err < 1.0:  # False for a NaN std_err
        warn_at_caller(
            f"{caller_name()}: the {estimator!r} estimate {estimate:.6g} lies outside the "
            f"range [0, 1] of {metric} by {excursion:.3g}, within 3 standard errors "
            f"({std_err:.3g}): sampling noise of an estimator whose per-rank table has "
            "entries outside the range.",
            UserWarning,
        )
        return
    raise ValueError(
        f"The {estimator!r} estimate of {caller_name()} is {estimate:.6g}, outside the "
        f"range [0, 1] of {metric} (standard error {std_err:.3g}), so it is refused: "
        "its per-rank table is the least-squares solution of a nearly singular system "
        f"whose entries are huge (up to {largest:.3g} here) when n_items / n_negatives "
        "is large, and their mean over users is no estimate of the metric. Use "
        "estimator='rank_distribution' (the default) or 'bias_variance'."
    )


@entry_point
@validate_params({**_TABLE_CONSTRAINTS, "n_negatives": [Interval(int, 1, None)]})
@fill_references
def sampled_metric_table(
    *,
    n_negatives: int,
    n_items: int,
    metric: str = "ndcg",
    k: int | None = None,
    estimator: str = "bias_variance",
    trade_off: float = 0.1,
    sampling: str = "hypergeometric",
) -> np.ndarray:
    """The estimator as a lookup table: its value at each sampled rank ``1..m+1``.

    Every estimator of :func:`sampled_metric_estimate` maps a user's sampled rank
    ``r~`` to a number ``T[r~]``; the estimate of the mean metric is the mean of
    ``T`` over users. The formula of each estimator is in the Notes of
    :func:`sampled_metric_estimate`.

    Parameters
    ----------
    n_negatives : int >= 1
        Number of sampled negatives per user, ``m``.
    n_items : int > n_negatives
        Catalogue size ``n``, the held-out item included.
    metric, k, estimator, trade_off, sampling
        As in :func:`sampled_metric_estimate`.

    Returns
    -------
    table : ndarray of shape (n_negatives + 1,)
        ``table[j]`` is the estimate for a user with sampled rank ``j + 1``.
        Read-only: tables are cached (64 most recent settings).

    References
    ----------
    [[references]]

    Examples
    --------
    >>> from sklearn_rank_metrics import sampled_metric_table
    >>> sampled_metric_table(n_negatives=2, n_items=101, metric="hit_rate", k=1,
    ...                      estimator="naive")
    array([1., 0., 0.])
    >>> sampled_metric_table(n_negatives=2, n_items=101, metric="mrr",
    ...                      estimator="rank_estimate")  # full ranks 1, 51, 101
    array([1.        , 0.01960784, 0.00990099])
    """
    metric = REGISTRY_NAMES.get(metric, metric)
    _check_k(metric, k)
    check_model(n_negatives, n_items)
    check_cost(n_negatives, n_items, estimator)
    return _table(n_negatives, n_items, metric, k, estimator, trade_off, sampling)


@entry_point
@validate_params(
    {
        **_TABLE_CONSTRAINTS,
        "estimator": [Options(*FITTED_ESTIMATORS, *ESTIMATORS)],
        "n_negatives": [Interval(int, 1, None), ARRAY_LIKE, NONE],
        "per_query": [BOOLEAN],
        "return_std_err": [BOOLEAN],
    }
)
@fill_references
def sampled_metric_estimate(
    sampled_rank: Any,
    *,
    n_negatives: int | Any = None,
    n_items: int,
    metric: str = "ndcg",
    k: int | None = None,
    estimator: str = "rank_distribution",
    trade_off: float = 0.1,
    sampling: str = "hypergeometric",
    per_query: bool = False,
    return_std_err: bool = False,
) -> float | np.ndarray | tuple[float, float]:
    """Naive sampled metric, or an estimate of the full-catalogue metric, from sampled ranks.

    Each user's held-out item was ranked against ``m`` sampled negatives; its
    sampled rank is ``r~`` in ``1 .. m+1`` (see :func:`sampled_ranks`). Its unknown
    full-catalogue rank among all ``n`` items is ``r``. This function returns the
    mean over users of one estimator of the metric ``M(r)``.

    Parameters
    ----------
    sampled_rank : array-like of int, shape (n_users,), or SampledRanks
        Sampled rank of every user's held-out item, 1 = ranked first; or the result
        of :func:`sampled_ranks`, which brings its ranks and its numbers of negatives.
    n_negatives : int >= 1, array-like of int, shape (n_users,), or None, default=None
        Number of sampled negatives ``m`` (one for all users, or one per user: a
        table is built per distinct value). Required with plain ranks; ``None``
        takes them from a :class:`SampledRanks`, and a value given with one must
        equal them.
    n_items : int > n_negatives
        Catalogue size ``n``, the held-out item included.
    metric : {"hit_rate", "ndcg", "mrr", "ap", "auc", "map", "gauc"}, default="ndcg"
        The metric of one relevant item at rank ``r`` in a list of ``N`` items:
        ``hit_rate`` :math:`[r \\le k]`, ``ndcg`` :math:`[r \\le k] / \\log_2(r+1)`,
        ``mrr`` and ``ap`` :math:`[r \\le k] / r` (with one relevant item AP equals
        RR), ``auc`` :math:`(N - r) / (N - 1)`. ``"map"`` and ``"gauc"`` are the
        names :func:`evaluate` gives the same metrics: ``"ap"`` and ``"auc"``.
    k : int >= 1 or None, default=None
        Cutoff of the metric; ``None`` means none. Must be ``None`` for ``"auc"``.
    estimator : {"rank_distribution", "naive", "rank_estimate", "minimal_bias", \
"bias_variance"}, default="rank_distribution"
        How the sampled rank becomes a value (formulas in the Notes).
        ``"rank_distribution"`` fits the distribution of the full ranks to the
        sampled ranks (maximum likelihood, Jin et al. 2021) and takes each user's
        posterior mean of the metric: the default, as it holds up for models whose
        ranks are far from uniform, where the fixed tables of the paper's
        corrections (built under a uniform prior over ranks) can be worse than the
        naive metric.
    trade_off : float in [0, 1], default=0.1
        Weight ``gamma`` of the variance against the squared bias in
        ``"bias_variance"`` (unused by the other estimators). ``0`` is
        ``"minimal_bias"``; ``1`` is the posterior mean of ``M(r)`` given ``r~``
        under a uniform prior over full ranks, which minimises the mean squared error
        only for a model whose ranks are uniform (a random model); for a good model
        it pulls every estimate towards the random model's metric and can reverse
        the order of two models. The paper's experiments favour small values;
        ``0.1`` did best there.
    sampling : {"hypergeometric", "binomial"}, default="hypergeometric"
        Sampling model of the negatives: without replacement (the usual protocol)
        or with replacement (the paper's binomial approximation). See
        :func:`sampled_rank_distribution`.
    per_query : bool, default=False
        Return the per-user values (an array in the order of ``sampled_rank``)
        instead of their mean.
    return_std_err : bool, default=False
        Also return the standard error of the estimate (not with ``per_query``):
        ``std(T[r~_u], ddof=1) / sqrt(U)`` for a fixed table, a bootstrap over users
        (200 resamples, the fit redone on each; run only when asked for, it costs
        about 20 times the estimate, near 1 s for ``m = 100``; the last fits are
        kept, so another metric of the same ranks and ``k`` reuses them) for
        ``"rank_distribution"``. It measures the spread of the estimate over users
        and sampled negatives, not the bias of the estimator; a large one (the
        minimal-bias table) says the estimate is unreliable.

    Returns
    -------
    estimate : float or ndarray of shape (n_users,)
        Mean over users of the per-user values ``T[r~]``, or those values.
    std_err : float
        With ``return_std_err=True``: ``(estimate, std_err)``.

    Raises
    ------
    ValueError
        The mean lies outside the metric's range ``[0, 1]`` by more than rounding
        (``1e-9``) and more than 3 of its standard errors, or its 3 standard errors
        span the whole range (with ``per_query`` too): the minimal-bias table, a
        least-squares solution that oscillates with huge values when ``n / m`` is
        large, does this, and such a number is no estimate of the metric. The message
        says why and what to use instead.

    Warns
    -----
    UserWarning
        The mean lies outside ``[0, 1]`` by no more than 3 standard errors (the
        sampling noise of a table with entries outside the range, such as
        ``"bias_variance"`` with a small ``trade_off`` for a metric near 0).

    See Also
    --------
    sampled_ranks : Sampled ranks from flat ``(y_true, y_score, group)`` arrays.
    sampled_metric_table : The per-rank values ``T`` themselves.
    sampled_rank_distribution : The sampling model ``P(r~ | r)``.

    Notes
    -----
    Write :math:`M_N(r)` for the metric at rank :math:`r` of a list of :math:`N`
    items, :math:`m` for ``n_negatives``, :math:`n` for ``n_items`` and
    :math:`P(\\tilde r \\mid r)` for the sampling model. Every estimator is a table
    :math:`T` over :math:`\\tilde r = 1 .. m+1`; the estimate is
    :math:`\\frac{1}{U}\\sum_u T[\\tilde r_u]`.

    - ``"rank_distribution"`` (default): the distribution :math:`\\pi` of the full
      ranks, piecewise constant on bins of ranks (one per rank up to
      ``max(k, 64)``, then geometrically growing), fitted to the observed sampled
      ranks by maximum likelihood (EM), and each user's posterior mean
      :math:`T[\\tilde r] = \\sum_r \\pi(r) P(\\tilde r \\mid r) M_n(r) /
      \\sum_r \\pi(r) P(\\tilde r \\mid r)`; their mean is the metric of
      :math:`\\pi`, inside the metric's range (Jin et al. 2021). The table depends on
      the data, so :func:`sampled_metric_table` does not offer it.
    - ``"naive"``: the metric of the sampled list,
      :math:`T[\\tilde r] = M_{m+1}(\\tilde r)`. Biased, by an amount that depends
      on the model, so it can order models unlike the full metric.
    - ``"rank_estimate"``: rescale the sampled rank to an estimated full rank,
      :math:`T[\\tilde r] = M_n(\\lfloor 1 + (n-1)(\\tilde r - 1)/m \\rfloor)`.
      :math:`(\\tilde r - 1)/m` is unbiased for :math:`(r-1)/(n-1)`, the share of
      other items ranked above the held-out one (both sampling models).
    - ``"minimal_bias"``: the table with the least squared bias over all full
      ranks, weighted uniformly,

      .. math::

          T = \\arg\\min_x \\sum_{r=1}^{n} \\frac{1}{n}
          \\Big(\\sum_{\\tilde r} P(\\tilde r \\mid r)\\, x_{\\tilde r} - M_n(r)\\Big)^2 .

    - ``"bias_variance"``: squared bias plus ``trade_off`` :math:`\\gamma` times
      the variance of :math:`x_{\\tilde r}` given :math:`r`,

      .. math::

          T = \\arg\\min_x \\sum_{r=1}^{n} \\frac{1}{n}
          \\Big[\\big(E[x_{\\tilde r} \\mid r] - M_n(r)\\big)^2
          + \\gamma \\operatorname{Var}[x_{\\tilde r} \\mid r]\\Big]
          = \\big((1-\\gamma) A^\\top A + \\gamma\\, \\mathrm{diag}(c)\\big)^{-1} A^\\top b,

      with :math:`A_{r\\tilde r} = \\sqrt{1/n}\\, P(\\tilde r \\mid r)`,
      :math:`b_r = \\sqrt{1/n}\\, M_n(r)` and
      :math:`c_{\\tilde r} = \\sum_r \\frac{1}{n} P(\\tilde r \\mid r)`.

    The paper weights the full ranks uniformly (:math:`p(r) = 1/n`), since the true
    rank distribution of the model under evaluation is unknown; so does this
    function. Neither correction can remove the bias for every model: the table has
    ``m + 1`` free values for ``n`` constraints. With ``m = n - 1`` the
    hypergeometric model gives :math:`\\tilde r = r`, and every estimator returns the
    exact metric (the binomial model does not: it may draw an item twice).

    Cost: the two least-squares estimators build :math:`P(\\tilde r \\mid r)` for all
    ``n`` full ranks in chunks of about :math:`2^{19}/(m+2)` ranks and fold each
    chunk into a ``(m+2) x (m+2)`` accumulator (the Gram matrix of
    :math:`[A \\mid b]`, or for ``"minimal_bias"``, whose normal equations are far
    too ill-conditioned, the ``R`` factor of its QR decomposition). Memory stays at
    a few MB whatever ``n``; time is
    :math:`O(n (m+2)^2)`: about 2 s for ``n = 10^6``, ``m = 100`` (several times
    more for ``"minimal_bias"``). Tables are cached, so scoring several models with
    the same settings builds one. Users are never looped over in Python.

    The minimal-bias table is the minimum-norm least-squares solution, with the
    singular values of :math:`A` below :math:`\\epsilon \\max(n, m+1)\\, s_{max}`
    dropped (the cutoff of ``numpy.linalg.lstsq(A, b, rcond=None)`` on the paper's
    ``n``-row problem, applied to the SVD of the small ``R`` factor, which has the
    same singular values). For large ``n / m`` the system is nearly singular and the
    table still oscillates with huge values (``1e8`` to ``1e9`` for ``n = 10^4``,
    ``m = 100``, NDCG@10 or HR@10): they are not rounding noise, since no cutoff that leaves
    the squared bias near its minimum makes them small. Its mean over users then
    falls outside ``[0, 1]`` and is refused (ValueError). The paper reports this
    variance and recommends the variance penalty; small ``trade_off`` values (0.1,
    0.01) did best in its experiments.

    References
    ----------
    [[references]]

    Examples
    --------
    >>> from sklearn_rank_metrics import sampled_metric_estimate
    >>> ranks = [1, 1, 2, 5]  # among m = 4 negatives, catalogue of 5 items: no sampling
    >>> float(sampled_metric_estimate(ranks, n_negatives=4, n_items=5, metric="mrr",
    ...                               estimator="naive"))  # (1 + 1 + 1/2 + 1/5) / 4
    0.675
    >>> round(sampled_metric_estimate(ranks, n_negatives=4, n_items=5, metric="mrr"), 6)
    0.675
    >>> sampled_metric_estimate([1, 2], n_negatives=1, n_items=3, metric="hit_rate", k=1,
    ...                         estimator="naive", per_query=True)
    array([1., 0.])

    Sampled: 100 negatives from a catalogue of 10,000 items. A sampled rank of 2
    means about 1% of the catalogue ranks above the item, a full rank near 100:

    >>> ranks = [1, 1, 2, 30]
    >>> sampled_metric_estimate(ranks, n_negatives=100, n_items=10_000, metric="hit_rate",
    ...                         k=10, estimator="naive")
    0.75
    >>> sampled_metric_estimate(ranks, n_negatives=100, n_items=10_000, metric="hit_rate",
    ...                         k=10, estimator="rank_estimate")  # full ranks 1, 1, 100, 2900
    0.5
    """
    metric = REGISTRY_NAMES.get(metric, metric)
    _check_k(metric, k)
    ranks, negatives = _ranks_and_negatives(sampled_rank, n_negatives)
    _check_ranks(ranks, negatives, n_items)
    if per_query and return_std_err:
        raise ValueError(
            f"{caller_name()} returns per-user values (per_query=True) or the estimate "
            "with its standard error (return_std_err=True), not both."
        )
    values, std_err = _per_user_values(
        ranks,
        negatives,
        n_items,
        metric,
        k,
        estimator,
        trade_off,
        sampling,
        return_std_err,
    )
    estimate = float(values.mean())
    _check_range(estimate, std_err, np.max(np.abs(values)), estimator, metric)
    if per_query:
        return values
    if return_std_err:
        return estimate, std_err
    return estimate


def _ranks_and_negatives(
    sampled_rank: Any, n_negatives: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The sampled ranks and each user's number of negatives, as int64 arrays."""
    if isinstance(sampled_rank, SampledRanks):
        recorded = sampled_rank.n_negatives
        if n_negatives is not None and not np.array_equal(
            np.broadcast_to(np.asarray(n_negatives), recorded.shape), recorded
        ):
            raise ValueError(
                f"n_negatives of {caller_name()} must be left out (None) with a "
                "SampledRanks, which records each user's number of negatives; the "
                "given value differs from it."
            )
        sampled_rank, n_negatives = sampled_rank.rank, recorded
    elif n_negatives is None:
        raise ValueError(
            f"n_negatives of {caller_name()} is required with plain ranks (it is read "
            "from the result of sampled_ranks only)."
        )
    ranks = integer_array(sampled_rank, "sampled_rank")
    if isinstance(n_negatives, (int, np.integer)):
        return ranks, np.full(len(ranks), int(n_negatives), dtype=np.int64)
    negatives = integer_array(n_negatives, "n_negatives")
    if len(negatives) != len(ranks):
        raise ValueError(
            f"n_negatives of {caller_name()} must be an int or have one entry per user "
            f"({len(ranks)}); got {len(negatives)} entries."
        )
    bad = np.flatnonzero(negatives < 1)
    if len(bad):
        raise ValueError(
            f"n_negatives of {caller_name()} must be >= 1; got {negatives[bad[0]]} at "
            f"user {bad[0]}."
        )
    return ranks, negatives


def _check_ranks(
    ranks: np.ndarray, negatives: np.ndarray, n_items: int
) -> None:
    """Every user's catalogue holds its negatives, and its rank lies in ``1 .. m + 1``."""
    bad = np.flatnonzero(negatives >= n_items)
    if len(bad):
        raise n_items_error(n_items, negatives[bad[0]], f" (user {bad[0]})")
    bad = np.flatnonzero((ranks < 1) | (ranks > negatives + 1))
    if len(bad):
        first = bad[0]
        raise ValueError(
            f"sampled_rank of {caller_name()} must hold ranks in [1, n_negatives + 1]; got "
            f"{ranks[first]} at user {first} (n_negatives={negatives[first]})."
        )


def _per_user_values(
    ranks: np.ndarray,
    negatives: np.ndarray,
    n_items: int,
    metric: str,
    k: int | None,
    estimator: str,
    trade_off: float,
    sampling: str,
    std_err: bool,
) -> tuple[np.ndarray, float]:
    """Each user's value ``T[r~]``, one table (or fit) per distinct ``m``, and the
    standard error of their mean (NaN for ``"rank_distribution"`` unless ``std_err``).
    """
    distinct, which = np.unique(negatives, return_inverse=True)
    values = np.empty(len(ranks))
    variance = 0.0  # of the mean, summed over the groups of users with one m
    for m in distinct:
        check_cost(int(m), n_items, estimator)
    for index, m in enumerate(distinct):  # one table per distinct m, not per user
        selected = which == index if len(distinct) > 1 else slice(None)
        share = np.count_nonzero(which == index) / len(ranks)
        if estimator == "rank_distribution":
            model = _binned_model(int(m), n_items, metric, k, sampling)
            values[selected], group_std_err = rank_distribution_estimate(
                ranks[selected], int(m), *model, std_err=std_err
            )
        else:
            table = _table(int(m), n_items, metric, k, estimator, trade_off, sampling)
            values[selected] = table[ranks[selected] - 1]
            group_std_err = _standard_error_of_mean(values[selected])
        variance += (share * group_std_err) ** 2
    return values, math.sqrt(variance)


def _standard_error_of_mean(group: np.ndarray) -> float:
    """``std(ddof=1) / sqrt(n)``, NaN for a single value."""
    if len(group) > 1:
        return float(np.std(group, ddof=1) / math.sqrt(len(group)))
    return math.nan
