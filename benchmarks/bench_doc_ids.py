"""String document ids against integer codes: what ordering tied rows by id costs.

A tool that orders tied rows by document id (trec_eval: docno descending; ir_measures:
ascending for some measures, the run's order for RBP) needs the ids' text order.
The issue's target: ``evaluate`` with string ``doc_id`` costs at most 1.3x the same
call with the same ids as integer codes (which are ordered as their decimal text,
trec_eval's ``strcmp``, so they are not free either).

Rows: ``--queries`` x ``--docs`` (default 1,000 x 1,000 = 1M), one clueweb09-style
docno per row (``clueweb09-en0012-34567``, all distinct), labels 0-2 (the relevant rows
and ~30% of the others judged), query ids as ints. Scores:

- ``realistic``: uniform in [0, 10) rounded to 3 decimals (as a TREC run prints
  them): ~5% of the rows tied with another;
- ``heavily tied``: 5 distinct values per query, every row tied.

Each case runs ``evaluate(y_true, y_score, group, doc_id=ids, convention=...)`` with
map, ndcg@10, P@10, RR and bpref (trec_eval, pytrec_eval and ir_measures'
conventions), and one metric function, ``ndcg_score(RankingData(..., doc_id=ids),
k=10, convention="trec_eval")`` (a metric function takes document ids with the rows
passed whole), ``ids`` once as the str docnos (object array) and once
as int64 codes of the same ids; medians of ``--repeats`` calls, alternating, of the
wall time and of the CPU time (steadier on a machine shared with other work).
Then ``read_trec`` + ``evaluate(data)`` on generated files of the same shape (1M run
lines, 300 qrels a query), the issue's reproduction: the evaluate alone is timed.

``--pandas import`` imports pandas first, as a session that uses it has (the str
check then takes pandas' C pass); ``--pandas hide`` hides it (as if not installed);
by default (``as-is``) nothing imports it before the TREC files part.

    python benchmarks/bench_doc_ids.py [--queries 1000] [--docs 1000] [--repeats 3]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

PANDAS = sys.argv[sys.argv.index("--pandas") + 1] if "--pandas" in sys.argv else "as-is"
if PANDAS == "hide":
    sys.modules["pandas"] = None  # type: ignore[assignment]  # as if not installed
elif PANDAS == "import":
    import pandas  # noqa: F401  # as in a session that uses pandas

import numpy as np  # noqa: E402
from machine import machine_lines  # noqa: E402
from options import option_parser  # noqa: E402  # benchmarks/options.py
from trec_files import docnos, write_trec_files  # noqa: E402

import sklearn_rank_metrics as srm  # noqa: E402

METRICS = ["map", "ndcg@10", "P@10", "RR", "bpref"]
TREC_METRICS = ["map", "ndcg_cut_10", "P_10", "recip_rank", "bpref"]


def rows(n_queries: int, n_docs: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    n = n_queries * n_docs
    numbers = rng.choice(10**8, n, replace=False)
    y_true = rng.choice([0, 0, 0, 0, 1, 2], n).astype(float)
    return {
        "group": np.repeat(np.arange(n_queries), n_docs),
        "y_true": y_true,
        "judged": (y_true > 0) | (rng.random(n) < 0.3),
        "str": docnos(numbers).astype(object),
        "int": numbers.astype(np.int64),
        "realistic": np.round(rng.random(n) * 10, 3),
        "heavily tied": rng.integers(0, 5, n).astype(float),
    }


def median_time(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def alternating(calls: dict, repeats: int) -> tuple[dict, dict]:
    """The median wall and CPU (process) time of each call, the calls taking turns (a
    machine shared with other work slows both alike; the CPU time does not count
    the waits for a core)."""
    wall: dict = {name: [] for name in calls}
    cpu: dict = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    return (
        {name: statistics.median(values) for name, values in wall.items()},
        {name: statistics.median(values) for name, values in cpu.items()},
    )


def main() -> None:
    args = option_parser(
        __doc__, queries=1000, docs=1000, repeats=3, pandas="as-is"
    ).parse_args()
    print("\n".join(machine_lines()))
    print(f"- pandas: {args.pandas} (imported: {sys.modules.get('pandas') is not None})")
    print()
    data = rows(args.queries, args.docs)
    n = len(data["group"])
    print(f"{n:,} rows ({args.queries} queries x {args.docs}), medians of {args.repeats}")
    print()
    print("| scores | convention | str ids (s) | int codes (s) | str / int | str / int (CPU) |")
    print("|---|---|---|---|---|---|")
    for ties in ("realistic", "heavily tied"):
        for convention in ("trec_eval", "pytrec_eval", "ir_measures", "ndcg_score"):
            calls = {}
            for kind in ("str", "int"):
                if convention == "ndcg_score":
                    ranking = srm.RankingData(
                        y_true=data["y_true"], y_score=data[ties], group=data["group"],
                        doc_id=data[kind],
                    )

                    def call(ranking=ranking):
                        srm.ndcg_score(ranking, k=10, convention="trec_eval")
                else:
                    def call(kind=kind, ties=ties, convention=convention):
                        srm.evaluate(
                            data["y_true"], data[ties], data["group"], metrics=METRICS,
                            judged=data["judged"], doc_id=data[kind], convention=convention,
                        )
                call()  # warm
                calls[kind] = call
            timed, cpu = alternating(calls, args.repeats)
            print(
                f"| {ties} | {convention} | {timed['str']:.3f} | {timed['int']:.3f} | "
                f"{timed['str'] / timed['int']:.2f} | {cpu['str'] / cpu['int']:.2f} |"
            )
    print()
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = write_trec_files(Path(folder), args.queries, args.docs, n_judged=300)
        start = time.perf_counter()
        trec = srm.read_trec(qrels, run)
        read_time = time.perf_counter() - start
        evaluate_time = median_time(
            lambda: srm.evaluate(trec, metrics=TREC_METRICS), args.repeats
        )
    print(
        f"TREC files ({len(trec.y_true):,} rows): read_trec {read_time:.2f} s, "
        f"evaluate(data) (trec_eval's convention) {evaluate_time:.3f} s"
    )


if __name__ == "__main__":
    main()
