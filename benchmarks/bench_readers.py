"""Time the file readers against what users run today, on generated files.

- TREC: a run of ``--queries`` x 100 lines and qrels judging 20 documents a query.
  Ours: ``read_trec(qrels, run)`` (parse both files, join them into flat rows in
  trec_eval's order). Peers: ``pytrec_eval.parse_qrel`` + ``parse_run`` (nested
  dicts, no join) and ranx ``Qrels.from_file`` + ``Run.from_file``.
- Table: the same rows as a CSV file. Ours: ``read_table``; lower bound:
  ``pandas.read_csv`` of the same three columns alone.
- LETOR: ``--letor-lines`` lines ``label qid:q 1:v ... 10:v`` (queries of 100 lines).
  Ours: ``read_letor``; lower bound: scikit-learn's ``load_svmlight_file`` with
  ``query_id=False`` (ours reads the query ids in a linear pass of its own, since
  ``query_id=True`` is quadratic in lines; it is timed too up to 200,000 lines).

Calls alternate (ours, peer, ours, ...); medians and ratios to ours are printed,
after the machine (CPU, NumPy and its SIMD dispatch).

    python benchmarks/bench_readers.py [--queries 10000] [--letor-lines 1000000] [--repeats 3]
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py

from sklearn_rank_metrics import read_letor, read_table, read_trec


def write_files(folder: Path, n_queries: int, seed: int = 0) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(seed)
    docs = 100
    query = np.repeat(np.arange(n_queries), docs)
    doc = np.tile(np.arange(docs), n_queries)
    score = rng.random(len(query))
    rank = np.tile(np.arange(1, docs + 1), n_queries)
    run = folder / "system.run"
    with open(run, "w") as handle:
        handle.writelines(
            f"q{q} Q0 d{q}_{d} {r} {s:.6f} system\n"
            for q, d, r, s in zip(
                query.tolist(), doc.tolist(), rank.tolist(), score.tolist(), strict=True
            )
        )
    judged = rng.random(len(query)) < 0.2
    label = rng.integers(0, 3, len(query))
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as handle:
        handle.writelines(
            f"q{q} 0 d{q}_{d} {g}\n"
            for q, d, g in zip(
                query[judged].tolist(), doc[judged].tolist(), label[judged].tolist(), strict=True
            )
        )
    table = folder / "scores.csv"
    with open(table, "w") as handle:
        handle.write("qid,label,score\n")
        handle.writelines(
            f"q{q},{g},{s!r}\n"
            for q, g, s in zip(
                query.tolist(), (label * judged).tolist(), score.tolist(), strict=True
            )
        )
    return qrels, run, table


def write_letor(folder: Path, n_lines: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    path = folder / "letor.txt"
    features = np.round(rng.random((n_lines, 10)), 4)
    label = rng.integers(0, 5, n_lines)
    query = np.arange(n_lines) // 100
    with open(path, "w") as handle:
        for start in range(0, n_lines, 100_000):
            stop = min(start + 100_000, n_lines)
            handle.writelines(
                f"{g} qid:{q} " + " ".join(f"{j}:{v}" for j, v in enumerate(row, start=1)) + "\n"
                for g, q, row in zip(
                    label[start:stop].tolist(), query[start:stop].tolist(),
                    features[start:stop].tolist(), strict=True,
                )
            )
    return path


def letor_calls(letor: Path, n_lines: int) -> dict:
    from sklearn.datasets import load_svmlight_file

    calls = {
        "read_letor (ours)": lambda: read_letor(letor),
        "load_svmlight_file(query_id=False) (lower bound)": lambda: load_svmlight_file(
            str(letor), query_id=False
        ),
    }
    if n_lines <= 200_000:
        calls["load_svmlight_file(query_id=True)"] = lambda: load_svmlight_file(
            str(letor), query_id=True
        )
    else:
        print("load_svmlight_file(query_id=True) skipped above 200,000 lines (quadratic)")
    return calls


def peers(qrels: Path, run: Path, table: Path) -> dict:
    import pandas as pd

    calls = {
        "read_trec (ours)": lambda: read_trec(qrels, run),
        "read_table (ours)": lambda: read_table(
            table, y_true="label", y_score="score", group="qid"
        ),
        "pandas.read_csv (lower bound)": lambda: pd.read_csv(table),
    }
    try:
        import pytrec_eval

        def pytrec() -> tuple:
            with open(qrels) as q, open(run) as r:
                return pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)

        calls["pytrec_eval.parse_qrel + parse_run"] = pytrec
    except ImportError:
        print("pytrec_eval not installed: skipped")
    try:
        from ranx import Qrels, Run

        calls["ranx Qrels.from_file + Run.from_file"] = lambda: (
            Qrels.from_file(str(qrels), kind="trec"),
            Run.from_file(str(run), kind="trec"),
        )
    except ImportError:
        print("ranx not installed: skipped")
    return calls


def main() -> None:
    description = __doc__.splitlines()[0]
    parser = option_parser(description, queries=10_000, letor_lines=1_000_000, repeats=3)
    args = parser.parse_args()
    print("\n".join(machine_lines()))
    with tempfile.TemporaryDirectory() as folder:
        qrels, run, table = write_files(Path(folder), args.queries)
        letor = write_letor(Path(folder), args.letor_lines)
        calls = {**peers(qrels, run, table), **letor_calls(letor, args.letor_lines)}
        for call in calls.values():  # warm-up: imports, numba
            call()
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(args.repeats):
            for name, call in calls.items():
                start = time.perf_counter()
                call()
                times[name].append(time.perf_counter() - start)
        paths = (qrels, run, table, letor)
        sizes = {path.name: path.stat().st_size / 2**20 for path in paths}
    n_lines = args.queries * 100
    print(
        f"{n_lines:,} run lines ({sizes['system.run']:.0f} MB), "
        f"{sizes['qrels.txt']:.1f} MB of qrels, CSV {sizes['scores.csv']:.0f} MB, "
        f"LETOR {args.letor_lines:,} lines ({sizes['letor.txt']:.0f} MB); "
        f"median of {args.repeats}"
    )
    ours = {"trec": statistics.median(times["read_trec (ours)"]),
            "table": statistics.median(times["read_table (ours)"]),
            "letor": statistics.median(times["read_letor (ours)"])}
    for name, values in times.items():
        median = statistics.median(values)
        if "csv" in name or "table" in name:
            base = ours["table"]
        elif "letor" in name or "svmlight" in name:
            base = ours["letor"]
        else:
            base = ours["trec"]
        print(f"  {name:<50s} {median:6.2f} s   ({median / base:.2f}x ours)")


if __name__ == "__main__":
    main()
