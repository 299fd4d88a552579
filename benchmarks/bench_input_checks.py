"""Cost of the input checks for arguments in the wrong order (``_engine/_mixups.py``).

Run: ``python benchmarks/bench_input_checks.py``

On 1M rows in queries of 100: the median time of each check alone, then
``ndcg_score(..., k=10)`` with and without them, timed interleaved in one process.
"""

from __future__ import annotations

import time

import numpy as np

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _inputs, _ranked_groups
from sklearn_rank_metrics._engine import _mixups as checks

N_ROWS, QUERY_SIZE, ROUNDS = 1_000_000, 100, 15
SAVED = (_ranked_groups._warn_if_mixed_up, _inputs.refuse_fractional_ids)


def median_ms(call, rounds=ROUNDS):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def enable_checks(enabled):
    if enabled:
        _ranked_groups._warn_if_mixed_up, _inputs.refuse_fractional_ids = SAVED
    else:
        _ranked_groups._warn_if_mixed_up = lambda *args: None
        _inputs.refuse_fractional_ids = lambda ids: None


def main():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(N_ROWS // QUERY_SIZE), QUERY_SIZE)
    y = rng.integers(0, 5, N_ROWS).astype(float)
    scores = rng.random(N_ROWS)
    grades = rng.integers(0, 5, N_ROWS).astype(float)
    float_qid = qid.astype(float)
    ids, sizes = np.unique(qid, return_counts=True)
    alone = {
        "swapped labels/scores, float scores in [0, 1)": lambda: (
            checks.warn_swapped_labels_and_scores(y, scores)
        ),
        "swapped labels/scores, graded scores, integer labels": lambda: (
            checks.warn_swapped_labels_and_scores(y, grades)
        ),
        "sizes repeated per row, ids from 0": lambda: checks.warn_sizes_per_row(ids, sizes),
        "sizes repeated per row, ids from 1": lambda: checks.warn_sizes_per_row(ids + 1, sizes),
        "fractional ids, float ids": lambda: checks.refuse_fractional_ids(float_qid),
    }
    for name, call in alone.items():
        print(f"{name:55s} {median_ms(call):8.3f} ms")
    cases = {
        "int qid, float scores": (qid, scores),
        "float qid, float scores": (float_qid, scores),
        "int qid from 1, graded scores": (qid + 1, grades),
    }
    for name, (group, score) in cases.items():
        times = {True: [], False: []}
        for _ in range(ROUNDS):  # interleaved: both medians see the same machine state
            for enabled in (True, False):
                enable_checks(enabled)
                start = time.perf_counter()
                srm.ndcg_score(y, score, group, k=10)
                times[enabled].append(time.perf_counter() - start)
        enable_checks(True)
        on, off = (float(np.median(times[flag])) * 1e3 for flag in (True, False))
        print(f"ndcg_score@10, {name:33s} with checks {on:6.1f} ms, without {off:6.1f} ms")


if __name__ == "__main__":
    main()
