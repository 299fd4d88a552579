"""Synthetic learning-to-rank data with a known signal: :func:`make_ranking`."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from .._engine._validation import BOOLEAN, NONE, InstanceOf, Interval, validate_params

_RANDOM_STATE = [
    Interval(int, 0, None),
    InstanceOf(np.random.RandomState, "a numpy RandomState"),
    NONE,
]


@validate_params(
    {
        "n_queries": [Interval(int, 1, None)],
        "docs_per_query": [Interval(int, 1, None), InstanceOf(tuple, "a tuple (low, high)")],
        "n_features": [Interval(int, 1, None)],
        "n_informative": [Interval(int, 1, None)],
        "relevance_levels": [Interval(int, 2, None)],
        "noise": [Interval(float, 0, None)],
        "query_effect": [Interval(float, 0, None)],
        "shuffle": [BOOLEAN],
        "coef": [BOOLEAN],
        "random_state": _RANDOM_STATE,
    }
)
def make_ranking(
    n_queries: int = 100,
    docs_per_query: int | tuple[int, int] = 20,
    n_features: int = 10,
    *,
    n_informative: int = 3,
    relevance_levels: int = 5,
    noise: float = 1.0,
    query_effect: float = 0.5,
    shuffle: bool = False,
    coef: bool = False,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[Any, ...]:
    """Generate queries of documents with graded relevance that depends on the features.

    In the style of :func:`sklearn.datasets.make_classification`: the first
    ``n_informative`` features carry the signal, the others are noise. Each row's
    latent relevance is

    .. math::

        z_i = x_i^\\top w + u_{q(i)} + \\varepsilon_i, \\qquad
        w_j \\sim \\mathcal{U}(0.5, 1.5) \\text{ for } j < n_{informative},\\ 0 \\text{ else},

    with standard normal features :math:`x_i`, a per-query offset
    :math:`u_q \\sim \\mathcal{N}(0, \\text{query\\_effect}^2)` (some queries have
    many relevant documents, some none) and noise
    :math:`\\varepsilon_i \\sim \\mathcal{N}(0, \\text{noise}^2)`. The label is the
    number of thresholds :math:`z_i` exceeds; the ``L - 1`` thresholds are quantiles
    of all :math:`z` chosen so that label :math:`j` has share proportional to
    :math:`2^{-j}` (half the rows are 0, as in LETOR data).

    Scoring the rows by :math:`x^\\top w` (``coef=True`` returns :math:`w`) is the
    best ranking available from the features; the noise sets how far from perfect
    it is.

    Parameters
    ----------
    n_queries : int, default=100
        Number of queries.
    docs_per_query : int or tuple (low, high), default=20
        Rows per query, or the inclusive range the size of each query is drawn from
        uniformly.
    n_features : int, default=10
        Number of features.
    n_informative : int, default=3
        Number of features that carry the signal (the first ones); at most
        ``n_features``.
    relevance_levels : int, default=5
        Number of grades; labels are ``0 .. relevance_levels - 1``.
    noise : float, default=1.0
        Standard deviation of the per-row noise added to the signal.
    query_effect : float, default=0.5
        Standard deviation of the per-query offset of the latent relevance.
    shuffle : bool, default=False
        Interleave the rows of all queries (query ids are then not contiguous).
        Otherwise the rows come query by query.
    coef : bool, default=False
        Also return the weights :math:`w` of the signal.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible output.

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
        Features.
    y : ndarray of shape (n_rows,)
        Graded relevance labels (float64 holding integers).
    group : ndarray of shape (n_rows,)
        Query id of every row, ``0 .. n_queries - 1``.
    coef : ndarray of shape (n_features,)
        The signal's weights; only with ``coef=True``.

    Examples
    --------
    >>> from sklearn_rank_metrics import make_ranking, ndcg_score
    >>> X, y, qid, w = make_ranking(50, 20, 5, coef=True, random_state=0)
    >>> X.shape, y.shape, qid.shape
    ((1000, 5), (1000,), (1000,))
    >>> sorted(set(y.tolist()))
    [0.0, 1.0, 2.0, 3.0, 4.0]
    >>> ndcg_score(y, X @ w, qid, k=10) > ndcg_score(y, -X @ w, qid, k=10)
    True
    """
    if n_informative > n_features:
        raise ValueError(
            f"The 'n_informative' parameter of make_ranking must be at most n_features="
            f"{n_features}. Got {n_informative} instead."
        )
    if isinstance(docs_per_query, tuple):
        low, high = _size_range(docs_per_query)
    else:
        low = high = docs_per_query
    rng = check_random_state(random_state)

    sizes = rng.randint(low, high + 1, size=n_queries)
    group = np.repeat(np.arange(n_queries), sizes)
    n_rows = len(group)
    X = rng.standard_normal((n_rows, n_features))
    weights = np.zeros(n_features)
    weights[:n_informative] = rng.uniform(0.5, 1.5, n_informative)
    offsets = rng.normal(0.0, query_effect, n_queries)
    latent = X @ weights + offsets[group] + rng.normal(0.0, noise, n_rows)

    shares = 2.0 ** -np.arange(relevance_levels)
    upper_share = np.cumsum(shares / shares.sum())[:-1]
    thresholds = np.quantile(latent, upper_share)
    y = np.searchsorted(thresholds, latent, side="right").astype(np.float64)

    if shuffle:
        order = rng.permutation(n_rows)
        X, y, group = X[order], y[order], group[order]
    if coef:
        return X, y, group, weights
    return X, y, group


def _size_range(docs_per_query: tuple) -> tuple[int, int]:
    valid = (
        len(docs_per_query) == 2
        and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in docs_per_query)
        and 1 <= docs_per_query[0] <= docs_per_query[1]
    )
    if not valid:
        raise ValueError(
            "The 'docs_per_query' parameter of make_ranking must be an int >= 1 or a tuple "
            f"(low, high) of ints with 1 <= low <= high. Got {docs_per_query!r} instead."
        )
    return int(docs_per_query[0]), int(docs_per_query[1])
