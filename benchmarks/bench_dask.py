"""sklearn_rank_metrics.dask.evaluate on a LocalCluster against the in-memory evaluate.

Run: ``python benchmarks/bench_dask.py [--rows 20000000] [--workers 2] [--repeat 3]
[--output PATH]``
(quick check: ``--rows 1000000 --output -``, which prints and writes nothing).

Writes Parquet files (about 100 rows per query, labels 0-4 with half of them 0,
float64 scores, int64 query ids) in a temporary directory, in two layouts of the same
rows:

- *partitioned*: each file holds a contiguous range of query ids (no query split), so
  ``partitioned_by_query="auto"`` proves it from the id ranges and skips the shuffle;
- *scattered*: the same rows in random order, split into files of equal size; every
  query is spread over the files, so ``"auto"`` shuffles by query.

For each layout: the wall time of ``sklearn_rank_metrics.dask.evaluate(ddf, metrics)``
from ``dd.read_parquet`` (reading included) on a ``distributed.LocalCluster`` of
worker processes with one thread each, and the peak resident memory (RSS, sampled
every 20 ms by a thread in each worker process with psutil) of every worker; the
workers are restarted before each run. Against it: the in-memory
``sklearn_rank_metrics.evaluate`` on the same files, in a fresh subprocess
(``pandas.read_parquet`` then ``evaluate``), with its peak RSS (``ru_maxrss``).
The two results are compared value by value.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from machine import machine_lines  # benchmarks/machine.py
from options import option_parser  # benchmarks/options.py

HERE = Path(__file__).resolve().parent
METRICS = ["ndcg@10", "map", "mrr@10", "p@10", "recall@10"]
GiB = 2**30


def median_run(runs: list[dict], seconds) -> dict:
    """The run with the median time, with every run's time and the highest peaks."""
    ordered = sorted(runs, key=seconds)
    merged = dict(ordered[len(ordered) // 2])
    merged["all_seconds"] = [seconds(run) for run in runs]
    if isinstance(merged["peak_rss"], list):  # per worker, highest first in each run
        for key, pick in (("peak_rss", max), ("baseline_rss", min)):
            ranked = [sorted(run[key], reverse=True) for run in runs]
            merged[key] = [pick(values) for values in zip(*ranked, strict=True)]
    else:
        merged["peak_rss"] = max(run["peak_rss"] for run in runs)
    return merged


def in_memory_seconds(run: dict) -> float:
    return run["read"] + run["evaluate"]


# --------------------------------------------------------------------------- data


def write_data(directory: Path, n_rows: int, n_files: int, rows_per_query: int) -> dict:
    """Write the partitioned and the scattered layout of the same rows; return facts."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n_queries = max(n_rows // rows_per_query, 1)
    qid = np.sort(rng.integers(0, n_queries, n_rows)).astype(np.int64)
    y_true = rng.integers(0, 5, n_rows).astype(np.int8)
    y_true[rng.random(n_rows) < 0.5] = 0
    y_score = y_true + rng.normal(0.0, 2.0, n_rows)
    # file boundaries at the first row of a query: no query is split
    wanted = np.linspace(0, n_rows, n_files + 1).astype(np.int64)[1:-1]
    cuts = np.unique(np.searchsorted(qid, qid[wanted], side="left"))
    bounds = [0, *cuts.tolist(), n_rows]
    for layout in ("partitioned", "scattered"):
        (directory / layout).mkdir()
    for index, (start, stop) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        part = pd.DataFrame(
            {"qid": qid[start:stop], "y_true": y_true[start:stop], "y_score": y_score[start:stop]}
        )
        part.to_parquet(directory / "partitioned" / f"part-{index:03d}.parquet", index=False)
    order = rng.permutation(n_rows)
    for index, rows in enumerate(np.array_split(order, n_files)):
        part = pd.DataFrame({"qid": qid[rows], "y_true": y_true[rows], "y_score": y_score[rows]})
        part.to_parquet(directory / "scattered" / f"part-{index:03d}.parquet", index=False)
    size = sum(path.stat().st_size for path in (directory / "scattered").iterdir())
    return {
        "rows": n_rows,
        "queries": int(len(np.unique(qid))),
        "files_partitioned": len(bounds) - 1,
        "files_scattered": n_files,
        "parquet_bytes": size,
    }


# --------------------------------------------------------------------------- in memory

IN_MEMORY_CHILD = """
import json, resource, sys, time
import pandas as pd
from sklearn_rank_metrics import evaluate
start = time.perf_counter()
frame = pd.read_parquet(sys.argv[1])
loaded = time.perf_counter()
result = evaluate(frame["y_true"], frame["y_score"], frame["qid"], metrics=json.loads(sys.argv[2]))
done = time.perf_counter()
print(json.dumps({"read": loaded - start, "evaluate": done - loaded, "result": result,
                  "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def run_in_memory(path: Path) -> dict:
    """Read and evaluate in a fresh process, so that its peak RSS is its own."""
    output = subprocess.run(
        [sys.executable, "-c", IN_MEMORY_CHILD, str(path), json.dumps(METRICS)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


# --------------------------------------------------------------------------- dask


def start_sampler(dask_worker=None, interval: float = 0.02) -> int:
    """Start a thread in the worker process that records its peak RSS (psutil)."""
    import threading

    import psutil

    process = psutil.Process()
    state = {"peak": process.memory_info().rss, "running": True}

    def sample() -> None:
        while state["running"]:
            state["peak"] = max(state["peak"], process.memory_info().rss)
            time.sleep(interval)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    dask_worker._bench_memory = (state, thread)
    return state["peak"]


def stop_sampler(dask_worker=None) -> int:
    state, thread = dask_worker._bench_memory
    state["running"] = False
    thread.join()
    return state["peak"]


def run_dask(client, path: Path) -> dict:
    import dask.dataframe as dd
    from dask.dataframe.dask_expr._shuffle import get_default_shuffle_method

    from sklearn_rank_metrics import dask as rank_dask

    client.restart()
    # import the package in the workers before timing
    client.run(lambda: bool(__import__("sklearn_rank_metrics.dask")))
    baseline = client.run(start_sampler)
    start = time.perf_counter()
    ddf = dd.read_parquet(str(path), columns=["qid", "y_true", "y_score"])
    result = rank_dask.evaluate(ddf, METRICS, group="qid")
    seconds = time.perf_counter() - start
    peaks = client.run(stop_sampler)
    # the "auto" check alone (it ran inside the timed call too), for the report
    checked = time.perf_counter()
    shuffled = not rank_dask._ranges_are_disjoint(ddf, "qid")
    check_seconds = time.perf_counter() - checked
    return {
        "seconds": seconds,
        "check_seconds": check_seconds,
        "shuffled": shuffled,
        "shuffle_method": get_default_shuffle_method() if shuffled else "-",
        "partitions": ddf.npartitions,
        "baseline_rss": list(baseline.values()),
        "peak_rss": list(peaks.values()),
        "result": result,
    }


# --------------------------------------------------------------------------- report


def machine() -> list[str]:
    import dask
    import distributed
    import pandas as pd
    import pyarrow

    return machine_lines(
        f"pandas {pd.__version__}, pyarrow {pyarrow.__version__}, dask {dask.__version__}, "
        f"distributed {distributed.__version__}"
    )


def seconds_list(result: dict) -> str:
    return ", ".join(f"{value:.1f}" for value in result["all_seconds"])


def mib(value: float) -> str:
    return f"{value / 2**20:,.0f} MiB"


def report(args, facts, results, load, started, runtime) -> str:
    rows = facts["rows"]
    lines = [
        "# Benchmark: sklearn_rank_metrics.dask on a LocalCluster",
        "",
        "Generated by `benchmarks/bench_dask.py`; do not edit by hand.",
        "",
        f"- Command: `python benchmarks/bench_dask.py{args.command_suffix}`",
        f"- Date: {started:%Y-%m-%d %H:%M} UTC; runtime {runtime / 60:.1f} min; 1-minute load "
        f"average {load[0]:.2f} at the start, {load[1]:.2f} at the end (the machine was "
        "shared with other work)",
        *machine(),
        f"- Data: {rows:,} rows, {facts['queries']:,} queries (about {args.rows_per_query} rows "
        f"each), labels 0-4 (int8, half 0), float64 scores, int64 query ids; "
        f"{mib(facts['parquet_bytes'])} of Parquet per layout; "
        f"{facts['files_partitioned']} files partitioned by query, "
        f"{facts['files_scattered']} files with rows in random order",
        f"- Metrics: `{', '.join(METRICS)}`",
        f"- Cluster: `LocalCluster(n_workers={args.workers}, threads_per_worker=1, "
        f"processes=True, memory_limit='{args.memory_limit}')`, workers restarted before "
        "each run",
        f"- Each case runs {args.repeat} times (layouts in turn: in memory, then Dask); the "
        "table shows the run with the median wall time, all times in brackets, and the "
        "highest peak memory of all runs.",
        "- Memory: peak RSS of each worker process, sampled every 20 ms by a thread in the "
        "worker (psutil); the baseline is the RSS after the restart and the package import. "
        "In memory: `ru_maxrss` of a fresh process that runs `pandas.read_parquet` and "
        "`evaluate`.",
        "",
        "| layout | how | wall s | rows/s | peak RSS per worker (baseline) | max abs difference |",
        "|---|---|---|---|---|---|",
    ]
    for layout, result in results.items():
        local, distributed_result = result["in_memory"], result["dask"]
        total = local["read"] + local["evaluate"]
        lines.append(
            f"| {layout} | in memory, one process: read {local['read']:.1f} s + evaluate "
            f"{local['evaluate']:.1f} s | {total:.1f} ({seconds_list(local)}) | "
            f"{rows / total:,.0f} "
            f"({rows / local['evaluate']:,.0f} evaluate only) | {mib(local['peak_rss'])} "
            "(one process) | reference |"
        )
        how = (
            f"dask, {distributed_result['partitions']} partitions, "
            f"check {distributed_result['check_seconds']:.1f} s, "
            + (
                f"shuffle ({distributed_result['shuffle_method']})"
                if distributed_result["shuffled"]
                else "no shuffle"
            )
        )
        peaks = ", ".join(
            f"{mib(peak)} ({mib(base)})"
            for peak, base in zip(
                distributed_result["peak_rss"], distributed_result["baseline_rss"], strict=True
            )
        )
        difference = max(
            abs(distributed_result["result"][name] - local["result"][name]) for name in METRICS
        )
        lines.append(
            f"| {layout} | {how} | {distributed_result['seconds']:.1f} "
            f"({seconds_list(distributed_result)}) | "
            f"{rows / distributed_result['seconds']:,.0f} | {peaks} | {difference:.1e} |"
        )
    lines += [
        "",
        'Dask wall time covers reading the Parquet files, the `"auto"` check (one read of '
        "the `qid` column; timed again alone afterwards for the table), the shuffle when "
        "needed, the per-partition kernels and the reduction. Both sides read the same files "
        "from the page cache.",
        "",
        "Means (in memory):",
        "",
    ]
    for layout, result in results.items():
        shown = ", ".join(
            f"{name} {value:.6f}" for name, value in result["in_memory"]["result"].items()
        )
        lines.append(f"- {layout}: {shown}")
    return "\n".join(lines) + "\n"


def run_dask_layouts(args, directory: Path, results: dict) -> None:
    """Time ``run_dask`` ``args.repeat`` times on every layout of ``results`` (its keys),
    on one ``LocalCluster`` of ``args.workers`` single-threaded worker processes."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=None,
            local_directory=str(directory / "worker-space"),
        ) as cluster,
        Client(cluster) as client,
    ):
        for layout in results:
            runs = [run_dask(client, directory / layout) for _ in range(args.repeat)]
            results[layout]["dask"] = median_run(runs, lambda run: run["seconds"])
            print(f"{layout}, dask: {results[layout]['dask']}", flush=True)


def main() -> None:
    parser = option_parser(
        __doc__,
        rows=20_000_000,
        rows_per_query=100,
        files=40,
        workers=2,
        memory_limit="8GiB",
        layouts="partitioned,scattered",
        repeat=3,
        output=str(HERE / "DASK_RESULTS.md"),
    )
    args = parser.parse_args()
    args.command_suffix = "".join(
        f" --{name.replace('_', '-')} {getattr(args, name)}"
        for name in (
            "rows",
            "rows_per_query",
            "files",
            "workers",
            "memory_limit",
            "layouts",
            "repeat",
        )
        if getattr(args, name) != parser.get_default(name)
    )
    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.perf_counter()
    load_start = os.getloadavg()[0]
    print(f"load average at start: {os.getloadavg()}", flush=True)
    directory = Path(tempfile.mkdtemp(prefix="bench_dask_"))
    results: dict = {}
    try:
        facts = write_data(directory, args.rows, args.files, args.rows_per_query)
        print(f"data: {facts} in {time.perf_counter() - clock:.1f} s", flush=True)
        layouts = args.layouts.split(",")
        for layout in layouts:
            runs = [run_in_memory(directory / layout) for _ in range(args.repeat)]
            results[layout] = {"in_memory": median_run(runs, in_memory_seconds)}
            print(f"{layout}, in memory: {results[layout]['in_memory']}", flush=True)
        run_dask_layouts(args, directory, results)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    load_end = os.getloadavg()[0]
    print(f"load average at end: {os.getloadavg()}", flush=True)
    text = report(
        args, facts, results, (load_start, load_end), started, time.perf_counter() - clock
    )
    print(text)
    if args.output != "-":
        Path(args.output).write_text(text)
        print(f"written to {args.output}")


if __name__ == "__main__":
    main()
