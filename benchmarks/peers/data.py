"""The data sets: what is timed (metrics, series, sizes) and the rows themselves.

Also the conversions of the flat rows that several peers share (rows grouped by query,
TREC-style dicts, scikit-learn's padded 2-D form); each is part of the timed call of
the peers that need it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ROWS_PER_QUERY = 100
SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
QUICK_SIZES = (10_000, 100_000)
# the shapes "one query of all rows" and "one-row queries": probe sizes, then the case. A
# projection from the base series to another shape can miss a cost that grows faster with
# the query size (ranx on one query is quadratic), so the probes start small.
SPECIAL_SIZES = (10_000, 100_000, 10_000_000)
METRICS = ("ndcg@10", "map", "mrr@10", "p@10", "gauc", "evaluate")
METRIC_TITLES = {
    "ndcg@10": "NDCG@10",
    "map": "MAP",
    "mrr@10": "MRR@10",
    "p@10": "P@10",
    "gauc": "AUC per query",
    "evaluate": "evaluate, 10 metrics",
}
TEN_METRICS = (
    "ndcg@10",
    "ndcg",
    "map",
    "map@10",
    "mrr@10",
    "p@10",
    "recall@10",
    "hit_rate@10",
    "err@10",
    "gauc",
)
LABEL_PROBABILITIES = (0.5, 0.25, 0.13, 0.08, 0.04)  # labels 0..4
TIED_SHARE = 0.3


@dataclass(frozen=True)
class Series:
    """A family of data sets timed at several sizes."""

    key: str
    title: str
    shape: str  # "queries" (~100 rows each), "one-query" or "one-row"
    tied: bool
    shuffled: bool
    max_call: float  # a peer call projected to take longer than this is skipped ...
    max_call_large: float  # ... or this, above 1M rows


SERIES = (
    Series("base", "tie-free scores, contiguous query ids", "queries", False, False, 25, 8),
    Series("tied", "30% tied scores, contiguous query ids", "queries", True, False, 4, 3),
    Series("shuffled", "tie-free scores, shuffled query ids", "queries", False, True, 4, 3),
    Series("tied-shuffled", "30% tied scores, shuffled query ids", "queries", True, True, 4, 3),
    Series("one-query", "one query holding every row (tie-free)", "one-query", False, False, 8, 4),
    Series("one-row", "one-row queries (tie-free)", "one-row", False, False, 8, 4),
)
SERIES_BY_KEY = {series.key: series for series in SERIES}


@dataclass
class Data:
    """Flat rows of one data set, plus a cache for conversions shared by several calls."""

    series: Series
    n_rows: int
    n_queries: int
    y_true: np.ndarray
    y_score: np.ndarray
    qid: np.ndarray
    cache: dict = field(default_factory=dict)


def _query_ids(series: Series, n_rows: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """The query id of each row for the series' shape, and the number of queries."""
    if series.shape == "queries":
        n_groups = max(1, n_rows // ROWS_PER_QUERY)
        qid = np.sort(rng.integers(0, n_groups, n_rows))
        return qid, int(np.count_nonzero(np.diff(qid))) + 1
    if series.shape == "one-query":
        return np.zeros(n_rows, dtype=np.int64), 1
    return np.arange(n_rows, dtype=np.int64), n_rows


def make_data(series: Series, n_rows: int, seed: int = 0) -> Data:
    """Labels 0..4 (half of them 0), scores correlated with them, integer query ids.

    Tie-free scores are distinct in float64 and float32 (ranks / n_rows), so that the
    value checks against XGBoost (float32 margins) and trec_eval (float32 scores) hold.
    With ``tied``, 30% of the rows get a score rounded to one of nine values, which
    ties them with about three other rows of their query. ``shuffled`` permutes the rows.
    """
    rng = np.random.default_rng([seed, n_rows])
    qid, n_queries = _query_ids(series, n_rows, rng)
    y_true = rng.choice(len(LABEL_PROBABILITIES), n_rows, p=LABEL_PROBABILITIES)
    y_true = y_true.astype(np.float64)
    latent = y_true + rng.normal(0.0, 1.5, n_rows)
    y_score = np.empty(n_rows)
    y_score[np.argsort(latent)] = np.arange(n_rows) / n_rows
    if series.tied:
        tied = rng.random(n_rows) < TIED_SHARE
        y_score[tied] = np.round(y_score[tied] * 8.0) / 8.0
    if series.shuffled:
        order = rng.permutation(n_rows)
        y_true, y_score, qid = y_true[order], y_score[order], qid[order]
    return Data(series, n_rows, n_queries, y_true, y_score, qid)


def _starts(q: np.ndarray) -> np.ndarray:
    """The first row of each query in query ids ``q`` whose queries are contiguous."""
    return np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))


def rows_by_query(data: Data) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(y_true, y_score, qid, sizes)`` with the rows of each query contiguous.

    What the boosters need: rows sorted by query (stable, so tied scores keep their
    input order) and the size of each query. Already grouped ids are not re-sorted.
    """
    y, s, q = data.y_true, data.y_score, data.qid
    if len(q) > 1 and not np.all(q[1:] >= q[:-1]):
        order = _stable_order_of_ids(q)
        y, s, q = y[order], s[order], q[order]
    sizes = np.diff(np.append(_starts(q), len(q)))
    return y, s, q, sizes


def _stable_order_of_ids(q: np.ndarray) -> np.ndarray:
    """``np.argsort(q, kind="stable")``, done the fast way for the boosters' sake.

    Integer ids are grouped by the engine's own least-significant-digit radix sort
    (16-bit digits, each a linear-time stable argsort in NumPy); a stable argsort of
    64-bit ids takes about four times as long at 1M rows. Other ids take the plain
    argsort.
    """
    if q.dtype.kind not in "iu" or not len(q) or int(q.max()) - int(q.min()) >= 1 << 62:
        return np.argsort(q, kind="stable")
    from sklearn_rank_metrics._engine._sorting import _group_rows_stably

    return _group_rows_stably(q.astype(np.int64) - int(q.min()), len(q))
