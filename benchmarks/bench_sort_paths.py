"""The two sort paths of the engine, end to end, in the same interleaved rounds.

For shuffled query ids the engine sorts ``query | score | row`` keys at once
("one_sort"); the per-query path groups the rows by query first, then sorts each
query's keys ("per_query"). This forces each path in turn (the private
``_sorting._STRATEGY`` switch the tests use) and reports, for every case, the median
of interleaved rounds as a multiple of one ``np.argsort`` of the same scores timed in
the same rounds, after the machine (CPU, NumPy and its SIMD dispatch), and the path
the engine's rule takes here (for large scattered inputs, the one it measured faster:
``_sorting._one_sort_is_faster``).

    python benchmarks/bench_sort_paths.py [--rows 1000000] [--rounds 5]
"""

from __future__ import annotations

import time

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _sorting

TEN_METRICS = ["ndcg@10", "map", "mrr@10", "p@10", "recall@10", "err@10", "dcg@10",
               "hit_rate@10", "f1@10", "gauc"]


def main() -> None:
    parser = option_parser(__doc__.splitlines()[0], rows=1_000_000, rounds=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n_rows, n_queries = args.rows, max(args.rows // 100, 1)
    labels = rng.integers(0, 5, n_rows).astype(float)
    scores = rng.random(n_rows)
    scores32 = scores.astype(np.float32)
    shuffled = rng.integers(0, n_queries, n_rows)
    contiguous = np.sort(shuffled)
    cases = {
        "ndcg@10, shuffled ids": lambda: srm.ndcg_score(labels, scores, shuffled, k=10),
        "ndcg@10, float32, shuffled": lambda: srm.ndcg_score(labels, scores32, shuffled, k=10),
        "evaluate 10 metrics, shuffled": lambda: srm.evaluate(
            labels, scores, shuffled, metrics=TEN_METRICS
        ),
        "ndcg@10, contiguous ids": lambda: srm.ndcg_score(labels, scores, contiguous, k=10),
    }
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for strategy in ("per_query", "one_sort"):
            _sorting._STRATEGY = strategy
            for name, call in {"argsort": lambda: np.argsort(scores), **cases}.items():
                start = time.perf_counter()
                call()
                times.setdefault((strategy, name), []).append(time.perf_counter() - start)
    _sorting._STRATEGY = "auto"
    base = float(np.median(times[("per_query", "argsort")] + times[("one_sort", "argsort")]))
    print("\n".join(machine_lines()))
    print(f"\n{n_rows:,} rows, {n_queries:,} queries of about 100 rows, tie-free scores; "
          f"np.argsort {base * 1e3:.1f} ms; medians of {args.rounds} interleaved rounds\n")
    print("| case | per_query | one_sort | chosen by the rule |")
    print("|---|---|---|---|")
    longest = int(np.bincount(shuffled).max())
    for name in cases:
        # the engine's own rule, with this machine's measurement of the two paths
        chosen = _sorting._choose_strategy(
            n_rows, n_queries, _sorting._bit_width(longest), contiguous="contiguous" in name
        )
        ratios = [float(np.median(times[(s, name)])) / base for s in ("per_query", "one_sort")]
        print(f"| {name} | {ratios[0]:.2f}x | {ratios[1]:.2f}x | {chosen} |")


if __name__ == "__main__":
    main()
