"""The fixed data of the registry-wide tests (``tests/metrics/test_common.py``), also
the ``@example`` cases of the property tests (``tests/metrics/test_properties.py``).

Every function is seeded: the same call gives the same rows.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

Data = namedtuple("Data", "y_true y_score group sample_weight")


def make_data(seed=0, n_queries=10, max_docs=9, neg_inf=False):
    """Flat rows of several queries: graded labels 0..3, scores with many ties.

    Query sizes 1..max_docs (the first query has one row), the second query has
    no relevant row, rows of the queries are interleaved, query ids are ints that
    are neither 0-based nor contiguous; ``sample_weight`` is per row, constant
    within each query.  With ``neg_inf`` some rows are unretrieved (-inf).
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, max_docs + 1, size=n_queries)
    sizes[0] = 1
    qid = np.repeat(np.arange(n_queries), sizes)
    n = qid.size
    y_true = rng.integers(0, 4, size=n).astype(float)
    y_true[qid == 1] = 0.0
    y_score = rng.random(n).round(1)
    if neg_inf:
        y_score[rng.random(n) < 0.15] = -np.inf
    query_weight = rng.uniform(0.5, 2.0, size=n_queries)
    order = rng.permutation(n)
    return Data(y_true[order], y_score[order], (10 + 3 * qid)[order], query_weight[qid][order])


def make_2d(seed=0, n_queries=8, n_docs=6):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, size=(n_queries, n_docs)).astype(float)
    y_true[1] = 0.0
    y_score = rng.random((n_queries, n_docs)).round(1)
    return y_true, y_score, rng.uniform(0.5, 2.0, size=n_queries)


def make_ideal(seed=0, n_queries=10, max_docs=9):
    """Every query has a relevant row, scores order the rows by label, no ties."""
    data = make_data(seed, n_queries, max_docs)
    rng = np.random.default_rng(seed)
    y_true = data.y_true.copy()
    for q in np.unique(data.group):
        rows = np.flatnonzero(data.group == q)
        if not (y_true[rows] > 0).any():
            y_true[rows[0]] = 2.0
    jitter = rng.permutation(y_true.size) / (2.0 * y_true.size)  # distinct, < 0.5
    return data._replace(y_true=y_true, y_score=y_true + jitter)


def make_large_tie_blocks(seed, n_rows=25, n_queries=4):
    """Few queries of many rows, scores from four values and -inf: large tie blocks.

    The shape of the largest inputs of the former hypothesis row-order test of
    ``test_common.py`` (25 rows in 4 queries), kept as fixed cases.
    """
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, n_rows).astype(float)
    y_score = rng.choice([-np.inf, 0.0, 0.5, 1.0, 2.5], n_rows)
    group = rng.integers(0, n_queries, n_rows)
    weight = np.array([0.5, 1.0, 2.0, 3.0])[group]
    return Data(y_true, y_score, group, weight)
