"""Do threads pay on this machine? Query chunks sorted and scored on a thread pool.

The rows are split into chunks of whole queries (by query id range: chunk ``c``
holds the ids of the ``c``-th quantile); each chunk's per-query values are computed
on its own thread (NumPy releases the GIL inside sorts, gathers and most ufunc
loops) and concatenated in id order, so every value is the single-thread value, bit
for bit (checked here). "2 chunks, 1 thread" runs the chunks one after the other:
the cost of the split apart from the threads. Wall-clock time (``perf_counter``),
medians of interleaved rounds, split included; the load average is printed, since
other processes take cores from the threads.

    python benchmarks/bench_threads.py [--rows 1000000] [--rounds 5]
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from bench_targets import TEN_METRICS, Shape, make_data
from machine import machine_lines
from options import option_parser  # benchmarks/options.py

import sklearn_rank_metrics as srm


def split_by_query(y_true, y_score, group, n_chunks):
    """Rows of each chunk of whole queries (dense integer ids split at quantiles of
    the id range), in input order: slices when the ids are sorted, else gathers."""
    if n_chunks == 1:
        return [(y_true, y_score, group)]
    low, high = int(group.min()), int(group.max()) + 1
    bounds = low + (high - low) * np.arange(1, n_chunks) // n_chunks
    if np.all(group[1:] >= group[:-1]):  # contiguous: views, no copy
        cuts = [0, *np.searchsorted(group, bounds).tolist(), len(group)]
        pairs = zip(cuts[:-1], cuts[1:], strict=True)
        return [(y_true[a:b], y_score[a:b], group[a:b]) for a, b in pairs]
    chunk = np.searchsorted(bounds, group, side="right")
    parts = []
    for c in range(n_chunks):
        rows = np.flatnonzero(chunk == c)
        parts.append((y_true[rows], y_score[rows], group[rows]))
    return parts


def per_query(data, metrics, n_threads, pool, n_chunks=None):
    """Per-query values of ``metrics``: ``n_chunks`` (default ``n_threads``) chunks on
    ``n_threads`` threads."""

    def one(part):
        table = srm.evaluate(*part, metrics=metrics, per_query=True)
        return {name: np.asarray(table[name]) for name in metrics}

    parts = split_by_query(*data, n_chunks or n_threads)
    results = list(pool.map(one, parts)) if n_threads > 1 else [one(part) for part in parts]
    return {name: np.concatenate([r[name] for r in results]) for name in metrics}


def main() -> None:
    parser = option_parser(__doc__.splitlines()[0], rows=1_000_000, rounds=5)
    args = parser.parse_args()
    print("\n".join(machine_lines()))
    print(f"load average before: {os.getloadavg()}")
    # "1x2": two chunks one after the other on one thread (the cost of the split)
    threads: list = [1, "1x2", 2] + ([4] if (os.cpu_count() or 1) >= 4 else [])
    pool = ThreadPoolExecutor(max(n for n in threads if isinstance(n, int)))
    cases = {
        (kind, ids, name): (make_data(Shape(args.rows, ids, kind, "int")), metrics)
        for kind in ("float64", "float64 3 decimals")
        for ids in ("shuffled", "contiguous")
        for name, metrics in (("ndcg@10", ["ndcg@10"]), ("evaluate", TEN_METRICS))
    }
    times = {(case, n): [] for case in cases for n in threads}
    for _ in range(args.rounds):
        for case, (data, metrics) in cases.items():
            reference = None
            for n in threads:
                start = time.perf_counter()
                values = (
                    per_query(data, metrics, 1, pool, 2) if n == "1x2"
                    else per_query(data, metrics, n, pool)
                )
                times[(case, n)].append(time.perf_counter() - start)
                if reference is None:
                    reference = values
                assert all(values[m].tobytes() == reference[m].tobytes() for m in metrics)
    print(f"load average after: {os.getloadavg()}")
    print(f"\n{args.rows:,} rows, queries of about 100 rows, int labels; wall ms, median of "
          f"{args.rounds} interleaved rounds; values identical for every thread count\n")
    names = {1: "1 thread", "1x2": "2 chunks, 1 thread", 2: "2 threads", 4: "4 threads"}
    print("| scores, ids, call | " + " | ".join(names[n] for n in threads)
          + " | speed-up (1 / most threads) |")
    print("|---|" + "---|" * (len(threads) + 1))
    for case in cases:
        medians = [float(np.median(times[(case, n)])) for n in threads]
        print(f"| {', '.join(case)} | " + " | ".join(f"{m * 1e3:.0f}" for m in medians)
              + f" | {medians[0] / medians[-1]:.2f}× |")


if __name__ == "__main__":
    main()
