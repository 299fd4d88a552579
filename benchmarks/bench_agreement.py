"""Speed of the agreement measures (RBO, Kendall's tau-b, tau_AP, overlap@k).

Rows in queries of 100 rows, scores with ties (rounded) and 10% of the rows absent
(``-inf``) from one ranking; the median of interleaved rounds, and the ratio to one
``np.argsort`` of the same scores.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_lines  # noqa: E402

from sklearn_rank_metrics import (  # noqa: E402
    kendall_tau_score,
    overlap_at_k_score,
    rank_biased_overlap,
)


def main(n_rows: int = 1_000_000, rounds: int = 3) -> None:
    for line in machine_lines():
        print(line)
    rng = np.random.default_rng(0)
    group = np.repeat(np.arange(n_rows // 100), 100)
    a = rng.normal(size=n_rows).round(2)
    b = (a + rng.normal(scale=0.5, size=n_rows)).round(2)
    a[rng.random(n_rows) < 0.1] = -np.inf
    b_untied = b + rng.random(n_rows) * 1e-9
    a_untied = np.where(np.isfinite(a), a + rng.random(n_rows) * 1e-9, rng.random(n_rows) - 9)
    calls = {
        "argsort": lambda: np.argsort(a),
        "rbo ext a": lambda: rank_biased_overlap(a, b, group),
        "rbo res b": lambda: rank_biased_overlap(a, b, group, ties="b", bound="res"),
        "tau_b": lambda: kendall_tau_score(a, b, group),
        "tau_ap": lambda: kendall_tau_score(a_untied, b_untied, group, variant="ap"),
        "overlap@10": lambda: overlap_at_k_score(a, b, group, k=10),
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["argsort"])
    print(f"{n_rows} rows, queries of 100 rows; median of {rounds} interleaved rounds")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:12s} {median:8.3f} s  {median / base:6.1f} x argsort")


if __name__ == "__main__":
    main()
