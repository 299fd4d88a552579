"""Where a call pays: the sort, then each metric's kernel, on one shape of bench_targets.

For each score kind (tie-free, 3 decimals, 30 % tied) and id layout it times, in
interleaved rounds (CPU time, medians), one ``np.argsort`` of the scores, the
validation and sort (``rank_groups``), ``ndcg@10`` alone on a fresh sort, and the
ten metrics of ``evaluate`` one after another on one shared sort (so each metric's
time is what it adds inside ``evaluate``: intermediates it shares with an earlier
metric are already cached). Times are in ms and as multiples of the argsort.

    python benchmarks/profile_kernels.py [--rows 1000000] [--rounds 5]
"""

from __future__ import annotations

import time

import numpy as np
from bench_targets import TEN_METRICS, Shape, make_data
from machine import machine_lines
from options import option_parser  # benchmarks/options.py

from sklearn_rank_metrics._engine._ranked_groups import rank_groups
from sklearn_rank_metrics._metrics._evaluate import _metric_detail, _ranked_metrics
from sklearn_rank_metrics._metrics._settings import Settings


def one_round(y_true, y_score, group) -> dict[str, float]:
    """CPU seconds of every step, once."""
    times: dict[str, float] = {}

    def timed(name, call):
        start = time.process_time()
        out = call()
        times[name] = time.process_time() - start
        return out

    timed("argsort", lambda: np.argsort(y_score))
    timed("sort (rank_groups)", lambda: rank_groups(y_true, y_score, group))
    plans = timed(
        "ndcg@10: sort",
        lambda: _ranked_metrics((y_true, y_score, group, None, None), ["ndcg@10"], Settings()),
    )
    timed("ndcg@10: kernel", lambda: _metric_detail(plans["ndcg@10"], True))
    inputs = (y_true, y_score, group, None, None)
    plans = timed("evaluate: sort", lambda: _ranked_metrics(inputs, TEN_METRICS, Settings()))
    for name in TEN_METRICS:
        timed(f"evaluate: {name}", lambda name=name: _metric_detail(plans[name], True))
    return times


def main() -> None:
    parser = option_parser(__doc__.splitlines()[0], rows=1_000_000, rounds=5)
    args = parser.parse_args()
    print("\n".join(machine_lines()))
    kinds = ("float64", "float64 3 decimals", "float64 30% tied")
    shapes = [Shape(args.rows, ids, kind, "int") for ids in ("shuffled", "contiguous")
              for kind in kinds]
    data = {shape: make_data(shape) for shape in shapes}
    rounds: dict[Shape, list[dict[str, float]]] = {shape: [] for shape in shapes}
    for _ in range(args.rounds):
        for shape in shapes:
            rounds[shape].append(one_round(*data[shape]))
    steps = list(rounds[shapes[0]][0])
    print(f"\n{args.rows:,} rows, int labels 0-4; CPU ms (median of {args.rounds} interleaved "
          "rounds), and / argsort of the same round\n")
    print("| step | " + " | ".join(f"{s.ids}, {s.scores}" for s in shapes) + " |")
    print("|---|" + "---|" * len(shapes))
    for step in steps:
        cells = []
        for shape in shapes:
            seconds = [r[step] for r in rounds[shape]]
            ratio = [r[step] / r["argsort"] for r in rounds[shape]]
            cells.append(f"{np.median(seconds) * 1e3:.1f} ({np.median(ratio):.2f}×)")
        print(f"| {step} | " + " | ".join(cells) + " |")
    for shape in shapes:
        total = [sum(r[f"evaluate: {m}"] for m in TEN_METRICS) + r["evaluate: sort"]
                 for r in rounds[shape]]
        print(f"evaluate total, {shape.ids}, {shape.scores}: {np.median(total) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
