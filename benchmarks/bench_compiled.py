"""Would a compiled sort close the gap? A numba sort by (query, score) against the NumPy one.

The package's one sort (``sort_by_query_then_score``, pure NumPy) is what floors the
missed targets on tied scores at AVX2 dispatch (``TARGETS-notes.md``). This script
measures a numba prototype of the same function (``compiled_sort.py``: stable
counting scatter by query, then a bucket sort of each query's packed keys) before
anyone adds a compiled dependency. numba is NOT a project dependency; install it
into the environment you run this from::

    pip install numba
    python benchmarks/bench_compiled.py --check      # correctness only, about a minute
    python benchmarks/bench_compiled.py              # checks, then 1M-row timings
    python benchmarks/bench_compiled.py --rows 200000 --rounds 3 --output report.md

Checks (always run first; ``--check`` stops after them): the compiled sort, one
thread and parallel on one and two threads, returns exactly the NumPy function's
``order`` and ``tied_rows`` on every shape of ``bench_targets.py`` at 100k rows and
on small cases (``-inf``, ``+0.0``/``-0.0``, all-tied queries, one-row queries, one
query of 70k rows, false ties of the packed keys); then, with the compiled sort
patched into ``rank_groups``, ``ndcg_score(k=10)`` and ``evaluate`` of the ten metrics
give bit-identical values to the unpatched package.

Timings, in interleaved rounds (medians), for 1M rows in queries of about 100 rows,
shuffled and contiguous ids, three score kinds: one ``np.argsort`` of the scores, the
NumPy sort alone, the compiled sort alone (one thread), its parallel variant on one
and two threads, and ``ndcg_score(k=10)`` and the ten-metric ``evaluate`` with either
sort. One-thread rows are CPU time of this process (``time.process_time``), thread
rows wall time, each also as a multiple of the same round's argsort on the same
clock. The sort's inputs (codes, offsets) are prepared outside the timer, exactly as
``rank_groups`` passes them. The first call's JIT compile time is reported apart.
Run with ``NPY_DISABLE_CPU_FEATURES="AVX512_ICL X86_V4"`` to measure NumPy's AVX2
sorts on an AVX-512 CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numba
import numpy as np
from bench_targets import ROWS_PER_QUERY, SCORE_KINDS, TEN_METRICS, Shape, make_data
from compiled_sort import (
    sort_by_query_then_score_compiled,
    sort_by_query_then_score_parallel,
)
from machine import machine_lines

import sklearn_rank_metrics as srm
from sklearn_rank_metrics._engine import _ranked_groups
from sklearn_rank_metrics._engine._sorting import sort_by_query_then_score

CHECK_ROWS = 100_000
TIMED_SCORES = ("float64", "float64 3 decimals", "float64 30% tied")
# after a parallel call the OpenMP workers spin for a while and their CPU time counts
# as this process's: the next CPU-timed call waits this long first (outside timers)
SETTLE_SECONDS = 0.3


# --------------------------------------------------------------------------- helpers


def sort_inputs(y_true, y_score, group) -> tuple:
    """The arguments ``rank_groups`` passes to the sort for these inputs (one call)."""
    captured = []

    def capture(*args):
        captured.append(args)
        return sort_by_query_then_score(*args)

    with patched_sort(capture):
        _ranked_groups.rank_groups(y_true, y_score, group)
    return captured[0]


@contextlib.contextmanager
def patched_sort(function):
    """Use ``function`` as ``rank_groups``'s sort inside the block, then restore it."""
    original = _ranked_groups.sort_by_query_then_score
    _ranked_groups.sort_by_query_then_score = function
    try:
        yield
    finally:
        _ranked_groups.sort_by_query_then_score = original


@contextlib.contextmanager
def numba_threads(count: int):
    """Run the parallel kernel on ``count`` threads inside the block."""
    before = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def thread_counts() -> list[int]:
    """1 and 2 threads, as far as numba may use them."""
    return [count for count in (1, 2) if count <= numba.config.NUMBA_NUM_THREADS]


def same_sort(expected: tuple, got: tuple) -> str | None:
    """None when two sort results are identical, else what differs."""
    order, tied, in_input_order = expected
    if got[0].dtype != order.dtype or not np.array_equal(got[0], order):
        return "order"
    if (tied is None) != (got[1] is None):
        return f"tied_rows: {'None' if tied is None else len(tied)} vs " + (
            "None" if got[1] is None else str(len(got[1]))
        )
    if tied is not None and not np.array_equal(tied, got[1]):
        return "tied_rows"
    if in_input_order != got[2]:
        return "input_order_in_ties"
    return None


# --------------------------------------------------------------------------- checks


def small_cases(seed: int = 0) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """``(name, y_true, y_score, group)`` of the edge cases, group ids shuffled."""
    rng = np.random.default_rng(seed)
    cases = []

    def add(name, scores, group):
        scores = np.asarray(scores, dtype=np.float64)
        cases.append((name, rng.integers(0, 4, len(scores)), scores, np.asarray(group)))

    n = 5_000
    group = rng.integers(0, 300, n)
    scores = np.round(rng.normal(size=n), 1)
    scores[rng.random(n) < 0.1] = -np.inf
    scores[rng.random(n) < 0.05] = np.inf
    add("±inf, 1-decimal ties", scores, group)
    zeros = rng.choice([0.0, -0.0, 1.0, -1.0], n)
    add("+0.0 and -0.0", zeros, group)
    add("all tied in every query", np.full(n, 0.5), group)
    add("all -inf", np.full(n, -np.inf), group)
    add("one-row queries", rng.random(n), rng.permutation(n))
    add("one-row and two-row queries", np.round(rng.random(n), 1), rng.integers(0, n // 2, n))
    big = rng.permutation(np.r_[np.zeros(70_000, int), rng.integers(1, 100, 3_000)])
    add("one query of 70k rows", np.round(rng.random(len(big)), 4), big)
    # scores 1 + k ulp: equal in a key's truncated score field (false ties)
    ulps = 1.0 + rng.integers(0, 1 << 20, len(big)) * np.finfo(np.float64).eps
    add("false ties (1 + k ulp), 70k query", ulps, big)
    add("huge range (±1e308)", rng.choice([1e308, -1e308, 0.0, 5e-324], n), group)
    add("clustered: one outlier per query", np.where(rng.random(n) < 0.02, 1e9, rng.random(n)),
        group)
    add("tiny", [0.5, -np.inf, 0.5, -0.0, 0.0], [2, 2, 7, 7, 7])
    return cases


def compiled_variants() -> list[tuple[str, object, int | None]]:
    """``(name, function, threads)`` of every compiled variant to check."""
    variants = [("compiled", sort_by_query_then_score_compiled, None)]
    variants += [(f"parallel, {count} thread(s)", sort_by_query_then_score_parallel, count)
                 for count in thread_counts()]
    return variants


def run_variant(function, threads, args) -> tuple:
    with numba_threads(threads) if threads else contextlib.nullcontext():
        return function(*args)


def public_values(y_true, y_score, group) -> tuple[float, list]:
    """``ndcg_score(k=10)`` and the ten metrics of ``evaluate``, as returned."""
    ndcg = srm.ndcg_score(y_true, y_score, group, k=10)
    values = srm.evaluate(y_true, y_score, group, metrics=TEN_METRICS)
    return ndcg, [values[name] for name in TEN_METRICS]


def identical_values(expected: tuple[float, list], got: tuple[float, list]) -> bool:
    """Bit-identical floats (NaN equal to NaN: an undefined metric on both sides)."""
    first = np.array([expected[0], *expected[1]], dtype=np.float64)
    second = np.array([got[0], *got[1]], dtype=np.float64)
    return first.tobytes() == second.tobytes()


def run_checks(rows: int) -> list[str]:
    """Every check; markdown lines saying what was checked. Raises on a difference."""
    warnings.simplefilter("ignore")  # gauc on one-row queries: nothing to average
    datasets = [
        (shape.name, *make_data(shape))
        for ids in ("shuffled", "contiguous")
        for kind in SCORE_KINDS
        for shape in [Shape(rows, ids, kind, "int")]
    ]
    for name, y_true, y_score, group in small_cases():
        datasets.append((name, y_true, y_score, group))
        datasets.append((f"{name}, contiguous", y_true, y_score, np.sort(group)))
    failures = []
    n_sorts = n_public = 0
    for name, y_true, y_score, group in datasets:
        args = sort_inputs(y_true, y_score, group)
        expected = sort_by_query_then_score(*args)
        for variant, function, threads in compiled_variants():
            problem = same_sort(expected, run_variant(function, threads, args))
            n_sorts += 1
            if problem:
                failures.append(f"{name}: {variant}: {problem} differs")
        reference = public_values(y_true, y_score, group)
        for variant, function, threads in compiled_variants():
            with patched_sort(function), (
                numba_threads(threads) if threads else contextlib.nullcontext()
            ):
                got = public_values(y_true, y_score, group)
            n_public += 1
            if not identical_values(reference, got):
                failures.append(f"{name}: {variant}: ndcg/evaluate values differ")
    if failures:
        raise AssertionError("\n".join(failures))
    return [
        f"Checks passed: {n_sorts} compiled sorts gave exactly NumPy's `order` and "
        f"`tied_rows` ({len(datasets)} inputs: every `bench_targets` shape at {rows:,} rows "
        "with shuffled and contiguous ids, and small cases with ±inf, ±0.0, all-tied "
        "queries, one-row queries, a 70k-row query and false ties of the packed keys, "
        f"each shuffled and contiguous); in {n_public} patched runs `ndcg_score(k=10)` and "
        "the ten-metric `evaluate` were bit-identical to the unpatched package.",
    ]


# --------------------------------------------------------------------------- timing


def compile_seconds() -> dict[str, float]:
    """Wall seconds of the first call of each kernel (JIT compile) on a tiny input."""
    rng = np.random.default_rng(1)
    group = rng.integers(0, 50, 2_000)
    args = sort_inputs(rng.integers(0, 4, 2_000), rng.random(2_000), group)
    contiguous_args = sort_inputs(rng.integers(0, 4, 2_000), rng.random(2_000), np.sort(group))
    seconds = {}
    for name, function in (("compiled", sort_by_query_then_score_compiled),
                           ("parallel", sort_by_query_then_score_parallel)):
        start = time.perf_counter()
        function(*args)
        function(*contiguous_args)
        seconds[name] = time.perf_counter() - start
    return seconds


def installed_size() -> str:
    """``du -sh`` of the numba and llvmlite package folders."""
    import llvmlite

    sizes = []
    for module in (numba, llvmlite):
        folder = Path(module.__file__).resolve().parent
        done = subprocess.run(["du", "-sh", str(folder)], capture_output=True, text=True,
                              check=False)
        sizes.append(f"{module.__name__} {module.__version__}: "
                     f"{(done.stdout.split() or ['?'])[0]}")
    return ", ".join(sizes)


def timed_calls(y_true, y_score, group, args) -> list[tuple[str, str, int | None, object]]:
    """``(name, clock, threads, call)``; CPU-timed calls first, the threaded ones last."""

    def with_sort(function, call):
        def run():
            with patched_sort(function):
                return call()

        return run

    def ndcg():
        return srm.ndcg_score(y_true, y_score, group, k=10)

    def evaluate():
        return srm.evaluate(y_true, y_score, group, metrics=TEN_METRICS)

    calls = [
        ("np.argsort(y_score)", "cpu", None, lambda: np.argsort(y_score)),
        ("NumPy sort", "cpu", None, lambda: sort_by_query_then_score(*args)),
        ("compiled sort, 1 thread", "cpu", None,
         lambda: sort_by_query_then_score_compiled(*args)),
        ("ndcg@10, NumPy sort", "cpu", None, ndcg),
        ("ndcg@10, compiled sort", "cpu", None,
         with_sort(sort_by_query_then_score_compiled, ndcg)),
        ("evaluate (10 metrics), NumPy sort", "cpu", None, evaluate),
        ("evaluate (10 metrics), compiled sort", "cpu", None,
         with_sort(sort_by_query_then_score_compiled, evaluate)),
        ("np.argsort(y_score), wall", "wall", None, lambda: np.argsort(y_score)),
    ]
    calls += [(f"compiled sort, parallel, {count} thread{'s' * (count > 1)}, wall", "wall",
               count, lambda: sort_by_query_then_score_parallel(*args))
              for count in thread_counts()]
    return calls


def time_shapes(shapes: list[Shape], rounds: int) -> dict[Shape, dict[str, list[float]]]:
    """Seconds of every call in every round, and each as a multiple of the argsort."""
    prepared = {}
    for shape in shapes:
        y_true, y_score, group = make_data(shape)
        args = sort_inputs(y_true, y_score, group)
        calls = timed_calls(y_true, y_score, group, args)
        for _, _, threads, call in calls:  # warm-up: compiles for these dtypes
            with numba_threads(threads) if threads else contextlib.nullcontext():
                call()
        prepared[shape] = calls
    results = {shape: {} for shape in shapes}
    for _ in range(rounds):
        for shape in shapes:
            time.sleep(SETTLE_SECONDS)
            this_round = {}
            for name, clock, threads, call in prepared[shape]:
                with numba_threads(threads) if threads else contextlib.nullcontext():
                    tick = time.process_time if clock == "cpu" else time.perf_counter
                    start = tick()
                    call()
                    this_round[name] = tick() - start
            for name, clock, _, _ in prepared[shape]:
                reference = this_round["np.argsort(y_score)" + (", wall" * (clock == "wall"))]
                results[shape].setdefault(name, []).append(this_round[name])
                results[shape].setdefault(name + " ratio", []).append(
                    this_round[name] / reference
                )
    return results


def table(shapes: list[Shape], results: dict) -> list[str]:
    names = [name for name in results[shapes[0]] if not name.endswith(" ratio")]
    # the sorts together (one thread, then threads), then the public calls
    names.sort(key=lambda name: (name.startswith(("ndcg", "evaluate")), "wall" in name))
    lines = [
        "| call | " + " | ".join(f"{shape.ids}, {shape.scores}" for shape in shapes) + " |",
        "|---|" + "---|" * len(shapes),
    ]
    for name in names:
        cells = []
        for shape in shapes:
            ms = np.median(results[shape][name]) * 1e3
            ratio = np.median(results[shape][name + " ratio"])
            cells.append(f"{ms:.1f} ({ratio:.2f}×)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def command_line() -> str:
    limit = os.environ.get("NPY_DISABLE_CPU_FEATURES")
    prefix = f'NPY_DISABLE_CPU_FEATURES="{limit}" ' if limit else ""
    return f"{prefix}python benchmarks/bench_compiled.py {' '.join(sys.argv[1:])}".rstrip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="run the checks only")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    load_before = os.getloadavg()
    started = time.time()
    compile_times = compile_seconds()  # first: nothing compiled yet
    lines = ["# A compiled (numba) sort by query and score", "",
             *machine_lines(f"numba {numba.__version__}"),
             f"- numba threading layer: {numba.threading_layer()}, "
             f"{numba.config.NUMBA_NUM_THREADS} threads available", ""]
    lines += run_checks(CHECK_ROWS)
    if not args.check:
        shapes = [Shape(args.rows, ids, kind, "int")
                  for ids in ("shuffled", "contiguous") for kind in TIMED_SCORES]
        results = time_shapes(shapes, args.rounds)
        lines += [
            "",
            f"Command: `{command_line()}`. {args.rows:,} rows, queries of about "
            f"{ROWS_PER_QUERY} rows, int labels. ms, median of {args.rounds} interleaved "
            "rounds, and (in brackets) the median multiple of one `np.argsort` of the same "
            "scores in the same round on the same clock: CPU time of this process for the "
            "rows without \"wall\", wall time for those with it. The sort rows time the "
            "sort alone, its inputs prepared as `rank_groups` passes them.",
            "",
            *table(shapes, results),
        ]
    load_after = os.getloadavg()
    lines += [
        "",
        "JIT compile time (first calls, shuffled then contiguous ids, excluded from the "
        "timed rounds): " + ", ".join(f"{name} {seconds:.1f} s"
                                        for name, seconds in compile_times.items())
        + f". Installed size: {installed_size()}.",
        f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
        f"after: {', '.join(f'{x:.2f}' for x in load_after)}. Run took "
        f"{time.time() - started:.0f} s.",
    ]
    report = "\n".join(lines) + "\n"
    if args.output:
        args.output.write_text(report)
    print(report)


if __name__ == "__main__":
    main()
