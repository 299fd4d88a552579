"""What a Spark user waits for: the session start, the first call, the calls after it.

Run: ``python benchmarks/bench_spark_first_call.py [--runs 3]``

Each run is a fresh Python process (a new JVM, new Python workers) that times, on a
``local[2]`` session (the test suite's settings, ``tests/support/spark.py``):

- *session*: ``SparkSession.builder...getOrCreate()``, pyspark's import included;
- *import*: ``import sklearn_rank_metrics.spark``;
- *first call* and *second call*: ``sklearn_rank_metrics.spark.evaluate`` of three
  metrics on six rows (``partitioned_by_query="auto"``: the range check's job, then
  the sums' job), each split into those two jobs.

A second kind of run first makes pyspark's own cheapest pandas UDF run (an identity
``mapInPandas``), which starts the Python workers, so that its first call shows what
is the package's (its imports in the workers, its two jobs) and what is any first
pandas UDF's. Prints each run and the medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

RUN = r"""
import json, os, sys, time, warnings
started = time.perf_counter()
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore", FutureWarning)  # pyspark's own, at session start
from tests.support.spark import start_session
spark = start_session()
session = time.perf_counter() - started
started = time.perf_counter()
import sklearn_rank_metrics._distributed._spark_prepare as prepare
import sklearn_rank_metrics._distributed._spark_run as run
import sklearn_rank_metrics.spark as rank_spark
imported = time.perf_counter() - started
df = spark.createDataFrame(
    [(1, 2, 0.9), (2, 0, 0.3), (1, 0, 0.8), (2, 1, 0.7), (1, 1, 0.1), (2, 0, 0.2)],
    ["qid", "label", "score"],
)
jobs = {}
def timed(name, function):
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            jobs[name] = time.perf_counter() - started
    return wrapper
prepare.query_ranges_are_disjoint = timed("ranges", prepare.query_ranges_are_disjoint)
run.collect_means = timed("sums", run.collect_means)
result = {"session": session, "import": imported}
if sys.argv[2] == "warm":
    started = time.perf_counter()
    df.mapInPandas(lambda batches: batches, df.schema).collect()
    result["identity UDF"] = time.perf_counter() - started
for call in ("first call", "second call"):
    started = time.perf_counter()
    rank_spark.evaluate(df, ["mrr", "p@1", "recall@2"], y_true="label", y_score="score",
                        group="qid")
    result[call] = time.perf_counter() - started
    result[call + ": ranges job"], result[call + ": sums job"] = jobs["ranges"], jobs["sums"]
print(json.dumps(result))
"""


def run(kind: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(HERE.parent), kind],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the start")
    for kind in ("cold", "warm"):
        runs = []
        for _ in range(options.runs):
            runs.append(run(kind))
            print(kind, json.dumps({name: round(value, 2) for name, value in runs[-1].items()}))
        medians = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
        shown = ", ".join(f"{name} {value:.2f} s" for name, value in medians.items())
        print(f"{kind} (median of {options.runs}): {shown}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
