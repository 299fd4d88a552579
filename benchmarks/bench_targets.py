"""The speed and memory targets of the engine, every shape, in one run.

For each shape (rows, contiguous or shuffled query ids, tie-free float64 scores,
float64 scores rounded to 3 decimals (the issue's tied shape), about 30 % tied
float64 scores or float32 scores, integer or float labels) it times, in interleaved
rounds, one ``np.argsort`` of the scores, ``ndcg_score(k=10)`` (ties="input" and
"average") and the ten-metric ``evaluate``, and reports medians as multiples of the
argsort of the same round (CPU time of this process). 10M one-row queries are a
shape of their own. Peak extra memory is measured with ``tracemalloc`` in a fresh
process per (shape, call), in bytes per row. Each target is checked and marked.

    python benchmarks/bench_targets.py                 # 1M and 10M rows; writes TARGETS-<level>.md
    python benchmarks/bench_targets.py --rows 1000000  # one size only
    python benchmarks/bench_targets.py --quick         # 100k rows, prints only
    python benchmarks/bench_targets.py --scores "float64 3 decimals" --no-one-row

The file name carries NumPy's SIMD dispatch level (``machine.dispatch_level``); run
with ``NPY_DISABLE_CPU_FEATURES`` to measure a lower level on the same machine
(``NPY_DISABLE_CPU_FEATURES="AVX512_ICL X86_V4"`` for AVX2 on an AVX-512 CPU); the
command written in the file carries that variable.

The last table holds the target "faster than XGBoost's and LightGBM's own metrics":
for the 1M-row shapes with integer labels, ``ndcg@10``, and each booster's own set of
metrics (those of ``bench_peers.py``'s ten it has) against ours computing the same set
in one ``evaluate`` (at our defaults, and with the booster's convention, which gives
its numbers), from the same flat arrays. The boosters' calls include what they
need (rows grouped by query, the ``DMatrix``/``Dataset``), through the adapters of
``bench_peers.py``. Wall time, as the boosters run on every core
(``OMP_WAIT_POLICY=PASSIVE``) and ours on one (``--no-boosters``: skip the table; it
needs the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from machine import dispatch_level, machine_lines

HERE = Path(__file__).resolve().parent
TEN_METRICS = ["ndcg@10", "map", "mrr@10", "p@10", "recall@10", "err@10", "dcg@10",
               "hit_rate@10", "f1@10", "gauc"]
ROWS_PER_QUERY = 100
# targets of the speed issue: (what, limit)
SINGLE_SHUFFLED, SINGLE_CONTIGUOUS, EVALUATE = 1.0, 0.6, 2.0
AVERAGE_OVER_INPUT = 1.2
ONE_ROW_SINGLE, ONE_ROW_EVALUATE = 1.5, 4.0
BYTES_PER_ROW = 64.0


@dataclass(frozen=True)
class Shape:
    rows: int
    ids: str  # "shuffled", "contiguous" or "one-row"
    scores: str  # "float64", "float64 30% tied", "float64 3 decimals" or "float32"
    labels: str  # "int" or "float"

    @property
    def name(self) -> str:
        return f"{self.rows:,} rows, {self.ids} ids, {self.scores} scores, {self.labels} labels"


def make_data(shape: Shape, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = shape.rows
    labels = rng.integers(0, 5, n)
    y_true = labels if shape.labels == "int" else labels.astype(np.float64)
    n_queries = max(n // ROWS_PER_QUERY, 1)
    if shape.ids == "one-row":
        group = rng.permutation(n)
    else:
        group = rng.integers(0, n_queries, n)
        if shape.ids == "contiguous":
            group = np.sort(group)
    if shape.scores == "float64 30% tied":
        # 120 values per query of 100 rows: about 32 % of the rows tie an earlier row
        # of their query; each query has its own values, as when a model scores equal
        # features alike (120 values in all would make the argsort itself 3x faster)
        y_score = rng.random(n_queries)[group % n_queries] + rng.integers(0, 120, n) / 120.0
    elif shape.scores == "float64 3 decimals":
        # the shape: model scores rounded to 3 decimals (1,000 values in all),
        # so about 5 % of the rows tie an earlier row of their query
        y_score = np.round(rng.random(n), 3)
    else:
        y_score = rng.random(n)
        if shape.scores == "float32":
            y_score = y_score.astype(np.float32)
    return y_true, y_score, group


def calls(y_true, y_score, group) -> dict:
    import sklearn_rank_metrics as srm

    return {
        "argsort": lambda: np.argsort(y_score),
        # the physical floor: reading every input once
        "one pass": lambda: (np.sum(y_true), np.sum(y_score), np.sum(group)),
        "ndcg@10 input": lambda: srm.ndcg_score(y_true, y_score, group, k=10, ties="input"),
        "ndcg@10 average": lambda: srm.ndcg_score(y_true, y_score, group, k=10),
        "evaluate": lambda: srm.evaluate(y_true, y_score, group, metrics=TEN_METRICS),
    }


def time_shape(shape: Shape, rounds: int) -> dict[str, float]:
    """Median CPU seconds of every call, and each as a multiple of that round's argsort."""
    todo = calls(*make_data(shape))
    seconds: dict[str, list[float]] = {name: [] for name in todo}
    ratios: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(rounds):
        this_round = {}
        for name, call in todo.items():
            start = time.process_time()
            call()
            this_round[name] = time.process_time() - start
            seconds[name].append(this_round[name])
        for name in todo:
            ratios[name].append(this_round[name] / this_round["argsort"])
    out = {f"{name} s": float(np.median(values)) for name, values in seconds.items()}
    out.update({name: float(np.median(values)) for name, values in ratios.items()})
    return out


def memory_child(spec: str) -> None:
    """In a fresh process: peak tracemalloc bytes per row of one call."""
    import tracemalloc

    shape_fields, call_name = json.loads(spec)
    shape = Shape(**shape_fields)
    todo = calls(*make_data(shape))
    warnings.simplefilter("ignore")
    tracemalloc.start()
    todo[call_name]()
    _, peak = tracemalloc.get_traced_memory()
    print(peak / shape.rows)


def memory(shape: Shape, call_name: str) -> float:
    spec = json.dumps([shape.__dict__, call_name])
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", spec],
        capture_output=True, text=True, check=True, env=os.environ.copy(),
    )
    return float(done.stdout.strip().splitlines()[-1])


def small_inputs() -> list[str]:
    """Fixed cost per call: ``ndcg_score`` against scikit-learn's on the same 2-D data."""
    rng = np.random.default_rng(0)
    lines = ["", "| small input (2-D, k=10) | scikit-learn `ndcg_score` | ours, 2-D | "
             "ours, flat with ids | `np.argsort` |", "|---|---|---|---|---|"]
    for n_queries, n_docs in ((1, 100), (10, 100), (1, 1000)):
        best = _small_input_seconds(
            rng.integers(0, 5, (n_queries, n_docs)).astype(float),
            rng.random((n_queries, n_docs)),
        )
        lines.append(
            f"| {n_queries} × {n_docs} rows | {best['sklearn'] * 1e3:.2f} ms | "
            f"{best['2-D'] * 1e3:.2f} ms | {best['flat'] * 1e3:.2f} ms | "
            f"{best['argsort'] * 1e6:.0f} µs |"
        )
    return lines


def _small_input_seconds(y_true: np.ndarray, y_score: np.ndarray) -> dict[str, float]:
    import timeit

    import sklearn.metrics

    import sklearn_rank_metrics as srm

    group = np.repeat(np.arange(y_true.shape[0]), y_true.shape[1])
    candidates = {
        "sklearn": lambda: sklearn.metrics.ndcg_score(y_true, y_score, k=10),
        "2-D": lambda: srm.ndcg_score(y_true, y_score, k=10),
        "flat": lambda: srm.ndcg_score(y_true.ravel(), y_score.ravel(), group, k=10),
        "argsort": lambda: np.argsort(y_score.ravel()),
    }
    return {
        name: min(timeit.repeat(call, number=50, repeat=7)) / 50
        for name, call in candidates.items()
    }


SCORE_KINDS = ("float64", "float64 3 decimals", "float64 30% tied", "float32")


def shapes_of(rows: int, score_kinds: list[str]) -> list[Shape]:
    return [
        Shape(rows, ids, scores, labels)
        for ids in ("shuffled", "contiguous")
        for scores in score_kinds
        for labels in ("int", "float")
    ]


def command_line() -> str:
    """The command that produced this run, with the dispatch limit if one is set."""
    limit = os.environ.get("NPY_DISABLE_CPU_FEATURES")
    prefix = f'NPY_DISABLE_CPU_FEATURES="{limit}" ' if limit else ""
    return f"{prefix}python benchmarks/bench_targets.py {' '.join(sys.argv[1:])}".rstrip()


def mark(value: float, limit: float) -> str:
    return f"{value:.2f}× {'✓' if value <= limit else '✗'}"


def booster_lines(rows: int, score_kinds: list[str], rounds: int) -> list[str]:
    """Ours against XGBoost's and LightGBM's own metrics, wall time, as one table.

    Like against like: ``ndcg@10`` on both sides, then each booster's own metric set
    (those of ``bench_peers``' ten it has) against ours computing the same metrics in
    one ``evaluate``.
    """
    from peers.data import TEN_METRICS as PEER_METRICS
    from peers.data import Data
    from peers.impls import IMPL_BY_KEY
    from peers.names import peer_metrics

    import sklearn_rank_metrics as srm

    boosters = ("xgboost", "lightgbm")
    subsets = {key: peer_metrics(key, PEER_METRICS) for key in boosters}
    lines = [
        "",
        f"Ours against the boosters' own metrics ({rows:,} rows, int labels; wall time, median "
        f"of {rounds} interleaved rounds; ours on one thread, XGBoost and LightGBM on every "
        "core; their calls group the rows by query and build their DMatrix/Dataset, as in "
        "`bench_peers.py`; each ratio is ours / theirs for the same metrics, and must be "
        "below 1: ours at our defaults (ties averaged over their orders, as scikit-learn's "
        "ndcg_score does), then ours with the booster's convention, which gives its "
        "numbers). XGBoost's set: " + ", ".join(subsets["xgboost"]) + " (two DMatrix and "
        "evaluations: XGBoost refuses map on graded labels, so map and p@10 read binary "
        "ones); LightGBM's: " + ", ".join(subsets["lightgbm"]) + ". The boosters' rows are "
        "grouped by a stable radix sort of the query ids (`peers.data.rows_by_query`).",
        "",
        "| shape | ndcg@10: ours, XGBoost, LightGBM | ours / faster | XGBoost's set: ours, "
        "ours with its convention, XGBoost | ours / XGBoost | LightGBM's set: ours, ours "
        "with its convention, LightGBM | ours / LightGBM |",
        "|---|---|---|---|---|---|---|",
    ]
    for ids in ("shuffled", "contiguous"):
        for scores in score_kinds:
            shape = Shape(rows, ids, scores, "int")
            y_true, y_score, group = make_data(shape)
            data = Data(None, rows, len(np.unique(group)), y_true, y_score, group)  # type: ignore[arg-type]
            todo = {
                "ours ndcg@10": IMPL_BY_KEY["ours"].prepare("ndcg@10", data),
                **{f"{key} ndcg@10": IMPL_BY_KEY[key].prepare("ndcg@10", data) for key in boosters},
                **{f"{key} set": IMPL_BY_KEY[key].prepare("evaluate", data) for key in boosters},
                **{
                    f"ours {key} set": partial(
                        srm.evaluate, y_true, y_score, group, metrics=subsets[key]
                    )
                    for key in boosters
                },
                # the booster's own numbers (its tie order instead of the expectation)
                **{
                    f"ours {key} set convention": partial(
                        srm.evaluate, y_true, y_score, group, metrics=subsets[key],
                        convention=key,
                    )
                    for key in boosters
                },
            }
            seconds: dict[str, list[float]] = {name: [] for name in todo}
            names = list(todo)
            for round_index in range(rounds):
                shift = round_index % len(names)
                for name in names[shift:] + names[:shift]:
                    start = time.perf_counter()
                    todo[name]()
                    seconds[name].append(time.perf_counter() - start)
            ms = {name: float(np.median(values)) * 1e3 for name, values in seconds.items()}
            faster = min(ms["xgboost ndcg@10"], ms["lightgbm ndcg@10"])
            cells = [
                shape.name,
                ", ".join(f"{ms[f'{who} ndcg@10']:.0f} ms" for who in ("ours", *boosters)),
                mark(ms["ours ndcg@10"] / faster, 1.0),
            ]
            for key in boosters:
                ours, theirs = ms[f"ours {key} set"], ms[f"{key} set"]
                with_convention = ms[f"ours {key} set convention"]
                cells.append(f"{ours:.0f} ms, {with_convention:.0f} ms, {theirs:.0f} ms")
                cells.append(f"{mark(ours / theirs, 1.0)}, {mark(with_convention / theirs, 1.0)}")
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return lines


def one_row_lines(rows: int, rounds: int) -> list[str]:
    """The one-row-per-query shape: its ratios and memory, as one paragraph."""
    one_row = Shape(rows, "one-row", "float64", "float")
    result = time_shape(one_row, max(rounds - 2, 1))
    peaks = [memory(one_row, "ndcg@10 average"), memory(one_row, "evaluate")]
    single = mark(result["ndcg@10 average"], ONE_ROW_SINGLE)
    return [
        "",
        f"One-row queries ({one_row.rows:,} rows, shuffled ids): argsort "
        f"{result['argsort s'] * 1e3:.0f} ms; ndcg@10 {single} "
        f"(≤ {ONE_ROW_SINGLE}); evaluate {mark(result['evaluate'], ONE_ROW_EVALUATE)} "
        f"(≤ {ONE_ROW_EVALUATE}); memory ndcg {peaks[0]:.0f} B/row, evaluate {peaks[1]:.0f} "
        f"B/row (≤ {BYTES_PER_ROW:g}).",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[1_000_000, 10_000_000])
    parser.add_argument("--one-row", type=int, default=10_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--scores", nargs="*", choices=SCORE_KINDS, default=list(SCORE_KINDS),
        help="score kinds to time (default: all)",
    )
    parser.add_argument("--no-one-row", action="store_true", help="skip the one-row shape")
    parser.add_argument(
        "--no-boosters", action="store_true", help="skip the table of the boosters' own metrics"
    )
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    warnings.simplefilter("ignore")  # gauc on one-row queries: nothing to average
    if args.quick:
        args.rows, args.one_row, args.rounds = [100_000], 100_000, 3
    started = time.time()
    lines = ["# Speed and memory targets", "", *machine_lines(), ""]
    lines += [
        f"Medians of {args.rounds} interleaved rounds (CPU time), as multiples of one "
        "`np.argsort` of the same scores in the same round; queries of about "
        f"{ROWS_PER_QUERY} rows. Memory: peak `tracemalloc` bytes per row in a fresh "
        f"process. ✓ meets the target, ✗ misses it. Command: `{command_line()}`.",
        "",
        "| shape | argsort | one pass over the inputs "
        f"| ndcg@10 (≤ {SINGLE_SHUFFLED} shuffled, ≤ {SINGLE_CONTIGUOUS} contiguous) "
        f"| evaluate, 10 metrics (≤ {EVALUATE}) | average / input "
        f"(≤ {AVERAGE_OVER_INPUT}) | memory ndcg, evaluate (≤ {BYTES_PER_ROW:g} B/row) |",
        "|---|---|---|---|---|---|---|",
    ]
    for rows in args.rows:
        for shape in shapes_of(rows, args.scores):
            result = time_shape(shape, args.rounds)
            limit = SINGLE_SHUFFLED if shape.ids == "shuffled" else SINGLE_CONTIGUOUS
            single = max(result["ndcg@10 input"], result["ndcg@10 average"])
            average = result["ndcg@10 average s"] / result["ndcg@10 input s"]
            peaks = [memory(shape, "ndcg@10 average"), memory(shape, "evaluate")]
            lines.append(
                f"| {shape.name} | {result['argsort s'] * 1e3:.0f} ms | "
                f"{result['one pass']:.2f}× | {mark(single, limit)} "
                f"| {mark(result['evaluate'], EVALUATE)} | {mark(average, AVERAGE_OVER_INPUT)} | "
                + ", ".join(f"{p:.0f} {'✓' if p <= BYTES_PER_ROW else '✗'}" for p in peaks)
                + " |"
            )
            print(lines[-1], flush=True)
    lines += [] if args.no_one_row else one_row_lines(args.one_row, args.rounds)
    if not args.no_boosters:
        lines += booster_lines(min(args.rows), args.scores, args.rounds)
    lines += [
        *small_inputs(),
        "",
        f"Run time {time.time() - started:.0f} s.",
    ]
    print("\n".join(lines[-10:]))
    text = "\n".join(lines) + "\n"
    if not args.quick:
        output = args.output or HERE / f"TARGETS-{dispatch_level()}.md"
        output.write_text(text)
        print(f"wrote {output}")


if __name__ == "__main__":
    main()
