"""Time ``read_trec`` on a generated TREC run and qrels, by reader, with peak memory.

The files are those of issue 46: a run of ``--queries`` x ``--depth`` lines (1,000 x
1,000 by default) with ``clueweb09-enNNNN-NNNNN`` docnos and scores rounded to 3
decimals, and qrels judging about 300 documents a query (200 retrieved, 100 not), with
labels 0, 1 and 2. They are written to a temporary folder from a seeded generator.

Timed (medians of ``--repeats``, wall and CPU seconds of this process):

- ``read_trec`` as shipped: the NumPy reader (``_trec._fast_trec_file``);
- ``read_trec`` with the NumPy reader switched off: pandas' C parser, the reader
  before it (``--plain`` adds the plain Python reader too: slow);
- peak resident memory (``VmHWM``) of a fresh interpreter that imports the package
  and reads two dicts (which imports scikit-learn, and pandas and pyarrow when
  installed), then the files; the difference is what reading the files costs.

``--trec-eval PATH`` also times a trec_eval binary on the same files (``-c -m map -m
ndcg_cut.10 -m P.10 -m recip_rank -m bpref``), for scale. Prints the machine first.

    python benchmarks/bench_trec_read.py [--queries 1000] [--depth 1000] [--repeats 3]
        [--trec-eval PATH] [--plain 0]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py
from trec_files import write_trec_files

from sklearn_rank_metrics import read_trec
from sklearn_rank_metrics._io import _trec

# VmHWM, not ru_maxrss: Linux carries the parent's peak over into a child's ru_maxrss
PEAK = """
import sys, time
def peak():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
from sklearn_rank_metrics import read_trec
read_trec({"q": {"d": 1}}, {"q": {"d": 1.0}})  # its lazy imports: scikit-learn, ...
imported = peak()
start = time.perf_counter()
data = read_trec(sys.argv[1], sys.argv[2])
print(imported, peak(), time.perf_counter() - start)
"""


def peak_memory(qrels: Path, run: Path) -> tuple[float, float, float]:
    """MiB after the import, MiB at the peak after reading, and the read's wall time."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(qrels), str(run)],
        capture_output=True, text=True, check=True, env=dict(os.environ),
    )
    imported, peak, seconds = done.stdout.split()
    return int(imported) / 1024, int(peak) / 1024, float(seconds)


def time_calls(calls: dict, repeats: int) -> dict[str, tuple[float, float]]:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return {
        name: (statistics.median(w for w, _ in values), statistics.median(c for _, c in values))
        for name, values in times.items()
    }


def without_numpy_reader(qrels: Path, run: Path, plain: bool) -> object:
    fast, pandas = _trec._fast_trec_file, sys.modules.get("pandas")
    _trec._fast_trec_file = lambda data, name, kind: None
    if plain:
        sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        return read_trec(qrels, run)
    finally:
        _trec._fast_trec_file = fast
        if plain:
            sys.modules["pandas"] = pandas  # type: ignore[assignment]


def main() -> None:
    description = __doc__.splitlines()[0]
    parser = option_parser(description, queries=1000, depth=1000, repeats=3, plain=0)
    parser.add_argument("--trec-eval", default=None, help="a trec_eval binary to time too")
    args = parser.parse_args()
    print("\n".join(machine_lines()))
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = write_trec_files(Path(folder), args.queries, args.depth,
                                       n_judged=args.depth * 3 // 10)
        sizes = {path.name: path.stat().st_size / 2**20 for path in (qrels, run)}
        lines = {path.name: sum(1 for _ in open(path, "rb")) for path in (qrels, run)}
        print(
            f"run: {lines['run.txt']:,} lines ({sizes['run.txt']:.1f} MiB); qrels: "
            f"{lines['qrels.txt']:,} lines ({sizes['qrels.txt']:.1f} MiB); "
            f"median of {args.repeats}"
        )
        fast = read_trec(qrels, run)
        before = without_numpy_reader(qrels, run, plain=False)
        for name in ("y_true", "y_score", "group", "doc_id", "judged", "run_position"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(before, name))
        calls = {
            "read_trec (NumPy reader)": lambda: read_trec(qrels, run),
            "read_trec (pandas reader, before)": lambda: without_numpy_reader(
                qrels, run, plain=False
            ),
        }
        if args.plain:
            calls["read_trec (plain reader)"] = lambda: without_numpy_reader(
                qrels, run, plain=True
            )
        for name, (wall, cpu) in time_calls(calls, args.repeats).items():
            print(f"  {name:<40s} wall {wall:6.2f} s   cpu {cpu:6.2f} s")
        imported, peak, seconds = peak_memory(qrels, run)
        print(
            f"  fresh interpreter: imports {imported:.0f} MiB, peak after read_trec "
            f"{peak:.0f} MiB (+{peak - imported:.0f} MiB; files {sum(sizes.values()):.0f} "
            f"MiB), first read_trec {seconds:.2f} s"
        )
        if args.trec_eval:
            command = [args.trec_eval, "-c", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10",
                       "-m", "recip_rank", "-m", "bpref", str(qrels), str(run)]
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            wall = time.perf_counter() - start
            means = {line.split()[0]: line.split()[2] for line in done.stdout.splitlines()}
            print(f"  trec_eval (whole evaluation) wall {wall:6.2f} s   {json.dumps(means)}")


if __name__ == "__main__":
    main()
