"""Cost of one evaluation of our metrics inside LightGBM and XGBoost, against their own.

One validation set of ``--rows`` rows (queries of 10 rows, graded labels, random
scores) is evaluated the way each booster does at every boosting round:

* LightGBM: its built-in ``ndcg@10`` (``Booster.eval_valid`` on a booster whose init
  score is the scores) against ``make_lightgbm_metric("ndcg@10")`` called as ``feval``
  on the same dataset, and against ``"err@10"``;
* XGBoost: its built-in ``ndcg@10`` (``Booster.eval`` of zero rounds with the scores as
  base margin) against ``make_xgboost_metric("ndcg@10")`` as ``custom_metric``.

Each is timed as the best of ``--repeats`` runs; the report prints the machine and the
ratios (ours / built-in). Run: ``python bench_booster_metrics.py --rows 1000000``.
"""

from __future__ import annotations

import time

import numpy as np
from machine import machine_lines
from options import option_parser  # benchmarks/options.py


def best_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = option_parser(__doc__.splitlines()[0], rows=1_000_000, repeats=5)
    args = parser.parse_args()

    import lightgbm as lgb
    import xgboost as xgb

    from sklearn_rank_metrics import make_lightgbm_metric, make_xgboost_metric

    rng = np.random.default_rng(0)
    n_queries = args.rows // 10
    sizes = np.full(n_queries, 10)
    y = rng.choice(5, size=args.rows, p=[0.5, 0.2, 0.15, 0.1, 0.05]).astype(float)
    scores = rng.random(args.rows)
    features = np.zeros((args.rows, 1))

    results = []
    # LightGBM: the built-in metric of a booster whose scores are the init score
    dataset = lgb.Dataset(features, label=y, group=sizes, init_score=scores,
                          params={"verbose": -1, "num_threads": 1})  # fmt: skip
    booster = lgb.Booster(
        params={"objective": "none", "metric": "ndcg", "eval_at": [10], "verbose": -1,
                "num_threads": 1},
        train_set=dataset,
    )  # fmt: skip
    builtin = best_time(booster.eval_train, args.repeats)
    results.append(("LightGBM ndcg@10 (built-in)", builtin, 1.0))
    for name in ("ndcg@10", "err@10"):
        for convention in ("lightgbm", None):
            metric = make_lightgbm_metric(name, convention=convention)
            took = best_time(lambda metric=metric: metric(scores, dataset), args.repeats)
            label = f"LightGBM feval ours {name}, convention={convention}"
            results.append((label, took, took / builtin))

    # XGBoost: zero rounds, the scores as base margin
    dmatrix = xgb.DMatrix(features, label=y, qid=np.repeat(np.arange(n_queries), 10),
                          base_margin=scores, nthread=1)  # fmt: skip
    xgb_booster = xgb.train(
        {"objective": "rank:ndcg", "eval_metric": "ndcg@10", "nthread": 1}, dmatrix, 0
    )
    builtin = best_time(lambda: xgb_booster.eval(dmatrix), args.repeats)
    results.append(("XGBoost ndcg@10 (built-in)", builtin, 1.0))
    margin = xgb_booster.predict(dmatrix, output_margin=True)
    metric = make_xgboost_metric("ndcg@10", convention="xgboost")
    took = best_time(lambda: metric(margin, dmatrix), args.repeats)
    results.append(("XGBoost custom_metric ours ndcg@10, convention=xgboost", took, took / builtin))

    print("\n".join(machine_lines()))
    print(f"\n{args.rows:,} rows, {n_queries:,} queries; best of {args.repeats}; one thread\n")
    width = max(len(label) for label, _, _ in results)
    print(f"{'evaluation'.ljust(width)}  seconds  ours / built-in")
    for label, took, ratio in results:
        print(f"{label.ljust(width)}  {took:7.3f}  {ratio:15.2f}")


if __name__ == "__main__":
    main()
