"""sklearn_rank_metrics.spark.evaluate on a local Spark session, against the Dask backend
and the in-memory evaluate.

Run: ``python benchmarks/bench_spark.py [--rows 10000000] [--buckets 8] [--repeat 3]
[--output PATH]`` (quick check: ``--rows 200000 --repeat 1 --output -``, which prints
and writes nothing). Needs pyspark (Java 17 or 21), dask and distributed, psutil.

The data are ``bench_dask.py``'s (imported from it): Parquet files of about 100 rows per
query, labels 0-4, float64 scores, int64 query ids, in two layouts of the same rows,
*partitioned* (each file a contiguous range of query ids) and *scattered* (rows in
random order). For each layout:

- in memory: ``pandas.read_parquet`` + ``sklearn_rank_metrics.evaluate`` in a fresh
  process (its ``ru_maxrss``);
- Dask: ``bench_dask.run_dask`` on a ``LocalCluster`` of ``--workers`` processes;
- Spark: ``sklearn_rank_metrics.spark.evaluate(spark.read.parquet(...))`` on a
  ``local[2]`` session (``spark.driver.memory`` ``--driver-memory``; one file per
  input partition, so that the partitioned layout stays partitioned by query), after
  one warm-up call that starts the Python workers. Memory: peak RSS, sampled every
  20 ms with psutil, of the driver (this Python process), the JVM (driver and
  executors in one process in local mode) and the Python workers together.

Cluster estimate (on paper, not measured)
-----------------------------------------
Assumptions: ``n`` rows of numeric columns (int64 query id, float64 label and score,
optionally a float64 weight and an int64 row key for ``ties="input"``), ``Q`` queries,
``E`` executors with ``c`` cores each, ``B`` buckets (``buckets=`` or
``spark.sql.shuffle.partitions``), Spark's default LZ4 shuffle compression, no skew
(no query holds more than a small share of the rows).

- *Shuffle volume*: every row crosses the network once, as an UnsafeRow: an 8-byte
  null bitmap, 8 bytes per fixed-width column and the 8-byte bucket key, about
  40 bytes per row for query id, label and score (56 with a weight and the row key);
  compressed about 25-35 bytes. 10^9 rows: about 40 GB written to local disks and read
  back once, (E-1)/E of it over the network. Already partitioned data
  (``repartitionByRange`` by query, or files written by query): no shuffle, one extra
  read of the query id column for the ``"auto"`` check (or none with
  ``partitioned_by_query=True``).
- *Python side*: each bucket is one pandas frame in one worker, Arrow-converted
  (about 25 bytes per row for three numeric columns, twice that at the peak of
  the sort): with ``B`` about ``n / 10^6`` a worker holds about 50-100 MB at once; a
  worker per core, so ``E * c`` buckets run at once. The kernels ran at about
  3-6 million rows per second per core here (``RESULTS.md``, ``DASK_RESULTS.md``).
- *Driver*: one row of ``6 * runs * metrics`` doubles per bucket (a few KB in all);
  the per-query table (``evaluate_per_query``) stays distributed.
- *Estimate*: 10^9 rows, 100 executors of 4 cores, B = 1000 buckets of 10^6 rows: the
  shuffle writes and reads about 40 GB, at an aggregate 10 GB/s of disks and network
  4-10 s; each bucket's kernels take about 0.3 s (3 * 10^6 rows/s per core) and its
  Arrow conversion about as long, in 3 waves of 400 buckets: 2-3 s; Spark's overhead
  per task (tens of ms) is small beside it: 15-30 s in all, with reading the input,
  dominated by the input and the shuffle. A query larger than a bucket's memory
  would need more memory per worker: a query is never split.
"""

from __future__ import annotations

import datetime
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_dask import (  # benchmarks/bench_dask.py: the same data and reference
    METRICS,
    in_memory_seconds,
    median_run,
    mib,
    run_dask_layouts,
    run_in_memory,
    seconds_list,
    write_data,
)
from machine import machine_lines  # benchmarks/machine.py
from options import option_parser  # benchmarks/options.py

HERE = Path(__file__).resolve().parent


# --------------------------------------------------------------------------- memory


class PeakSampler:
    """Peak RSS of the driver, the JVM and the Python workers (their sum), every 20 ms."""

    def __init__(self, interval: float = 0.02) -> None:
        import psutil

        self._psutil = psutil
        self.driver = psutil.Process()
        self.interval = interval
        self.peaks = {"driver": 0, "jvm": 0, "workers": 0}
        self._running = False
        self._thread: threading.Thread | None = None

    def sample(self) -> dict[str, int]:
        """The RSS now: this process, its java child, and the Python processes under it."""
        now = {"driver": self.driver.memory_info().rss, "jvm": 0, "workers": 0}
        for child in self.driver.children():
            try:
                if "java" not in child.name():
                    continue
                now["jvm"] += child.memory_info().rss
                now["workers"] += sum(
                    process.memory_info().rss
                    for process in child.children(recursive=True)
                    if "python" in process.name()
                )
            except self._psutil.Error:  # a worker that ended while we looked
                continue
        return now

    def _run(self) -> None:
        while self._running:
            for key, value in self.sample().items():
                self.peaks[key] = max(self.peaks[key], value)
            time.sleep(self.interval)

    def start(self) -> dict[str, int]:
        baseline = self.sample()
        self.peaks = dict(baseline)
        self._running = True
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return baseline

    def stop(self) -> dict[str, int]:
        self._running = False
        if self._thread is not None:
            self._thread.join()
        return dict(self.peaks)


# --------------------------------------------------------------------------- spark


def start_spark(driver_memory: str, buckets: int):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("bench_spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(buckets))
        # one Parquet file per input partition: packed files would mix id ranges
        .config("spark.sql.files.openCostInBytes", str(2**30))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def run_spark(spark, path: Path, sampler: PeakSampler) -> dict:
    from sklearn_rank_metrics import spark as rank_spark
    from sklearn_rank_metrics._distributed._spark_layout import query_ranges_are_disjoint

    baseline = sampler.start()
    start = time.perf_counter()
    df = spark.read.parquet(str(path))
    result = rank_spark.evaluate(df, METRICS, group="qid")
    seconds = time.perf_counter() - start
    peaks = sampler.stop()
    checked = time.perf_counter()  # the "auto" check alone, for the report
    shuffled = not query_ranges_are_disjoint(df, "qid")
    check_seconds = time.perf_counter() - checked
    return {
        "seconds": seconds,
        "check_seconds": check_seconds,
        "shuffled": shuffled,
        "partitions": df.rdd.getNumPartitions(),
        "baseline_rss": baseline,
        "peak_rss": peaks,
        "result": result,
    }


def warm_up(spark) -> float:
    """One small call, so that the Python workers have started and imported the package."""
    from sklearn_rank_metrics import spark as rank_spark

    start = time.perf_counter()
    rows = [(query, float(query % 3), float(query % 7)) for query in range(100)]
    df = spark.createDataFrame(rows, ["qid", "y_true", "y_score"])
    rank_spark.evaluate(df, METRICS, group="qid")
    return time.perf_counter() - start


def spark_median(runs: list[dict]) -> dict:
    ordered = sorted(runs, key=lambda run: run["seconds"])
    merged = dict(ordered[len(ordered) // 2])
    merged["all_seconds"] = [run["seconds"] for run in runs]
    merged["peak_rss"] = {
        key: max(run["peak_rss"][key] for run in runs) for key in runs[0]["peak_rss"]
    }
    return merged


# --------------------------------------------------------------------------- report


def machine() -> list[str]:
    import dask
    import distributed
    import pandas as pd
    import pyarrow
    import pyspark

    return machine_lines(
        f"pandas {pd.__version__}, pyarrow {pyarrow.__version__}, pyspark {pyspark.__version__}, "
        f"dask {dask.__version__}, distributed {distributed.__version__}"
    )


def _difference(result: dict, reference: dict) -> str:
    return f"{max(abs(result[name] - reference[name]) for name in METRICS):.1e}"


def _rows(layout: str, result: dict, n_rows: int) -> list[str]:
    local, dask_run, spark_run = result["in_memory"], result["dask"], result["spark"]
    total = in_memory_seconds(local)
    dask_peaks = ", ".join(mib(peak) for peak in dask_run["peak_rss"])
    spark_peaks = spark_run["peak_rss"]
    dask_how = "shuffle" if dask_run["shuffled"] else "no shuffle"
    spark_how = (
        f"{spark_run['partitions']} input partitions, check {spark_run['check_seconds']:.1f} s, "
        + ("shuffle" if spark_run["shuffled"] else "no shuffle")
    )
    return [
        f"| {layout} | in memory (read {local['read']:.1f} s + evaluate "
        f"{local['evaluate']:.1f} s) | {total:.1f} ({seconds_list(local)}) | "
        f"{n_rows / total:,.0f} | {mib(local['peak_rss'])} (one process) | reference |",
        f"| {layout} | dask, {dask_run['partitions']} partitions, {dask_how} | "
        f"{dask_run['seconds']:.1f} ({seconds_list(dask_run)}) | "
        f"{n_rows / dask_run['seconds']:,.0f} | workers {dask_peaks} | "
        f"{_difference(dask_run['result'], local['result'])} |",
        f"| {layout} | spark local[2], {spark_how} | {spark_run['seconds']:.1f} "
        f"({seconds_list(spark_run)}) | {n_rows / spark_run['seconds']:,.0f} | "
        f"driver {mib(spark_peaks['driver'])}, JVM {mib(spark_peaks['jvm'])}, Python "
        f"workers {mib(spark_peaks['workers'])} (together) | "
        f"{_difference(spark_run['result'], local['result'])} |",
    ]


def report(args, facts, results, load, started, runtime, warm_seconds) -> str:
    lines = [
        "# Benchmark: sklearn_rank_metrics.spark on a local session, against Dask and "
        "in memory",
        "",
        "Generated by `benchmarks/bench_spark.py`; do not edit by hand.",
        "",
        f"- Command: `python benchmarks/bench_spark.py{args.command_suffix}`",
        f"- Date: {started:%Y-%m-%d %H:%M} UTC; runtime {runtime / 60:.1f} min; 1-minute load "
        f"average {load[0]:.2f} at the start, {load[1]:.2f} at the end",
        *machine(),
        f"- Data (bench_dask.py's): {facts['rows']:,} rows, {facts['queries']:,} queries, "
        f"{mib(facts['parquet_bytes'])} of Parquet per layout; "
        f"{facts['files_partitioned']} files partitioned by query, "
        f"{facts['files_scattered']} files with rows in random order",
        f"- Metrics: `{', '.join(METRICS)}`",
        f"- Spark: `local[2]`, `spark.driver.memory={args.driver_memory}`, "
        f"{args.buckets} buckets (`spark.sql.shuffle.partitions`), one file per input "
        f"partition; a warm-up call (Python workers starting) took {warm_seconds:.1f} s "
        "before the timed runs",
        f"- Dask: `LocalCluster(n_workers={args.workers}, threads_per_worker=1)`, workers "
        "restarted before each run",
        f"- Each case runs {args.repeat} times; the table shows the run with the median "
        "time, all times in brackets, and the highest peak memory of all runs. Memory: "
        "peak RSS sampled every 20 ms (psutil).",
        "",
        "| layout | how | wall s | rows/s | peak RSS | max abs difference |",
        "|---|---|---|---|---|---|",
    ]
    for layout, result in results.items():
        lines += _rows(layout, result, facts["rows"])
    lines += [
        "",
        'Dask and Spark wall times cover reading the Parquet files, the `"auto"` check, the '
        "shuffle when needed, the kernels and the sums.",
        "",
        "## Cluster estimate (on paper)",
        "",
        __doc__.split("-----------------------------------------\n", 1)[1].strip(),
    ]
    return "\n".join(lines) + "\n"


def parse_arguments():
    parser = option_parser(
        __doc__.split("\n\n")[0],
        rows=10_000_000,
        rows_per_query=100,
        files=40,
        workers=2,
        memory_limit="8GiB",
        buckets=8,
        driver_memory="2g",
        repeat=3,
        output=str(HERE / "SPARK_RESULTS.md"),
    )
    args = parser.parse_args()
    args.command_suffix = "".join(
        f" --{name.replace('_', '-')} {getattr(args, name)}"
        for name in ("rows", "rows_per_query", "files", "workers", "buckets", "repeat")
        if getattr(args, name) != parser.get_default(name)
    )
    return args


def run_spark_layouts(args, directory: Path, results: dict) -> float:
    spark = start_spark(args.driver_memory, args.buckets)
    try:
        warm_seconds = warm_up(spark)
        sampler = PeakSampler()
        for layout in results:
            runs = [run_spark(spark, directory / layout, sampler) for _ in range(args.repeat)]
            results[layout]["spark"] = spark_median(runs)
            print(f"{layout}, spark: {results[layout]['spark']}", flush=True)
    finally:
        spark.stop()
    return warm_seconds


def main() -> None:
    args = parse_arguments()
    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.perf_counter()
    load_start = os.getloadavg()[0]
    directory = Path(tempfile.mkdtemp(prefix="bench_spark_"))
    results: dict = {}
    try:
        facts = write_data(directory, args.rows, args.files, args.rows_per_query)
        print(f"data: {facts} in {time.perf_counter() - clock:.1f} s", flush=True)
        for layout in ("partitioned", "scattered"):
            runs = [run_in_memory(directory / layout) for _ in range(args.repeat)]
            results[layout] = {"in_memory": median_run(runs, in_memory_seconds)}
            print(f"{layout}, in memory: {results[layout]['in_memory']}", flush=True)
        run_dask_layouts(args, directory, results)
        warm_seconds = run_spark_layouts(args, directory, results)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    load = (load_start, os.getloadavg()[0])
    runtime = time.perf_counter() - clock
    text = report(args, facts, results, load, started, runtime, warm_seconds)
    print(text)
    if args.output != "-":
        Path(args.output).write_text(text)
        print(f"written to {args.output}")


if __name__ == "__main__":
    main()
