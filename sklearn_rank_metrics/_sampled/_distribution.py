"""The ``"rank_distribution"`` estimator of sampled metrics: fit the full-rank distribution.

Krichene and Rendle's corrections are fixed tables built under a uniform prior over
the full ranks; for a model whose ranks are far from uniform (a good model, or a
bimodal one) that prior pulls every estimate towards the uniform model's metric.
Jin et al. (AAAI 2021) instead estimate the distribution of the full ranks from the
sampled ranks themselves, by maximum likelihood, and read the metric off it.

Here the full-rank distribution is piecewise constant on bins of ranks: one bin per
rank up to ``max(k, 64)``, then bins growing geometrically to ``n`` (the sampled
ranks cannot tell ranks apart more finely than ``n / m`` anyway). With ``A[b, t]``
the mean of ``P(r~ = t | r)`` over the ranks of bin ``b`` and ``c_t`` the number of
users with sampled rank ``t``, EM iterates

.. math::

    \\pi_b \\leftarrow \\frac{\\pi_b}{U} \\sum_t c_t \\frac{A_{bt}}{\\sum_{b'} \\pi_{b'} A_{b't}},

which increases the likelihood ``prod_u sum_b pi_b A[b, r~_u]`` at every step. A
user's value is the posterior mean of the metric given its sampled rank,
``T[t] = sum_b pi_b B[b, t] / sum_b pi_b A[b, t]`` with ``B[b, t]`` the mean of
``P(r~ = t | r) M(r)`` over the bin; their mean over users is the metric of the
fitted distribution, always inside the metric's range. Its standard error comes
from a bootstrap over users (the EM refitted on each resample of the counts).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from ._model import SINGLE_THREAD_PRODUCT

_SINGLE_RANKS = 64  # ranks below this (or below k) are bins of their own
_GROWTH = 1.1  # later bins grow by this factor
_ITERATIONS = 3000
_TOLERANCE = 1e-12
_BOOTSTRAP = 200
# fits kept by fit_rank_distribution (a bootstrap's is 200 x n_bins floats, ~220 kB)
_FITS_KEPT = 8
_FITS: OrderedDict[tuple, np.ndarray] = OrderedDict()
_FITS_LOCK = threading.Lock()

# out = left @ right, written into out
Product = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def rank_bins(n: int, k: int | None) -> np.ndarray:
    """First rank of every bin, then ``n + 1``: singletons, then geometric growth."""
    singles = min(n, max(_SINGLE_RANKS, k or 0))
    starts = list(range(1, singles + 1))
    size = 1.0
    while starts[-1] + int(size) <= n:
        starts.append(starts[-1] + int(size))
        size *= _GROWTH
    return np.array([*starts, n + 1], dtype=np.int64)


def binned_model(
    m: int, n: int, k: int | None, rank_pmf: Callable, metric_at_rank: Callable, chunk: int
) -> tuple[np.ndarray, np.ndarray]:
    """``A[b, t]`` and ``B[b, t]``: bin means of ``P(t | r)`` and ``P(t | r) M(r)``.

    ``rank_pmf(ranks)`` is the sampling model's ``P(t | r)`` rows and
    ``metric_at_rank(ranks)`` the metric ``M(r)``. One pass over the ranks ``1..n``
    in chunks of ``chunk`` ranks (the cost of one correction table); the caller
    caches it, since it does not depend on the data.
    """
    edges = rank_bins(n, k)
    n_bins = len(edges) - 1
    probability_sum = np.zeros((n_bins, m + 1))
    metric_sum = np.zeros((n_bins, m + 1))
    for start in range(1, n + 1, chunk):
        ranks = np.arange(start, min(start + chunk, n + 1))
        probability = rank_pmf(ranks)
        weighted = probability * metric_at_rank(ranks)[:, None]
        bins = np.searchsorted(edges, ranks, side="right") - 1
        first = np.flatnonzero(np.diff(bins, prepend=-1))  # where a bin starts in the chunk
        probability_sum[bins[first]] += np.add.reduceat(probability, first, axis=0)
        metric_sum[bins[first]] += np.add.reduceat(weighted, first, axis=0)
    sizes = np.diff(edges).astype(np.float64)[:, None]
    model = (probability_sum / sizes, metric_sum / sizes)
    for array in model:
        array.setflags(write=False)
    return model


def fit_rank_distribution(counts: np.ndarray, likelihood: np.ndarray) -> np.ndarray:
    """EM estimate of the bin masses ``pi`` for each row of ``counts`` (batched).

    ``counts`` has shape (n_fits, m + 1); ``likelihood`` is ``A`` (n_bins, m + 1).
    Starts from the uniform distribution over ranks restricted to bins that some
    observed sampled rank can come from. The batch stops when its largest change is
    below the tolerance, so all its rows take the same number of steps.

    The fit depends on the counts and ``A`` only, not on the metric, so the last
    ``_FITS_KEPT`` fits are kept (read-only): HR@10 and NDCG@10 of one model, or
    the same ranks scored twice, share one fit and one bootstrap.
    """
    key = (_ITERATIONS, _TOLERANCE, _fingerprint(counts), _fingerprint(likelihood))
    with _FITS_LOCK:
        masses = _FITS.get(key)
        if masses is not None:
            _FITS.move_to_end(key)
            return masses
    masses = _expectation_maximisation(counts, likelihood)
    masses.setflags(write=False)
    with _FITS_LOCK:
        _FITS[key] = masses
        while len(_FITS) > _FITS_KEPT:
            _FITS.popitem(last=False)
    return masses


def _fingerprint(array: np.ndarray) -> tuple[tuple[int, ...], str, bytes]:
    """Shape, dtype and a cryptographic digest of the values: a key for equal arrays."""
    digest = hashlib.blake2b(np.ascontiguousarray(array).data, digest_size=32).digest()
    return array.shape, array.dtype.str, digest


def _expectation_maximisation(counts: np.ndarray, likelihood: np.ndarray) -> np.ndarray:
    """The EM iterations of :func:`fit_rank_distribution`, without the memo."""
    n_users = counts.sum(axis=1, keepdims=True)
    masses = np.tile(likelihood.sum(axis=1), (len(counts), 1))
    masses /= masses.sum(axis=1, keepdims=True)
    transposed = np.ascontiguousarray(likelihood.T)
    product = _product_for(len(counts), likelihood.shape)
    observed = counts > 0
    # buffers reused at every step; ratio stays 0 where no user has that sampled rank
    expected = np.empty_like(counts)
    ratio = np.zeros_like(counts)
    updated = np.empty_like(masses)
    step = np.empty_like(masses)
    for _ in range(_ITERATIONS):
        product(masses, likelihood, expected)  # P(t) under the current masses
        np.divide(counts, expected, out=ratio, where=observed)
        product(ratio, transposed, updated)
        updated *= masses
        updated /= n_users
        np.subtract(updated, masses, out=step)
        change = np.abs(step, out=step).max()
        masses, updated = updated, masses
        if change < _TOLERANCE:
            break
    return masses


def _product_for(n_rows: int, shape: tuple[int, int]) -> Product:
    """How to compute ``out = left @ right`` for ``left`` of ``n_rows`` rows, thousands of times.

    The products are small and run at every EM step, so a threaded BLAS would wake
    its threads at every call and, on a busy machine, wait for them (20 to 60 times
    slower). A single fit (one row) uses ``np.einsum`` without ``optimize``, which
    loops in C on the calling thread and never calls BLAS. A batch (the bootstrap's
    200 rows) is split into blocks of rows whose products take at most
    ``SINGLE_THREAD_PRODUCT`` multiply-adds: below that size OpenBLAS (NumPy's and
    SciPy's wheels) computes a product on the calling thread, and its kernel is
    about 7 times faster than ``einsum``'s loop (it sums in another order: the
    bootstrap's standard error moves by a few units in the last place). The
    process-wide BLAS thread settings are left alone.
    """
    rows = SINGLE_THREAD_PRODUCT // (shape[0] * shape[1])
    if n_rows == 1 or rows < 2:  # a block of one row would be a (possibly threaded) gemv
        return _einsum_product
    starts = range(0, n_rows, rows)

    def blocked(left: np.ndarray, right: np.ndarray, out: np.ndarray) -> None:
        for start in starts:
            np.matmul(left[start : start + rows], right, out=out[start : start + rows])

    return blocked


def _einsum_product(left: np.ndarray, right: np.ndarray, out: np.ndarray) -> None:
    """``out = left @ right`` by ``np.einsum``: C loops on the calling thread, no BLAS."""
    np.einsum("fb,bt->ft", left, right, out=out)


def _product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left @ right`` for small matrices, computed by einsum on the calling thread."""
    return np.einsum("fb,bt->ft", left, right)


def posterior_means(masses: np.ndarray, likelihood: np.ndarray, weighted: np.ndarray):
    """``T[t] = sum_b pi_b B[b, t] / sum_b pi_b A[b, t]`` for each row of ``masses``."""
    expected = _product(masses, likelihood)
    return np.divide(
        _product(masses, weighted), expected, out=np.zeros_like(expected), where=expected > 0
    )


def rank_distribution_estimate(
    sampled_rank: np.ndarray,
    m: int,
    likelihood: np.ndarray,
    weighted: np.ndarray,
    std_err: bool = True,
) -> tuple[np.ndarray, float]:
    """Per-user values (posterior means) and the bootstrap standard error of their mean.

    ``likelihood`` and ``weighted`` are the ``A`` and ``B`` of :func:`binned_model`.
    With ``std_err=False`` the bootstrap (200 refits) is skipped and the standard
    error is NaN.
    """
    counts = np.bincount(sampled_rank - 1, minlength=m + 1).astype(np.float64)[None, :]
    table = posterior_means(fit_rank_distribution(counts, likelihood), likelihood, weighted)[0]
    if not std_err:
        return table[sampled_rank - 1], float("nan")
    # bootstrap over users: multinomial resamples of the counts, seeded for repeatability
    generator = np.random.default_rng(0)
    resampled = generator.multinomial(int(counts.sum()), counts[0] / counts.sum(), _BOOTSTRAP)
    resampled = resampled.astype(np.float64)
    tables = posterior_means(fit_rank_distribution(resampled, likelihood), likelihood, weighted)
    estimates = np.sum(tables * resampled, axis=1) / resampled.sum(axis=1)
    return table[sampled_rank - 1], float(np.std(estimates, ddof=1))
