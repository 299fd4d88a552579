"""``evaluate`` from polars, pyarrow, pandas-Arrow and DuckDB inputs against NumPy arrays.

Run: ``python benchmarks/bench_frames.py [--rows 10000000] [--queries 100000]
[--repeat 5] [--output benchmarks/FRAMES_RESULTS.md]`` (``--output -`` prints only).

The same rows (about 100 per query, labels 0-4 with half of them 0, float64 scores,
int64 query ids in random order) are built in each form, each form in a fresh
process, so that its memory is its own:

- *NumPy arrays*: ``evaluate(y_true, y_score, group)``, the reference;
- *polars Series*: the columns of a polars DataFrame passed as arrays;
- *polars DataFrame*: ``evaluate(RankingData.from_frame(frame, ...))``;
- *pyarrow Table*: the same from a pyarrow Table;
- *pandas, Arrow dtypes*: Series of ``float64[pyarrow]`` / ``int64[pyarrow]``;
- *DuckDB relation*: ``RankingData.from_frame`` of ``duckdb.sql("select ...")`` over the
  polars frame (DuckDB runs the query and hands the columns over: that is its cost).

Each cell is the median wall time of ``--repeat`` calls (after one warm-up call),
with its ratio to the NumPy median; *extra peak memory* is the largest resident set
(``VmHWM``, reset through ``/proc/self/clear_refs`` right before the calls) above the
resident set before them, so it counts what the calls allocate and not the data. On a
machine whose NumPy dispatches to AVX-512, every form runs again with
``NPY_DISABLE_CPU_FEATURES`` limiting it to the AVX2 kernels (a second table).
"""

from __future__ import annotations

import datetime
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from machine import DISABLE_VARIABLE, limited_environment, machine_lines  # benchmarks/machine.py
from options import option_parser  # benchmarks/options.py

METRICS = ["ndcg@10", "map", "mrr@10", "p@10", "recall@10", "gauc"]
FORMS = (
    "NumPy arrays", "polars Series", "polars DataFrame", "pyarrow Table",
    "pandas, Arrow dtypes", "DuckDB relation",
)
HERE = Path(__file__).resolve().parent


def make_arrays(n_rows: int, n_queries: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 5, n_rows).astype(np.float64)
    y_true[rng.random(n_rows) < 0.5] = 0.0
    return {
        "y_true": y_true,
        "y_score": y_true + rng.normal(0.0, 2.0, n_rows),
        "group": rng.integers(0, n_queries, n_rows).astype(np.int64),
    }


COLUMNS = {"y_true": "y_true", "y_score": "y_score", "group": "group"}


def numpy_call(arrays: dict[str, np.ndarray]):
    from sklearn_rank_metrics import evaluate

    return lambda: evaluate(arrays["y_true"], arrays["y_score"], arrays["group"],
                            metrics=METRICS)


def pandas_arrow_call(arrays: dict[str, np.ndarray]):
    import pandas as pd

    from sklearn_rank_metrics import evaluate

    series = {name: pd.Series(values, dtype=f"{values.dtype}[pyarrow]")
              for name, values in arrays.items()}
    return lambda: evaluate(series["y_true"], series["y_score"], series["group"],
                            metrics=METRICS)


def polars_series_call(frame):
    from sklearn_rank_metrics import evaluate

    return lambda: evaluate(frame["y_true"], frame["y_score"], frame["group"],
                            metrics=METRICS)


def from_frame_call(frame):
    from sklearn_rank_metrics import RankingData, evaluate

    return lambda: evaluate(RankingData.from_frame(frame, **COLUMNS), metrics=METRICS)


def duckdb_call(frame):
    import duckdb

    from sklearn_rank_metrics import RankingData, evaluate

    connection = duckdb.connect()
    connection.register("rows", frame)
    return lambda: evaluate(
        RankingData.from_frame(connection.sql("select * from rows"), **COLUMNS),
        metrics=METRICS,
    )


def make_call(form: str, arrays: dict[str, np.ndarray]):
    """The data in ``form`` (built before timing, the arrays then released) and the
    call to time."""
    if form == "NumPy arrays":
        return numpy_call(arrays)
    if form == "pandas, Arrow dtypes":
        return pandas_arrow_call(arrays)
    import polars as pl

    frame = pl.DataFrame(arrays)
    arrays.clear()
    builders = {
        "polars Series": lambda: polars_series_call(frame),
        "polars DataFrame": lambda: from_frame_call(frame),
        "pyarrow Table": lambda: from_frame_call(frame.to_arrow()),
        "DuckDB relation": lambda: duckdb_call(frame),
    }
    return builders[form]()


def resident_kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith(field)))


def run_form(form: str, rows: int, queries: int, repeat: int) -> dict:
    """In this process: build ``form``, time ``repeat`` calls, measure their peak."""
    call = make_call(form, make_arrays(rows, queries))
    result = call()  # warm-up (imports, first-touch of pages)
    before = resident_kib("VmRSS:")
    Path("/proc/self/clear_refs").write_text("5")  # VmHWM := VmRSS
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - start)
    peak = resident_kib("VmHWM:")
    return {"seconds": seconds, "extra_peak_kib": peak - before,
            "values": {name: float(value) for name, value in result.items()}}


def versions() -> str:
    import importlib.metadata as metadata

    names = ("narwhals", "polars", "pyarrow", "pandas", "duckdb")
    return ", ".join(f"{name} {metadata.version(name)}" for name in names)


def table_lines(results: dict[str, dict]) -> list[str]:
    reference = results["NumPy arrays"]
    base = statistics.median(reference["seconds"])
    lines = [
        "| input | median s (min-max) | ratio to NumPy | extra peak memory | "
        "max abs difference |",
        "|---|---|---|---|---|",
    ]
    for form, result in results.items():
        median = statistics.median(result["seconds"])
        difference = max(abs(result["values"][name] - reference["values"][name])
                         for name in reference["values"])
        lines.append(
            f"| {form} | {median:.3f} ({min(result['seconds']):.3f}-"
            f"{max(result['seconds']):.3f}) | {median / base:.2f}x | "
            f"{result['extra_peak_kib'] / 1024:,.0f} MiB | {difference:.1e} |"
        )
    return lines


def report(tables: dict[str, dict[str, dict]], args, started: datetime.datetime) -> str:
    lines = [
        "# Benchmark: evaluate from frames and Arrow-backed columns against NumPy", "",
        "Generated by `benchmarks/bench_frames.py`; do not edit by hand.", "",
        f"- Command: `python benchmarks/bench_frames.py --rows {args.rows} "
        f"--queries {args.queries} --repeat {args.repeat}`",
        f"- Date: {started:%Y-%m-%d %H:%M} UTC",
        *machine_lines(versions()), "",
        f"{args.rows:,} rows, {args.queries:,} query ids, metrics {', '.join(METRICS)}; "
        f"median of {args.repeat} calls after a warm-up, each form in a fresh process. "
        "Ratio: to the NumPy median of the same table. Extra peak memory: the calls' "
        "highest resident set above the one before them (the data itself excluded). "
        "Max abs difference: against the NumPy values.",
    ]
    for title, results in tables.items():
        lines += ["", f"## {title}", "", *table_lines(results)]
    return "\n".join(lines) + "\n"


def run_forms(args, env: dict[str, str] | None) -> dict[str, dict]:
    results = {}
    for form in FORMS:
        done = subprocess.run(
            [sys.executable, __file__, "--form", form, "--rows", str(args.rows),
             "--queries", str(args.queries), "--repeat", str(args.repeat)],
            capture_output=True, text=True, check=True, env=env,
        )
        results[form] = json.loads(done.stdout)
        print(f"{form}: median {statistics.median(results[form]['seconds']):.3f} s",
              file=sys.stderr)
    return results


def main() -> None:
    parser = option_parser(__doc__, rows=10_000_000, queries=100_000, repeat=5,
                           output=str(HERE / "FRAMES_RESULTS.md"), form="")
    args = parser.parse_args()
    if args.form:  # the child process: one form, its result as JSON on stdout
        print(json.dumps(run_form(args.form, args.rows, args.queries, args.repeat)))
        return
    started = datetime.datetime.now(datetime.timezone.utc)
    tables = {"NumPy's dispatch on this machine": run_forms(args, None)}
    limited = limited_environment("avx2")  # None on a machine without AVX-512
    if limited is not None:
        title = f"{DISABLE_VARIABLE}=\"{limited[DISABLE_VARIABLE]}\" (AVX2 kernels)"
        tables[title] = run_forms(args, limited)
    text = report(tables, args, started)
    print(text)
    if args.output != "-":
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
