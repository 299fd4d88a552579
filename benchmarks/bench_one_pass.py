"""``evaluate`` on TREC rows with string document ids under a convention (issue 45).

Run: ``python benchmarks/bench_one_pass.py``; for the figure of another version, run
the same file with that version first on the path, e.g. from a checkout of it:
``PYTHONPATH=. python /path/to/benchmarks/bench_one_pass.py``.

1M rows (5,000 queries of 200 documents, ClueWeb-like ids, scores with ties) read
with ``read_trec``; ``evaluate`` of five metrics under ``convention="ir_measures"``
(three tie orders: ids ascending, descending, run order) and ``"trec_eval"`` (one),
best of 5. Reading the files is not timed.
"""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

import sklearn_rank_metrics as srm

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run from another checkout
from machine import machine_lines  # noqa: E402

N_QUERIES, DOCS, ROUNDS = 5_000, 200, 5
METRICS = ["ndcg@10", "map", "RR@10", "P@10", "R@100"]


def trec_rows() -> object:
    rng = np.random.default_rng(0)
    qrels, run = {}, {}
    for q in range(N_QUERIES):
        docs = [f"clueweb09-en{q:04d}-{d:05d}" for d in range(DOCS)]
        qrels[f"q{q}"] = dict(zip(docs, map(int, rng.integers(0, 3, DOCS)), strict=True))
        run[f"q{q}"] = dict(zip(docs, map(float, rng.integers(0, 50, DOCS)), strict=True))
    return srm.read_trec(qrels, run)


def best_seconds(call) -> float:
    best = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    print("\n".join(machine_lines()))
    print(f"package: {srm.__file__}")
    data = trec_rows()
    for convention in ("ir_measures", "trec_eval"):
        seconds = best_seconds(partial(srm.evaluate, data, metrics=METRICS,
                                       convention=convention))
        print(f"evaluate, convention={convention!r}: {seconds:.3f} s "
              f"({N_QUERIES * DOCS:,} rows, best of {ROUNDS})")


if __name__ == "__main__":
    main()
