"""A short demonstration on synthetic data: ``python -m sklearn_rank_metrics.demo``.

Builds queries whose graded labels depend on a few features, fits a scikit-learn
regressor on some queries, and prints ranking metrics on the other queries for the
model and for a random ranking.
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import GroupShuffleSplit

from . import evaluate

METRICS = ["ndcg@10", "map", "mrr@10", "p@5", "recall@10", "err@10", "gauc"]


def _synthetic_queries(n_queries: int, docs_per_query: int, seed: int):
    """Features, graded labels 0..4 driven by a linear signal plus noise, query ids."""
    rng = np.random.default_rng(seed)
    n_rows = n_queries * docs_per_query
    features = rng.normal(size=(n_rows, 8))
    signal = features[:, :3] @ np.array([1.0, 0.6, 0.3]) + rng.normal(0.0, 0.8, n_rows)
    labels = np.digitize(signal, np.quantile(signal, [0.5, 0.75, 0.9, 0.97]))
    query_ids = np.repeat(np.arange(n_queries), docs_per_query)
    return features, labels.astype(float), query_ids


def main() -> None:
    features, labels, query_ids = _synthetic_queries(n_queries=300, docs_per_query=30, seed=0)
    train, test = next(
        GroupShuffleSplit(test_size=0.3, random_state=0).split(features, labels, query_ids)
    )
    model = GradientBoostingRegressor(n_estimators=100, max_depth=3, random_state=0)
    model.fit(features[train], labels[train])
    rankings = {
        "model": model.predict(features[test]),
        "random": np.random.default_rng(1).random(len(test)),
    }
    n_queries = len(np.unique(query_ids[test]))
    print(f"{n_queries} held-out queries, {len(test)} rows, labels 0..4\n")
    print(f"{'metric':>10s}" + "".join(f"{name:>10s}" for name in rankings))
    results = {
        name: evaluate(labels[test], scores, query_ids[test], metrics=METRICS)
        for name, scores in rankings.items()
    }
    for metric in METRICS:
        print(f"{metric:>10s}" + "".join(f"{results[name][metric]:10.4f}" for name in rankings))


if __name__ == "__main__":
    main()
