"""Time one metric and a ten-metric ``evaluate`` against one ``np.argsort`` of the scores.

Run: ``python benchmarks/bench_core.py [--rows 1000000] [--queries 10000] [--repeat 5]``

Prints the median wall time of each call and its ratio to ``np.argsort(y_score)``,
timed interleaved (argsort, metric, argsort, metric, ...) in one process.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from options import option_parser  # benchmarks/options.py

from sklearn_rank_metrics import evaluate, ndcg_score

TEN_METRICS = [
    "ndcg@10", "dcg@10", "cg@10", "map", "map@10", "mrr@10", "p@10", "recall@10",
    "hit_rate@10", "gauc",
]


def make_data(n_rows: int, n_queries: int, tie_share: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    group = np.sort(rng.integers(0, n_queries, n_rows))
    y_true = rng.integers(0, 5, n_rows).astype(np.float64)
    y_score = y_true + rng.normal(0.0, 2.0, n_rows)
    if tie_share > 0:
        tied = rng.random(n_rows) < tie_share
        y_score[tied] = np.round(y_score[tied])
    return y_true, y_score, group


def main() -> None:
    parser = option_parser(__doc__, rows=1_000_000, queries=10_000, repeat=5, tie_share=0.0)
    args = parser.parse_args()
    y_true, y_score, group = make_data(args.rows, args.queries, args.tie_share)
    calls = {
        "np.argsort(y_score)": lambda: np.argsort(y_score),
        "ndcg_score(k=10)": lambda: ndcg_score(y_true, y_score, group, k=10),
        "ndcg_score(k=10, ties='input')": lambda: ndcg_score(
            y_true, y_score, group, k=10, ties="input"
        ),
        "evaluate(10 metrics)": lambda: evaluate(y_true, y_score, group, metrics=TEN_METRICS),
    }
    times = {name: [] for name in calls}
    for _ in range(args.repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    baseline = statistics.median(times["np.argsort(y_score)"])
    print(f"{args.rows:,} rows, {args.queries:,} queries, tie share {args.tie_share}")
    print(f"{'call':36s} {'median s':>9s} {'x argsort':>9s}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:36s} {median:9.3f} {median / baseline:9.2f}")


if __name__ == "__main__":
    main()
