"""Interpolated precision (``iprec``, ``11pt_avg``): ours against trec_eval (pytrec_eval).

One TREC-like collection of ``--rows`` rows (queries of ``--query-size`` retrieved
documents, about 10 % relevant, every document judged) is evaluated for the 11
``iprec_at_recall`` levels and ``11pt_avg``:

* pytrec_eval: ``RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"})`` on the
  dicts it needs, building them from the flat arrays included (what a user of flat
  arrays pays), and the ``evaluate`` call alone;
* ours: ``evaluate`` with the 12 names on the flat arrays, once with
  ``convention="trec_eval"`` and ``doc_id=`` (trec_eval's float32 scores and tie order
  by document id; the per-query values are asserted equal to pytrec_eval's) and once
  with ``ties="average"`` (the exact expectation over tie orders).

Two score sets: distinct scores, and scores rounded to 3 decimals (many small tied
blocks, as float32 scores of a tree model give). Each timing is the best of
``--repeats``; the report prints the machine and the ratios to pytrec_eval's
``evaluate`` call. Run: ``python benchmarks/bench_interpolated.py --rows 1000000``.
"""

from __future__ import annotations

import time

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py

LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")


def best_time(function, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def trec_dicts(y, score, group, doc):
    qrels, run = {}, {}
    for q, d, label, s in zip(
        group.tolist(), doc.tolist(), y.tolist(), score.tolist(), strict=True
    ):
        qrels.setdefault(q, {})[d] = int(label)
        run.setdefault(q, {})[d] = s
    return qrels, run


def time_one(label, y, score, group, doc, repeats):
    """The four timings of one score set (see the module docstring)."""
    import pytrec_eval

    from sklearn_rank_metrics import evaluate

    names = [f"iprec_at_recall_{level}" for level in LEVELS] + ["11pt_avg"]
    build, (qrels, run) = best_time(lambda: trec_dicts(y, score, group, doc), repeats)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall", "11pt_avg"})
    tool, per_query = best_time(lambda: evaluator.evaluate(run), repeats)
    fixed, ours = best_time(
        lambda: evaluate(
            y, score, group, metrics=names, convention="trec_eval", doc_id=doc, per_query=True
        ),
        repeats,
    )
    average, _ = best_time(lambda: evaluate(y, score, group, metrics=names), repeats)
    # trec_eval's order: the same per-query values
    for name in names:
        theirs = np.array([per_query[q][name] for q in np.asarray(ours["query"])])
        np.testing.assert_allclose(np.asarray(ours[name]), theirs, rtol=1e-12, atol=1e-15)
    codes = np.unique(group, return_inverse=True)[1]
    n_tied = len(y) - len(np.unique(np.c_[codes, score], axis=0))
    return [
        (label, "pytrec_eval: dicts from the arrays + evaluate", build + tool, tool),
        (label, "pytrec_eval: evaluate alone", tool, tool),
        (label, "ours: evaluate, convention='trec_eval', doc_id", fixed, tool),
        (label, f"ours: evaluate, ties='average' ({n_tied:,} rows tie)", average, tool),
    ]


def main() -> None:
    parser = option_parser(__doc__.splitlines()[0], rows=1_000_000, query_size=100, repeats=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    n_queries = args.rows // args.query_size
    n_rows = n_queries * args.query_size
    group = np.repeat(np.array([f"q{i}" for i in range(n_queries)]), args.query_size)
    doc = np.tile(np.array([f"d{i:05d}" for i in range(args.query_size)]), n_queries)
    y = (rng.random(n_rows) < 0.1).astype(float)
    results = []
    for label, score in (
        ("distinct scores", rng.random(n_rows) + 0.3 * y),
        ("scores rounded to 3 decimals", np.round(rng.random(n_rows) + 0.3 * y, 3)),
    ):
        results += time_one(label, y, score, group, doc, args.repeats)

    print("\n".join(machine_lines()))
    print(
        f"\n{n_rows:,} rows, {n_queries:,} queries of {args.query_size}; 11 iprec levels and "
        f"11pt_avg; best of {args.repeats}; one process\n"
    )
    width = max(len(a) + len(b) for a, b, _, _ in results) + 3
    print(f"{'data / evaluation'.ljust(width)}  seconds  / pytrec_eval evaluate")
    for data, what, took, reference in results:
        print(f"{(data + ' | ' + what).ljust(width)}  {took:7.3f}  {took / reference:20.2f}")


if __name__ == "__main__":
    main()
