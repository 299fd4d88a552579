"""Per-query values to one number: the undefined-query policy and the weighted mean."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._engine._caller import caller_name
from .._engine._plain import plain
from .._engine._ranked_groups import RankedGroups
from .._engine._warnings import undefined_metric_warning, warn_at_caller


@dataclass(frozen=True)
class PerQuery:
    """What a kernel returns: one value per query and where it is undefined.

    Attributes
    ----------
    values : ndarray of shape (n_queries,)
        The metric of each query (anything where ``undefined``).
    undefined : ndarray of shape (n_queries,), bool or float in [0, 1]
        Queries without a relevant row (for AUC: with one class only), or, for a
        metric that is undefined in only some tie orders, the probability of those
        orders. ``values`` holds 0 for undefined queries and, for partly undefined
        ones, the expectation over the defined orders (undefined orders count 0).
    weight : ndarray of shape (n_queries,) or None
        A metric-specific weight multiplied into ``sample_weight`` (e.g. the number of
        relevant rows for micro-averaged hit rate); ``None`` means 1.
    description : str
        What "undefined" means for this metric, for error messages.
    value_range : tuple of float
        The metric's range, ``(0, 1)`` unless the metric says otherwise (DCG:
        ``(0, inf)``); :func:`apply_policy` checks every value against it.
    total : bool
        The summary is the weighted sum over queries, not the mean (trec_eval's
        counts ``num_rel``, ``num_ret``, ``num_rel_ret``).
    """

    values: np.ndarray
    undefined: np.ndarray
    weight: np.ndarray | None = None
    description: str = "no relevant row"
    value_range: tuple[float, float] = (0.0, 1.0)
    total: bool = False


# values this close to their range (relative to the bound, at least absolute) are
# rounding in the last bits of a sum and are clipped; anything further is a defect
_RANGE_ROUNDING = 8 * np.finfo(np.float64).eps


def check_range(per_query: PerQuery, ranked: RankedGroups) -> np.ndarray:
    """The per-query values, clipped to the metric's range where they miss it by rounding.

    A value further outside its range, or NaN/inf where the metric is defined, is
    a defect of a kernel: it raises a ``RuntimeError`` naming the query, never a
    number returned silently.
    """
    low, high = per_query.value_range
    values = np.asarray(per_query.values, dtype=np.float64)
    # two reductions and no temporary for the common case; a NaN fails both tests
    if not len(values) or (values.min() >= low and values.max() <= high):
        return values
    inside = (values >= low) & (values <= high)
    slack_low = _RANGE_ROUNDING * max(1.0, abs(low))
    slack_high = _RANGE_ROUNDING * max(1.0, abs(high)) if math.isfinite(high) else 0.0
    defined = np.asarray(per_query.undefined, dtype=np.float64) < 1
    near = (values >= low - slack_low) & (values <= high + slack_high)
    broken = np.flatnonzero(~inside & ~near & defined)
    if len(broken):
        first = int(broken[0])
        raise RuntimeError(
            f"{caller_name()} computed {plain(values[first])!r} for query "
            f"{plain(ranked.query_ids[first])!r}, outside the metric's range [{low:g}, {high:g}]. "
            "This is a defect of sklearn_rank_metrics; please report it with the input."
        )
    return np.clip(values, low, high)


def undefined_queries(per_query: PerQuery) -> np.ndarray:
    """The queries where the metric is undefined in at least one tie order (bool)."""
    undefined = np.asarray(per_query.undefined)
    return undefined if undefined.dtype == bool else undefined.astype(np.float64) > 0


def uniform_weights(weights: np.ndarray) -> bool:
    """Whether ``weights`` is the engine's read-only "every query weighs 1" array.

    :func:`~sklearn_rank_metrics._engine._ranked_groups.rank_groups` gives queries
    without ``sample_weight`` a broadcast 1 (stride 0), so the mean needs no products.
    """
    return weights.ndim == 1 and weights.strides == (0,) and len(weights) > 0 and weights[0] == 1


def apply_policy(
    per_query: PerQuery,
    ranked: RankedGroups,
    replace_undefined_by: float | str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-query values after the policy (NaN where skipped), their weights, and the skipped.

    The arrays returned are read-only (the weights may be shared by every metric
    of a call); the values are copied only when the policy changes some of them.
    """
    values = check_range(per_query, ranked)
    weights = ranked.query_weight
    if per_query.weight is not None:
        weights = weights * per_query.weight
    undefined = undefined_queries(per_query)
    skipped = np.zeros(len(values), dtype=bool)
    if undefined.any():
        if replace_undefined_by == "raise":
            first = int(np.flatnonzero(undefined)[0])
            raise ValueError(
                f"{caller_name()} is undefined for query {plain(ranked.query_ids[first])!r} "
                f"({per_query.description}), and replace_undefined_by='raise'. "
                f"{int(undefined.sum())} of {len(undefined)} queries are undefined."
            )
        values = values.copy()
        if replace_undefined_by == "skip":
            values[undefined] = np.nan
            skipped = undefined
        elif not isinstance(replace_undefined_by, str) and math.isnan(replace_undefined_by):
            values[undefined] = np.nan
        elif replace_undefined_by:
            # defined queries have share 0, so the whole array can take the product
            values += np.asarray(per_query.undefined, dtype=np.float64) * float(
                replace_undefined_by
            )
    for array in (values, weights, skipped):
        array.flags.writeable = False
    return values, weights, skipped


def weighted_mean(
    values: np.ndarray,
    weights: np.ndarray,
    skipped: np.ndarray,
    total: bool = False,
    per_query: PerQuery | None = None,
    nothing_left: str | None = None,
) -> float:
    """``sum(w * v) / sum(w)`` over the queries that are not skipped.

    A NaN value that was not skipped (the ``nan`` policy) makes the mean NaN,
    whatever its weight. With every weight 1 this is ``sum(v) / n`` (the same
    number: the weighted form scales both sums by the same power of two).
    ``total``: ``sum(w * v)`` itself (a count summed over queries).

    The mean is finite whenever every value is (several values near the largest
    float overflow ``sum(w * v)``, not their mean): such a sum is formed again
    scaled by a power of two (:func:`scaled_sum`), ordinary sums are not changed.

    Two means measure nothing, and both warn (``UndefinedMetricWarning``, pointing
    at the user's call): no query left to average (all skipped, or weight 0:
    the mean is NaN), and, given the kernel's ``per_query``, every query undefined
    in every tie order while the policy replaced them by a number (the mean is
    then that number, 0.0 under the default policy, whatever the ranking).
    ``nothing_left``: why no query is left, in the caller's terms, for the first
    warning (by default it speaks of relevant rows).
    """
    uniform = uniform_weights(weights)
    if total:  # nothing is skipped: a count is defined for every query
        if uniform:
            return float(np.sum(values))
        return float(np.sum(values * weights))  # an elementwise product: no BLAS threads
    if skipped.any():
        kept = ~skipped
        values = values[kept]
        weights = weights[: len(values)] if uniform else weights[kept]  # still a broadcast 1
    weighted_sum, weight, terms = _weighted_sum(values, weights, uniform)
    if math.isnan(weighted_sum):
        return math.nan
    if math.isinf(weighted_sum) and weight > 0:  # the sum overflowed, the mean need not
        weighted_sum, weight = mean_of_scaled_sum(scaled_sum(terms), weight), 1.0
    if weight == 0:
        warn_no_query_left(nothing_left)
        return math.nan
    if per_query is not None:
        warn_if_nothing_defined(per_query, weighted_sum / weight)
    return weighted_sum / weight


def _weighted_sum(
    values: np.ndarray, weights: np.ndarray, uniform: bool
) -> tuple[float, float, np.ndarray]:
    """``sum(w * v)``, ``sum(w)`` and the terms ``w * v`` (weights rescaled alike).

    An overflowing sum is returned as ``inf``, for :func:`weighted_mean` to form
    again from the terms.
    """
    if uniform or not len(weights):
        weight = float(len(weights))
        with np.errstate(over="ignore"):  # thread-local; an overflow is handled after
            return (float(np.sum(values)) if weight else 0.0), weight, values
    if weights.max() > 0:
        # rescale by an exact power of two: weights near the largest float would
        # overflow in the sums, denormal ones lose their digits in the products
        weights = np.ldexp(weights, -int(np.frexp(weights.max())[1]))
    # an elementwise product and sum, not np.dot: BLAS would start threads for it
    terms = values * weights  # |w| <= 1 after the scaling: no overflow
    with np.errstate(over="ignore"):  # thread-local; an overflow is handled after
        return float(np.sum(terms)), float(weights.sum()), terms


# Sums of per-query values that overflow float64 are formed again scaled by this
# exact power of two: a finite term (< 2**1024) then contributes < 2**512, so the
# sum of fewer than 2**511 of them is finite; terms below 2**-510 (which vanish in
# the scaling) are far below the last digit of a sum that overflowed.
OVERFLOW_SCALE = 512


def scaled_sum(values: np.ndarray, weights: np.ndarray | None = None) -> float:
    """``sum(weights * values) * 2**-OVERFLOW_SCALE``: finite whenever the values
    are (and the weights below ``2**512``), even where ``weights * values`` is not.

    For sums that overflow (only: the scaling loses the digits of terms below
    ``2**-510``); partial sums of it add (the Dask partitions), and
    :func:`mean_of_scaled_sum` turns it into the mean.
    """
    scaled = np.ldexp(values, -OVERFLOW_SCALE)
    return float(np.sum(scaled if weights is None else scaled * weights))


def mean_of_scaled_sum(scaled: float, total: float) -> float:
    """``sum / total`` from ``scaled = sum * 2**-OVERFLOW_SCALE`` (:func:`scaled_sum`).

    The mean of finite values is finite, so rounding is not allowed to carry it
    past the largest float: :math:`\\bar v = 2^{512} \\, \\min(|s / W|, 2^{-512}
    \\max)`, with the sign of :math:`s / W`. A NaN or infinite ``scaled`` (a value
    that was NaN or inf itself) is returned as its own mean.
    """
    quotient = scaled / total
    if not math.isfinite(quotient):
        return quotient
    limit = math.ldexp(float(np.finfo(np.float64).max), -OVERFLOW_SCALE)
    return math.ldexp(min(max(quotient, -limit), limit), OVERFLOW_SCALE)


def warn_if_nothing_defined(per_query: PerQuery, mean: float) -> None:
    """Warn when every query is undefined in every tie order and ``mean`` is a number.

    For :func:`weighted_mean` and the callers that form their own means from the
    per-query values (the streaming evaluator, :func:`compare`, the displays).
    The warning names the caller (see ``_caller``).
    """
    if not math.isnan(mean) and _nothing_defined(per_query):
        _warn_every_query_undefined(per_query, mean)


def _nothing_defined(per_query: PerQuery) -> bool:
    """Every query is undefined in every tie order (and there is at least one)."""
    share = np.asarray(per_query.undefined)
    if share.dtype != bool:
        share = share.astype(np.float64) >= 1
    return bool(len(share)) and bool(share.all())


def warn_no_query_left(why: str | None = None) -> None:
    """The warning of a mean with no query left to average (the mean is NaN);
    ``why``: the reason in the caller's terms, else one about relevant rows."""
    message = (
        f"{caller_name()}: no query is left to average (all were skipped or have weight "
        "0); returning nan. If replace_undefined_by='skip' left out every query, none "
        "has a relevant row: check relevance_level against your labels."
        if why is None
        else f"{caller_name()}: no query is left to average: {why}; returning nan."
    )
    warn_at_caller(message, undefined_metric_warning())


def _warn_every_query_undefined(per_query: PerQuery, mean: float) -> None:
    warn_every_query_undefined(len(per_query.values), per_query.description, mean)


def warn_every_query_undefined(n_queries: int, description: str, mean: float) -> None:
    """The warning of a mean over ``n_queries`` queries that are all undefined
    (``description``: why) in every tie order, so that ``mean`` measures nothing."""
    warn_at_caller(
        f"{caller_name()} is undefined for every one of the {n_queries} queries "
        f"({description}), so the mean {mean:g} is only the value "
        "replace_undefined_by gives an undefined query, not a measurement of the "
        "ranking. Check relevance_level against your labels (a row is relevant when "
        "y_true > 0, or y_true >= relevance_level when it is set), or pass "
        "replace_undefined_by=nan, 'skip' or 'raise' to be told without a number.",
        undefined_metric_warning(),
    )


def aggregate(
    per_query: PerQuery,
    ranked: RankedGroups,
    replace_undefined_by: float | str,
) -> float:
    """The weighted mean of the per-query values under the undefined-query policy."""
    values, weights, skipped = apply_policy(per_query, ranked, replace_undefined_by)
    return weighted_mean(values, weights, skipped, per_query.total, per_query)
