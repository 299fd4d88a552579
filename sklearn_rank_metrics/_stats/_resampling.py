"""Resampling over queries, vectorised: bootstrap intervals, sign-flip tests, Holm.

Everything here works on a matrix ``values`` of shape ``(n_queries, n_columns)``
(one column per model, metric, or pair difference) and draws the resamples in
chunks of rows, so memory stays bounded (a few tens of MB) whatever
``n_resamples * n_queries`` is, and there is no Python loop per resample.

- Bootstrap: a chunk of resamples is a matrix of multinomial counts ``C`` (how
  often each query is drawn); the resampled means of every column are
  ``C @ values / n_queries``, one matrix product.
- Sign flips (the paired randomisation test): a chunk is a 0/1 matrix ``F``
  (which queries swap their two models); the flipped sums are
  ``sum(d) - 2 F @ d``.

The definitions follow :func:`scipy.stats.bootstrap` and
:func:`scipy.stats.permutation_test` so that the numbers agree with SciPy on the
same data; the tests check that.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._engine._caller import caller_name
from .._engine._validation import Interval

BOOTSTRAP_METHODS = ("percentile", "bca")

# n_resamples at most, in Python (compare, ranking_report, MetricAtKDisplay) and on the
# command line (--resamples): the bootstrap keeps and sorts every resampled mean, 8
# bytes each per metric and compared run (at the limit 16 MB per pair and metric, and
# n_resamples x n_queries draws: about 12 s for 200 queries, 5 metrics, 2 pairs);
# 10**9 was a MemoryError after minutes.
MAX_RESAMPLES = 1_000_000
RESAMPLES = Interval(int, 1, MAX_RESAMPLES)  # the constraint every entry point checks

# Elements per chunk of the resampling matrices (int64 counts: 32 MB).
_CHUNK_ELEMENTS = 1 << 22

# Two statistics closer than this (relative to the data's scale) count as equal, so
# that rounding in a sum never decides a tie (see ``_tolerance``).
_RELATIVE_TOLERANCE = 100 * np.finfo(np.float64).eps


def as_generator(random_state: Any) -> np.random.Generator:
    """A NumPy ``Generator`` from None, an int, a ``Generator`` or a ``RandomState``."""
    caller = caller_name()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    if random_state is None or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
    ):
        if random_state is not None and random_state < 0:
            raise ValueError(
                f"The 'random_state' parameter of {caller} must be an int >= 0, a "
                f"numpy Generator or RandomState, or None. Got {random_state} instead."
            )
        return np.random.default_rng(None if random_state is None else int(random_state))
    raise TypeError(
        f"The 'random_state' parameter of {caller} must be an int >= 0, a numpy "
        f"Generator or RandomState, or None. Got {random_state!r} instead."
    )


def _chunk_rows(n_queries: int, n_resamples: int) -> int:
    return max(1, min(n_resamples, _CHUNK_ELEMENTS // max(n_queries, 1)))


def _tolerance(values: np.ndarray) -> np.ndarray:
    """Per column: ``100 eps * max(|mean|, mean |value|)``.

    SciPy's permutation test uses ``100 eps |observed|``; the mean absolute value
    is added so that an observed statistic of (almost) 0 still gets a tolerance of
    the size of the rounding errors in the sums.
    """
    scale = np.maximum(np.abs(values.mean(axis=0)), np.abs(values).mean(axis=0))
    return _RELATIVE_TOLERANCE * scale


def bootstrap_means(
    values: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Means of every column over ``n_resamples`` bootstrap resamples of the rows.

    All columns share the same resampled rows (queries are resampled jointly, which
    keeps the pairing of models). Returns an array of shape ``(n_resamples, n_columns)``.
    """
    n_queries, n_columns = values.shape
    out = np.empty((n_resamples, n_columns))
    chunk = _chunk_rows(n_queries, n_resamples)
    index_dtype = np.int32 if chunk * n_queries < 2**31 else np.int64
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        drawn = rng.integers(0, n_queries, size=(rows, n_queries), dtype=index_dtype)
        if n_columns == 1:  # one column: gathering the drawn values is cheaper than counts
            out[start : start + rows, 0] = np.take(values[:, 0], drawn).sum(axis=1)
            continue
        drawn += (np.arange(rows, dtype=index_dtype) * index_dtype(n_queries))[:, None]
        counts = np.bincount(drawn.reshape(-1), minlength=rows * n_queries)
        del drawn
        counts = counts.reshape(rows, n_queries).astype(np.float64)
        out[start : start + rows] = counts @ values
    out /= n_queries
    return out


def mean_intervals(
    values: np.ndarray,
    n_resamples: int,
    confidence_level: float,
    method: str,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and bootstrap interval of every column, NaN rows of a column left out.

    Columns with the same NaN rows are resampled together (one draw of queries for
    all of them). Returns ``(mean, low, high)``, each of shape (n_columns,); NaN for
    a column without any value.
    """
    n_columns = values.shape[1]
    mean = np.full(n_columns, np.nan)
    low = np.full(n_columns, np.nan)
    high = np.full(n_columns, np.nan)
    defined = ~np.isnan(values)
    groups: dict[bytes, list[int]] = {}
    for j in range(n_columns):
        groups.setdefault(defined[:, j].tobytes(), []).append(j)
    for columns in groups.values():
        block = values[defined[:, columns[0]]][:, columns]
        if len(block) == 0:
            continue
        distribution = bootstrap_means(block, n_resamples, rng)
        mean[columns] = block.mean(axis=0)
        low[columns], high[columns] = bootstrap_intervals(
            block, distribution, confidence_level, (method,)
        )[method]
    return mean, low, high


def _quantile_columns(sorted_values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Quantile ``q[j]`` of column ``j`` of an already sorted matrix (NumPy's "linear").

    NaN where ``q`` is NaN.
    """
    n = sorted_values.shape[0]
    valid = np.isfinite(q)
    position = np.where(valid, np.clip(q, 0.0, 1.0), 0.0) * (n - 1)
    below = np.floor(position).astype(np.intp)
    above = np.minimum(below + 1, n - 1)
    fraction = position - below
    columns = np.arange(sorted_values.shape[1])
    low = sorted_values[below, columns]
    high = sorted_values[above, columns]
    result = low + fraction * (high - low)
    result[fraction == 0] = low[fraction == 0]
    return np.where(valid, result, np.nan)


def bootstrap_intervals(
    values: np.ndarray,
    distribution: np.ndarray,
    confidence_level: float,
    methods: tuple[str, ...],
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    r"""Two-sided bootstrap intervals of the mean of every column.

    Parameters
    ----------
    values : ndarray of shape (n_queries, n_columns)
        The data (per-query values or differences).
    distribution : ndarray of shape (n_resamples, n_columns)
        Bootstrap means (:func:`bootstrap_means`).
    confidence_level : float
    methods : tuple of {"percentile", "bca"}

    Returns
    -------
    intervals : dict
        ``method -> (low, high)``, arrays of shape (n_columns,). A column whose values
        are all equal gets the point interval ``(mean, mean)`` with every method.

    Notes
    -----
    With :math:`\alpha = (1 - \text{confidence level}) / 2`, the percentile
    interval is the :math:`\alpha` and :math:`1-\alpha` quantiles of the bootstrap
    means (linear interpolation). BCa (Efron & Tibshirani 1993, 14.3) uses instead

    .. math::

        \alpha_{1,2} = \Phi\left(\hat z_0 + \frac{\hat z_0 + z_{\alpha, 1-\alpha}}
        {1 - \hat a (\hat z_0 + z_{\alpha, 1-\alpha})}\right),

    with :math:`\hat z_0 = \Phi^{-1}(\#\{\theta^* < \hat\theta\} / 2B +
    \#\{\theta^* \le \hat\theta\} / 2B)` and, the jackknife of the mean in closed
    form, :math:`\hat a = \sum_i u_i^3 / (6 (\sum_i u_i^2)^{3/2})` with
    :math:`u_i = x_i - \bar x`. These are :func:`scipy.stats.bootstrap`'s definitions,
    with one deviation: in :math:`\hat z_0`, bootstrap means within
    ``100 eps * max(|mean|, mean |x|)`` of :math:`\hat\theta` count as equal to it,
    where SciPy compares exactly. On discrete data (P@5, reciprocal ranks) many
    resampled means equal :math:`\hat\theta` in exact arithmetic but differ from it
    by rounding in floating point; the tolerance counts them as the ties they are,
    so :math:`\hat z_0` is the one of exact arithmetic (SciPy's may differ there).
    """
    alpha = (1.0 - confidence_level) / 2.0
    theta_hat = values.mean(axis=0)
    sorted_distribution = np.sort(distribution, axis=0)
    constant = np.ptp(values, axis=0) == 0 if len(values) else np.ones(values.shape[1], bool)
    intervals = {}
    for method in methods:
        if method == "percentile":
            q_low = np.full(values.shape[1], alpha)
            q_high = np.full(values.shape[1], 1.0 - alpha)
        else:
            q_low, q_high = _bca_levels(values, theta_hat, distribution, alpha)
        low = _quantile_columns(sorted_distribution, q_low)
        high = _quantile_columns(sorted_distribution, q_high)
        low[constant] = theta_hat[constant]
        high[constant] = theta_hat[constant]
        intervals[method] = (low, high)
    return intervals


def _bca_levels(
    values: np.ndarray, theta_hat: np.ndarray, distribution: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """The BCa quantile levels of every column (NaN where undefined).

    Unlike :func:`scipy.stats.bootstrap`, ties of a bootstrap mean with the estimate
    are decided with the tolerance of :func:`_tolerance`, not by exact comparison.
    """
    from scipy.special import ndtr, ndtri  # on first use: the command line starts without it

    tolerance = _tolerance(values)
    below = np.count_nonzero(distribution < theta_hat - tolerance, axis=0)
    at_or_below = np.count_nonzero(distribution <= theta_hat + tolerance, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        z0 = ndtri((below + at_or_below) / (2.0 * len(distribution)))
        centred = values - theta_hat
        acceleration = (centred**3).sum(axis=0) / (6.0 * ((centred**2).sum(axis=0)) ** 1.5)
        z_alpha = float(ndtri(alpha))
        levels = []
        for z in (z_alpha, -z_alpha):
            shifted = z0 + z
            levels.append(ndtr(z0 + shifted / (1.0 - acceleration * shifted)))
    return levels[0], levels[1]


def sign_flip_pvalues(
    differences: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    r"""Two-sided paired randomisation-test p-value of the mean of every column.

    Under the null hypothesis the two models of a pair are exchangeable within each
    query, so each per-query difference keeps or flips its sign with probability 1/2.
    With :math:`2^n \le` ``n_resamples`` (``n`` rows) all sign patterns are
    enumerated and the p-value is exact; otherwise ``n_resamples`` random patterns
    are drawn and one is added to the counts and to the number of patterns (the
    observed statistic counts as one of them). As in
    :func:`scipy.stats.permutation_test`, the two-sided p-value is twice the smaller
    one-sided p-value, capped at 1; null statistics within a small tolerance of the
    observed one (``100 eps * max(|mean|, mean |d|)``) count as equal to it.
    """
    n_queries, n_columns = differences.shape
    # flipped sum - observed sum = -2 * (flips @ d), so "null <= observed" is
    # "flips @ d >= 0", compared in sum space where the observed sum cancels.
    tolerance = _tolerance(differences) * n_queries / 2.0
    at_most = np.zeros(n_columns, dtype=np.int64)
    at_least = np.zeros(n_columns, dtype=np.int64)
    exact = n_queries < 63 and 2**n_queries <= n_resamples
    n_patterns = 2**n_queries if exact else n_resamples
    chunk = _chunk_rows(n_queries, n_patterns)
    n_bytes = (n_queries + 7) // 8
    for start in range(0, n_patterns, chunk):
        rows = min(chunk, n_patterns - start)
        if exact:
            pattern = np.arange(start, start + rows, dtype=np.int64)[:, None]
            flips = ((pattern >> np.arange(n_queries, dtype=np.int64)) & 1).astype(np.float64)
        else:
            random_bytes = rng.integers(0, 256, size=(rows, n_bytes), dtype=np.uint8)
            flips = np.unpackbits(random_bytes, axis=1, count=n_queries).astype(np.float64)
        flipped = flips @ differences
        at_most += np.count_nonzero(flipped >= -tolerance, axis=0)
        at_least += np.count_nonzero(flipped <= tolerance, axis=0)
    adjustment = 0 if exact else 1
    p_less = (at_most + adjustment) / (n_patterns + adjustment)
    p_greater = (at_least + adjustment) / (n_patterns + adjustment)
    return np.clip(2.0 * np.minimum(p_less, p_greater), 0.0, 1.0)


def holm(p_values: np.ndarray) -> np.ndarray:
    r"""Holm's (1979) step-down adjustment of a family of p-values.

    With the ``m`` p-values that are not NaN sorted as :math:`p_{(1)} \le \dots \le
    p_{(m)}`, the adjusted value of :math:`p_{(i)}` is
    :math:`\max_{j \le i} \min(1, (m - j + 1) p_{(j)})`. NaN stays NaN and is
    not counted in ``m``.
    """
    p_values, adjusted, order = _sorted_family(p_values)
    m = len(order)
    scaled = np.minimum(1.0, (m - np.arange(m)) * p_values[order])
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def _sorted_family(p_values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The p-values as float, an all-NaN result, and the defined ones' indices, ascending."""
    p_values = np.asarray(p_values, dtype=np.float64)
    defined = np.flatnonzero(~np.isnan(p_values))
    order = defined[np.argsort(p_values[defined], kind="stable")]
    return p_values, np.full(p_values.shape, np.nan), order


def bonferroni(p_values: np.ndarray) -> np.ndarray:
    r"""Bonferroni's adjustment: :math:`\min(1, m p)` over the ``m`` p-values that are
    not NaN (NaN stays NaN)."""
    p_values = np.asarray(p_values, dtype=np.float64)
    m = np.count_nonzero(~np.isnan(p_values))
    return np.minimum(1.0, m * p_values)


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    r"""Benjamini and Hochberg's (1995) false-discovery-rate adjustment.

    With the ``m`` p-values that are not NaN sorted as :math:`p_{(1)} \le \dots \le
    p_{(m)}`, the adjusted value of :math:`p_{(i)}` is
    :math:`\min_{j \ge i} \min(1, m p_{(j)} / j)` (``scipy.stats.false_discovery_control``
    with ``method="bh"``). NaN stays NaN and is not counted in ``m``.
    """
    p_values, adjusted, order = _sorted_family(p_values)
    m = len(order)
    scaled = np.minimum(1.0, m * p_values[order] / np.arange(1, m + 1))
    adjusted[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return adjusted


# compare(correction=...): the adjustment of one family of p-values
CORRECTIONS = {"holm": holm, "bonferroni": bonferroni, "bh": benjamini_hochberg}
