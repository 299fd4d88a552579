"""What the ``partitioned_by_query=True`` check costs, against the whole call.

Run: ``python benchmarks/bench_partition_check.py [--rows 10000000] [--queries 100000]
[--files 8] [--repeat 3] [--engine dask|spark|both]``

Writes Parquet files whose every query sits in one file (query id modulo the number of
files: hash-like partitioning, so the partitions' id ranges overlap and only the exact
check can prove that no query is split), rows in random order within each file;
int64 query ids, labels 0-4, float64 scores. Then, for each engine, the median wall
time of:

- ``evaluate(df, METRICS, partitioned_by_query=True)``: the call, check included (each
  partition returns its distinct query ids with its sums, compared in the same job);
- the same work without the check (the call's own steps with the check left out):
  what the call cost before the check existed;
- the separate check that ``evaluate_per_query(..., partitioned_by_query=True)`` runs
  when called (one pass over the id column: each partition's distinct ids compared).

Dask runs on a ``LocalCluster`` of two single-thread worker processes, Spark on
``local[2]``; both read the same files. Prints one line per measurement.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
METRICS = ["ndcg@10", "map", "mrr@10", "p@10", "recall@10"]


def write_files(folder: Path, n_rows: int, n_queries: int, n_files: int) -> None:
    rng = np.random.default_rng(0)
    qid = rng.integers(0, n_queries, n_rows)
    label = rng.integers(0, 5, n_rows).astype(np.int8)
    label[rng.random(n_rows) < 0.5] = 0
    score = label + rng.normal(0.0, 2.0, n_rows)
    for part in range(n_files):
        rows = qid % n_files == part
        frame = pd.DataFrame({"qid": qid[rows], "label": label[rows], "score": score[rows]})
        frame.to_parquet(folder / f"part-{part:03d}.parquet", index=False)


def timed(functions: dict, repeat: int) -> dict[str, tuple[float, list[float], object]]:
    """Each function's median time over ``repeat`` rounds, the functions taking turns
    within each round (a machine whose load changes affects them alike)."""
    seconds: dict[str, list[float]] = {name: [] for name in functions}
    results: dict[str, object] = {}
    for _ in range(repeat):
        for name, function in functions.items():
            started = time.perf_counter()
            results[name] = function()
            seconds[name].append(time.perf_counter() - started)
    return {
        name: (statistics.median(runs), runs, results[name]) for name, runs in seconds.items()
    }


def same(got: dict, expected: dict) -> bool:
    return got.keys() == expected.keys() and all(
        abs(got[name] - expected[name]) <= 1e-12 for name in expected
    )


def report(engine: str, name: str, median: float, runs: list[float], total: float) -> None:
    shown = ", ".join(f"{value:.2f}" for value in runs)
    print(f"{engine:6s} {name:28s} {median:7.2f} s  ({shown})  {median / total:6.1%} of the call")


def bench_dask(folder: Path, repeat: int) -> None:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from sklearn_rank_metrics import dask as rank_dask
    from sklearn_rank_metrics._distributed import _dask
    from sklearn_rank_metrics._distributed._call import distributed_call

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        as cluster,
        Client(cluster),
    ):
        ddf = dd.read_parquet(str(folder))
        args = {"y_true": "label", "y_score": "score", "group": "qid"}

        def call():
            return rank_dask.evaluate(ddf, METRICS, partitioned_by_query=True, **args)

        def unchecked():  # evaluate's steps, without the lists of queries
            call = distributed_call(
                METRICS, **args, sample_weight=None, judged=None, convention=None, ties=None,
                replace_undefined_by=None, relevance_level=None, partitioned_by_query=True,
            )
            prepared, plan = _dask._prepared(ddf, call, check_now=False)
            return _dask._means(_dask._totals(prepared, plan, check=False).compute(), plan)

        expected = call()  # warm the workers (imports)
        assert same(unchecked(), expected)
        measured = timed(
            {
                "call, checked": call,
                "call, no check": unchecked,
                "separate check": lambda: _dask._shared_query(ddf, "qid", on_index=False),
            },
            repeat,
        )
        assert measured["separate check"][2] is None
        print(f"dask: {ddf.npartitions} partitions")
        total = measured["call, checked"][0]
        for name, (median, runs, _) in measured.items():
            report("dask", name, median, runs, total)


def bench_spark(folder: Path, repeat: int) -> None:
    import dataclasses

    from tests.support.spark import start_session

    spark = start_session()
    from sklearn_rank_metrics._distributed import _spark_layout, _spark_prepare, _spark_run
    from sklearn_rank_metrics._distributed._call import distributed_call
    from sklearn_rank_metrics.spark import evaluate

    df = spark.read.parquet(str(folder))
    args = {"y_true": "label", "y_score": "score", "group": "qid"}

    def call():
        return evaluate(df, METRICS, partitioned_by_query=True, **args)

    def unchecked():  # evaluate's steps, without the rows of query ids
        call = distributed_call(
            METRICS, **args, sample_weight=None, judged=None, convention=None, ties=None,
            replace_undefined_by=None, relevance_level=None, partitioned_by_query=True,
        )
        job = _spark_prepare.spark_job(df, call, check_now=False)
        return _spark_run.collect_means(dataclasses.replace(job, check_split=False))[0]

    expected = call()  # warm the JVM and the Python workers
    assert same(unchecked(), expected)
    measured = timed(
        {
            "call, checked": call,
            "call, no check": unchecked,
            "separate check": lambda: _spark_layout.shared_query(df, "qid"),
        },
        repeat,
    )
    assert measured["separate check"][2] is None
    print(f"spark: {df.rdd.getNumPartitions()} partitions")
    total = measured["call, checked"][0]
    for name, (median, runs, _) in measured.items():
        report("spark", name, median, runs, total)
    spark.stop()


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engine", choices=["dask", "spark", "both"], default="both")
    options = parser.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write_files(folder, options.rows, options.queries, options.files)
        print(
            f"{options.rows:,} rows, {options.queries:,} queries, {options.files} files; "
            f"{os.cpu_count()} CPUs; median of {options.repeat} interleaved rounds"
        )
        if options.engine in ("dask", "both"):
            bench_dask(folder, options.repeat)
        if options.engine in ("spark", "both"):
            bench_spark(folder, options.repeat)


if __name__ == "__main__":
    main()
