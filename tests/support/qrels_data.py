"""Flat (qrels + run) test data shared by the trec_eval and ranx cross-checks, and
their ``Case``.

``synthetic()``: seeded queries of 1..30 rows with graded labels 0..4, some rows not
returned (``-inf``), special queries (one relevant row, none, all relevant, ...),
tie-free scores exact in float32 and tied ones. ``lambdarank_data()``: the real
sample (``tests/support/lambdarank.py``) scored by a Ridge fitted on its training split.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from sklearn.linear_model import Ridge

from tests.support import lambdarank


@dataclass(frozen=True)
class Flat:
    """Flat rows: label, score for the tool (``-inf``: not returned), query and doc ids."""

    y: np.ndarray
    score: np.ndarray
    tied_score: np.ndarray
    group: np.ndarray
    doc: np.ndarray


@dataclass(frozen=True)
class Case:
    """One cross-check case: our input (in our row order) and the tool's values on it.

    ``tool``: trec_eval's per-query values ``{query: {measure: value}}``, or ranx's
    ``{metric: {query: value}}``. ``n_qrels_queries`` (trec_eval): the queries of the
    qrels; ``means`` (ranx): its means ``{metric: value}``.
    """

    y: np.ndarray
    score: np.ndarray
    group: np.ndarray
    params: dict  # our keyword arguments for the setting
    tool: dict
    n_qrels_queries: int | None = None
    means: dict | None = None


def _doc_ids(rng, sizes):
    """Document ids unique within each query, whose byte order is not numeric order."""
    return np.concatenate(
        [[f"d{n}" for n in rng.choice(1000, size, replace=False)] for size in sizes]
    )


def _tied_scores(rng, n):
    """Scores with many ties, half of them broken only beyond single precision."""
    tied = (rng.integers(0, 4, size=n) + 1) / 4.0
    jitter = rng.choice([0.0, 1e-10, 2e-10], size=n)  # equal once cast to float32
    return tied + jitter


@cache
def synthetic(seed=0, n_queries=150):
    """Graded labels 0..4, sizes 1..30, about 15 % unretrieved rows, special queries.

    Query 0: one relevant row. 1: one non-relevant row. 2: no relevant row.
    3: every row relevant. 4: relevant only at grade 1. 5: its relevant rows are
    all unretrieved. Every query returns at least one row.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 31, size=n_queries)
    sizes[:6] = [1, 1, 6, 5, 8, 5]
    qid = np.repeat(np.arange(n_queries), sizes)
    n = qid.size
    y = rng.choice(5, size=n, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(float)
    y[qid == 0] = 3.0
    y[qid == 1] = 0.0
    y[qid == 2] = 0.0
    y[qid == 3] = rng.integers(1, 5, size=5)
    y[qid == 4] = [0, 1, 0, 1, 0, 0, 1, 0]
    y[qid == 5] = [0, 2, 0, 1, 0]
    unretrieved = rng.random(n) < 0.15
    unretrieved[np.cumsum(sizes) - sizes] = False
    unretrieved[qid == 5] = y[qid == 5] > 0
    score = rng.choice(2**22, size=n, replace=False) / 2**22  # distinct, exact in float32
    tied = _tied_scores(rng, n)
    group = np.array([f"q{q:03d}" for q in qid])
    return Flat(
        y,
        np.where(unretrieved, -np.inf, score),
        np.where(unretrieved, -np.inf, tied),
        group,
        _doc_ids(rng, sizes),
    )


@cache
def lambdarank_data(top=None):
    """The real test sample scored by a Ridge model fitted on the training sample.

    ``top``: only the ``top`` best-scored rows of each query are returned (a
    truncated run); the others are unretrieved. The tied scores are the Ridge scores
    rounded to one decimal (many tie blocks that mix labels).
    """
    X, y, qid, sizes = lambdarank.load("test")
    X_train, y_train, _, _ = lambdarank.load("train")
    score = Ridge(alpha=1.0).fit(X_train, y_train).predict(X)
    assert len(np.unique(np.column_stack([qid, score.astype(np.float32)]), axis=0)) == len(y)
    tied = np.round(score, 1)
    if top is not None:
        order = np.lexsort((-score, qid))
        rank = np.empty(len(y), dtype=np.intp)
        rank[order] = np.arange(len(y)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        score = np.where(rank < top, score, -np.inf)
        tied = np.where(rank < top, tied, -np.inf)
    rng = np.random.default_rng(7)
    group = np.array([f"q{q:03d}" for q in qid])
    return Flat(y, score, tied, group, _doc_ids(rng, sizes))


def dataset(name):
    if name == "synthetic":
        return synthetic()
    return lambdarank_data(10 if name == "lambdarank_top10" else None)
