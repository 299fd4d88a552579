"""The sampling model of sampled metrics: ``P(sampled rank | full rank)``.

A user's held-out item at full rank ``r`` among ``n`` items, ranked against ``m``
sampled negatives, gets a sampled rank ``r~`` whose distribution
(:func:`sampled_rank_distribution`) is hypergeometric (negatives drawn without
replacement) or binomial (with replacement). The estimators of :mod:`._estimators`
and the fitted one of :mod:`._distribution` build on it, as does the metric of a rank
(``metric_at_rank``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy

from .._engine._caller import caller_name, entry_point
from .._engine._docs import fill_doc
from .._engine._inputs import to_numpy
from .._engine._validation import (
    Interval,
    Options,
    validate_params,
)

F = TypeVar("F", bound=Callable)

SAMPLED_METRICS = ("hit_rate", "ndcg", "mrr", "ap", "auc")
# the registry's names (evaluate, scorers, the command line) of the same metrics of
# one relevant item: mean AP is AP, group AUC is the AUC of each user's list
REGISTRY_NAMES = {"map": "ap", "gauc": "auc"}


SAMPLING_MODELS = ("hypergeometric", "binomial")


# Rows of P(r~ | r) built at once: bounds the working memory of a table to a few MB
# whatever the catalogue size (chunk_rows * (m + 2) float64 values per temporary).
CHUNK_VALUES = 1 << 19

# OpenBLAS (NumPy's and SciPy's wheels) runs a matrix product of at most 65536 * 4
# multiply-adds on the calling thread (SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD,
# interface/gemm.c); a larger one wakes its threads, which on a busy machine costs
# more than the product. The loops of many small products stay below it.
SINGLE_THREAD_PRODUCT = 1 << 18


_REFERENCES = """Krichene, W., & Rendle, S. (2020). On Sampled Metrics for Item Recommendation.
    KDD '20, pp. 1748-1757. https://doi.org/10.1145/3394486.3403226

    Krichene, W., & Rendle, S. (2022). On Sampled Metrics for Item Recommendation.
    Communications of the ACM, 65(7), 75-83. https://doi.org/10.1145/3535335

    Jin, R., Li, D., Mudrak, B., Gao, J., & Liu, Z. (2021). On Estimating
    Recommendation Evaluation Metrics under Sampling. AAAI '21, 35(5), 4147-4154."""


def fill_references(function: F) -> F:
    """Fill the ``[[references]]`` marker of a sampled metric's docstring."""
    return fill_doc(function, {"references": _REFERENCES})


# --------------------------------------------------------------------------- sampling model


def metric_at_rank(rank: np.ndarray, metric: str, k: int | None, n_list: int) -> np.ndarray:
    """Metric of one relevant item at integer ``rank`` in a list of ``n_list`` items."""
    rank = np.asarray(rank, dtype=np.float64)
    if metric == "auc":
        return (n_list - rank) / (n_list - 1)
    if metric == "hit_rate":
        value = np.ones_like(rank)
    elif metric == "ndcg":
        value = 1.0 / np.log2(rank + 1.0)
    else:  # "mrr" and "ap": with one relevant item AP = RR = 1 / rank
        value = 1.0 / rank
    if k is not None:
        value = np.where(rank <= k, value, 0.0)
    return value


def _log_factorial_range(low: int, high: int) -> tuple[int, np.ndarray]:
    """``log(j!)`` for ``j`` in ``max(low, 0) .. high``, and where the range starts."""
    low = max(low, 0)
    return low, gammaln(np.arange(low, high + 1, dtype=np.float64) + 1.0)


def rank_pmf(true_rank: np.ndarray, m: int, n: int, sampling: str) -> np.ndarray:
    """``P(r~ = j + 1 | r)`` for every ``r`` in ``true_rank`` (rows) and ``j = 0..m`` (columns).

    Computed in log space (no overflow, no huge binomial coefficients) from tables of
    ``log(j!)`` that cover only the values the given ranks need: for a run of
    consecutive ranks, two ranges of ``len(true_rank) + m + 1`` values, so the memory
    never grows with ``n``. Each row is renormalised to sum to one.
    """
    above = np.arange(m + 1)[None, :]
    r = np.asarray(true_rank, dtype=np.int64)[:, None]
    _, log_small = _log_factorial_range(0, m)  # log j! and log (m - j)!
    if sampling == "binomial":
        p = (r - 1) / (n - 1)
        log_p = log_small[m] - log_small[above] - log_small[m - above]
        log_p = log_p + xlogy(above, p) + xlog1py(m - above, -p)
        probability = np.exp(log_p)
    else:
        r_low, r_high = int(r.min()), int(r.max())
        better, worse = r - 1, n - r  # other items ranked above / below the held-out one
        b_low, log_b = _log_factorial_range(r_low - 1 - m, r_high - 1)
        w_low, log_w = _log_factorial_range(n - r_high - m, n - r_low)
        left = better - above - b_low
        right = worse - (m - above) - w_low
        # every j = 0..m is possible unless r <= m or r > n - m: mask only then
        masked = r_low - 1 < m or n - r_high < m
        if masked:
            valid = (above <= better) & (m - above <= worse)
            np.clip(left, 0, None, out=left)  # invalid cells read any entry
            np.clip(right, 0, None, out=right)
        log_p = log_b[left]
        log_p += log_small[above] + log_small[m - above]
        log_p += log_w[right]
        np.subtract(log_b[better - b_low] + log_w[worse - w_low], log_p, out=log_p)
        log_p -= gammaln(n) - log_small[m] - gammaln(n - m)  # log C(n - 1, m)
        if masked:
            log_p[~valid] = -np.inf
        probability = np.exp(log_p, out=log_p)
    probability /= probability.sum(axis=1, keepdims=True)
    return probability


# the corrections and the fitted estimator take one pass over the n full ranks with
# m + 2 values each: about 20 s per 1e9 values on a 2-core machine
_MAX_CELLS = 2**31


def check_cost(m: int, n: int, estimator: str) -> None:
    """Refuse a catalogue too large for the estimator's pass over every full rank."""
    if estimator in ("naive", "rank_estimate") or n * (m + 2) <= _MAX_CELLS:
        return
    raise ValueError(
        f"{caller_name()}: estimator={estimator!r} takes one pass over all n_items={n:,} "
        f"full ranks with n_negatives + 2 = {m + 2} values each ({n * (m + 2):.2g} values, "
        f"more than the {_MAX_CELLS:.2g} allowed, which take about a minute here). Use "
        "estimator='naive' or 'rank_estimate' (no pass over the catalogue), or a smaller "
        "n_items."
    )


def check_model(m: int, n: int) -> None:
    if n <= m:
        raise n_items_error(n, m)


def n_items_error(n: int, m: int, where: str = "") -> ValueError:
    """The catalogue is too small for the negatives; ``where`` names the user, if any."""
    return ValueError(
        f"The 'n_items' parameter of {caller_name()} must be > n_negatives (the "
        "catalogue holds the held-out item and at least n_negatives other items). "
        f"Got n_items={n} with n_negatives={m}{where} instead."
    )


@entry_point
@validate_params(
    {
        "n_negatives": [Interval(int, 1, None)],
        "n_items": [Interval(int, 2, None)],
        "sampling": [Options(*SAMPLING_MODELS)],
    }
)
@fill_references
def sampled_rank_distribution(
    true_rank: Any,
    *,
    n_negatives: int,
    n_items: int,
    sampling: str = "hypergeometric",
) -> np.ndarray:
    """Distribution of the sampled rank given the full-catalogue rank, ``P(r~ | r)``.

    The held-out item has rank ``r`` among all ``n`` items of the catalogue (itself
    included). ``m`` negatives are drawn uniformly from the other ``n - 1`` items;
    ``r~ - 1`` is the number of drawn negatives ranked above the held-out item.

    Parameters
    ----------
    true_rank : array-like of int, shape (n_ranks,)
        Full-catalogue ranks ``r``, each in ``1 .. n_items``.
    n_negatives : int >= 1
        Sampled negatives per user, ``m``.
    n_items : int > n_negatives
        Catalogue size ``n``, the held-out item included.
    sampling : {"hypergeometric", "binomial"}, default="hypergeometric"
        ``"hypergeometric"``: negatives drawn without replacement (the usual
        protocol; with ``m = n - 1`` the sampled rank is the full rank).
        ``"binomial"``: with replacement, the approximation the paper analyses.

    Returns
    -------
    probability : ndarray of shape (n_ranks, n_negatives + 1)
        ``probability[i, j] = P(r~ = j + 1 | r = true_rank[i])``; rows sum to one.
        Memory is ``n_ranks * (m + 1)`` floats: pass the ranks you need.

    Notes
    -----
    Without replacement (hypergeometric, population ``n - 1`` with ``r - 1``
    "successes", ``m`` draws):

    .. math::

        P(\\tilde r = j + 1 \\mid r) = \\binom{r-1}{j}\\binom{n-r}{m-j} \\Big/ \\binom{n-1}{m}

    With replacement (binomial), with :math:`p = (r-1)/(n-1)`:

    .. math::

        P(\\tilde r = j + 1 \\mid r) = \\binom{m}{j} p^j (1-p)^{m-j}

    Both have :math:`E[\\tilde r - 1] = m (r-1)/(n-1)`. Probabilities are computed
    in log space from :math:`\\log k!` (``scipy.special.gammaln``), so they stay
    accurate for catalogues of millions of items.

    References
    ----------
    [[references]]

    Examples
    --------
    >>> from sklearn_rank_metrics import sampled_rank_distribution
    >>> sampled_rank_distribution([1, 3, 4], n_negatives=2, n_items=4)
    array([[1.        , 0.        , 0.        ],
           [0.        , 0.66666667, 0.33333333],
           [0.        , 0.        , 1.        ]])
    """
    check_model(n_negatives, n_items)
    ranks = integer_array(true_rank, "true_rank")
    bad = np.flatnonzero((ranks < 1) | (ranks > n_items))
    if len(bad):
        raise ValueError(
            f"true_rank of {caller_name()} must hold ranks in [1, n_items={n_items}]; got "
            f"{ranks[bad[0]]} at entry {bad[0]}."
        )
    return rank_pmf(ranks, n_negatives, n_items, sampling)


# --------------------------------------------------------------------------- estimators


def integer_array(value: Any, name: str) -> np.ndarray:
    """1-D array-like of integers (ints, or floats with integer values) as int64."""
    array = to_numpy(value, name)
    if array.ndim != 1:
        raise ValueError(f"{name} of {caller_name()} must be 1-D; got shape {array.shape}.")
    if array.size == 0:
        raise ValueError(f"{name} of {caller_name()} is empty; at least one entry is needed.")
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(array) | (array != np.round(array)))
        if len(bad):
            raise ValueError(
                f"{name} of {caller_name()} must hold integers; got {array[bad[0]]} at "
                f"entry {bad[0]}."
            )
        return array.astype(np.int64)
    raise TypeError(f"{name} of {caller_name()} must hold integers; got dtype {array.dtype}.")
