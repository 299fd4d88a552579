"""The command line of ``bench_peers.py``: parse, time, measure memory, write the report."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from machine import DISABLE_VARIABLE, DISPATCH_LEVELS, dispatch_level, limited_environment

from . import BENCHMARKS, SCRIPT
from .data import SERIES
from .impls import IMPL_BY_KEY
from .memory import Memory, measure_memory, memory_cases, memory_child
from .report import Report
from .timing import FULL, QUICK, Bench

Log = Callable[[str], None]


def parser(description: str) -> argparse.ArgumentParser:
    """The options of ``bench_peers.py`` (its docstring as the description)."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes only (about 1 min)")
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="Markdown report (default: benchmarks/RESULTS-<dispatch level>.md; --quick "
        "writes none)",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory table")
    parser.add_argument(
        "--limit-dispatch",
        choices=DISPATCH_LEVELS[:-1],
        help="re-execute with NPY_DISABLE_CPU_FEATURES set so that NumPy dispatches no "
        "higher than this level (nothing to do if it dispatches no higher already)",
    )
    parser.add_argument(
        "--no-avx2-rerun",
        action="store_true",
        help="where NumPy dispatches to AVX-512, do not rerun the full run limited to AVX2",
    )
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    return parser


def main(description: str) -> None:
    """Parse the command line, run the timings and the memory cases, write the report."""
    args = parser(description).parse_args()
    if args.memory_child:
        print(json.dumps(memory_child(json.loads(args.memory_child))))
        return
    if args.limit_dispatch:
        limit_dispatch(args.limit_dispatch)
    warnings.simplefilter("ignore")
    started = datetime.datetime.now(datetime.timezone.utc)
    load_before = os.getloadavg()[0]
    clock = time.perf_counter()

    def log(line: str) -> None:
        print(f"[{time.perf_counter() - clock:6.0f} s] {line}", flush=True)

    bench = run_timings(args.quick, log)
    memory = [] if args.no_memory else run_memory(bench, args.quick, log)
    runtime = time.perf_counter() - clock
    command = "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])
    report = Report(bench, memory)
    load = f"{load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    text = report.markdown(command, started, runtime, load)
    print(text)
    level = dispatch_level()
    output = args.output
    if output is None and not args.quick:
        output = BENCHMARKS / f"RESULTS-{level}.md"
    if output is not None:
        output.write_text(text)
        log(f"wrote {output}")
    log(f"done in {runtime / 60:.1f} min ({runtime:.0f} s)")
    if level == "avx512" and not args.quick and not args.no_avx2_rerun:
        rerun_avx2(args, log)


def run_timings(quick: bool, log: Log) -> Bench:
    """The warm-up, then every series at every size of the plan, smallest sizes first."""
    plan = QUICK if quick else FULL
    sizes = plan.sizes
    level = dispatch_level()
    disabled = os.environ.get(DISABLE_VARIABLE)
    log(f"NumPy dispatch level {level}" + (f", {DISABLE_VARIABLE}={disabled}" if disabled else ""))
    bench = Bench(plan, log)
    log(f"imports of the peers: {bench.import_seconds:.1f} s")
    for key, reason in bench.missing.items():
        if reason:
            log(f"{IMPL_BY_KEY[key].label}: not available ({reason})")
    log("warming up (first calls, numba JIT of ranx)")
    bench.warm_up()
    log(f"warm-up: {bench.warm_up_seconds:.1f} s; the {plan.budget:.0f} s time budget starts now")
    for n_rows in sorted({n for values in sizes.values() for n in values}):
        for series in SERIES:
            if n_rows in sizes[series.key]:
                # value checks on tie-free data, above 1M rows on the base series only
                check = not series.tied and (n_rows <= 1_000_000 or series.key == "base")
                bench.run(series, n_rows, check=check)
    return bench


def run_memory(bench: Bench, quick: bool, log: Log) -> list[Memory]:
    """The memory cases, each in a fresh subprocess (a peer not installed: its reason)."""
    memory = []
    for case in memory_cases(quick):
        reason = bench.missing[case[0]]
        if reason:
            memory.append(Memory(*case, error=f"not installed ({reason})"))
            continue
        memory.append(measure_memory(case))
        last = memory[-1]
        peak = "?" if last.peak is None else f"{last.peak / last.n_rows:.1f} B/row"
        log(f"memory {case[0]} {case[1]} {case[2]} {case[3]:,}: {peak} {last.error}")
    return memory


def limit_dispatch(level: str) -> None:
    """Re-execute this script with NPY_DISABLE_CPU_FEATURES limiting NumPy to ``level``.

    NumPy reads the variable once, at import, so the limit needs a new process. Returns
    (and the run goes on) when NumPy dispatches no higher than ``level`` already.
    """
    env = limited_environment(level)
    if env is None:
        return
    if env[DISABLE_VARIABLE] == os.environ.get(DISABLE_VARIABLE):  # would loop for ever
        sys.exit(f"cannot limit NumPy's dispatch to {level}: {dispatch_level()} remains")
    print(f"{DISABLE_VARIABLE}={env[DISABLE_VARIABLE]}: re-executing", flush=True)
    os.execve(sys.executable, [sys.executable, *sys.argv], env)


def rerun_avx2(args: argparse.Namespace, log: Log) -> None:
    """The full run again in a subprocess, with NumPy limited to AVX2 (RESULTS-avx2.md)."""
    command = [sys.executable, str(SCRIPT), "--limit-dispatch", "avx2"]
    command += ["--no-avx2-rerun"] + (["--no-memory"] if args.no_memory else [])
    if args.output is not None:
        command += ["--output", str(args.output.with_stem(args.output.stem + "-avx2"))]
    log("rerun limited to AVX2: " + " ".join(command[1:]))
    done = subprocess.run(command, check=False)
    if done.returncode:
        log(f"the AVX2 rerun failed (exit {done.returncode})")
